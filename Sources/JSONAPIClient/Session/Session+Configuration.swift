import Foundation

extension Session {
    /// How a ``Session`` (and every ``DataSource`` it hands out) talks to its server; every parameter has a default.
    ///
    /// ```swift
    /// let configuration = Session.Configuration(
    ///     middlewares: [BearerTokenMiddleware { try await auth.token() }, LoggingMiddleware { print($0) }],
    ///     mediaType: JSONAPIMediaType(profile: ["https://example.com/profiles/flexible"]),
    ///     allowedLinkOrigins: [Origin(scheme: "https", host: "cdn.example.com", port: 443)])
    /// ```
    public struct Configuration: Sendable {
        /// Middleware around the transport, in order: requests pass them first to last, responses last to first.
        public var middlewares: [any Middleware]
        /// Header fields added to every request (after `Accept`/`Content-Type`; a request's own replace them).
        /// `Authorization`, `Proxy-Authorization` and `Cookie` are never sent to another origin.
        public var headerFields: HTTPFields
        /// The media type parameters (`ext`, `profile`) sent in `Accept` and `Content-Type`.
        public var mediaType: JSONAPIMediaType
        /// Decodes response documents (key and date strategies).
        public var decoder: JSONAPIDecoder
        /// Encodes request bodies.
        public var encoder: JSONAPIEncoder
        /// Origins besides the session's own (its base URL's) whose links may be followed. Credentials are not sent there.
        public var allowedLinkOrigins: Set<Origin>
        /// The most pages one iteration (a page stream, `appendNext()` or `next()` chain) fetches before it stops
        /// with ``JSONAPIClientError/Code/tooManyPages``.
        public var maxPages: Int
        /// The limits of the session's ``ResourceStore``; `nil` for a session without one (no identity map, no
        /// conditional requests, no coalescing, and every request goes to the network).
        public var store: ResourceStore.Configuration?
        /// How long a page stream's consumer must spend on a page for the stream to fetch the next one ahead
        /// (``FetchRequest/pages(prefetch:concurrency:progress:)``); 1 ms by default, `.zero` to always fetch ahead.
        ///
        /// A consumer that comes back for the next page sooner leaves less than that to hide behind the request, and
        /// fetching ahead costs a task and two thread hops per page (about 0.1 ms, more on a virtual machine): 15 % of a
        /// walk over an in-memory transport. Such a consumer gets each page fetched when it asks, until it takes longer.
        public var prefetchThreshold: Duration
        /// When a `GET` may be answered from the store; a request's own ``FetchRequest/cachePolicy(_:)`` wins.
        public var cachePolicy: CachePolicy
        /// How the writes of ``DataSource`` meet the store and the network when they name no options of their own:
        /// ``WriteOptions/immediate`` by default; ``WriteOptions/offline`` to show each at once and queue what
        /// cannot reach the server.
        public var writes: WriteOptions
        /// How the ``WriteQueue`` retries (backoff, limits, its clock).
        public var writeQueue: WriteQueue.Configuration
        /// The account signed in, named by the app — a stable identifier such as the user's id, never a credential —
        /// or `nil` for a session that names none.
        ///
        /// With an account, everything the store and the queue keep is that account's, whatever credentials the
        /// requests carry: stored responses answer and revalidate across token refreshes and relaunches with a new
        /// token, queued writes are sent with whatever credentials the account's requests carry now, and with
        /// persistence it all lives in the account's own database (`JSONAPIClient/account-<digest>.sqlite`), which
        /// a session of another account never opens. When the user changes, tell the session
        /// (``Session/signIn(account:)``, ``Session/signOut(removingData:)``); a session of the same account on the
        /// same directory later finds the data where it was.
        ///
        /// Without one, the session tells users apart by their credentials: stored responses, records and queued
        /// writes are the credentials' that brought or made them. A token ``BearerTokenMiddleware`` refreshed after a
        /// 401 is the same user's (``MiddlewareContext/noteRenewal(from:to:)``); any other new credentials are
        /// another user, and their first request takes the records away (``ResourceStore/clear()`` without the
        /// responses), while a write queued under the old ones is not sent under the new ones. An app with sign-in
        /// should name the account.
        public var account: String?
        /// Where the session writes what a developer should know but no call returns: a page whose links contradict
        /// each other. The unified log (`os.Logger`, subsystem `JSONAPIClient`) by default, standard error where there
        /// is none. Lines carry no credential, query or body.
        public var log: @Sendable (String) -> Void = { LibraryLog.write($0, category: "session") }

        /// Creates a configuration; each parameter sets the property of the same name.
        ///
        /// - Parameters:
        ///   - middlewares: Middleware around the transport, in order.
        ///   - headerFields: Header fields added to every request to the session's own origin.
        ///   - mediaType: The media type parameters (`ext`, `profile`) sent in `Accept` and `Content-Type`.
        ///   - decoder: Decodes response documents.
        ///   - encoder: Encodes request bodies.
        ///   - allowedLinkOrigins: Other origins whose links may be followed (without credentials).
        ///   - maxPages: The most pages one iteration fetches.
        ///   - store: The limits of the session's store; `nil` for none.
        ///   - cachePolicy: When a `GET` may be answered from the store.
        ///   - prefetchThreshold: How long a page stream's consumer must spend on a page to have the next fetched
        ///     ahead.
        ///   - writes: The options of writes that name none.
        ///   - writeQueue: How the write queue retries.
        ///   - account: The account signed in, named by the app (see ``account``); `nil` for none.
        public init(
            middlewares: [any Middleware] = [], headerFields: HTTPFields = HTTPFields(),
            mediaType: JSONAPIMediaType = JSONAPIMediaType(), decoder: JSONAPIDecoder = JSONAPIDecoder(),
            encoder: JSONAPIEncoder = JSONAPIEncoder(), allowedLinkOrigins: Set<Origin> = [], maxPages: Int = 10_000,
            store: ResourceStore.Configuration? = ResourceStore.Configuration(), cachePolicy: CachePolicy = .networkOnly,
            prefetchThreshold: Duration = .milliseconds(1), writes: WriteOptions = .immediate,
            writeQueue: WriteQueue.Configuration = WriteQueue.Configuration(), account: String? = nil
        ) {
            self.account = account
            self.writes = writes
            self.writeQueue = writeQueue
            self.store = store
            self.prefetchThreshold = prefetchThreshold
            self.cachePolicy = cachePolicy
            self.middlewares = middlewares
            self.headerFields = headerFields
            self.mediaType = mediaType
            self.decoder = decoder
            self.encoder = encoder
            self.allowedLinkOrigins = allowedLinkOrigins
            self.maxPages = maxPages
        }
    }
}
