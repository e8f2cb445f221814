import Foundation

/// The self-link index's keys: the last path segment of a link, percent-decoded, as resolving a relative link against
/// a URL keeps it (RFC 3986 §5.2). A link without one — empty, a query or fragment only, a dot segment, a trailing
/// slash — is under ``unsegmented``, which every delete by URL looks at too.
enum SelfLinks {
    /// The key of links without a last segment of their own.
    static let unsegmented = ""

    /// The last path segment of `link` (query and fragment cut), percent-decoded; ``unsegmented`` when it has none.
    static func segment(of link: String) -> String {
        var text = Substring(link)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        let last = text.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let decoded = last.removingPercentEncoding ?? last
        return decoded == "." || decoded == ".." ? unsegmented : decoded
    }

    /// Removes `key` from the index entry of `link`.
    static func remove(_ key: ResourceStore.Key, link: String, from index: inout [String: Set<ResourceStore.Key>]) {
        let segment = segment(of: link)
        index[segment]?.remove(key)
        if index[segment]?.isEmpty == true { index[segment] = nil }
    }
}
