/// A JSON:API error object, as found in an error document's `errors`.
public struct ErrorObject: Sendable, Hashable {
    /// A unique identifier for this occurrence of the problem.
    public var id: String?
    /// `about` (details of this occurrence) and `type` (the kind of error).
    public var links: Links?
    /// The HTTP status code, as a string.
    public var status: String?
    /// An application-specific error code.
    public var code: String?
    /// A short summary of the problem.
    public var title: String?
    /// An explanation of this occurrence.
    public var detail: String?
    /// What in the request caused the error.
    public var source: Source?
    /// Non-standard meta-information about the error.
    public var meta: Meta?
    /// Members whose value has a shape the specification does not allow for them (a `links.type` that is an
    /// array, a numeric `source.pointer`), as they were sent, keyed by their JSON Pointer relative to this error
    /// object (`/links/type`, `/source/pointer`; `""` for an element of `errors` that is not an object at all).
    ///
    /// Only the lenient reading of error bodies (``JSONAPIDecoder/decodeErrorDocument(from:)``) fills it: one odd
    /// member is kept here instead of costing the whole error object. A strict decode rejects such a document, and
    /// encoding does not write these members back.
    public var unreadMembers: [String: JSONValue]

    /// Creates an error object.
    ///
    /// - Parameters:
    ///   - id: A unique identifier for this occurrence.
    ///   - links: Links, such as `about`.
    ///   - status: The HTTP status, as a string.
    ///   - code: An application-specific code.
    ///   - title: A short summary.
    ///   - detail: An explanation of this occurrence.
    ///   - source: Where in the request the problem is.
    ///   - meta: Non-standard meta-information.
    ///   - unreadMembers: Other members, kept as they were.
    public init(
        id: String? = nil, links: Links? = nil, status: String? = nil, code: String? = nil, title: String? = nil,
        detail: String? = nil, source: Source? = nil, meta: Meta? = nil, unreadMembers: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.links = links
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.source = source
        self.meta = meta
        self.unreadMembers = unreadMembers
    }

    /// Where in the request an error comes from.
    public struct Source: Sendable, Hashable {
        /// A JSON Pointer into the request document, e.g. `/data/attributes/title`.
        public var pointer: String?
        /// The query parameter that caused the error.
        public var parameter: String?
        /// The request header that caused the error.
        public var header: String?

        /// Creates a source.
        ///
        /// - Parameters:
        ///   - pointer: A JSON Pointer into the request document.
        ///   - parameter: The query parameter that caused it.
        ///   - header: The request header that caused it.
        public init(pointer: String? = nil, parameter: String? = nil, header: String? = nil) {
            self.pointer = pointer
            self.parameter = parameter
            self.header = header
        }
    }
}

extension ErrorObject: CustomStringConvertible {
    /// `status code: title — detail (at pointer)`, leaving out what is missing.
    public var description: String {
        var parts: [String] = []
        if let status { parts.append(status) }
        if let code { parts.append(code + ":") }
        if let title { parts.append(title) }
        if let detail, detail != title { parts.append(title == nil ? detail : "— " + detail) }
        if let pointer = source?.pointer { parts.append("(at \(pointer))") }
        if let parameter = source?.parameter { parts.append("(parameter \(parameter))") }
        if let header = source?.header { parts.append("(header \(header))") }
        return parts.isEmpty ? "error" : parts.joined(separator: " ")
    }
}
