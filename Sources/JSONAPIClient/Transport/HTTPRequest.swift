import Foundation

/// An HTTP request as the transport sees it: method, absolute URL, ordered header fields and an optional body.
public struct HTTPRequest: Sendable, Hashable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields, in order.
    public var headerFields: HTTPFields
    /// The body; `nil` for none.
    public var body: Data?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The absolute URL.
    ///   - headerFields: The header fields.
    ///   - body: The body, if any.
    public init(method: HTTPMethod, url: URL, headerFields: HTTPFields = HTTPFields(), body: Data? = nil) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
    }
}
