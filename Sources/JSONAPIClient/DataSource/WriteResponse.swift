import Foundation

/// The outcome of a write (create, update, delete, relationship change): the status, headers, and the document
/// the server returned, if any.
///
/// - 200/201: ``document`` holds the returned document (201 usually with `Location`, see ``location``).
/// - 202: the request was accepted for later processing; the body, if any, is in ``rawDocument`` (it describes
///   the job, not the resource).
/// - 204: no body; the server applied the request as sent.
/// - Queued (``WriteOptions/isQueued``): the server could not be reached and the write waits in the session's
///   ``WriteQueue``; ``queued`` names its entry, ``status`` is 202 (accepted for later) and there is no document.
///   Its outcome comes as a ``WriteQueue/Event`` on ``WriteQueue/events()``.
public struct WriteResponse<Primary: Sendable>: Sendable {
    /// The status.
    public var status: HTTPResponse.Status
    /// The response's header fields.
    public var headerFields: HTTPFields
    /// The `Location` header, resolved against the request URL (201 Created).
    public var location: URL?
    /// The document of a 200 or 201 response with a body.
    public var document: Document<Primary>?
    /// The document of a 202 response with a body, schema-less.
    public var rawDocument: RawDocument?
    /// The queue entry of a write that could not reach the server and waits in the ``WriteQueue``; `nil` for a write
    /// the server answered.
    public var queued: WriteQueue.Entry?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - headerFields: The response's header fields.
    ///   - location: The `Location` header, resolved.
    ///   - document: The document of a 200 or 201 response with a body.
    ///   - rawDocument: The document of a 202 response with a body.
    public init(
        status: HTTPResponse.Status, headerFields: HTTPFields = HTTPFields(), location: URL? = nil,
        document: Document<Primary>? = nil, rawDocument: RawDocument? = nil
    ) {
        self.status = status
        self.headerFields = headerFields
        self.location = location
        self.document = document
        self.rawDocument = rawDocument
    }

    /// The primary data of ``document``.
    public var data: Primary? { document?.data }
    /// The top-level meta of whichever document came back (a 200 delete returns only meta).
    public var meta: Meta? { document?.meta ?? rawDocument?.meta }
}
