/// An HTTP request method.
///
/// A struct with static members rather than an enum, so that methods the library does not list can still be used:
/// `HTTPMethod(rawValue: "QUERY")`.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method's name, e.g. `"GET"`.
    public let rawValue: String

    /// A method with the given name (case-sensitive, as HTTP defines it).
    ///
    /// - Parameter rawValue: The method's name, e.g. `"PATCH"`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `GET`: read a resource, a collection or a relationship.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: create a resource, or add to a to-many relationship.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PATCH`: update a resource, or replace a relationship.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: delete a resource, or remove from a to-many relationship.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `PUT`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `HEAD`.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// The method's name.
    public var description: String { rawValue }
}

extension HTTPMethod {
    /// Whether sending the request twice has the effect of sending it once (RFC 9110 §9.2.2), so that it may be sent
    /// again after a failure that leaves unknown whether the server acted on it.
    var isIdempotent: Bool { [.get, .head, .options, .put, .delete].contains(self) }
}
