// The schema-less reader copies the dictionaries of objects whose keys repeat in the same order from the first one
// built, and fills them in by position. These tests hold that path to the key-by-key one: each resource read on its
// own (the first object of each shape, built key by key) must equal the same resource read after others of its
// shape.
import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Objects of repeated shapes")
struct ObjectTemplatesTests {
    /// Each resource as read alone, and as read in one document after all the others: both must be equal.
    private func readAloneAndTogether(_ resources: [String]) throws -> (alone: [ResourceObject], together: [ResourceObject]) {
        let alone = try resources.map { text in
            let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"data":\#(text)}"#.utf8))
            return try #require(document.data?.resources.first)
        }
        // Each resource twice: the second copy is read from a template for sure (its shape was seen just before).
        let both = resources.enumerated().flatMap { position, text in
            [text, text.replacingOccurrences(of: #""id":"\#(position)""#, with: #""id":"again\#(position)""#)]
        }
        let document = try JSONAPIDecoder().decode(
            RawDocument.self, from: Data(#"{"data":[\#(both.joined(separator: ","))]}"#.utf8))
        let together = try #require(document.data?.resources)
        #expect(together.count == 2 * resources.count)
        return (alone, stride(from: 1, to: together.count, by: 2).map { together[$0] })
    }

    private func resource(_ id: Int, attributes: String, relationships: String = "{}") -> String {
        #"{"type":"things","id":"\#(id)","attributes":\#(attributes),"relationships":\#(relationships)}"#
    }

    @Test("Repeated keys in the same order, other orders, subsets, supersets and value kinds read alike")
    func shapes() throws {
        let attributes = [
            #"{"title":"a","count":1,"tags":["x"],"nested":{"k":true}}"#,
            #"{"title":"b","count":2.5,"tags":[],"nested":null}"#,
            #"{"count":3,"title":"c","tags":["y","z"],"nested":{}}"#,  // another order
            #"{"title":"d","count":4}"#,  // a subset
            #"{"title":"e","count":5,"tags":null,"nested":1,"extra":"x"}"#,  // a superset
            #"{"title":"f","count":6,"tags":["w"],"other":{"k":false}}"#,  // one key different
            #"{}"#,
            #"{"title":"caf\u00e9 \"q\"","count":-0,"tags":[null],"nested":[1,{"a":2}]}"#,
        ]
        let resources = attributes.enumerated().map { resource($0.offset, attributes: $0.element) }
        let (alone, together) = try readAloneAndTogether(resources + resources.indices.map { position in
            resource(resources.count + position, attributes: attributes[position])
        })
        #expect(alone.count == together.count)
        for (single, templated) in zip(alone, together) {
            #expect(single.attributes == templated.attributes)
            #expect(single.relationships == templated.relationships)
        }
        // The values are each resource's own, not the first's of its shape.
        #expect(together[1].attributes?["title"] == "b")
        #expect(together[1].attributes?["nested"] == .null)
        #expect(together[2].attributes?["tags"] == ["y", "z"])
        #expect(together[7].attributes?["nested"] == [1, ["a": 2]])
    }

    @Test("Keys with escapes, longer than 15 bytes, or more than 16 read key by key, and alike")
    func unkeptShapes() throws {
        let many = (0..<17).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let attributes = [
            #"{"ti\u0074le":"escaped","count":1}"#,
            #"{"title":"plain","count":2}"#,
            #"{"a_key_longer_than_fifteen":"long","count":3}"#,
            "{\(many)}",
        ]
        let resources = attributes.enumerated().map { resource($0.offset, attributes: $0.element) }
        let (alone, together) = try readAloneAndTogether(resources)
        for (single, templated) in zip(alone, together) { #expect(single.attributes == templated.attributes) }
        #expect(together[0].attributes == ["title": "escaped", "count": 1])
        #expect(together[3].attributes?.count == 17)
        #expect(together[3].attributes?["k16"] == 16)
    }

    @Test("A repeated key never takes a shape's path: the last of it wins, before and after the shape is seen")
    func repeatedKeys() throws {
        let json = #"""
            {"data":[
              {"type":"t","id":"1","attributes":{"a":1,"b":2}},
              {"type":"t","id":"2","attributes":{"a":3,"a":4}},
              {"type":"t","id":"3","attributes":{"a":5,"b":6}},
              {"type":"t","id":"4","attributes":{"b":7,"b":8}}
            ]}
            """#
        let resources = try #require(try JSONAPIDecoder().decode(RawDocument.self, from: Data(json.utf8)).data?.resources)
        #expect(resources.map(\.attributes) == [["a": 1, "b": 2], ["a": 4], ["a": 5, "b": 6], ["b": 8]])
    }

    @Test("Relationships: linkage of every form, links and meta; @-members and extension members are still skipped")
    func relationships() throws {
        let relationships = [
            #"{"author":{"data":{"type":"people","id":"1"}},"comments":{"data":[{"type":"comments","id":"1"}]}}"#,
            #"{"author":{"data":null},"comments":{"data":[],"links":{"related":"/c"},"meta":{"n":0}}}"#,
            #"{"author":{"links":{"self":"/a"}},"@note":{"data":null}}"#,
            #"{"author":{"meta":{"m":1}},"ext:x":{"data":null}}"#,
            #"{"author":{"data":{"type":"people","id":"2","meta":{"i":1}}},"comments":{"data":[{"type":"comments","lid":"l"}]}}"#,
        ]
        let resources = relationships.enumerated().map { resource($0.offset, attributes: "{}", relationships: $0.element) }
        let (alone, together) = try readAloneAndTogether(resources)
        for (single, templated) in zip(alone, together) { #expect(single.relationships == templated.relationships) }
        #expect(together[2].relationships?.keys.sorted() == ["author"])
        #expect(together[3].relationships?.keys.sorted() == ["author"])
        #expect(together[1].relationships?["comments"]?.links?.related?.href == "/c")
        #expect(together[4].relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", id: "2", meta: ["i": 1])))
    }

    @Test("More shapes than are kept: every object still reads as itself")
    func manyShapes() throws {
        // 40 shapes (more than the 16 kept), each seen three times.
        let attributes = (0..<120).map { position in #"{"key\#(position % 40)":\#(position),"v":"\#(position)"}"# }
        let resources = attributes.enumerated().map { resource($0.offset, attributes: $0.element) }
        let (alone, together) = try readAloneAndTogether(resources)
        #expect(alone.map(\.attributes) == together.map(\.attributes))
        #expect(together[81].attributes == ["key1": 81, "v": "81"])
    }

    @Test("An invalid relationship in an object of a known shape is an error at its own pointer")
    func errorInTemplatedObject() {
        let json = #"""
            {"data":[
              {"type":"t","id":"1","relationships":{"author":{"data":null},"tags":{"data":[]}}},
              {"type":"t","id":"2","relationships":{"author":{"data":null},"tags":{"data":5}}}
            ]}
            """#
        let error = decodingError(PrimaryData.self, json)
        #expect(error?.pointer == "/data/1/relationships/tags/data")
    }
}
