import Foundation
import Testing

@testable import JSONAPIClientCore

/// JSON:API 1.1: a document whose only top-level member belongs to an applied extension is valid.
@Suite("Valid 1.1 documents are accepted: extension members stand in for data, errors and meta")
struct ExtensionMemberTests {
    @Test("A document of Atomic Operations results alone decodes", arguments: [
        #"{"atomic:results": []}"#,
        #"{"atomic:results": [{"data": {"type": "people", "id": "7"}}]}"#,
        #"{"jsonapi": {"version": "1.1", "ext": ["https://jsonapi.org/ext/atomic"]}, "atomic:results": [{}]}"#,
        #"{"version:id": "42"}"#,
    ])
    func extensionOnly(text: String) throws {
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: Data(text.utf8))
        #expect(raw.data == nil)
        #expect(raw.errors == nil)
        let typed = try JSONAPIDecoder().decode(Document<[Article]>.self, from: Data(text.utf8))
        #expect(typed.data == nil)
    }

    @Test("Without data, errors, meta or an extension member it is still an error", arguments: [
        #"{}"#, #"{"jsonapi": {"version": "1.1"}}"#, #"{"links": {}}"#, #"{":results": []}"#, #"{"atomic:": []}"#,
        #"{"@context": "x"}"#,
    ])
    func stillInvalid(text: String) throws {
        do {
            _ = try JSONAPIDecoder().decode(RawDocument.self, from: Data(text.utf8))
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.code == .invalidDocument)
            #expect(error.pointer == "")
        }
    }
}
