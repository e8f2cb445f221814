import Foundation

/// Why ``Session/create(_:operationsPath:headerFields:)`` did not create a whole graph, and exactly how far it got.
///
/// A graph that cannot be ordered or named (``Code/cycle``, ``Code/duplicateLocalID``, ``Code/unknownLocalID``,
/// ``Code/invalidResource``) fails before anything is sent. An atomic request that fails creates nothing. Ordered
/// requests (a server without Atomic Operations) are not atomic: when one fails, the resources created before it
/// stay created — listed in ``created`` with their ids, kept in the session's store, and their local ids remembered
/// — and those after it were not sent (``notCreated``).
///
/// ```swift
/// do {
///     _ = try await session.create(graph)
/// } catch let error as ResourceGraphError {
///     for resource in error.created { print("created", resource.type, resource.lid ?? "-", resource.id) }
///     print("failed:", error.failed.map(String.init(describing:)) ?? "-", error.clientError?.errors ?? [])
///     print("not sent:", error.notCreated)
/// }
/// ```
public struct ResourceGraphError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; compare with the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case cycle, duplicateLocalID, unknownLocalID, invalidResource, requestFailed, idNotReturned
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// New resources depend on each other in a circle (an article whose new author's `favourite` is that
        /// article): no order creates each after those it names. Nothing was sent; create one of them without the
        /// relationship, then set it with an update.
        public static let cycle = Code(.cycle)
        /// Two resources of the graph have the same type and local id (or the same client-generated id). Nothing was
        /// sent.
        public static let duplicateLocalID = Code(.duplicateLocalID)
        /// A relationship names a local id that no resource of the graph has, and that the session has not seen
        /// created. Nothing was sent.
        public static let unknownLocalID = Code(.unknownLocalID)
        /// A resource could not be encoded, or its collection's URL could not be built. Nothing was sent.
        public static let invalidResource = Code(.invalidResource)
        /// A request failed; see ``underlyingError`` (a ``JSONAPIClientError``, or `CancellationError`), ``failed``,
        /// ``created`` and ``notCreated``.
        public static let requestFailed = Code(.requestFailed)
        /// The server accepted a resource but did not return its id (a 202 Accepted, a 204 No Content, an atomic
        /// result without `data`): the resources that depend on it were not sent. It is in ``unconfirmed``.
        public static let idNotReturned = Code(.idNotReturned)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence about what happened.
    public var detail: String
    /// The resources created, with their ids, in the order they were created; `[]` when nothing was.
    public var created: [ResourceGraph.Created]
    /// The resource whose request failed, or that the graph could not order or name (`nil` when the error is not
    /// about one: an atomic request the server refused as a whole). After a transport failure or cancellation the
    /// server may have created it all the same.
    public var failed: ResourceIdentifier?
    /// Resources the server accepted without saying their ids (``Code/idNotReturned``).
    public var unconfirmed: [ResourceIdentifier]
    /// The resources not created (not sent, or refused with the rest of an atomic request), as `{type, lid}` (or
    /// `{type, id}` for a client-generated id); ``failed`` is not among them — nor, when two resources have one
    /// local id (``Code/duplicateLocalID``), the other of the two, which ``failed`` names as well.
    public var notCreated: [ResourceIdentifier]
    /// The error underneath: the request's ``JSONAPIClientError``, `CancellationError`, or the encoder's error.
    public var underlyingError: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - detail: A sentence about what happened.
    ///   - created: The resources created.
    ///   - failed: The resource the failure is about.
    ///   - unconfirmed: Resources accepted without an id.
    ///   - notCreated: The resources not created.
    ///   - underlyingError: The error underneath.
    public init(
        code: Code, detail: String, created: [ResourceGraph.Created] = [], failed: ResourceIdentifier? = nil,
        unconfirmed: [ResourceIdentifier] = [], notCreated: [ResourceIdentifier] = [], underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.detail = detail
        self.created = created
        self.failed = failed
        self.unconfirmed = unconfirmed
        self.notCreated = notCreated
        self.underlyingError = underlyingError
    }

    /// The request's error, when a request failed: its status, the server's error objects and the response body.
    public var clientError: JSONAPIClientError? { underlyingError as? JSONAPIClientError }

    /// `code: detail`, then what was created, what failed and what was not created, and the error underneath.
    public var description: String {
        var lines = ["ResourceGraphError.\(code): \(detail)"]
        if !created.isEmpty { lines.append("created: " + created.map(\.description).joined(separator: ", ")) }
        if let failed { lines.append("failed: \(failed)") }
        if !unconfirmed.isEmpty { lines.append("unconfirmed: " + unconfirmed.map(\.description).joined(separator: ", ")) }
        if !notCreated.isEmpty { lines.append("not created: " + notCreated.map(\.description).joined(separator: ", ")) }
        if let underlyingError { lines.append("cause: \(underlyingError)") }
        return lines.joined(separator: "\n")
    }
}
