/// The JSON:API media type with its `ext` and `profile` parameters, as sent in `Accept` and `Content-Type`.
///
/// ```swift
/// JSONAPIMediaType(profile: ["https://jsonapi.org/profiles/ethanresnick/cursor-pagination"]).headerValue
/// // application/vnd.api+json; profile="https://jsonapi.org/profiles/ethanresnick/cursor-pagination"
/// ```
public struct JSONAPIMediaType: Sendable, Hashable, CustomStringConvertible {
    /// URIs of the extensions applied (`ext`).
    public var ext: [String]
    /// URIs of the profiles requested (`profile`).
    public var profile: [String]

    /// The media type with the given parameters (none by default).
    ///
    /// - Parameters:
    ///   - ext: Extension URIs, e.g. the Atomic Operations extension's.
    ///   - profile: Profile URIs.
    public init(ext: [String] = [], profile: [String] = []) {
        self.ext = ext
        self.profile = profile
    }

    /// `application/vnd.api+json`.
    public static let name = "application/vnd.api+json"

    /// The header value: the name, then `ext="…"` and `profile="…"` (space-separated URIs) when set.
    public var headerValue: String {
        var value = Self.name
        if !ext.isEmpty { value += "; ext=\"\(ext.joined(separator: " "))\"" }
        if !profile.isEmpty { value += "; profile=\"\(profile.joined(separator: " "))\"" }
        return value
    }

    /// The header value.
    public var description: String { headerValue }
}
