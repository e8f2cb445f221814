// Tests that pin what the speed pieces keep and hand out, where reading the output alone cannot tell: which objects
// get a template (ObjectTemplates), and that the container pool tells a key type used for resources from the same
// key type used for plain objects.
import Foundation
import Testing

@testable import JSONAPIClientCore

/// One key type for a resource model and for a plain object: the pool keeps a container of each kind for it.
private enum SharedKeys: String, CodingKey { case id, text, related, inner }

/// A plain object read with `SharedKeys`.
private struct Plain: Decodable, Equatable {
    var id: String
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SharedKeys.self)
        id = try container.decode(String.self, forKey: .id)
        text = try container.decode(String.self, forKey: .text)
    }
}

/// A resource read with `SharedKeys` that reads a related label (whose resource container of this key type is
/// finished and waiting in the pool afterwards), then a plain object of the same key type.
private struct Label: Resource {
    static let resourceType = "labels"
    var id: String
    var text: String
    var related: ToOne<Label>?
    var inner: Plain?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SharedKeys.self)
        id = try container.decode(String.self, forKey: .id)
        related = try container.decodeIfPresent(ToOne<Label>.self, forKey: .related)
        inner = try container.decodeIfPresent(Plain.self, forKey: .inner)
        text = try container.decode(String.self, forKey: .text)
    }

    func encode(to encoder: any Encoder) throws {}
}

@Suite("What the speed pieces keep")
struct SpeedPieceEdgeTests {
    /// The object elements of the array at the root of `json`.
    private func objects(_ json: String) throws -> (JSONTape, [Int]) {
        let tape = try tape(json)
        var indices: [Int] = []
        var child = 1
        for _ in 0..<tape.count(0) {
            indices.append(child)
            child = tape.skip(child)
        }
        return (tape, indices)
    }

    private func value(_ tape: JSONTape) -> (Int) -> JSONValue {
        { index in tape.kind(index) == .number ? .int(tape.int64(index) ?? 0) : .string(tape.string(index)) }
    }

    /// Records the object at `first` (built key by key) and reports whether `second` is then filled from a template.
    private func templated(_ tape: JSONTape, _ first: Int, _ second: Int, in templates: ObjectTemplates<JSONValue>)
        -> [String: JSONValue]?
    {
        var members: [String: JSONValue] = [:]
        var child = first + 1
        for _ in 0..<tape.count(first) {
            members[tape.string(child)] = value(tape)(child + 1)
            child = tape.skip(child + 1)
        }
        templates.record(first, members: members, in: tape) { tape.string($0) }
        return templates.members(of: second, in: tape, value(tape))
    }

    @Test("A template is kept for 1 to 16 distinct keys of up to 15 bytes, not for none, repeats, 17 or 16-byte keys")
    func keptShapes() throws {
        let sixteen = (0..<16).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let seventeen = (0..<17).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let fifteenBytes = "abcdefghijklmno", sixteenBytes = "abcdefghijklmnop"
        let json = """
            [{"a":"b","b":"a"},{"a":"x","b":"y"},{},{},{"a":1,"a":2},{"a":3,"a":4},{\(sixteen)},{\(sixteen)},
             {\(seventeen)},{\(seventeen)},{"\(fifteenBytes)":1},{"\(fifteenBytes)":2},{"\(sixteenBytes)":1},
             {"\(sixteenBytes)":2}]
            """
        let (tape, objects) = try objects(json)
        let templates = ObjectTemplates<JSONValue>(placeholder: .null)
        // Values that name the other keys: a template's slots must come from the keys, not the values.
        #expect(templated(tape, objects[0], objects[1], in: templates) == ["a": "x", "b": "y"])
        #expect(templated(tape, objects[2], objects[3], in: templates) == nil)
        #expect(templated(tape, objects[4], objects[5], in: templates) == nil)
        #expect(templated(tape, objects[6], objects[7], in: templates)?.count == 16)
        #expect(templated(tape, objects[8], objects[9], in: templates) == nil)
        #expect(templated(tape, objects[10], objects[11], in: templates) == [fifteenBytes: 2])
        #expect(templated(tape, objects[12], objects[13], in: templates) == nil)
    }

    @Test("At most 16 templates a document: the 17th shape is read key by key")
    func shapeLimit() throws {
        let shapes = (0..<17).map { #"{"s\#($0)":\#($0)}"# }
        let (tape, objects) = try objects("[" + (shapes + shapes).joined(separator: ",") + "]")
        let templates = ObjectTemplates<JSONValue>(placeholder: .null)
        for position in 0..<17 {
            let filled = templated(tape, objects[position], objects[17 + position], in: templates)
            #expect(filled == (position < 16 ? ["s\(position)": .int(Int64(position))] : nil))
        }
    }

    @Test("One key type read as resources and as plain objects: a plain object never gets a resource's container")
    func oneKeyTypeTwoKinds() throws {
        let body = #"""
            {"data":[{"type":"labels","id":"1","attributes":{"text":"one","inner":{"id":"p1","text":"plain one"}},
                      "relationships":{"related":{"data":{"type":"labels","id":"2"}}}}],
             "included":[{"type":"labels","id":"2","attributes":{"text":"two"}}]}
            """#
        let label = try #require(try JSONAPIDecoder().decode(Document<[Label]>.self, from: Data(body.utf8)).data?.first)
        #expect(label.text == "one")
        #expect(label.inner?.text == "plain one")
        #expect(label.inner?.id == "p1")
        let related = try #require(label.related?.resource)
        #expect(related.text == "two")
        #expect(related.inner == nil)
    }
}
