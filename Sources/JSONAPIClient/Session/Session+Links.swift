import Foundation

/// The session's link policy: which URLs it follows, and which origin is its own.
extension Session {
    /// Whether `url` has the session's origin.
    func isSameOrigin(_ url: URL) -> Bool {
        guard let origin else { return false }
        return Origin(url) == origin
    }

    /// Resolves `href` against `base` and checks that it may be followed: `http`/`https` only, and the
    /// session's origin or an allowed one.
    func resolveLink(_ href: String, relativeTo base: URL?) throws(JSONAPIClientError) -> URL {
        guard let url = URL(percentEncoding: href, relativeTo: base)?.absoluteURL else {
            throw JSONAPIClientError(code: .linkRefused, detail: "the link \"\(href)\" is not a valid URL", url: base)
        }
        guard let origin = Origin(url) else {
            throw JSONAPIClientError(
                code: .linkRefused, detail: "only http and https links are followed, not \"\(href)\"", url: url)
        }
        guard origin == self.origin || configuration.allowedLinkOrigins.contains(origin) else {
            throw JSONAPIClientError(
                code: .linkRefused,
                detail: "the link leads to \(origin), which is neither the session's origin nor allowed "
                    + "(Session.Configuration.allowedLinkOrigins)",
                url: url)
        }
        return url
    }

    /// `url` with a trailing slash, so that relative references resolve beneath it.
    static func folder(_ url: URL) -> URL {
        guard !url.path.hasSuffix("/"), var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url
        }
        components.path += "/"
        return components.url ?? url
    }
}
