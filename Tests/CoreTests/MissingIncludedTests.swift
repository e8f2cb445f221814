// Tests that a required relationship whose target is not in `included` fails naming the missing resource.
import Foundation
import Testing

@testable import JSONAPIClientCore

/// A review must have its reviewer (a non-optional to-one of a model that needs more than its identifier).
private struct Review: Resource {
    static let resourceType = "reviews"
    var id: String
    var reviewer: Person
}

@Suite("Targets missing from included")
struct MissingIncludedTests {
    @Test("A [Comment] whose target is not in included names it, at the linkage's pointer")
    func toManyMissing() throws {
        let body = #"""
            {"data":{"type":"articles","id":"1","attributes":{"title":"T"},
              "relationships":{"comments":{"data":[{"type":"comments","id":"12"},{"type":"comments","id":"13"}]}}},
             "included":[{"type":"comments","id":"12","attributes":{"body":"first"}}]}
            """#
        do {
            _ = try JSONAPIDecoder().decode(Document<Article>.self, from: Data(body.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingMember)
            #expect(error.pointer == "/data/relationships/comments/data/1")
            #expect(error.detail?.hasPrefix("comments 13 is not in included") == true)
            #expect(error.description.contains("member \"body\""), "\(error)")
        }
    }

    @Test("A non-optional to-one whose target is not in included names it")
    func toOneMissing() throws {
        let body = #"""
            {"data":[{"type":"reviews","id":"1","relationships":{"reviewer":{"data":{"type":"people","id":"9"}}}}]}
            """#
        do {
            _ = try JSONAPIDecoder().decode(Document<[Review]>.self, from: Data(body.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingMember)
            #expect(error.pointer == "/data/0/relationships/reviewer/data")
            #expect(error.detail?.hasPrefix("people 9 is not in included") == true)
        }
    }

    @Test("A target that is in included, or an optional one that is not, still decodes")
    func presentOrOptional() throws {
        let present = #"""
            {"data":{"type":"reviews","id":"1","relationships":{"reviewer":{"data":{"type":"people","id":"9"}}}},
             "included":[{"type":"people","id":"9","attributes":{"firstName":"A","lastName":"B"}}]}
            """#
        let review = try JSONAPIDecoder().decode(Document<Review>.self, from: Data(present.utf8)).data
        #expect(review?.reviewer.firstName == "A")
        let optional = #"""
            {"data":{"type":"comments","id":"1","attributes":{"body":"b"},
              "relationships":{"author":{"data":{"type":"people","id":"9"}}}}}
            """#
        let comment = try JSONAPIDecoder().decode(Document<Comment>.self, from: Data(optional.utf8)).data
        #expect(comment?.body == "b")
        #expect(comment?.author == nil)
    }

    @Test("A target included with a bad member fails at that member, not as missing")
    func includedButInvalid() throws {
        let body = #"""
            {"data":{"type":"reviews","id":"1","relationships":{"reviewer":{"data":{"type":"people","id":"9"}}}},
             "included":[{"type":"people","id":"9","attributes":{"firstName":"A"}}]}
            """#
        do {
            _ = try JSONAPIDecoder().decode(Document<Review>.self, from: Data(body.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.pointer == "/included/0/attributes/lastName")
            #expect(error.detail?.contains("not in included") != true)
        }
    }
}
