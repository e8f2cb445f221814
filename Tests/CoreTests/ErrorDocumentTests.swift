// Tests of the lenient reading of error bodies (JSONAPIDecoder.decodeErrorDocument): one odd member never costs
// the others.
import Foundation
import JSONAPIClientCore
import Testing

@Suite("Error documents read leniently")
struct ErrorDocumentTests {
    private func read(_ body: String) -> RawDocument {
        JSONAPIDecoder().decodeErrorDocument(from: Data(body.utf8))
    }

    @Test("The cursor-pagination profile's max-size error keeps every member; links.type (an array) is kept raw")
    func maxSizeExample() throws {
        let body = #"""
            {"errors":[{"status":"400","title":"Page size requested is too large.",
            "detail":"You requested a size of 200, but 100 is the maximum.","source":{"parameter":"page[size]"},
            "links":{"type":["https://jsonapi.org/profiles/ethanresnick/cursor-pagination/max-size-exceeded"]},
            "meta":{"page":{"maxSize":100}}}]}
            """#
        // The strict decode rejects the document: that is why error bodies are read leniently.
        #expect(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(RawDocument.self, from: Data(body.utf8))
        }
        let errors = try #require(read(body).errors)
        #expect(errors.count == 1)
        let error = try #require(errors.first)
        #expect(error.status == "400")
        #expect(error.title == "Page size requested is too large.")
        #expect(error.detail == "You requested a size of 200, but 100 is the maximum.")
        #expect(error.source?.parameter == "page[size]")
        #expect(error.meta?["page"] == .object(["maxSize": 100]))
        #expect(error.links?.isEmpty == true)
        #expect(
            error.unreadMembers == [
                "/links/type": .array([
                    .string("https://jsonapi.org/profiles/ethanresnick/cursor-pagination/max-size-exceeded")
                ])
            ])
    }

    @Test("A numeric source.pointer is kept raw; the other source members and the object stay")
    func numericPointer() throws {
        let body = #"{"errors":[{"title":"Bad","source":{"pointer":7,"header":"X-Id"},"links":{"about":"/e/1"}}]}"#
        let error = try #require(read(body).errors?.first)
        #expect(error.title == "Bad")
        #expect(error.source?.pointer == nil)
        #expect(error.source?.header == "X-Id")
        #expect(error.links?.about?.href == "/e/1")
        #expect(error.unreadMembers == ["/source/pointer": 7])
    }

    @Test("A non-object element among good error objects is kept in place, raw; the others are read")
    func nonObjectElement() throws {
        let errors = try #require(read(#"{"errors":[{"status":"422"},"oops",{"code":"E2"}]}"#).errors)
        #expect(errors.count == 3)
        #expect(errors[0].status == "422")
        #expect(errors[1].unreadMembers == ["": .string("oops")])
        #expect(errors[2].code == "E2")
    }

    @Test("Wrong-shaped members of every kind are kept raw under their pointers; numbers as status and code read")
    func everyMember() throws {
        let body = #"""
            {"errors":[{"id":[1],"status":500,"code":3,"title":{"t":1},"detail":false,"meta":"m","links":"x",
            "source":"s","extra~/":1}],
            "meta":{"requestId":"r1"},"links":{"self":"/x","bad":5},"jsonapi":{"version":"1.1"}}
            """#
        let document = read(body)
        let error = try #require(document.errors?.first)
        #expect(error.status == "500")
        #expect(error.code == "3")
        #expect(error.id == nil && error.title == nil && error.detail == nil && error.meta == nil)
        #expect(error.links == nil && error.source == nil)
        #expect(Set(error.unreadMembers.keys) == ["/id", "/title", "/detail", "/meta", "/links", "/source"])
        #expect(document.meta == ["requestId": "r1"])
        #expect(document.links?["self"]?.href == "/x")
        #expect(document.jsonapi?.version == "1.1")
    }

    @Test("A body that is not JSON, or not an object, gives no errors; a lone error object counts as one")
    func notJSON() {
        #expect(read("<html>502 Bad Gateway</html>").errors == nil)
        #expect(read("").errors == nil)
        #expect(read("[1,2]").errors == nil)
        #expect(read(#"{"errors":{"title":"single"}}"#).errors?.first?.title == "single")
        #expect(read(#"{"errors":[]}"#).errors == [])
    }
}
