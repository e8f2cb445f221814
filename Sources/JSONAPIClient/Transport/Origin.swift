import Foundation

/// A web origin: scheme, host and port (the default port of the scheme when the URL names none).
///
/// Links are followed, and credentials sent, only within the ``Session``'s origin unless another origin is
/// allowed explicitly (``Session/Configuration/allowedLinkOrigins``).
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased: `http` or `https`.
    public var scheme: String
    /// The host, lowercased.
    public var host: String
    /// The port; the scheme's default when the URL names none.
    public var port: Int

    /// Creates an origin from its parts.
    ///
    /// - Parameters:
    ///   - scheme: `http` or `https`, in any case.
    ///   - host: The host, in any case.
    ///   - port: The port.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }

    /// The origin of an `http` or `https` URL with a host; `nil` for any other URL.
    ///
    /// - Parameter url: An absolute URL.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        self.init(scheme: scheme, host: host, port: url.port ?? (scheme == "https" ? 443 : 80))
    }

    /// `scheme://host:port`.
    public var description: String { "\(scheme)://\(host):\(port)" }
}
