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
