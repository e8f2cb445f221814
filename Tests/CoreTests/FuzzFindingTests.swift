import Foundation
import JSONAPIClientCore
import Testing

/// Inputs `scripts/fuzz.sh` found, kept as tests of the property each one broke.
@Suite("Fuzz findings")
struct FuzzFindingTests {
    private struct Note: Resource, Equatable {
        static let resourceType = "notes"
        var id: String
        var text: String?
    }

    @Test("A typed model reads only resources of its own type (RoundTrip: articles read as notes, written as notes)")
    func modelReadsItsOwnType() throws {
        let mixed = #"{"data":[{"type":"articlEs","id":"1"},{"type":"articles","id":"1","attributes":{"title":"kept"}}]}"#
        let error = expectThrows(JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(Document<[Note]>.self, from: Data(mixed.utf8))
        }
        #expect(error?.pointer == "/data/0/type")
        #expect(error?.detail?.contains(#"of type "notes""#) == true)
        let single = #"{"data":{"type":"articles","id":"1"}}"#
        #expect(throws: JSONAPIDecodingError.self) { try JSONAPIDecoder().decode(Document<Note>.self, from: Data(single.utf8)) }
        // The same document of notes decodes, and what it writes decodes to the same document.
        let notes = #"{"data":[{"type":"notes","id":"1"},{"type":"notes","id":"2","attributes":{"text":"kept"}}]}"#
        let document = try JSONAPIDecoder().decode(Document<[Note]>.self, from: Data(notes.utf8))
        #expect(document.data == [Note(id: "1"), Note(id: "2", text: "kept")])
        let again = try JSONAPIDecoder().decode(Document<[Note]>.self, from: JSONAPIEncoder().encode(document))
        #expect(again == document)
    }

    @Test("The validator reads a primary-data array as the decoder does (Validate: a repeated resource passed)")
    func validatorAgreesOnMixedArrays() throws {
        // One element has fields, so all are resources, and articles 1 appears twice: both reject it.
        let mixed = Data(
            #"{"data":[{"type":"articles","id":"1"},{"type":"articles","id":"4","attributes":{"title":"Second"}},{"type":"articles","id":"1","meta":{"hidden":true}}]}"#
                .utf8)
        let violations = try DocumentValidator.validate(mixed)
        #expect(violations.map(\.pointer) == ["/data/2"])
        #expect(violations.first?.message.contains("must appear only once") == true)
        #expect(throws: JSONAPIDecodingError.self) { try JSONAPIDecoder().decode(RawDocument.self, from: mixed) }
        // Identifiers only (a relationship endpoint's linkage): both accept the repetition.
        let identifiers = Data(#"{"data":[{"type":"articles","id":"1"},{"type":"articles","id":"1","meta":{"n":2}}]}"#.utf8)
        #expect(try DocumentValidator.validate(identifiers).isEmpty)
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: identifiers).data?.identifiers.count == 2)
    }

    @Test("@-members and extension members in links and relationships: valid, read, and ignored (Validate: links {\"@:ext\":3})")
    func specialMembersInLinksAndRelationships() throws {
        let documents = [
            #"{"data": null, "links": {"@:ext":3}}"#,
            #"{"data":{"type":"a","id":"1","links":{"@x":3,"self":"/a/1"}}}"#,
            #"{"data":{"type":"a","id":"1","relationships":{"@x":3,"r":{"data":null}}}}"#,
            #"{"data":{"type":"a","id":"1","relationships":{"ext:x":3,"r":{"data":null}}}}"#,
        ]
        for text in documents {
            let data = Data(text.utf8)
            #expect(try DocumentValidator.validate(data).isEmpty, "\(text)")
            let document = try JSONAPIDecoder().decode(RawDocument.self, from: data)
            #expect(document.links?.members["@:ext"] == nil)
            let resource = document.data?.resources.first
            #expect(resource?.links?.members.keys.sorted() ?? ["self"] == ["self"])
            #expect(resource?.relationships?.keys.sorted() ?? ["r"] == ["r"])
        }
    }

    @Test("Numbers no Double holds are kept and written as they came (RawDecode: 1e400 and a 30-digit integer)")
    func unrepresentableNumbers() throws {
        let input = #"{"meta":{"big":123456789012345678901234567889,"inf":1e400,"tiny":1e-175,"money":1289,"nep":-0,"e":1E+2}}"#
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(input.utf8))
        let meta = try #require(document.meta)
        #expect(meta["big"] == JSONNumber("123456789012345678901234567889").map(JSONValue.number))
        #expect(meta["inf"] == JSONNumber("1e400").map(JSONValue.number))
        #expect(meta["money"] == .int(1289))
        let written = String(decoding: try JSONAPIEncoder().encode(document), as: UTF8.self)
        #expect(written.contains(#""big":123456789012345678901234567889"#))
        #expect(written.contains(#""inf":1e400"#))
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: Data(written.utf8)) == document)
    }

    @Test("Extension members of a links object are kept, whatever they hold (Validate: the decoder wanted an href)")
    func linksExtensionMembers() throws {
        let input = #"{"data":null,"links":{"self":"https://x.example/a","sel:f":{"titlnke":"x"},"ns:n":7}}"#
        #expect(try DocumentValidator.validate(Data(input.utf8)).isEmpty)
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(input.utf8))
        let links = try #require(document.links)
        #expect(links["self"]?.href == "https://x.example/a")
        #expect(links.extensionMembers == ["sel:f": .object(["titlnke": .string("x")]), "ns:n": .int(7)])
        #expect(!links.contains("sel:f"))
        let written = try JSONAPIEncoder().encode(document)
        #expect(String(decoding: written, as: UTF8.self) == #"{"data":null,"links":{"ns:n":7,"sel:f":{"titlnke":"x"},"self":"https://x.example/a"}}"#)
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: written) == document)
    }

    @Test("A member given as null does not make an object a resource (RoundTrip: \"links\": null read as a resource, written as an identifier)")
    func nullMembersDoNotMakeAResource() throws {
        let input = #"{"data":{"type":"articles","id":"1","relationships":null,"links":null,"meta":null}}"#
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(input.utf8))
        #expect(document.data == .identifier(ResourceIdentifier(type: "articles", id: "1")))
        let again = try JSONAPIDecoder().decode(RawDocument.self, from: JSONAPIEncoder().encode(document))
        #expect(again == document)
        // With a real member it is a resource, and stays one.
        let resource = #"{"data":{"type":"articles","id":"1","links":{"self":"/a/1"}}}"#
        let read = try JSONAPIDecoder().decode(RawDocument.self, from: Data(resource.utf8))
        #expect(read.data?.resources.count == 1)
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: JSONAPIEncoder().encode(read)) == read)
    }

    @Test("A member name that starts with a combining mark still gets a pointer starting with / (Validate)")
    func pointerOfCombiningMember() throws {
        let violations = try DocumentValidator.validate(Data(#"{"\u07eedɛ": []}"#.utf8))
        let pointer = try #require(violations.first { $0.message.contains("must not contain the member") }?.pointer)
        #expect(pointer == "/\u{07EE}d\u{025B}")
        #expect(pointer.utf8.first == UInt8(ascii: "/"))
        #expect(!pointer.hasPrefix("/"))  // why the harness compares bytes: "/" and the mark are one Character
    }

    @Test("A fieldless object without id or lid is a resource being created, not an identifier (schema suite)")
    func fieldlessCreate() throws {
        let body = Data(#"{"data":{"type":"article"}}"#.utf8)
        #expect(try DocumentValidator.validate(body, as: .createRequest).isEmpty)
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: body)
        #expect(document.data == .resource(ResourceObject(type: "article")))
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: JSONAPIEncoder().encode(document)) == document)
        // With an id it is an identifier, in a create body as in a response.
        let named = try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"data":{"type":"article","id":"1"}}"#.utf8))
        #expect(named.data == .identifier(ResourceIdentifier(type: "article", id: "1")))
    }
}
