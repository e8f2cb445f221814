import Observation

/// A collection for a view: the resources of a request in the server's order, page by page as the view asks for
/// more, kept up to date by the session's store. `@Observable` and main-actor isolated, so that a SwiftUI list that
/// reads it redraws when it changes.
///
/// ```swift
/// let list = articles.fetch().sort("-created").page(.pageBased(1, 20)).liveList()
/// await list.load()                                      // in .task { }: the first page, by the cache policy
/// for article in list.resources { print(article.title) }
/// if list.hasMore { await list.loadMore() }              // when the last row appears
/// await list.refresh()                                   // in .refreshable { }: the first page again
/// if case .failed(let error) = list.phase { print(error.detail) }
/// ```
///
/// - **Pages.** ``loadMore()`` appends the next page — the server's `next` link, or the request's pagination
///   strategy when the server gives none — leaving out resources already in the list (an offset page that shifted).
///   While the view shows a page, the next one is already on its way (`prefetch`, as
///   ``FetchRequest/pages(prefetch:concurrency:progress:)`` does), so scrolling to the end rarely waits.
/// - **The store.** A resource of the list changed anywhere in the session — a write through any data source, a
///   later response that includes it — changes in place, and so does one whose related records changed (the
///   included author renamed through the people data source: up to three relationship steps away); only the
///   models changed are read again — or, when a fetch of the same model type changed them and the store still shows
///   every record it decoded them from as that fetch had it, taken from that fetch without decoding them again. A
///   deleted one leaves the list; one the store evicts to make room stays (the list keeps its copy). After
///   ``ResourceStore/clear()`` — the account changed — the list empties (before `clear()` returns, when it is called
///   on the main actor), drops any page in flight, and fetches its first page again as whoever is signed in now. A next page fetched with other credentials than the first (a new token
///   without a clear()) is not appended either: the list starts again from its first page. New resources appear on
///   ``refresh()``: the server decides where they go (so, under ``CachePolicy/staleWhileRevalidate``, does what the
///   background revalidation changes in the first page's membership; its changes to the resources themselves show
///   at once, through the store).
/// - **Its work** — the store observer, the page in flight, the pages prefetched — is cancelled when the object
///   goes; nothing more is sent for it. A fetch started by ``load()``, ``refresh()`` or ``loadMore()`` is cancelled
///   as well when the task that awaits it is (the view disappeared).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class LiveList<Model: Resource> {
    /// What the list is doing.
    public enum Phase: Sendable {
        /// Nothing asked for yet.
        case idle
        /// Fetching the first page (the resources shown before, if any, stay until it arrives).
        case loading
        /// Fetching the next page.
        case loadingMore
        /// Showing what was fetched.
        case loaded
        /// The last fetch failed; the resources fetched before stay.
        case failed(JSONAPIClientError)
    }

    /// The resources, in the server's order, each once.
    public private(set) var resources: [Model] = []
    /// What the list is doing.
    public private(set) var phase: Phase = .idle
    /// Whether ``loadMore()`` would fetch a page: the last page has a `next` link, or the strategy a next page.
    public private(set) var hasMore = false

    /// Whether a page is being fetched (the first or the next).
    public var isLoading: Bool {
        switch phase {
        case .loading, .loadingMore: true
        case .idle, .loaded, .failed: false
        }
    }

    /// Why the last fetch failed, or `nil`.
    public var error: JSONAPIClientError? {
        if case .failed(let error) = phase { return error }
        return nil
    }

    private typealias Page = FetchResponse<[Model]>

    @ObservationIgnored private let request: FetchRequest<[Model]>
    @ObservationIgnored private let prefetch: Int
    @ObservationIgnored private let tasks = LiveTasks()
    /// The ids of ``resources``, in the same order.
    @ObservationIgnored private var ids: [String?] = []
    /// Where each id is in ``resources`` (ids are unique in the list).
    @ObservationIgnored private var positions: [String: Int] = [:]
    /// The related records the models shown are decoded from (an included author), followed in the store too.
    @ObservationIgnored private var dependencies = LiveDependencies()
    /// The last page appended: the next one is fetched from it.
    @ObservationIgnored private var lastPage: Page?
    /// The pages after ``lastPage`` already asked for, in order.
    @ObservationIgnored private var ahead: [(token: Int, task: Task<Page?, any Error>)] = []
    @ObservationIgnored private var fetch: (token: Int, task: Task<Void, Never>)?
    /// Whose the pages shown are: a digest of the credentials the first page was fetched with.
    @ObservationIgnored private var credentials: CredentialDigest?
    /// Bumped by every first-page fetch and reset: what an older fetch brings back is not shown.
    @ObservationIgnored private var generation = 0
    /// The store's ``ResourceStore/clears`` when the list last fetched its first page: an eviction after it moved is
    /// a clear.
    @ObservationIgnored private var clearsSeen: UInt64
    /// Whether a page shown or in flight was asked for while a switch of account was under way.
    @ObservationIgnored private var askedWhileSwitching = false

    /// A live list for `request`, prefetching `prefetch` pages ahead (0 for none).
    init(request: FetchRequest<[Model]>, prefetch: Int) {
        self.request = request
        self.prefetch = max(prefetch, 0)
        clearsSeen = request.session.store?.clears ?? 0
        follow()
    }

    deinit { tasks.cancelAll() }

    /// Fetches the first page by the cache policy when the list has none yet (the first time, after a failure or
    /// an eviction); otherwise waits for the fetch in flight, if any. For a view's `.task { }`.
    public func load() async {
        if lastPage == nil, !isLoading { startFirstPage(request) }
        await awaitFetch()
    }

    /// Fetches the first page again and waits for it, then shows it in place of every page shown: from the server,
    /// conditionally, under ``CachePolicy/cacheFirst`` and ``CachePolicy/staleWhileRevalidate`` too
    /// (``CachePolicy/networkFirst`` still answers from the store offline, ``CachePolicy/cacheOnly`` still sends
    /// nothing). For `.refreshable { }`.
    public func refresh() async {
        startFirstPage(LiveFetch.refreshing(request))
        await awaitFetch()
    }

    /// Fetches the next page and appends its resources, then waits for it; does nothing when there is no next page
    /// or a page is being fetched already (it waits for that one). For the view's last row. After a
    /// ``ResourceStore/clear()`` whose evictions have not reached the list yet, it fetches the first page instead.
    public func loadMore() async {
        if let store = request.session.store, store.clears != clearsSeen {
            startFirstPage(request)
        } else if hasMore, !isLoading, let lastPage {
            startNextPage(after: lastPage)
        }
        await awaitFetch()
    }

    // MARK: Fetching

    private func startFirstPage(_ request: FetchRequest<[Model]>) {
        let clears = request.session.store?.clears ?? 0
        // Cleared since the last first page, and the eviction not applied yet (it comes from another thread): what is
        // shown may be the previous account's.
        if clears != clearsSeen { reset() } else { cancelFetches() }
        clearsSeen = clears
        askedWhileSwitching = request.session.store?.epoch.switching ?? false
        let generation = generation
        phase = .loading
        start { @MainActor [weak self] in
            let result: Result<Page?, any Error>
            do {
                result = .success(try await request.result())
            } catch {
                result = .failure(error)
            }
            self?.finish(result, generation: generation, replacing: true)
        }
    }

    private func startNextPage(after page: Page) {
        if request.session.store?.epoch.switching == true { askedWhileSwitching = true }
        let generation = generation
        let next = ahead.isEmpty ? nil : ahead.removeFirst()
        phase = .loadingMore
        let tasks = tasks
        start { @MainActor [weak self] in
            let result: Result<Page?, any Error>
            do {
                if let next {
                    tasks.forget(next.token)
                    result = .success(
                        try await withTaskCancellationHandler {
                            try await next.task.value
                        } onCancel: {
                            next.task.cancel()
                        })
                } else {
                    result = .success(try await page.next())
                }
            } catch {
                result = .failure(error)
            }
            self?.finish(result, generation: generation, replacing: false)
        }
    }

    private func start(_ operation: @escaping @MainActor @Sendable () async -> Void) {
        let task = Task { @MainActor in await operation() }
        fetch = (tasks.add(task), task)
    }

    private func finish(_ result: Result<Page?, any Error>, generation: Int, replacing: Bool) {
        guard generation == self.generation else { return }
        // Fetched before a clear whose notice has not reached the list yet (it comes from another thread): it may be
        // the previous account's. Nothing of it is shown; the first page is fetched again (the notice, when it
        // comes, finds the list started again and does nothing).
        if let store = request.session.store, store.clears != clearsSeen {
            reset()
            startFirstPage(request)
            return
        }
        tasks.forget(fetch?.token)
        fetch = nil
        switch result {
        case .success(let page):
            guard let page else {
                hasMore = false
                phase = .loaded
                return
            }
            show(page, replacing: replacing)
        case .failure(let failure):
            // The pages asked for ahead follow the one that failed (they would fail with it): the next loadMore()
            // asks again.
            for page in ahead { tasks.cancel(page.token) }
            ahead = []
            if let shown = LiveFetch.shown(failure) {
                phase = .failed(shown)
            } else {
                phase = lastPage == nil ? .idle : .loaded
            }
        }
    }

    private func show(_ page: Page, replacing: Bool) {
        if !replacing, let shown = credentials, let fetched = page.credentials, fetched != shown {
            // The credentials changed without a clear(): the page is someone else's, and so may the list be now.
            reset()
            startFirstPage(request)
            return
        }
        // Every read of the store first, the list's own state after: no store call runs while it changes. The
        // page's models as the store shows them now (one a newer response changed meanwhile is read again).
        var added: [String] = []
        var seen = Set<String>()
        for model in page.data ?? [] {
            guard let id = model.id.resourceID, replacing || positions[id] == nil, seen.insert(id).inserted else {
                continue
            }
            added.append(id)
        }
        let (read, gone, reached) = request.session.store.map {
            LiveDependencies.confirmed(Model.self, ids: added, records: page.records, in: $0)
        } ?? ([:], [], [])
        if replacing { credentials = page.credentials }
        var models = replacing ? [] : resources
        var ids = replacing ? [] : self.ids
        if replacing {
            positions = [:]
            dependencies.removeAll()
        }
        for model in page.data ?? [] {
            let id = model.id.resourceID
            if let id {
                guard positions[id] == nil, !gone.contains(id) else { continue }
                positions[id] = ids.count
            }
            models.append(id.flatMap { read[$0] } ?? model)
            ids.append(id)
        }
        resources = models
        self.ids = ids
        dependencies.note(reached)
        lastPage = page
        hasMore = page.hasNext
        phase = .loaded
        prefetch(after: page)
    }

    /// Asks for the pages after `page` ahead of the view, up to ``prefetch``.
    private func prefetch(after page: Page) {
        guard page.hasNext else { return }
        while ahead.count < prefetch {
            let previous = ahead.last?.task
            let task = Task<Page?, any Error> {
                let from: Page? = if let previous { try await previous.value } else { page }
                return try await from?.next()
            }
            ahead.append((tasks.add(task), task))
        }
    }

    /// Cancels the fetch in flight and the pages asked for ahead; what they bring back is not shown.
    private func cancelFetches() {
        generation += 1
        tasks.cancel(fetch?.token)
        fetch = nil
        for page in ahead { tasks.cancel(page.token) }
        ahead = []
    }

    /// Forgets every page and cancels every fetch: the list is as new.
    private func reset() {
        cancelFetches()
        resources = []
        ids = []
        positions = [:]
        dependencies.removeAll()
        lastPage = nil
        credentials = nil
        hasMore = false
        phase = .idle
    }

    /// Waits for the fetch in flight; cancelling the waiting task cancels the fetch.
    private func awaitFetch() async {
        guard let fetch else { return }
        let tasks = tasks
        await withTaskCancellationHandler {
            await fetch.task.value
        } onCancel: {
            tasks.cancel(fetch.token)
        }
    }

    // MARK: Following the store

    private func follow() {
        guard let store = request.session.store else { return }
        LiveFollowing.follow(store, type: nil, tasks: tasks) { [weak self] batch in
            self?.apply(batch, from: store)
        }
    }

    /// Applies a batch of the store's changes: the models it changed — their own records, or a related record they
    /// are decoded from — are the ones a fetch of the batch decoded, when the store confirms it shows them as that
    /// fetch had them, or else read again, in one read; deleted ones leave the list. Costs the changes, not the
    /// list's length (but for a delete, which closes the gap).
    private func apply(_ batch: LiveFollowing.Batch, from store: ResourceStore) {
        if batch.cleared && store.clears != clearsSeen || batch.restarts && askedWhileSwitching {
            // Cleared with none of the list's records in the store (an empty list, a first page in flight): as an
            // eviction after a clear, nothing shown or in flight stays, and a list that showed or fetched anything
            // fetches its first page again as whoever is signed in now.
            let shown = !resources.isEmpty || isLoading || lastPage != nil
            reset()
            if shown { startFirstPage(request) } else { clearsSeen = store.clears }
            return
        }
        var changed = Set<String>()
        var removed = Set<String>()
        // Each record once, however many changes name it (a burst of merges names an included author per page).
        var touched = Set<ResourceStore.Key>()
        for change in batch.changes {
            switch change.kind {
            case .updated, .removed:
                if change.type == Model.resourceType, positions[change.id] != nil {
                    // The last change to a model's own record decides: updated, or gone.
                    if change.kind == .removed {
                        removed.insert(change.id)
                    } else {
                        if !removed.isEmpty { removed.remove(change.id) }
                        changed.insert(change.id)
                    }
                }
                // Most changed records are no model's related record (the articles of a page): one lookup, with a
                // key made (and hashed) once.
                let key = ResourceStore.Key(type: change.type, id: change.id)
                let reaching = dependencies.models(reaching: key)
                guard !reaching.isEmpty, touched.insert(key).inserted else { continue }
                for id in reaching { changed.insert(id) }
            case .evicted:
                // Evicted to make room (a list longer than the store keeps): that says nothing of the account, and
                // the list keeps its copy. After a clear() — the account changed — nothing shown or in flight stays
                // (it may be the previous account's), and the first page is fetched again as whoever is signed in
                // now.
                guard store.clears != clearsSeen else { continue }
                reset()
                startFirstPage(request)
                return
            }
        }
        changed.subtract(removed)
        if !changed.isEmpty {
            let fetched = Self.fetched(changed, in: batch.fetched, confirmedBy: store)
            var unread: [String] = []
            if fetched.ids.count < changed.count {
                var left = changed
                for id in fetched.ids { left.remove(id) }
                unread = Array(left)
            }
            // A record that does not make a model (a sparse fieldset left a member out) leaves the model shown.
            let read = unread.isEmpty ? [:] : store.resources(Model.self, ids: unread)
            // Every read of the store first; the list's own state changes after them.
            let reached = LiveDependencies.reached(Model.self, ids: unread, in: store)
            if !fetched.ids.isEmpty || !read.isEmpty {
                // In place, told once: `resources = shown` would copy every model shown for the few changed.
                withMutation(keyPath: \.resources) {
                    // By index, not `zip`: the model type is generic here, and a zip of it is not specialised.
                    for index in fetched.ids.indices {
                        if let position = positions[fetched.ids[index]] { _resources[position] = fetched.models[index] }
                    }
                    for (id, model) in read { if let position = positions[id] { _resources[position] = model } }
                }
            }
            for index in fetched.ids.indices { dependencies.note(fetched.ids[index], reaches: fetched.reached[index]) }
            dependencies.note(reached)
        }
        guard !removed.isEmpty else { return }
        let kept = ids.indices.filter { ids[$0].map { !removed.contains($0) } ?? true }
        resources = kept.map { resources[$0] }
        ids = kept.map { ids[$0] }
        positions = [:]
        for (position, id) in ids.enumerated() { if let id { positions[id] = position } }
        for id in removed { dependencies.forget(id) }
    }

    /// The models of `ids` that the fetches of a batch decoded (`fetched`, oldest first) and that the store confirms
    /// it shows as decoded (``ResourceStore/shownAsFetched(_:type:depth:)``), each with the keys it reaches: what
    /// reading them again would give, without the decode. Each id once at most (the store holds a record in one
    /// response's tape, and a response names a resource once). A fetch of another model type offers none.
    private static func fetched(
        _ ids: Set<String>, in fetched: [ResourceStore.FetchedModels], confirmedBy store: ResourceStore
    ) -> Fetched {
        var offered: [(id: String, records: ResourceRecords)] = []
        var models: [Model] = []
        for response in fetched {
            for model in response.models(Model.self) {
                guard let id = model.id.resourceID, ids.contains(id) else { continue }
                offered.append((id, response.records))
                models.append(model)
            }
        }
        var confirmed = Fetched()
        guard !offered.isEmpty else { return confirmed }
        let shown = store.shownAsFetched(offered, type: Model.resourceType, depth: LiveDependencies.depth)
        for (index, reached) in shown.enumerated() {
            guard let reached else { continue }
            confirmed.ids.append(offered[index].id)
            confirmed.models.append(models[index])
            confirmed.reached.append(reached)
        }
        return confirmed
    }

    /// What ``fetched(_:in:confirmedBy:)`` gives, by position: the ids, their models, and the keys each reaches. (Arrays
    /// side by side, not tuples with a model: a tuple of a generic model is copied through its metadata, element by
    /// element.)
    private struct Fetched {
        var ids: [String] = []
        var models: [Model] = []
        var reached: [[ResourceStore.Key]] = []
    }
}
