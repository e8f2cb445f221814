import Observation

/// One resource for a view: the model as the server last sent it, kept up to date by the session's store, with
/// whether it is loading and the last error. `@Observable` and main-actor isolated, so that a SwiftUI view that
/// reads it redraws when it changes.
///
/// ```swift
/// let article = articles.live(id: "1")                   // or articles.fetch(id: "1").include(["author"]).live()
/// await article.load()                                   // in .task { }: by the cache policy
/// print(article.resource?.title ?? "", article.isLoading, article.error?.detail ?? "")
/// await article.refresh()                                // in .refreshable { }: asks the server
/// ```
///
/// It follows the session's ``ResourceStore``: a write through any data source of the session, a later response
/// that includes the resource, a change to a related record its model is decoded from (its included author
/// renamed), and a delete show up without a fetch (a delete makes ``resource`` `nil`); when the
/// store evicts the record to make room, the object keeps its copy. After ``ResourceStore/clear()`` — the account
/// changed — it shows nothing of it any more (before `clear()` returns, when it is called on the main actor), drops
/// any fetch in flight, and fetches it again as whoever is signed in now when it was showing or loading it. Without
/// a store (`store: nil`) it shows what its own fetches return.
///
/// Making one sends nothing: call ``load()`` (a view's `.task`) or ``refresh()``. Its work — the store observer and
/// the fetch in flight — is cancelled when the object goes; a fetch it started is cancelled as well when the task
/// that awaits it is (the view disappeared).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class LiveResource<Model: Resource> {
    /// The resource, or `nil` before it is loaded, after a delete, or after the store was cleared (until it is
    /// fetched again).
    public private(set) var resource: Model?
    /// The resource's id: the one asked for, or — for a request such as `/me` — learned from the first response.
    public private(set) var id: String?
    /// Whether a fetch is in flight.
    public private(set) var isLoading = false
    /// Why the last fetch failed; `nil` after a fetch that succeeded. The resource shown before stays.
    public private(set) var error: JSONAPIClientError?

    @ObservationIgnored private let request: FetchRequest<Model>
    @ObservationIgnored private let tasks = LiveTasks()
    @ObservationIgnored private var observer: Int?
    /// The related records the model is decoded from (an included author), followed in the store too.
    @ObservationIgnored private var dependencies = LiveDependencies()
    @ObservationIgnored private var fetch: (token: Int, task: Task<Void, Never>)?
    @ObservationIgnored private var generation = 0
    /// The store's ``ResourceStore/clears`` when the object last fetched: an eviction after it moved is a clear.
    @ObservationIgnored private var clearsSeen: UInt64
    /// Whether what is shown or in flight was asked for while a switch of account was under way.
    @ObservationIgnored private var askedWhileSwitching = false

    /// A live resource for `request`; `id`, when known, is followed in the store from now on.
    init(request: FetchRequest<Model>, id: String?) {
        self.request = request
        clearsSeen = request.session.store?.clears ?? 0
        if let id { follow(id) }
    }

    deinit { tasks.cancelAll() }

    /// Fetches the resource by the cache policy when nothing is shown yet (the first time, after a failure, a
    /// delete or an eviction); otherwise waits for the fetch in flight, if any. For a view's `.task { }`.
    public func load() async {
        if resource == nil, !isLoading { start(request) }
        await awaitFetch()
    }

    /// Fetches the resource again and waits for it: from the server, conditionally, under
    /// ``CachePolicy/cacheFirst`` and ``CachePolicy/staleWhileRevalidate`` too (``CachePolicy/networkFirst`` still
    /// answers from the store offline, ``CachePolicy/cacheOnly`` still sends nothing). For `.refreshable { }`.
    public func refresh() async {
        start(LiveFetch.refreshing(request))
        await awaitFetch()
    }

    // MARK: Fetching

    private func start(_ request: FetchRequest<Model>) {
        if let fetch { tasks.cancel(fetch.token) }
        let clears = request.session.store?.clears ?? 0
        // Cleared since the last fetch, and the eviction not applied yet (it comes from another thread): what is
        // shown may be the previous account's.
        if clears != clearsSeen { resource = nil }
        clearsSeen = clears
        askedWhileSwitching = request.session.store?.epoch.switching ?? false
        generation += 1
        let generation = generation
        isLoading = true
        let task = Task { @MainActor [weak self] in
            let result: Result<FetchResponse<Model>, any Error>
            do {
                result = .success(try await request.result())
            } catch {
                result = .failure(error)
            }
            self?.finish(result, generation: generation)
        }
        fetch = (tasks.add(task), task)
    }

    private func finish(_ result: Result<FetchResponse<Model>, any Error>, generation: Int) {
        guard generation == self.generation else { return }
        // Fetched before a clear whose notice has not reached the object yet: it may be the previous account's.
        // Nothing of it is shown; it is fetched again (the notice, when it comes, then does nothing).
        if let store = request.session.store, store.clears != clearsSeen {
            start(request)
            return
        }
        tasks.forget(fetch?.token)
        fetch = nil
        isLoading = false
        switch result {
        case .success(let response):
            error = nil
            guard let model = response.data else { return }
            // Followed first, so that no change made from now on is missed; then the store (it may show a newer
            // response's model already, or none); the object's own state after.
            let id = model.id.resourceID
            if let id, id != self.id { follow(id) }
            let (read, gone, reached) = request.session.store.map { store in
                LiveDependencies.confirmed(Model.self, ids: id.map { [$0] } ?? [], records: response.records, in: store)
            } ?? ([:], [], [])
            resource = id.map { gone.contains($0) } == true ? nil : id.flatMap { read[$0] } ?? model
            if self.id == id { dependencies.note(reached) }
        case .failure(let failure):
            if let shown = LiveFetch.shown(failure) { error = shown }
        }
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

    private func follow(_ id: String) {
        tasks.cancel(observer)
        self.id = id
        guard let store = request.session.store else { return }
        dependencies.removeAll()
        observer = LiveFollowing.follow(store, type: nil, tasks: tasks) { [weak self] batch in
            guard let self else { return }
            if batch.restarts, askedWhileSwitching {
                restart(from: store)
                return
            }
            if batch.cleared, store.clears != clearsSeen {
                // Cleared with no record of the object's in the store (a fetch in flight): as an eviction after a
                // clear.
                apply(StoreChange(type: Model.resourceType, id: id, kind: .evicted), from: store)
                return
            }
            apply(batch.changes, id: id, from: store)
        }
    }

    /// Applies a batch of the store's changes: its own record's, and those of the related records the model is
    /// decoded from (which read the model again).
    private func apply(_ changes: [StoreChange], id: String, from store: ResourceStore) {
        var reread = false
        for change in changes {
            guard change.type == Model.resourceType, change.id == id else {
                if change.kind != .evicted, !dependencies.models(reaching: change.type, id: change.id).isEmpty {
                    reread = true
                } else if change.kind == .evicted, store.clears != clearsSeen {
                    apply(change, from: store)
                    return
                }
                continue
            }
            apply(change, from: store)
            reread = false
            if change.kind == .evicted { return }
        }
        guard reread, resource != nil else { return }
        // Every read of the store first; the object's own state changes after them.
        let model = (try? store.resource(Model.self, id: id)) ?? nil
        let reached = LiveDependencies.reached(Model.self, ids: [id], in: store)
        if let model { resource = model }
        dependencies.note(reached)
    }

    private func apply(_ change: StoreChange, from store: ResourceStore) {
        switch change.kind {
        case .updated:
            // A record that does not make a model (a sparse fieldset left a member out) leaves the model shown.
            let model = (try? store.resource(Model.self, id: change.id)) ?? nil
            let reached = LiveDependencies.reached(Model.self, ids: [change.id], in: store)
            if let model { resource = model }
            dependencies.note(reached)
        case .removed:
            resource = nil
            dependencies.removeAll()
        case .evicted:
            // Evicted to make room: that says nothing of the account, and the object keeps its copy. After a
            // clear() — the account changed — nothing shown or in flight stays (a fetch in flight may have been
            // sent for the previous account), and what was shown is fetched again as whoever is signed in now.
            guard store.clears != clearsSeen else { return }
            restart(from: store)
        }
    }

    /// Drops what is shown and what is in flight, and fetches again as whoever is signed in now when anything was
    /// shown or loading.
    private func restart(from store: ResourceStore) {
        let shown = resource != nil || isLoading
        resource = nil
        clearsSeen = store.clears
        if shown { start(request) }
    }
}
