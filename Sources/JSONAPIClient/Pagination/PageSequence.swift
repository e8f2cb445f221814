/// How far a page or resource stream has got, reported after each page.
public struct PaginationProgress: Sendable, Hashable {
    /// Pages fetched so far.
    public var pagesFetched: Int
    /// Resources fetched so far.
    public var resourcesFetched: Int
    /// The collection's total number of resources, when the latest page's `meta` reports it.
    public var totalResources: Int?

    /// Creates a progress report.
    public init(pagesFetched: Int, resourcesFetched: Int, totalResources: Int?) {
        self.pagesFetched = pagesFetched
        self.resourcesFetched = resourcesFetched
        self.totalResources = totalResources
    }
}

extension PaginationProgress: CustomStringConvertible {
    /// What has been fetched: `3 pages, 120 of 200 resources`, or `1 page, 40 resources` when the total is unknown.
    public var description: String {
        let pages = "\(pagesFetched) page\(pagesFetched == 1 ? "" : "s")"
        let total = totalResources.map { " of \($0)" } ?? ""
        let noun = (totalResources ?? resourcesFetched) == 1 ? "resource" : "resources"
        return "\(pages), \(resourcesFetched)\(total) \(noun)"
    }
}

/// The pages of a collection, fetched one at a time as you iterate: the first page by the request, then each
/// `next` (by link, or by the strategy when the server gives no links).
///
/// Only the current page is held. Cancelling the consuming task cancels the request in flight and ends the
/// iteration with `CancellationError`; no further request is sent. A repeating or cyclic `next` link ends it
/// with ``JSONAPIClientError/Code/paginationLoop``.
///
/// ```swift
/// for try await page in source.fetch().page(.pageBased(1, 50)).pages() {
///     print(page.data?.count ?? 0)
/// }
/// ```
public struct PageSequence<Primary: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A page.
    public typealias Element = FetchResponse<Primary>

    let request: FetchRequest<Primary>
    let progress: (@Sendable (PaginationProgress) -> Void)?

    /// Creates an iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(request: request, progress: progress) }

    /// Fetches the pages one by one.
    public struct Iterator: AsyncIteratorProtocol {
        private enum State {
            case initial(FetchRequest<Primary>)
            case page(FetchResponse<Primary>)
            case finished
        }

        private let progress: (@Sendable (PaginationProgress) -> Void)?
        private var state: State
        private var pages = 0
        private var resources = 0

        init(request: FetchRequest<Primary>, progress: (@Sendable (PaginationProgress) -> Void)?) {
            self.state = .initial(request)
            self.progress = progress
        }

        /// The next page; `nil` after the last.
        public mutating func next() async throws -> FetchResponse<Primary>? {
            let page: FetchResponse<Primary>?
            do {
                try Task.checkCancellation()
                switch state {
                case .finished: return nil
                case .initial(let request): page = try await request.result()
                case .page(let current): page = try await current.next()
                }
            } catch {
                state = .finished
                throw error
            }
            guard let page else {
                state = .finished
                return nil
            }
            state = .page(page)
            pages += 1
            resources += page.navigation.page.count
            progress?(
                PaginationProgress(
                    pagesFetched: pages, resourcesFetched: resources,
                    totalResources: PageContext.totalResources(in: page.meta)))
            return page
        }
    }
}

/// The resources of a collection across all its pages, fetched page by page as you iterate; see
/// ``PageSequence`` for memory, cancellation and loops.
///
/// ```swift
/// for try await article in source.fetch().page(.pageBased(1, 50)).resources() {
///     print(article.title)
/// }
/// ```
public struct ResourceSequence<Element: Decodable & Sendable>: AsyncSequence, Sendable {
    let pages: PageSequence<[Element]>

    /// Creates an iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    /// Walks the resources of each page, fetching the next page when one is used up.
    public struct Iterator: AsyncIteratorProtocol {
        private var pages: PageSequence<[Element]>.Iterator
        private var buffer: [Element] = []
        private var index = 0

        init(pages: PageSequence<[Element]>.Iterator) { self.pages = pages }

        /// The next resource; `nil` after the last page's last.
        public mutating func next() async throws -> Element? {
            while index >= buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.data ?? []
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }
}
