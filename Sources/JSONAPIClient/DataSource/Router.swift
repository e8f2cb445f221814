import Foundation

/// Computes the URL of each kind of endpoint for a resource type: the collection (or a singleton), one resource,
/// a relationship endpoint and a related-resource endpoint.
///
/// ```swift
/// struct APIRouter: Router {
///     func collectionURL(type: String, baseURL: URL) throws -> URL {
///         baseURL.appendingPathComponent("v2").appendingPathComponent(type)
///     }
///     func resourceURL(type: String, id: String, baseURL: URL) throws -> URL {
///         try collectionURL(type: type, baseURL: baseURL).appendingPathComponent(id)
///     }
/// }
/// let source = session.source(Article.self, APIRouter())
/// ```
///
/// The relationship and related URLs default to `<resource URL>/relationships/<name>` and
/// `<resource URL>/<name>`. A router may ignore `baseURL` and return absolute URLs of its own.
public protocol Router: Sendable {
    /// The collection of `type` (`/articles`), or a singleton (`/me`).
    func collectionURL(type: String, baseURL: URL) throws -> URL
    /// One resource (`/articles/1`).
    func resourceURL(type: String, id: String, baseURL: URL) throws -> URL
    /// A relationship endpoint (`/articles/1/relationships/tags`).
    func relationshipURL(type: String, id: String, relationship: String, baseURL: URL) throws -> URL
    /// A related-resource endpoint (`/articles/1/author`).
    func relatedURL(type: String, id: String, relationship: String, baseURL: URL) throws -> URL
}

extension Router {
    /// `<resource URL>/relationships/<name>`.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The resource's id.
    ///   - relationship: The relationship's name.
    ///   - baseURL: The session's base URL.
    /// - Returns: The relationship endpoint's URL.
    /// - Throws: ``JSONAPIClientError/Code/invalidRequest`` when the resource URL cannot be built.
    public func relationshipURL(type: String, id: String, relationship: String, baseURL: URL) throws -> URL {
        try PathTemplateRouter.append(
            ["relationships", relationship], to: resourceURL(type: type, id: id, baseURL: baseURL))
    }

    /// `<resource URL>/<name>`.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The resource's id.
    ///   - relationship: The relationship's name.
    ///   - baseURL: The session's base URL.
    /// - Returns: The related-resource endpoint's URL.
    /// - Throws: ``JSONAPIClientError/Code/invalidRequest`` when the resource URL cannot be built.
    public func relatedURL(type: String, id: String, relationship: String, baseURL: URL) throws -> URL {
        try PathTemplateRouter.append([relationship], to: resourceURL(type: type, id: id, baseURL: baseURL))
    }
}

/// The router of `.path(template)`: a path relative to the base URL in which `<type>` and `<id>` are
/// substituted, each percent-encoded as a path segment.
///
/// - `"articles/<id>"`: the collection is `articles`, a resource `articles/1`.
/// - `"<type>/<id>"`: the same, with the type from the model.
/// - `"me"` (no `<id>`): a singleton or a collection; a resource is `me/1`.
///
/// A template with a query or fragment (`?`, `#`) makes no URL: building one throws
/// ``JSONAPIClientError/Code/invalidRequest``.
public struct PathTemplateRouter: Router, Hashable {
    /// The template.
    public var template: String

    /// A router for `template`.
    ///
    /// - Parameter template: A path relative to the base URL, with `<type>` and `<id>` where they go.
    public init(template: String) { self.template = template }

    /// The template without its `<id>` segment.
    ///
    /// - Parameters:
    ///   - type: The resource type, for `<type>`.
    ///   - baseURL: The session's base URL.
    /// - Returns: The collection's URL.
    /// - Throws: ``JSONAPIClientError/Code/invalidRequest`` when the template has a query or fragment.
    public func collectionURL(type: String, baseURL: URL) throws -> URL {
        var path = Self.replacing("<type>", with: FormEncoding.encodePathSegment(type), in: template) ?? template
        if let withoutID = Self.replacing("<id>", with: "", in: path, all: false) {
            path = withoutID
            while path.hasSuffix("/") { path.removeLast() }
            path = Self.replacing("//", with: "/", in: path) ?? path
        }
        return try Self.join(baseURL, path)
    }

    /// The template with `<id>` substituted (or the id appended when it has none).
    ///
    /// - Parameters:
    ///   - type: The resource type, for `<type>`.
    ///   - id: The resource's id, percent-encoded as one path segment.
    ///   - baseURL: The session's base URL.
    /// - Returns: The resource's URL.
    /// - Throws: ``JSONAPIClientError/Code/invalidRequest`` when the id is empty or the template has a query or
    ///   fragment.
    public func resourceURL(type: String, id: String, baseURL: URL) throws -> URL {
        guard !id.isEmpty else { throw Self.invalid("a resource id must not be empty") }
        let typed = Self.replacing("<type>", with: FormEncoding.encodePathSegment(type), in: template) ?? template
        if let path = Self.replacing("<id>", with: FormEncoding.encodePathSegment(id), in: typed) {
            return try Self.join(baseURL, path)
        }
        return try Self.append([id], to: collectionURL(type: type, baseURL: baseURL))
    }

    /// `text` with every `marker` (the first only, unless `all`) replaced by `value`, left to right; `nil` when
    /// `text` has no `marker`. Compared byte by byte (a marker is ASCII, so it never matches inside a character):
    /// Foundation's `replacingOccurrences(of:with:)` costs about 16,000 instructions a call on Linux, where a read
    /// answered from the store (`store-hit`) cost 175,000 in all.
    static func replacing(_ marker: String, with value: String, in text: String, all: Bool = true) -> String? {
        let bytes = Array(text.utf8)
        let marker = Array(marker.utf8)
        guard let first = marker.first, bytes.count >= marker.count else { return nil }
        var output: [UInt8] = []
        var index = 0
        var found = false
        while index < bytes.count {
            if bytes[index] == first, all || !found, index + marker.count <= bytes.count,
                bytes[index..<index + marker.count].elementsEqual(marker)
            {
                if !found {
                    output.reserveCapacity(bytes.count + value.utf8.count)
                    output.append(contentsOf: bytes[..<index])
                    found = true
                }
                output.append(contentsOf: value.utf8)
                index += marker.count
            } else {
                if found { output.append(bytes[index]) }
                index += 1
            }
        }
        return found ? String(decoding: output, as: UTF8.self) : nil
    }

    /// Whether `text` has `marker` in it, compared byte by byte (see ``replacing(_:with:in:all:)``).
    static func contains(_ marker: String, in text: String) -> Bool {
        let bytes = Array(text.utf8)
        let marker = Array(marker.utf8)
        guard !marker.isEmpty, bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<$0 + marker.count].elementsEqual(marker) }
    }

    static func join(_ baseURL: URL, _ path: String) throws -> URL {
        if contains("://", in: path), let absolute = URL(percentEncoding: path), absolute.scheme != nil,
            absolute.host != nil
        {
            return absolute
        }
        // Substituted values are percent-encoded, so a `?` or `#` here is the template's own: a path template is a
        // path, and a query in it would be lost on the endpoints built from it (query options are the builder's).
        if let character = path.first(where: { $0 == "?" || $0 == "#" }) {
            throw invalid(
                "the path template's \"\(path)\" has a \(character == "?" ? "query" : "fragment") (\"\(character)\"); "
                    + "a path template is a path: pass query options to the request")
        }
        var base = baseURL.absoluteString
        // By its UTF-8: a `Character` search costs more than the rest of the join.
        if let query = base.utf8.firstIndex(of: UInt8(ascii: "?")) { base = String(base[..<query]) }
        while base.hasSuffix("/") { base.removeLast() }
        var relative = path
        while relative.hasPrefix("/") { relative.removeFirst() }
        guard let url = URL(percentEncoding: relative.isEmpty ? base : base + "/" + relative) else {
            throw invalid("\"\(path)\" does not make a valid URL with \(baseURL.absoluteString)")
        }
        return url
    }

    /// `url` with `segments` appended, each percent-encoded.
    static func append(_ segments: [String], to url: URL) throws -> URL {
        try join(url, segments.map(FormEncoding.encodePathSegment).joined(separator: "/"))
    }

    static func invalid(_ detail: String) -> JSONAPIClientError {
        JSONAPIClientError(code: .invalidRequest, detail: detail)
    }
}

extension Router where Self == PathTemplateRouter {
    /// A path template relative to the base URL, with `<type>` and `<id>` substituted, so that a data source reads
    /// `session.source(Article.self, .path("articles/<id>"))`; also `.path("<type>/<id>")`, `.path("me")`.
    ///
    /// - Parameter template: The path, with `<type>` and `<id>` where the type and the id go.
    /// - Returns: A ``PathTemplateRouter`` for `template`.
    public static func path(_ template: String) -> Self { PathTemplateRouter(template: template) }
}
