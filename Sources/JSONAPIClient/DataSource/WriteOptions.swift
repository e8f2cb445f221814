/// How a write meets the store and the network: whether the store shows it before the server answers, and whether it
/// waits in the session's ``WriteQueue`` when the server cannot be reached. Every single write takes them, through
/// one path (``Session`` applies the answer to the store in one place): a data source's
/// (``DataSource/create(_:headerFields:options:)``, `update`, `delete`), an untyped one
/// (``Session/create(_:at:headerFields:options:)``, `update`, `delete`) and a relationship endpoint's
/// (``RelationshipEndpoint/add(_:headerFields:options:)``, `remove`, `replace`: the owner's whole linkage is shown,
/// worked out from what the store showed when the write was made). A graph
/// (``Session/create(_:operationsPath:headerFields:)``) and an Atomic Operations request
/// (``Session/atomic(_:path:headerFields:)``) take none: they are sent at once, never shown early nor queued, since
/// they are several writes that succeed or fail together.
///
/// ```swift
/// try await articles.update(article, options: .optimistic) { $0.title = "New title" }  // shown at once
/// let sent = try await articles.create(draft, options: .offline)                        // waits offline
/// if let entry = sent.queued { print("will be sent when the network is back:", entry.id) }
/// ```
///
/// A queued write survives the app being killed only when the session's store is persisted
/// (``ResourceStore/Configuration/persistence``): the queue is then written beside the store's file before the write
/// returns, and a restarted app sends it. Without persistence the queue is in memory, and what waits in it when the
/// process ends is lost.
///
/// A write's own options win over the session's (``Session/Configuration/writes``, ``immediate`` by default).
public struct WriteOptions: Sendable, Hashable {
    /// Whether the session's store shows the change at once, before the server answers: every observer and live
    /// object sees it; the server's answer then replaces it, or a refusal (or a transport failure not queued)
    /// rolls it back. Needs a store; without one the write is simply sent.
    public var isOptimistic: Bool
    /// Whether a write that cannot reach the server (a transport failure or a timeout, not an HTTP error, nor a
    /// connection refused for its security: ``JSONAPIClientError/Code/securityFailed`` throws) waits in the
    /// session's ``WriteQueue`` instead of throwing; it then returns a ``WriteResponse`` whose
    /// ``WriteResponse/queued`` names the entry. Also, while the queue holds writes, a new queued write goes behind
    /// them, so that writes reach the server in the order they were made. The queue outlives the process only with
    /// the store's ``ResourceStore/Persistence``; without it, queued writes are lost when the app is killed.
    public var isQueued: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - optimistic: Whether the store shows the change before the server answers.
    ///   - queued: Whether a write that cannot reach the server waits in the queue instead of throwing.
    public init(optimistic: Bool = false, queued: Bool = false) {
        self.isOptimistic = optimistic
        self.isQueued = queued
    }

    /// Sent at once; the store changes when the server answers; a failure throws (the default).
    public static let immediate = WriteOptions()
    /// Shown in the store at once, rolled back if the server refuses or cannot be reached.
    public static let optimistic = WriteOptions(optimistic: true)
    /// Shown in the store at once and kept in the ``WriteQueue`` when the server cannot be reached, until it can —
    /// across launches only when the store is persisted (``ResourceStore/Persistence``); in memory otherwise.
    public static let offline = WriteOptions(optimistic: true, queued: true)
}
