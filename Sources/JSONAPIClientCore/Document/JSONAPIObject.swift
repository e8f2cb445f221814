/// The top-level `jsonapi` member: the server's implementation of the specification.
public struct JSONAPIObject: Sendable, Hashable {
    /// The highest specification version supported, e.g. `"1.1"`.
    public var version: String?
    /// URIs of the extensions applied to the document.
    public var ext: [String]?
    /// URIs of the profiles applied to the document.
    public var profile: [String]?
    /// Non-standard meta-information.
    public var meta: Meta?

    /// Creates a `jsonapi` object.
    ///
    /// - Parameters:
    ///   - version: The highest JSON:API version supported.
    ///   - ext: Applied extensions' URIs.
    ///   - profile: Applied profiles' URIs.
    ///   - meta: Non-standard meta-information.
    public init(version: String? = nil, ext: [String]? = nil, profile: [String]? = nil, meta: Meta? = nil) {
        self.version = version
        self.ext = ext
        self.profile = profile
        self.meta = meta
    }
}
