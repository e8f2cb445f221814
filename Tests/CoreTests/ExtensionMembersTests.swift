import Foundation
import JSONAPIClientCore
import Testing

/// Top-level members of extensions are kept: read into `Document.extensionMembers` and written back as they were.
/// (Found by the round-trip fuzzer: `{"met:a": {}}` decoded to an empty document that was written as `{}`.)
@Suite("Extension members")
struct ExtensionMembersTests {
    @Test("A document of extension members only keeps them, and writes a document that reads back equal")
    func extensionOnly() throws {
        let text = #"{"met:a": {}, "inc@luded": [], "atomic:results": [{"data": null}]}"#
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(text.utf8))
        #expect(document.extensionMembers == ["met:a": [:], "atomic:results": [["data": nil]]])
        let written = try JSONAPIEncoder().encode(document)
        #expect(String(decoding: written, as: UTF8.self) == #"{"atomic:results":[{"data":null}],"met:a":{}}"#)
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: written) == document)
    }

    @Test("Beside data, in a typed document too; a member without a namespace is not an extension member")
    func besideData() throws {
        struct Note: Resource, Equatable {
            static let resourceType = "notes"
            var id: String
            var text: String
        }
        let text = #"{"data": [{"type": "notes", "id": "1", "attributes": {"text": "a"}}], "version:id": "7", "other": 1}"#
        let document = try JSONAPIDecoder().decode(Document<[Note]>.self, from: Data(text.utf8))
        #expect(document.extensionMembers == ["version:id": "7"])
        let written = String(decoding: try JSONAPIEncoder().encode(document), as: UTF8.self)
        #expect(written == #"{"data":[{"attributes":{"text":"a"},"id":"1","type":"notes"}],"version:id":"7"}"#)
        // Without extension members the document has none.
        let plain = try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"meta": {}}"#.utf8))
        #expect(plain.extensionMembers == nil)
    }
}
