import JSONAPIClient
import Testing

@Suite("Pagination strategies")
struct StrategyTests {
    @Test("Page-based: next and last only when justified")
    func pageBased() {
        let page = PageBasedPagination(number: 2, size: 10)
        #expect(page.next(after: PageContext(count: 10, meta: ["pagination": ["pages": 3]]))?.number == 3)
        #expect(page.next(after: PageContext(count: 10, meta: ["pagination": ["pages": 2]])) == nil)
        #expect(page.next(after: PageContext(count: 10, meta: ["page": ["total": 20]])) == nil)
        #expect(page.next(after: PageContext(count: 10, meta: ["total": 21]))?.number == 3)
        #expect(page.next(after: PageContext(count: 9)) == nil)
        #expect(page.next(after: PageContext(count: 10))?.number == 3)
        #expect(page.last(of: PageContext(count: 10, meta: ["pagination": ["count": 95]]))?.number == 10)
        #expect(page.last(of: PageContext(count: 10)) == nil)
        #expect(page.previous(before: PageContext(count: 10))?.number == 1)
        #expect(PageBasedPagination(number: 1, size: 10).previous(before: PageContext(count: 10)) == nil)
        #expect(page.first(of: PageContext(count: 0))?.number == 1)
    }

    @Test("Offset-based: never past the end")
    func offset() {
        let page = OffsetPagination(offset: 20, limit: 10)
        #expect(page.next(after: PageContext(count: 10, meta: ["count": 30])) == nil)
        #expect(page.next(after: PageContext(count: 10, meta: ["count": 31]))?.offset == 30)
        #expect(page.last(of: PageContext(count: 10, meta: ["count": 30]))?.offset == 20)
        #expect(page.last(of: PageContext(count: 0, meta: ["count": 0]))?.offset == 0)
        #expect(OffsetPagination(offset: 5, limit: 10).previous(before: PageContext(count: 10))?.offset == 0)
    }

    @Test("Extreme totals from the server and extreme numbers from the caller never overflow")
    func extremes() {
        let huge: Meta = ["pagination": ["count": .int(Int64.max)]]
        let negative: Meta = ["count": .int(Int64.min)]
        let page = PageBasedPagination(number: 2, size: 10)
        #expect(page.last(of: PageContext(count: 10, meta: huge))?.number == Int.max / 10 + 1)
        #expect(page.next(after: PageContext(count: 10, meta: huge))?.number == 3)
        #expect(page.last(of: PageContext(count: 10, meta: negative))?.number == 1)
        #expect(PageBasedPagination(number: .max, size: 10).next(after: PageContext(count: 10)) == nil)
        #expect(PageBasedPagination(number: .max / 2, size: 10).next(after: PageContext(count: 10, meta: huge)) == nil)
        let offset = OffsetPagination(offset: .max - 5, limit: 10)
        #expect(offset.next(after: PageContext(count: 10)) == nil)
        #expect(offset.next(after: PageContext(count: 10, meta: huge)) == nil)
        #expect(OffsetPagination(offset: 20, limit: 10).last(of: PageContext(count: 10, meta: negative))?.offset == 0)
        #expect(OffsetPagination(offset: 20, limit: 10).last(of: PageContext(count: 10, meta: huge))?.offset == (Int.max - 1) / 10 * 10)
        #expect(OffsetPagination(offset: 5, limit: .min).previous(before: PageContext(count: 1))?.offset == 0)
    }

    @Test("Cursor profile: continues from the resources' cursors; the token form cannot")
    func cursor() {
        let page = CursorPagination(size: 2, position: .range(after: "c0", before: nil))
        let context = PageContext(count: 2, firstResourceMeta: ["page": ["cursor": "c1"]], lastResourceMeta: ["page": ["cursor": "c2"]])
        #expect(page.next(after: context)?.queryItems == [QueryItem("page[size]", "2"), QueryItem("page[after]", "c2")])
        #expect(page.previous(before: context)?.queryItems == [QueryItem("page[size]", "2"), QueryItem("page[before]", "c1")])
        #expect(page.next(after: PageContext(count: 1, lastResourceMeta: ["page": ["cursor": "c2"]])) == nil)
        #expect(CursorPagination(size: 2, position: .token("t")).next(after: context) == nil)
    }

    @Test("A strategy of your own")
    func custom() {
        struct Since: PaginationStrategy {
            var since: String
            var queryItems: [QueryItem] { [QueryItem("since", since)] }
            func next(after page: PageContext) -> Since? {
                page.lastResourceMeta?["next"]?.stringValue.map { Since(since: $0) }
            }
        }
        let next = Since(since: "a").next(after: PageContext(count: 1, lastResourceMeta: ["next": "b"]))
        #expect(next?.since == "b")
        #expect(Since(since: "a").last(of: PageContext(count: 1)) == nil)
    }
}

@Suite("Addressed pages: the last page and the limits, exactly")
struct RemainingPagesTests {
    @Test(
        "Offset: the pages after this one through the one holding the last resource",
        arguments: [
            (0, 10, 20, [10]),  // an exact multiple: the last page starts at 10, not 20
            (0, 10, 21, [10, 20]),  // one over: a page of one
            (0, 10, 19, [10]),
            (0, 10, 10, []),  // one page in all
            (0, 10, 0, []),  // an empty collection
            (10, 10, 21, [20]),
            (20, 10, 21, []),  // already on the last page
            (5, 10, 26, [15, 25]),  // an offset not on a page boundary keeps its step
        ])
    func offset(_ offset: Int, _ limit: Int, _ total: Int, _ expected: [Int]) {
        let strategy = OffsetPagination(offset: offset, limit: limit)
        let meta: Meta = ["total": JSONValue(integerLiteral: Int64(total))]
        let pages = strategy.remainingPages(after: PageContext(count: limit, meta: meta), lastLinkQuery: nil)
        #expect(pages?.map { $0.offset } == expected)
    }

    @Test("Offset: from the last link's offset when meta has no total; nil when nothing tells or the limit is zero")
    func offsetFromLink() {
        let strategy = OffsetPagination(offset: 0, limit: 10)
        let link = [QueryItem("page[offset]", "30"), QueryItem("page[limit]", "10")]
        #expect(strategy.remainingPages(after: PageContext(count: 10), lastLinkQuery: link)?.map(\.offset) == [10, 20, 30])
        #expect(strategy.remainingPages(after: PageContext(count: 10), lastLinkQuery: nil) == nil)
        #expect(OffsetPagination(offset: 0, limit: 0).remainingPages(after: PageContext(count: 0, meta: ["total": 5]), lastLinkQuery: nil) == nil)
    }

    @Test("Page-based: at most 100,000 pages follow; one more is nil (walk by links instead)")
    func pageBasedLimit() {
        let strategy = PageBasedPagination(number: 1, size: 1)
        let allowed = strategy.remainingPages(after: PageContext(count: 1, meta: ["totalPages": 100_001]), lastLinkQuery: nil)
        #expect(allowed?.count == 100_000)
        #expect(allowed?.last?.number == 100_001)
        #expect(strategy.remainingPages(after: PageContext(count: 1, meta: ["totalPages": 100_002]), lastLinkQuery: nil) == nil)
        #expect(strategy.remainingPages(after: PageContext(count: 1, meta: ["totalPages": 1]), lastLinkQuery: nil)?.isEmpty == true)
    }

    @Test("Offset: at most 100,000 pages follow; one more is nil")
    func offsetLimit() {
        let strategy = OffsetPagination(offset: 0, limit: 1)
        #expect(strategy.remainingPages(after: PageContext(count: 1, meta: ["total": 100_001]), lastLinkQuery: nil)?.count == 100_000)
        #expect(strategy.remainingPages(after: PageContext(count: 1, meta: ["total": 100_002]), lastLinkQuery: nil) == nil)
    }
}
