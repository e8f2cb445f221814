/// How a ``Link`` and a ``Links`` object print: as the URLs they hold, `self: https://…, next: https://…`, rather
/// than as their stored members.
extension Link: CustomStringConvertible {
    /// The `href`; a link object's other members follow in parentheses:
    /// `https://example.com/a (title: "About", hreflang: en)`.
    public var description: String {
        var details: [String] = []
        if let rel { details.append("rel: \(rel)") }
        if let title { details.append("title: \(JSONValue.string(title))") }
        if let type { details.append("type: \(type)") }
        if let hreflang { details.append("hreflang: \(hreflang.joined(separator: ","))") }
        if let describedBy { details.append("describedby: \(describedBy)") }
        if let meta { details.append("meta: \(JSONValue.object(meta))") }
        return details.isEmpty ? href : "\(href) (\(details.joined(separator: ", ")))"
    }
}

extension Links: CustomStringConvertible {
    /// The members as `name: link`, a `null` one as `name: null`: the document's own links first (`self`, `related`,
    /// `describedby`), then the pages (`first`, `prev`, `next`, `last`), then the rest by name. `[:]` when empty.
    public var description: String {
        guard !members.isEmpty else { return "[:]" }
        let known = ["self", "related", "describedby", "first", "prev", "next", "last", "about"]
        let names = known.filter(contains) + members.keys.filter { !known.contains($0) }.sorted()
        return names.map { name in "\(name): \(self[name].map(\.description) ?? "null")" }.joined(separator: ", ")
    }
}
