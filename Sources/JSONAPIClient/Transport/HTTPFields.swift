/// One header field: a name and a value.
public struct HTTPField: Sendable, Hashable {
    /// The field's name, compared case-insensitively.
    public var name: Name
    /// The field's value.
    public var value: String

    /// Creates a field.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: The field's value.
    public init(name: Name, value: String) {
        self.name = name
        self.value = value
    }

    /// A header field name: spelled as given, compared case-insensitively.
    public struct Name: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The name as it was written.
        public let rawName: String
        /// The lowercased name, which equality and hashing use.
        public let canonicalName: String

        /// A name spelled `rawName`.
        ///
        /// - Parameter rawName: The name as it is to be written, e.g. `"Content-Type"`.
        public init(_ rawName: String) {
            self.rawName = rawName
            self.canonicalName = rawName.lowercased()
        }

        /// A name from a string literal.
        ///
        /// - Parameter value: The name as it is to be written.
        public init(stringLiteral value: String) { self.init(value) }

        /// Names are equal when they are equal ignoring case.
        ///
        /// - Parameters:
        ///   - lhs: A name.
        ///   - rhs: Another name.
        /// - Returns: Whether the two are equal ignoring case.
        public static func == (lhs: Name, rhs: Name) -> Bool { lhs.canonicalName == rhs.canonicalName }
        /// Hashes the lowercased name.
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) { hasher.combine(canonicalName) }
        /// The name as written.
        public var description: String { rawName }

        /// `Accept`.
        public static let accept = Name("Accept")
        /// `Authorization`.
        public static let authorization = Name("Authorization")
        /// `Content-Type`.
        public static let contentType = Name("Content-Type")
        /// `Content-Length`.
        public static let contentLength = Name("Content-Length")
        /// `Location`.
        public static let location = Name("Location")
        /// `Cookie`.
        public static let cookie = Name("Cookie")
        /// `Proxy-Authorization`.
        public static let proxyAuthorization = Name("Proxy-Authorization")
        /// `Retry-After`.
        public static let retryAfter = Name("Retry-After")
        /// `User-Agent`.
        public static let userAgent = Name("User-Agent")
        /// `ETag`: a response's entity tag, which the store sends back as `If-None-Match`.
        public static let eTag = Name("ETag")
        /// `Last-Modified`, which the store sends back as `If-Modified-Since`.
        public static let lastModified = Name("Last-Modified")
        /// `If-None-Match`: a conditional request's entity tags.
        public static let ifNoneMatch = Name("If-None-Match")
        /// `If-Modified-Since`: a conditional request's date.
        public static let ifModifiedSince = Name("If-Modified-Since")
    }
}

/// Header fields: ordered, case-insensitive names, repeats allowed.
///
/// ```swift
/// var fields: HTTPFields = ["Accept": "application/vnd.api+json"]
/// fields[.authorization] = "Bearer abc"      // replaces every Authorization field
/// fields.append(HTTPField(name: "X-Tag", value: "a"))
/// fields.append(HTTPField(name: "x-tag", value: "b"))
/// fields.values(for: "X-TAG")                  // ["a", "b"]
/// ```
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    private var fields: [HTTPField]

    /// No fields.
    public init() { fields = [] }

    /// The fields, in order.
    ///
    /// - Parameter fields: The fields, repeats allowed.
    public init(_ fields: [HTTPField]) { self.fields = fields }

    /// Fields from a literal, in the literal's order.
    ///
    /// - Parameter elements: Names and values, in order.
    public init(dictionaryLiteral elements: (HTTPField.Name, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    /// The first position.
    public var startIndex: Int { fields.startIndex }
    /// One past the last position.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    ///
    /// - Parameter position: A position from `startIndex` up to, not including, `endIndex`.
    /// - Returns: The field there.
    public subscript(position: Int) -> HTTPField { fields[position] }

    /// The values of every field named `name`, joined with `", "` as HTTP allows; `nil` when there is none.
    /// Setting replaces every field of that name by one (at the first one's position); `nil` removes them.
    ///
    /// - Parameter name: The field name, in any case.
    /// - Returns: The joined values, or `nil` when no field has that name.
    public subscript(name: HTTPField.Name) -> String? {
        get {
            let values = values(for: name)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if let first = fields.firstIndex(where: { $0.name == name }) {
                fields[first] = HTTPField(name: name, value: newValue)
                var index = fields.index(after: first)
                while index < fields.endIndex {
                    if fields[index].name == name { fields.remove(at: index) } else { index += 1 }
                }
            } else {
                fields.append(HTTPField(name: name, value: newValue))
            }
        }
    }

    /// The values of every field named `name`, in order.
    ///
    /// - Parameter name: The field name, in any case.
    /// - Returns: The values in the order the fields appear; empty when there is none.
    public func values(for name: HTTPField.Name) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// Whether a field named `name` is present.
    ///
    /// - Parameter name: The field name, in any case.
    /// - Returns: `true` when at least one field has that name.
    public func contains(_ name: HTTPField.Name) -> Bool { fields.contains { $0.name == name } }

    /// Adds a field after the others, keeping any of the same name.
    ///
    /// - Parameter field: The field to add.
    public mutating func append(_ field: HTTPField) { fields.append(field) }

    /// Adds a field named `name` after the others, keeping any of the same name.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: The field's value.
    public mutating func append(_ name: HTTPField.Name, _ value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Removes every field named `name`.
    ///
    /// - Parameter name: The field name, in any case.
    public mutating func remove(_ name: HTTPField.Name) { fields.removeAll { $0.name == name } }
}

extension HTTPFields: CustomStringConvertible {
    /// One `Name: value` line per field, with the values of credential fields (`Authorization`,
    /// `Proxy-Authorization`, `Cookie`) replaced by `<redacted>`.
    public var description: String {
        fields.map { field in
            let sensitive: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
            return "\(field.name.rawName): \(sensitive.contains(field.name) ? "<redacted>" : field.value)"
        }.joined(separator: "\n")
    }
}
