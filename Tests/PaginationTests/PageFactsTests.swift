import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("What navigation reads from a page")
struct PageFactsTests {
    /// Pages by the cursor in the last resource's `meta.page.cursor` (`c<id>`): `?after=c3` starts after article 3.
    struct AfterCursor: PaginationStrategy {
        var after: String?
        var reads = true
        var queryItems: [QueryItem] { after.map { [QueryItem("after", $0)] } ?? [] }
        var readsResourceMeta: Bool { reads }
        func next(after page: PageContext) -> AfterCursor? {
            page.lastResourceMeta?["page"]?["cursor"]?.stringValue.map { AfterCursor(after: $0, reads: reads) }
        }
    }

    static let cursorServer = ScriptedClient { request in
        let after = request.url.queryValue("after").flatMap { Int($0.dropFirst()) } ?? 0
        return .document(after >= 4 ? Pages.body([]) : Pages.body([after + 1, after + 2]))
    }

    @Test("A strategy that reads resource meta gets the first and last resources' meta, from the same parse")
    func resourceMetaWhenRead() async throws {
        var seen: [String] = []
        for try await article in Pages.source(Self.cursorServer).fetch().page(AfterCursor()).resources() {
            seen.append(article.id)
        }
        #expect(seen == ["1", "2", "3", "4"])
    }

    @Test("A strategy that says it reads no resource meta is not given any")
    func noResourceMetaWhenNotRead() async throws {
        let first = try await Pages.source(Self.cursorServer).fetch().paginate(AfterCursor(reads: false))
        #expect(first.data?.map(\.id) == ["1", "2"])
        #expect(first.hasNext == false)
        #expect(try await first.next() == nil)
        #expect([PageBasedPagination.pageBased(1, 2).readsResourceMeta, OffsetPagination.offsetBased(0, 2).readsResourceMeta,
                 CursorPagination.cursorBased(cursor: nil).readsResourceMeta] == [false, false, false])
        #expect(CursorPagination.cursorBased(size: 2).readsResourceMeta)
    }

    struct Draft: Resource, Equatable {
        static let resourceType = "articles"
        var id: String?
        var title: String
    }

    @Test("appendNext leaves out duplicates by the identity models declare; models without one are all kept")
    func identityOfModels() async throws {
        let client = ScriptedClient { request in
            request.url.query == nil
                ? .document(#"{"data": [{"type": "articles", "attributes": {"title": "a"}}, {"type": "articles", "attributes": {"title": "b"}}, {"type": "articles", "id": "7", "attributes": {"title": "c"}}], "links": {"next": "/v1/articles?page=2"}}"#)
                : .document(#"{"data": [{"type": "articles", "attributes": {"title": "d"}}, {"type": "articles", "id": "7", "attributes": {"title": "c again"}}], "links": {"next": null}}"#)
        }
        var drafts = try await Session(baseURL: exampleBase, client: client).source(Draft.self, .path("articles/<id>")).fetch().result()
        let result = try await drafts.appendNext()
        #expect(result.added.map(\.title) == ["d"])
        #expect(drafts.data?.map(\.title) == ["a", "b", "c", "d"])
    }
}
