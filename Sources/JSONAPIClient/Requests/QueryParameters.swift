/// The query of a fetch, as the builder collects it; serialised deterministically by ``encoded(pagination:)``.
struct QueryParameters: Sendable, Hashable {
    /// Parameters that came with the URL itself: lists (`include`, `sort`, `fields[TYPE]`) are extended by the
    /// options, other parameters kept unless an option sets the same name.
    var inherited: [QueryItem] = []
    /// `include` paths, in first-seen order, without duplicates.
    var include: [String] = []
    /// `fields[TYPE]` by type; names in first-seen order, without duplicates.
    var fields: [String: [String]] = [:]
    /// `filter[NAME]` values by name.
    var filters: [String: String] = [:]
    /// `sort` fields, in first-seen order, without duplicates (`-x` and `x` are different fields).
    var sort: [String] = []
    /// Any other parameter by name.
    var other: [String: String] = [:]

    /// Whether no builder option is set (only the URL's own parameters, if any).
    var hasNoOptions: Bool { include.isEmpty && fields.isEmpty && filters.isEmpty && sort.isEmpty && other.isEmpty }

    /// Every parameter as name–value pairs, sorted by name (byte order; pairs of one name keep their order).
    /// Lists add to the URL's own: `include`, `sort` and `fields[TYPE]` keep the URL's items first, then the
    /// options' (without duplicates). Other parameters replace earlier ones of the same name: the URL's own, then
    /// filters, then the pagination strategy's, then ``other``.
    func items(pagination: [QueryItem]) -> [QueryItem] {
        var layers: [[QueryItem]] = [inherited]
        var options: [QueryItem] = []
        if !include.isEmpty { options.append(QueryItem("include", mergedList("include", include))) }
        for (type, names) in fields {
            let name = "fields[\(type)]"
            options.append(QueryItem(name, mergedList(name, names)))
        }
        for (name, value) in filters { options.append(QueryItem("filter[\(name)]", value)) }
        if !sort.isEmpty { options.append(QueryItem("sort", mergedList("sort", sort))) }
        layers.append(options)
        layers.append(pagination)
        layers.append(other.map { QueryItem($0.key, $0.value) })
        var result: [QueryItem] = []
        for layer in layers {
            let names = Set(layer.map(\.name))
            result.removeAll { names.contains($0.name) }
            result.append(contentsOf: layer)
        }
        return result.enumerated().sorted { lhs, rhs in
            let l = Array(lhs.element.name.utf8), r = Array(rhs.element.name.utf8)
            return l == r ? lhs.offset < rhs.offset : l.lexicographicallyPrecedes(r)
        }.map(\.element)
    }

    /// The query string for ``items(pagination:)``, form-encoded; empty when there are no parameters.
    func encoded(pagination: [QueryItem]) -> String {
        items(pagination: pagination).map { FormEncoding.encode($0.name) + "=" + FormEncoding.encode($0.value) }
            .joined(separator: "&")
    }

    /// The URL's comma-separated items of `name`, then `items`, without duplicates, joined again.
    private func mergedList(_ name: String, _ items: [String]) -> String {
        var merged: [String] = []
        for item in inherited where item.name == name {
            Self.appendingUnique(item.value.split(separator: ",").map(String.init), to: &merged)
        }
        Self.appendingUnique(items, to: &merged)
        return merged.joined(separator: ",")
    }

    static func appendingUnique(_ new: [String], to list: inout [String]) {
        for item in new where !item.isEmpty && !list.contains(item) { list.append(item) }
    }
}

/// One query parameter: a name and a value, both unencoded (`page[size]`, `10`).
public struct QueryItem: Sendable, Hashable, CustomStringConvertible {
    /// The parameter's name, e.g. `page[size]`.
    public var name: String
    /// The parameter's value.
    public var value: String

    /// Creates a parameter.
    ///
    /// - Parameters:
    ///   - name: The parameter's name, unencoded.
    ///   - value: Its value, unencoded.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `name=value`, unencoded.
    public var description: String { "\(name)=\(value)" }
}
