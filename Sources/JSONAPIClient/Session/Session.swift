import Foundation

/// One connection to a JSON:API server: the transport (one URLSession by default, so connections are reused across
/// resource types), the base URL and the configuration — middleware, headers, media type, coders, link policy —
/// shared by every request it sends.
///
/// Make one session per server and take typed data sources from it; they all share its transport:
///
/// ```swift
/// let api = Session(baseURL: url, configuration: .init(middlewares: [BearerTokenMiddleware { try await auth.token() }]))
/// let articles = api.source(Article.self, .path("articles/<id>"))
/// let people = api.source(Person.self, .path("people/<id>"))
/// let page = try await articles.fetch().include(["author"]).paginate(.pageBased(1, 10))
/// ```
///
/// The session also fetches any URL without a model, as schema-less documents that navigate like typed ones:
///
/// ```swift
/// var document = try await api.fetch(URL(string: "https://api.example.com/v1/articles")!).result()
/// while try await document.appendNext().hasMore {}
/// ```
///
/// A session is immutable and `Sendable`; hold it for as long as you talk to the server.
public final class Session: Sendable {
    /// The base URL: paths resolve against it, and its origin is the one links may lead to by default and the only
    /// one the configured headers and credentials are sent to.
    public let baseURL: URL
    /// The transport every request of this session goes through.
    let client: any Client
    /// The configuration.
    public let configuration: Configuration
    /// What the session remembers of the resources and responses it has seen; `nil` when the configuration has no
    /// store.
    public let store: ResourceStore?
    /// The writes that could not reach the server and wait to be sent again (``WriteOptions/isQueued``); kept beside
    /// the store when it is persisted. Each account has its own: after ``signIn(account:)`` or
    /// ``signOut(removingData:)`` this is the new account's queue.
    public var writeQueue: WriteQueue { accounts.withLock { $0.queue } }
    let chain: MiddlewareChain
    let flights = InFlightRequests()
    /// The server's ids of the resources this session created by local id (`lid`), for the bodies of later writes.
    let localIDs = LocalIDs()
    /// The Atomic Operations paths whose server refused the extension (415, 406) to a graph: later graphs go
    /// straight to ordered requests there (Session+Graph.swift).
    let refusedOperationsPaths = LockedValue<Set<String>>([])
    /// The last typed decode of a body the store answered with, per type (StoredDecodes.swift).
    let storedDecodes = StoredDecodes()
    /// Who the last request was sent as (Session+Accounts.swift).
    let lastCredentials = LockedValue<SeenCredentials?>(nil)
    /// The account signed in, its queue, and the queues of the accounts signed out of (Session+Accounts.swift).
    let accounts: LockedValue<Accounts>
    /// The last account switch asked for: the next waits for it (Session+SignIn.swift).
    let switching = LockedValue<Task<Void, Never>?>(nil)
    /// Which credentials are one user's when no account is named, for a session without a store.
    let ownLineage = CredentialLineage(key: .process)
    /// The origin of ``baseURL`` (`nil` when it is not an `http`/`https` URL with a host), worked out once: every
    /// request and every link compares against it.
    let origin: Origin?

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - baseURL: The server's base URL, e.g. `https://api.example.com/v1`.
    ///   - client: The transport; a new ``URLSessionClient`` (with its own URLSession) by default.
    ///   - configuration: Middleware, headers, media type, coders, link safety and the page limit.
    public init(baseURL: URL, client: any Client = URLSessionClient(), configuration: Configuration = Configuration()) {
        self.baseURL = baseURL
        self.origin = Origin(baseURL)
        self.client = client
        self.configuration = configuration
        self.chain = MiddlewareChain(transport: client, middlewares: configuration.middlewares)
        let store = configuration.store.map {
            ResourceStore(configuration: $0, decoder: configuration.decoder, account: configuration.account)
        }
        self.store = store
        let queue = Self.queue(for: configuration.account, configuration: configuration, persisted: store != nil)
        self.accounts = LockedValue(
            Accounts(
                name: configuration.account,
                digest: store?.accountDigest
                    ?? configuration.account.map { CredentialDigest(account: $0, key: .process) },
                queue: queue))
        queue.attach(self)
    }

    /// A data source for `type` on this session's transport and configuration.
    ///
    /// - Parameters:
    ///   - type: The model type, e.g. `Article.self`.
    ///   - router: Where its endpoints are: `.path("articles/<id>")` or a ``Router`` of your own.
    /// - Returns: A data source; making one is cheap, and any number share the session.
    public func source<Model: Resource>(_ type: Model.Type, _ router: some Router) -> DataSource<Model> {
        DataSource(session: self, router: router)
    }

    /// A fetch of `url`, schema-less: its document's primary data is `PrimaryData`.
    ///
    /// A relative URL resolves under the base URL as a folder; query parameters in `url` are kept (options add to
    /// them). Only `http`/`https` URLs of the session's origin or an allowed one are fetched, as for links.
    ///
    /// - Parameter url: The URL, absolute or relative to the base URL.
    /// - Returns: A fetch to perform with `result()` (nothing is sent before).
    public func fetch(_ url: URL) -> FetchRequest<PrimaryData> { fetch(url, as: PrimaryData.self) }

    /// A fetch of `url`, decoded as `type`; see ``fetch(_:)``.
    ///
    /// - Parameters:
    ///   - url: The URL, absolute or relative to the base URL.
    ///   - type: The primary data to decode.
    /// - Returns: A fetch to perform with `result()` (nothing is sent before).
    public func fetch<Primary: Decodable & Sendable>(_ url: URL, as type: Primary.Type) -> FetchRequest<Primary> {
        fetch(link: Link(href: url.absoluteString), as: type)
    }

    /// A fetch of a link (a related resource's `links.related`, a URL from elsewhere), decoded as `type`.
    ///
    /// Its query parameters are kept (options add to them). A relative `href` resolves against `base` — pass the
    /// URL of the response the link came from (``FetchResponse/url``) — or, by default, under the base URL as a
    /// folder (`articles/1/author` with base `https://api.example.com/v1` is `…/v1/articles/1/author`, as path
    /// templates are). Only `http`/`https` URLs of the session's origin or an allowed one are fetched.
    ///
    /// - Parameters:
    ///   - link: The link to follow.
    ///   - base: The URL relative links resolve against; the base URL as a folder when `nil`.
    ///   - type: The primary data to decode: a model, `[Model]`, `ResourceIdentifier`(s) or `PrimaryData`.
    /// - Returns: A request that sends nothing until performed; an unresolvable or refused link fails then.
    public func fetch<Primary: Decodable & Sendable>(
        link: Link, relativeTo base: URL? = nil, as type: Primary.Type
    ) -> FetchRequest<Primary> {
        let target = Result { () throws(JSONAPIClientError) -> URL in
            try resolveLink(link.href, relativeTo: base ?? Self.folder(baseURL))
        }
        return FetchRequest(session: self, request: JSONAPIRequest(method: .get, target: target))
    }
}
