import Foundation
import Testing

@testable import JSONAPIClientCore

/// Resources kept as parsed (`ResourceRecords`, `ResourceRecord`): what they check, find, compare, write and decode.
@Suite("Resource records")
struct ResourceRecordTests {
    /// Resource objects that read (or fail to read) in every way `DocumentReader.resource(_:)` tells apart.
    static let objects: [String] = [
        #"{"type":"a","id":"1"}"#,
        #"{"id":"1"}"#,
        #"{"type":5,"id":"1"}"#,
        #"{"type":"a","id":true}"#,
        #"{"type":"a","id":17}"#,
        #"{"type":"a","id":"1","lid":5}"#,
        #"{"type":"a","id":"1","attributes":[]}"#,
        #"{"type":"a","id":"1","attributes":null,"meta":null,"links":null,"relationships":null}"#,
        #"{"type":"a","id":"1","meta":[1]}"#,
        #"{"type":"a","id":"1","relationships":[]}"#,
        #"{"type":"a","id":"1","relationships":{"b":5}}"#,
        #"{"type":"a","id":"1","relationships":{"@b":5,"ext:b":5}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":5}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":{"id":"2"}}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":{"type":"b"}}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":{"type":"b","lid":"x"}}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":{"type":"b","id":"2","meta":5}}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":[{"type":"b","id":"2"},{"type":"b","id":[]}]}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"data":null,"links":{"related":"/x"},"meta":{}}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"links":5}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"meta":"m"}}}"#,
        #"{"type":"a","id":"1","links":"x"}"#,
        #"{"type":"a","id":"1","links":{"self":5}}"#,
        #"{"type":"a","id":"1","links":{"self":null,"@x":5,"ext:y":5}}"#,
        #"{"type":"a","id":"1","links":{"self":{"title":"t"}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":5}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","rel":5}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","rel":null,"title":"t","type":"text/html"}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","describedby":5}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","describedby":{"href":"/d"}}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","hreflang":["en",5]}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","hreflang":5}}}"#,
        #"{"type":"a","id":"1","links":{"self":{"href":"/x","hreflang":"en","meta":[]}}}"#,
        #"{"type":"a","id":"1","type":5}"#,
        #"{"type":"a","id":"1","\u0061ttributes":[]}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"d\u0061ta":5}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"l\u0069nks":5}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"m\u0065ta":5}}}"#,
        #"{"type":"a","id":"1","relationships":{"b":{"d\u0061ta":{"t\u0079pe":"b","\u0069d":"2"}}}}"#,
    ]

    @Test("Checking a resource object throws exactly what reading it throws", arguments: objects)
    func checkMatchesReading(json: String) throws {
        let tape = try JSONTape(parsing: Array(json.utf8))
        let reader = DocumentReader(tape: tape)
        let read = Result { () throws(JSONAPIDecodingError) in _ = try reader.resource(0) }
        let checked = Result { () throws(JSONAPIDecodingError) in try reader.checkResource(0) }
        switch (read, checked) {
        case (.success, .success): break
        case (.failure(let readError), .failure(let checkError)): #expect(readError == checkError)
        default: Issue.record("reading: \(read), checking: \(checked)")
        }
    }

    /// Every kind of value, in every place a resource object gives meaning to, checked against reading it.
    @Test("Checking and reading agree for every kind of value in every member with a meaning")
    func everyMemberEveryKind() throws {
        let values = [
            #""s""#, "5", "true", "null", "{}", "[]", #"{"type":"b","id":"2"}"#, #"[{"type":"b","id":"2"}]"#,
            #"{"href":"/x"}"#, #"["en"]"#, #"[5]"#,
        ]
        var objects: [String] = []
        for value in values {
            for member in ["type", "id", "lid", "attributes", "relationships", "links", "meta"] {
                objects.append(#"{"type":"a","id":"1","\#(member)":\#(value)}"#)
            }
            for member in ["data", "links", "meta", "other"] {
                objects.append(#"{"type":"a","id":"1","relationships":{"r":{"\#(member)":\#(value)}}}"#)
            }
            for member in ["type", "id", "lid", "meta"] {
                objects.append(#"{"type":"a","id":"1","relationships":{"r":{"data":{"type":"b","id":"2","\#(member)":\#(value)}}}}"#)
                objects.append(#"{"type":"a","id":"1","relationships":{"r":{"data":[{"type":"b","\#(member)":\#(value)}]}}}"#)
            }
            objects.append(#"{"type":"a","id":"1","links":{"self":\#(value)}}"#)
            for member in ["href", "rel", "title", "type", "describedby", "hreflang", "meta", "other"] {
                objects.append(#"{"type":"a","id":"1","links":{"self":{"href":"/x","\#(member)":\#(value)}}}"#)
                objects.append(#"{"type":"a","id":"1","relationships":{"r":{"links":{"related":{"href":"/x","\#(member)":\#(value)}}}}}"#)
            }
        }
        for json in objects { try checkMatchesReading(json: json) }
    }

    /// The check hands back the `type` and `id` it met, so that the records need not look again: the ones reading
    /// takes (the last of a repeated member, a key written with escapes, a numeric id, none at all).
    @Test(
        "Checking a resource finds the type and id that reading takes",
        arguments: [
            (#"{"type":"a","id":"1"}"#, "a", "1"),
            (#"{"id":"1","type":"a"}"#, "a", "1"),
            (#"{"type":"a","id":"1","type":"b","id":"2"}"#, "b", "2"),
            (#"{"\u0074ype":"a","i\u0064":"1"}"#, "a", "1"),
            (#"{"type":"a","id":17}"#, "a", "17"),
            (#"{"type":"a","lid":"x"}"#, "a", nil),
            (#"{"type":"a","attributes":{"id":"9","type":"z"},"meta":{"id":"8"}}"#, "a", nil),
        ] as [(String, String, String?)])
    func checkFindsIdentity(json: String, type: String, id: String?) throws {
        let tape = try JSONTape(parsing: Array(json.utf8))
        let reader = DocumentReader(tape: tape)
        let found = try reader.checkResource(0)
        let read = try reader.resource(0)
        #expect(tape.string(found.type) == type)
        #expect(read.type == type)
        #expect(try found.id.map { try reader.identifierString($0) } == id)
        #expect(read.id == id)
    }

    @Test("A document's records: resource objects with an id, primary data then included; not identifiers or lids")
    func entries() throws {
        let body = #"{"included":[{"type":"b","id":"2"},{"type":"b","lid":"x","attributes":{}}],"data":[{"type":"a","id":"1","attributes":{}},{"type":"a","id":"3"}]}"#
        let records = try JSONAPIDecoder().records(from: Data(body.utf8))
        #expect(records.resources.map { "\($0.type)/\($0.id)" } == ["b/2", "a/1", "a/3"])  // in document order
        #expect(records.listedCount == 2)
        #expect(records.includedCount == 2)
        let identifiers = try JSONAPIDecoder().records(from: Data(#"{"data":[{"type":"a","id":"1"}]}"#.utf8))
        #expect(identifiers.resources.isEmpty)
        let one = try JSONAPIDecoder().records(from: Data(#"{"data":{"type":"a","id":"1"}}"#.utf8))
        #expect(one.resources.isEmpty)  // an identifier, not a resource
        #expect(try JSONAPIDecoder().records(from: Data(#"{"data":null}"#.utf8)).resources.isEmpty)
    }

    @Test(
        "A document whose resources would not read is refused whole",
        arguments: [
            #"{"data":[{"type":"a","id":"1","attributes":{}},{"type":"a","id":"1","attributes":{}}]}"#,
            #"{"data":{"type":"a","id":"1","relationships":{"b":5}}}"#,
            #"{"data":5}"#,
            #"{"data":[{"type":"a","id":"1","attributes":{}}],"included":[5]}"#,
            #"{"data":{"type":"a","id":"1"},"errors":[]}"#,
            #"[1]"#,
        ])
    func refused(body: String) {
        #expect(throws: JSONAPIDecodingError.self) { try JSONAPIDecoder().records(from: Data(body.utf8)) }
    }

    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var author: Person?
    }

    struct Person: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    static let document = #"""
        {"data":[{"type":"articles","id":"1","attributes":{"title":"One"},"relationships":{"author":{"data":{"type":"people","id":"9"}}}},
        {"type":"articles","id":"2","attributes":{"title":"Two"},"relationships":{"author":{"data":{"type":"people","id":"8"}},"x":{"data":[{"type":"people","id":"9"},{"type":"people","lid":"l"}]}}}],
        "included":[{"type":"people","id":"9","attributes":{"name":"Nine"}}]}
        """#

    @Test("The typed decode keeps the same records a schema-less read finds, from its own parse")
    func keptByTheTypedDecode() throws {
        let data = Data(Self.document.utf8)
        let (document, outline, kept) = try JSONAPIDecoder().decodeKeepingRecords(
            Document<[Article]>.self, from: data, resourceMeta: false)
        #expect(document.data?.map(\.title) == ["One", "Two"])
        #expect(outline.count == 2)
        let records = try #require(kept)
        let schemaless = try JSONAPIDecoder().records(from: data)
        #expect(records.resources.map { "\($0.type)/\($0.id)/\($0.index)" }
            == schemaless.resources.map { "\($0.type)/\($0.id)/\($0.index)" })
        // A resource the model never reads but that would not read as a ResourceObject: no records.
        let bad = #"{"data":[{"type":"articles","id":"1","attributes":{"title":"One"},"relationships":{"y":5}}]}"#
        let (_, _, none) = try JSONAPIDecoder().decodeKeepingRecords(
            Document<[Article]>.self, from: Data(bad.utf8), resourceMeta: false)
        #expect(none == nil)
    }

    @Test("Linkage: a resource of the same document by its position, any other by its key")
    func linked() throws {
        let records = try JSONAPIDecoder().records(from: Data(Self.document.utf8))
        let second = records.resources[1].record(in: records)
        var found: [String] = []
        second.forEachLinked { linked in
            let key = linked.key.map { "\($0.type)/\($0.id)" } ?? "lid"
            found.append("\(key)@\(linked.position.map(String.init) ?? "-")")
        }
        #expect(found == ["people/8@-", "people/9@2"])  // a lid alone names no record
        #expect(records.identifierKey(at: 0) == nil)  // the root is no identifier
        #expect(records.identifierKey(at: -1) == nil)
        #expect(records.identifierKey(at: 1_000_000) == nil)
    }

    @Test("Decoding records: from their own tape when they share one, else from a tape made of theirs; the same models")
    func decodeFromRecords() throws {
        let records = try JSONAPIDecoder().records(from: Data(Self.document.utf8))
        let all = records.resources.map { $0.record(in: records) }
        let shared = try JSONAPIDecoder().decode(Article.self, records: Array(all[0...1]), included: [all[2]])
        let copied = try JSONAPIDecoder().decode(
            Article.self, records: Array(all[0...1]), included: [all[2].compacted()])
        let expected = [
            Article(id: "1", title: "One", author: Person(id: "9", name: "Nine")),
            Article(id: "2", title: "Two", author: nil),
        ]
        #expect(shared == expected)
        #expect(copied == expected)
        #expect(try JSONAPIDecoder().decode(Article.self, records: [], included: all).isEmpty)
        // Without the person among the records, the author is not resolved, though it is in the tape.
        #expect(try JSONAPIDecoder().decode(Article.self, records: [all[0]], included: []).first?.author == nil)
        // A record that does not make the model: an error with a pointer, into the response it came in, or into
        // a document of the records when they came in several.
        let inResponse = expectThrows(JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(Article.self, records: [all[0], all[2]], included: [])
        }
        #expect(inResponse?.pointer == "/included/0/type")
        let inRecords = expectThrows(JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(Article.self, records: [all[0], all[2].compacted()], included: [])
        }
        #expect(inRecords?.pointer == "/data/1/type")
        let title = try Self.record(#"{"type":"articles","id":"5","attributes":{"title":5}}"#)
        let inFirst = expectThrows(JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(Article.self, records: [title], included: [all[2]])
        }
        #expect(inFirst?.pointer == "/data/0/attributes/title")
        let nameless = try Self.record(#"{"type":"people","id":"9","attributes":{}}"#)
        let inIncluded = expectThrows(JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(Article.self, records: [all[0].compacted()], included: [nameless])
        }
        #expect(inIncluded?.pointer.hasPrefix("/included/0") == true)
    }

    @Test(
        "A record's text is the bytes it was parsed from, whatever ends it; compacted, it reads the same",
        arguments: [
            #"{"type":"a","id":"1"}"#,
            #"{ "type" : "a" , "id" : "1" , "meta" : { } }"#,
            #"{"type":"a","id":"1","meta":{"x":[[],{}]}}"#,
            #"{"type":"a","id":"1","attributes":{"b":true}}"#,
            #"{"type":"a","id":"1","attributes":{"b":false}}"#,
            #"{"type":"a","id":"1","attributes":{"b":null}}"#,
            #"{"type":"a","id":"1","attributes":{"n":-1.5e3}}"#,
            #"{"type":"a","id":"1","attributes":{"s":"}]\"{["}}"#,
            "{\n\t\"type\":\"a\",\r\n\"id\":\"1\"\n}",
        ])
    func text(object: String) throws {
        let body = #"{"data":[],"included":[ "# + object + #" , {"type":"z","id":"0"}]}"#
        let records = try JSONAPIDecoder().records(from: Data(body.utf8))
        let record = records.resources[0].record(in: records)
        var written: [UInt8] = []
        record.write(into: &written)
        #expect(String(decoding: written, as: UTF8.self) == object)
        let compacted = record.compacted()
        var again: [UInt8] = []
        compacted.write(into: &again)
        #expect(again == written)
        #expect(compacted.resourceObject() == record.resourceObject())
        #expect(compacted.isWrittenAs(record))
    }

    @Test("A record without its text's bytes is written from its tape")
    func writtenFromTape() throws {
        let records = try JSONAPIDecoder().records(from: Data(Self.document.utf8))
        let record = records.resources[0].record(in: records)
        // The leaf span holds the strings and numbers, not the braces: written from the tape, it reads the same.
        let range = record.byteRange
        let nodes = (Int(record.index)..<Int(record.index) + record.nodeCount).map {
            records.tape.nodes[$0].moved(nodes: -Int(record.index), bytes: -range.lowerBound)
        }
        let tape = JSONTape(bytes: TapeBytes(concatenating: [(records.tape.bytes, range)]), nodes: nodes)
        let bare = ResourceRecord(
            records: ResourceRecords(owning: tape, entries: [], index: ResourceIndex(capacity: 0)), index: 0)
        #expect(bare.textRange == nil)
        var written: [UInt8] = []
        bare.write(into: &written)
        let reread = try JSONAPIDecoder().records(from: Data((#"{"data":[],"included":["# + String(decoding: written, as: UTF8.self) + "]}").utf8))
        #expect(reread.resources[0].record(in: reread).resourceObject() == record.resourceObject())
    }

    @Test(
        "A newer record replaces an older one whole only when the merge would give it as it is",
        arguments: [
            (#"{"type":"a","id":"1","attributes":{"x":1}}"#, #"{"type":"a","id":"1","attributes":{"x":2,"y":3}}"#, true),
            (#"{"type":"a","id":"1","attributes":{"x":1}}"#, #"{"type":"a","id":"1","attributes":{"y":3}}"#, false),
            (#"{"type":"a","id":"1","attributes":{"x":1}}"#, #"{"type":"a","id":"1"}"#, false),
            (#"{"type":"a","id":"1"}"#, #"{"type":"a","id":"1","attributes":{"x":1}}"#, true),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"r":{"data":{"type":"b","id":"2"}}}}"#, true),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"r":{"links":{"related":"/r"}}}}"#, false),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"s":{"data":null}}}"#, false),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null}}}"#, #"{"type":"a","id":"1"}"#, false),
            (#"{"type":"a","id":"1","links":{"self":"/a/1"}}"#, #"{"type":"a","id":"1"}"#, false),
            (#"{"type":"a","id":"1","meta":{}}"#, #"{"type":"a","id":"1"}"#, false),
            (#"{"type":"a","id":"1","meta":{}}"#, #"{"type":"a","id":"1","meta":{"m":1},"links":{}}"#, true),
            (#"{"type":"a","id":"1","lid":"l"}"#, #"{"type":"a","id":"1","lid":"l"}"#, false),
            (#"{"type":"a","id":"1"}"#, #"{"type":"a","id":"1","lid":"l"}"#, false),
            // The same names in the same order (compared in step), in another order, or repeated.
            (#"{"type":"a","id":"1","attributes":{"x":1,"y":2}}"#, #"{"type":"a","id":"1","attributes":{"x":3,"y":4}}"#, true),
            (#"{"type":"a","id":"1","attributes":{"x":1,"y":2}}"#, #"{"type":"a","id":"1","attributes":{"y":4,"x":3}}"#, true),
            (#"{"type":"a","id":"1","attributes":{"x":1,"y":2}}"#, #"{"type":"a","id":"1","attributes":{"x":3,"z":4}}"#, false),
            (#"{"type":"a","id":"1","attributes":{"x":1}}"#, #"{"type":"a","id":"1","attributes":{"\u0078":3}}"#, true),
            (#"{"type":"a","id":"1","attributes":{}}"#, #"{"type":"a","id":"1","attributes":{}}"#, true),
            // Fewer attributes than the older, with the name of the one missing just after them: not in step.
            (#"{"type":"a","id":"1","attributes":{"x":1,"y":2}}"#, #"{"type":"a","id":"1","attributes":{"x":3},"y":4}"#, false),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null},"s":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"r":{"data":null},"s":{"meta":{}}}}"#, false),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null},"s":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"r":{"data":null},"s":{"data":[]}}}"#, true),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null},"r":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"r":{"meta":{}},"r":{"data":null}}}"#, true),
            (#"{"type":"a","id":"1","relationships":{"r":{"data":null},"r":{"data":null}}}"#, #"{"type":"a","id":"1","relationships":{"r":{"data":null},"r":{"meta":{}}}}"#, false),
        ])
    func replaces(older: String, newer: String, replaces: Bool) throws {
        let old = try Self.record(older), new = try Self.record(newer)
        #expect(new.replaces(old) == replaces)
        if replaces { #expect(Self.merged(old.resourceObject(), new.resourceObject()) == new.resourceObject()) }
        #expect(new.isWrittenAs(new.compacted()))
        #expect(new.isWrittenAs(old) == (older == newer))
    }

    @Test("Written alike: the same nodes and text, compared node by node")
    func writtenAlike() throws {
        let a = try Self.record(#"{"type":"a","id":"1","attributes":{"x":[1,{"y":"z"}]}}"#)
        #expect(a.isWrittenAs(try Self.record(#"{ "type":"a", "id":"1", "attributes":{"x":[1,{"y":"z"}]} }"#)))
        #expect(!a.isWrittenAs(try Self.record(#"{"type":"a","id":"1","attributes":{"x":[2,{"y":"z"}]}}"#)))
        #expect(!a.isWrittenAs(try Self.record(#"{"type":"a","id":"1","attributes":{"x":[1,{"y":"w"}]}}"#)))
        #expect(!a.isWrittenAs(try Self.record(#"{"type":"a","id":"1","attributes":{"x":[1,{"y":"zz"}]}}"#)))
        #expect(!a.isWrittenAs(try Self.record(#"{"type":"a","id":"1","attributes":{"x":[1,["y","z"]]}}"#)))
        #expect(!a.isWrittenAs(try Self.record(#"{"type":"a","id":"1","attributes":{"x":[1,{"y":"z"},3]}}"#)))
        #expect(!a.isWrittenAs(try Self.record(#"{"type":"a","id":"1","attributes":{"x":[1,{"y":"\u007a"}]}}"#)))
        #expect(try Self.record(#"{"type":"a","id":"1","attributes":{"t":true}}"#).isWrittenAs(
            try Self.record(#"{"type":"a","id":"1","attributes":{"t":true}}"#)))
        #expect(!(try Self.record(#"{"type":"a","id":"1","attributes":{"t":true}}"#).isWrittenAs(
            try Self.record(#"{"type":"a","id":"1","attributes":{"t":false}}"#))))
    }

    @Test("A record of a ResourceObject: in a tape of its own, read back as it was; one without an id is refused")
    func ofObject() throws {
        var object = ResourceObject(type: "a", id: "1")
        object.relationships = ["r": Relationship(data: .toMany([ResourceIdentifier(type: "b", lid: "l")]))]
        let record = try ResourceRecord(object)
        #expect(record.resourceObject() == object)
        #expect(record.linksByLocalID)
        #expect(!(try ResourceRecord(ResourceObject(type: "a", id: "2"))).linksByLocalID)
        #expect(throws: JSONAPIDecodingError.self) { try ResourceRecord(ResourceObject(type: "a", lid: "x")) }
        var link = ResourceObject(type: "a", id: "3")
        link.links = Links(["self": Link(href: "/a/3")])
        #expect(try ResourceRecord(link).selfLink == "/a/3")
        #expect(try Self.record(#"{"type":"a","id":"1","links":{"self":{"href":"/h"}}}"#).selfLink == "/h")
        #expect(try Self.record(#"{"type":"a","id":"1","links":{"self":null}}"#).selfLink == nil)
        #expect(try Self.record(#"{"type":"a","id":"1","links":{"related":"/r"}}"#).selfLink == nil)
    }

    static func record(_ object: String) throws -> ResourceRecord {
        let records = try JSONAPIDecoder().records(from: Data((#"{"data":[],"included":["# + object + "]}").utf8))
        return records.resources[0].record(in: records)
    }

    /// The store's merge, member by member (as `ResourceStore.merged`).
    static func merged(_ record: ResourceObject, _ newer: ResourceObject) -> ResourceObject {
        var result = record
        if let attributes = newer.attributes { result.attributes = (record.attributes ?? [:]).merging(attributes) { $1 } }
        if let relationships = newer.relationships {
            var merged = record.relationships ?? [:]
            for (name, relationship) in relationships { merged[name] = relationship }
            result.relationships = merged
        }
        if let links = newer.links { result.links = links }
        if let meta = newer.meta { result.meta = meta }
        return result
    }
}
