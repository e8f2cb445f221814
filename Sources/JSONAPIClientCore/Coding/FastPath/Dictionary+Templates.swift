extension Dictionary {
    /// An empty dictionary with room for `count` members, copied from `templates[count]` (empty dictionaries of each
    /// small capacity) when there is one.
    ///
    /// `Dictionary(minimumCapacity:)` is not specialized outside the standard library: each call looks the
    /// storage's generic metadata up in the runtime's hash map (~370 instructions, 6 % of reading a `RawDocument`).
    /// The first insertion into a copy allocates storage of the template's class and capacity, with no lookup.
    @inline(__always)
    static func empty(capacity count: Int, from templates: [Self]) -> Self {
        count < templates.count ? templates[count] : Self(minimumCapacity: count)
    }
}

/// Empty dictionaries of the capacities of small JSON objects, to copy from (see ``Swift/Dictionary/empty(capacity:from:)``).
enum DictionaryTemplates {
    static let members: [[String: JSONValue]] = (0...16).map { [String: JSONValue](minimumCapacity: $0) }
    static let relationships: [[String: Relationship]] = (0...16).map { [String: Relationship](minimumCapacity: $0) }
}
