import Foundation

/// How far a page or resource stream has got, reported after each page.
public struct PaginationProgress: Sendable, Hashable {
    /// Pages fetched so far.
    public var pagesFetched: Int
    /// Resources fetched so far.
    public var resourcesFetched: Int
    /// The collection's total number of resources, when the latest page's `meta` reports it.
    public var totalResources: Int?

    /// Creates a progress report.
    ///
    /// - Parameters:
    ///   - pagesFetched: Pages fetched so far.
    ///   - resourcesFetched: Resources on them.
    ///   - totalResources: The collection's total, when known.
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

/// The pages of a collection as you iterate: the first page by the request, then each `next` (by link, or by the
/// strategy when the server gives no links), in order.
///
/// - **Prefetch** (`prefetch: 1`, the default): while you work on a page, the next one is already on its way, so a
///   walk costs about the larger of the network and your work per page instead of their sum. Only pages the
///   iteration would reach are fetched (a page without `next` ends it, unless its `last` link or `meta` says
///   later pages exist: see ``FetchResponse/next()``), and `prefetch: 0` fetches each page only
///   when you ask for it. A consumer that comes back for the next page within the session's
///   ``Session/Configuration/prefetchThreshold`` (1 ms) has nothing to hide behind the network: its pages are
///   fetched as it asks, which saves the thread hops, until it takes longer again.
/// - **Concurrent pages** (`concurrency: n`): when the strategy addresses pages by number or offset and the first
///   page tells where the last is (`meta` totals or the `last` link), up to `n` pages are fetched at once, and still
///   yielded in order, each once. Otherwise (cursors, no totals) the walk prefetches.
///
/// Memory holds the current page and those in flight. Cancelling the consuming task (or dropping the iterator)
/// cancels the requests in flight and ends the iteration with `CancellationError`; once `cancel()` has returned no
/// request of the walk is let into the transport, whether the consumer was waiting in `next()` or running its loop
/// body. For that, the pages ahead go to the transport only while the consumer is inside `next()`, which returns
/// once the requests it started are on their way; with `prefetch` above 1, a page that waits for the one before it
/// and would set off while your loop body runs sets off when you next ask. A repeating or cyclic `next` link ends
/// the iteration with ``JSONAPIClientError/Code/paginationLoop``.
///
/// ```swift
/// for try await page in source.fetch().page(.pageBased(1, 50)).pages(concurrency: 4) {
///     print(page.data?.count ?? 0)
/// }
/// ```
public struct PageSequence<Primary: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A page.
    public typealias Element = FetchResponse<Primary>

    let request: FetchRequest<Primary>
    let prefetch: Int
    let concurrency: Int
    let progress: (@Sendable (PaginationProgress) -> Void)?

    /// Creates an iterator.
    ///
    /// - Returns: An iterator that starts at the request's page; nothing is sent before its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(request: request, prefetch: prefetch, concurrency: concurrency, progress: progress)
    }

    /// Fetches the pages, ahead of the consumer as the sequence was asked to.
    public struct Iterator: AsyncIteratorProtocol {
        private typealias PageTask = Task<FetchResponse<Primary>?, any Error>

        private enum Mode {
            /// Not started: the first page comes from the request.
            case initial(FetchRequest<Primary>)
            /// Following `next` from this page; `ahead` holds the pages after it already asked for, in order.
            case following(FetchResponse<Primary>)
            /// Fetching addressed pages: those not yet asked for, from `index` on.
            case addressed([FetchRequest<Primary>], index: Int)
            case finished
        }

        private let prefetch: Int
        private let concurrency: Int
        private let progress: (@Sendable (PaginationProgress) -> Void)?
        private var mode: Mode
        /// The requests in flight, in the order their pages are yielded; cancelled when the iterator goes, or with
        /// the consumer.
        private let ahead: InFlight
        /// Lets the walk's requests go on to the transport only while the consumer is inside `next()`, never once it
        /// is cancelled.
        private let gate: PageGate
        private var pages = 0
        private var resources = 0
        /// When the last page was handed to the consumer, and whether the consumer came back for the next one
        /// sooner than `prefetchThreshold`: then nothing is fetched ahead (there is nothing to hide behind it).
        private var handedOver: ContinuousClock.Instant?
        private var consumerIsQuick = false
        /// Whether a page fetched by address, with more to come, said by its links that none follow (logged once).
        private var reportedContradiction = false
        private let prefetchThreshold: Duration

        init(
            request: FetchRequest<Primary>, prefetch: Int, concurrency: Int,
            progress: (@Sendable (PaginationProgress) -> Void)?
        ) {
            self.mode = .initial(request)
            self.gate = PageGate()
            self.ahead = InFlight(gate: gate)
            self.prefetchThreshold = request.session.configuration.prefetchThreshold
            self.prefetch = Swift.max(prefetch, 0)
            self.concurrency = Swift.max(concurrency, 1)
            self.progress = progress
        }

        /// The next page; `nil` after the last.
        ///
        /// - Returns: The next page, or `nil` after the last.
        /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
        ///   `CancellationError` when the task is cancelled.
        public mutating func next() async throws -> FetchResponse<Primary>? {
            let (gate, ahead) = (self.gate, self.ahead)
            // The consumer's cancellation, while it is in here, stops the walk at once: the gate refuses every request
            // of it from then on (under the lock they pass by), a refill starts nothing, and the requests in flight are
            // cancelled. A consumer cancelled in its loop body gets here cancelled: the handler runs first.
            return try await withTaskCancellationHandler {
                try await step()
            } onCancel: {
                gate.stop()
                ahead.cancelAll()
            }
        }

        /// The next page, with the gate open to the walk's requests until it returns.
        private mutating func step() async throws -> FetchResponse<Primary>? {
            if let handedOver { consumerIsQuick = ContinuousClock.now - handedOver < prefetchThreshold }
            // Over (the last page, an error, a cancellation): nil, as before, unless this task is cancelled.
            if case .finished = mode {
                try Task.checkCancellation()
                return nil
            }
            guard gate.enter(isCancelled: Task.isCancelled) else {
                finish(stopping: true)
                throw CancellationError()
            }
            defer { gate.leave() }
            let page: FetchResponse<Primary>?
            do {
                switch mode {
                case .finished: page = nil
                case .initial(let request):
                    page = try await request.result()
                    try Task.checkCancellation()
                    if let page {
                        plan(after: page, request: request)
                        if case .addressed(let requests, _) = mode { noteEarlyEnd(of: page, more: !requests.isEmpty) }
                    }
                case .following(let current):
                    page = ahead.count > 0 ? try await ahead.take() : try await current.next()
                    // A consumer cancelled while the page arrived starts no more requests.
                    try Task.checkCancellation()
                    if let page { refill(after: page) }
                case .addressed(let requests, let index):
                    page = try await ahead.take()
                    try Task.checkCancellation()
                    if let page {
                        noteEarlyEnd(of: page, more: index < requests.count || ahead.count > 0)
                        refill(after: page)
                    }
                }
                // The requests just started reach the gate before the consumer goes back to its own code, where none
                // may pass; they are on the network while it works, as before.
                await gate.admissions()
                try Task.checkCancellation()
            } catch {
                finish(stopping: true)
                throw error
            }
            guard let page else {
                finish(stopping: false)
                return nil
            }
            pages += 1
            resources += page.navigation.page.count
            progress?(
                PaginationProgress(
                    pagesFetched: pages, resourcesFetched: resources,
                    totalResources: PageContext.totalResources(in: page.document.meta)))
            handedOver = .now
            return page
        }

        /// After the first page: fetch the remaining pages by address when that is asked for and possible, else
        /// follow `next`.
        private mutating func plan(after first: FetchResponse<Primary>, request: FetchRequest<Primary>) {
            if concurrency > 1, let strategy = request.request.pagination,
                let remaining = Self.remainingPages(of: strategy, after: first),
                remaining.count < request.session.configuration.maxPages
            {
                let requests = remaining.map {
                    FetchRequest<Primary>(session: request.session, request: request.request.with(pagination: $0))
                }
                mode = .addressed(requests, index: 0)
            } else {
                mode = .following(first)
            }
            refill(after: first)
        }

        /// Logs, once, a page fetched by address whose links say no page follows while `more` are to come: it changes
        /// nothing of the walk, but it is the server defect a walk along the links logs too.
        private mutating func noteEarlyEnd(of page: FetchResponse<Primary>, more: Bool) {
            guard more, !reportedContradiction, hasPaginationLinks(page.document.links),
                page.document.links?[PageRelation.next.rawValue] == nil
            else { return }
            reportedContradiction = true
            page.navigation.session.configuration.log(Navigation.contradiction(at: page.url))
        }

        /// Keeps the pages ahead asked for: `concurrency` addressed pages, or `prefetch` pages along `next`.
        private mutating func refill(after page: FetchResponse<Primary>) {
            switch mode {
            case .addressed(let requests, var index):
                while ahead.count < concurrency, index < requests.count {
                    // Nothing starts once the consumer is cancelled (a page that completed just after it).
                    guard let ticket = gate.start(awaited: true) else { break }
                    let request = requests[index]
                    ahead.append(Task { try await Self.run(ticket) { try await request.result() } })
                    index += 1
                }
                mode = .addressed(requests, index: index)
            case .following:
                mode = .following(page)
                while ahead.count < (consumerIsQuick ? 0 : prefetch) {
                    let previous = ahead.last
                    // One that waits for an earlier page first is not waited for: arriving while the consumer runs its
                    // own code, it waits for the consumer to come back.
                    guard let ticket = gate.start(awaited: previous == nil) else { break }
                    ahead.append(
                        Task {
                            try await Self.run(ticket) {
                                let from: FetchResponse<Primary>?
                                if let previous { from = try await previous.value } else { from = page }
                                return try await from?.next()
                            }
                        })
                }
            case .initial, .finished:
                break
            }
        }

        /// Ends the walk: the requests in flight are cancelled; `stopping` (a cancellation or an error) refuses
        /// whatever of the walk comes late, else (the last page) it passes.
        private mutating func finish(stopping: Bool) {
            mode = .finished
            ahead.cancelAll()
            if stopping { gate.stop() } else { gate.finish() }
        }

        /// Runs a request ahead as the walk's `ticket`: the middleware chain finds it at the transport's door, and the
        /// gate learns when its task ends.
        private static func run(
            _ ticket: PageGate.Ticket, _ body: @Sendable () async throws -> FetchResponse<Primary>?
        ) async throws -> FetchResponse<Primary>? {
            defer { ticket.gate.finished(ticket) }
            return try await PageGate.$current.withValue(ticket) { try await body() }
        }

        private static func remainingPages(of strategy: any PaginationStrategy, after page: FetchResponse<Primary>)
            -> [any PaginationStrategy]?
        {
            Navigation.remaining(
                of: strategy, after: page.navigation.page, lastLinkQuery: lastLinkQuery(page.document.links))
        }
    }

    /// The requests a page iterator has in flight, oldest first; a class so that dropping the iterator cancels them
    /// (and stops its gate). The iterator changes it one call at a time; the consumer's cancellation handler cancels
    /// it from another thread, hence the lock.
    private final class InFlight: Sendable {
        private struct State {
            var tasks: [Task<FetchResponse<Primary>?, any Error>] = []
            /// Cancelled as a whole: a task appended later (started just before) is cancelled at once.
            var cancelled = false
        }

        private let state = LockedValue(State())
        private let gate: PageGate

        init(gate: PageGate) { self.gate = gate }

        var count: Int { state.withLock { $0.tasks.count } }
        var last: Task<FetchResponse<Primary>?, any Error>? { state.withLock { $0.tasks.last } }

        func append(_ task: Task<FetchResponse<Primary>?, any Error>) {
            let cancelled = state.withLock { state -> Bool in
                if !state.cancelled { state.tasks.append(task) }
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }

        /// The oldest page, waiting for it; cancelling the waiting task cancels it (next()'s handler, the others).
        func take() async throws -> FetchResponse<Primary>? {
            guard let task = state.withLock({ $0.tasks.isEmpty ? nil : $0.tasks.removeFirst() }) else { return nil }
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }

        func cancelAll() {
            let tasks = state.withLock { state in
                defer {
                    state.tasks = []
                    state.cancelled = true
                }
                return state.tasks
            }
            for task in tasks { task.cancel() }
        }

        deinit {
            cancelAll()
            gate.drop()
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
    ///
    /// - Returns: An iterator over the resources of the pages, in order.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    /// Walks the resources of each page, fetching the next page when one is used up.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline var pages: PageSequence<[Element]>.Iterator
        @usableFromInline var buffer: [Element] = []
        @usableFromInline var index = 0

        init(pages: PageSequence<[Element]>.Iterator) { self.pages = pages }

        /// The next resource; `nil` after the last page's last.
        // Inlinable, so that the caller's module specializes it for its `Element`: unspecialized, each resource cost
        // about 700 instructions of generic-metadata lookups (1 % of a walk that only counts them).
        /// - Returns: The next resource, or `nil` after the last page's last.
        /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
        ///   `CancellationError` when the task is cancelled.
        @inlinable
        public mutating func next() async throws -> Element? {
            if index >= buffer.count {
                guard try await nextPage() else { return nil }
            }
            defer { index += 1 }
            return buffer[index]
        }

        /// Moves on to the next page with resources; `false` after the last.
        @usableFromInline
        mutating func nextPage() async throws -> Bool {
            while index >= buffer.count {
                guard let page = try await pages.next() else { return false }
                buffer = page.document.data ?? []
                index = 0
            }
            return true
        }
    }
}
