/// The identifiers of the resources an encode has written: `Set<ResourceIdentifier>` semantics, but the common
/// identifier — a small decimal `id` and no `lid` — is a bit per type, found without hashing strings.
struct IdentifierSet {
    private var types: [(type: String, bits: [UInt64])] = []
    private var others: Set<ResourceIdentifier> = []

    /// Ids up to this value are kept as bits (at most 128 KB per type).
    private static let denseLimit = 1 << 20

    func contains(_ identifier: ResourceIdentifier) -> Bool {
        guard let number = Self.dense(identifier) else { return others.contains(identifier) }
        return contains(type: identifier.type, number: number)
    }

    private func contains(type: String, number: Int) -> Bool {
        for entry in types where entry.type == type {
            let word = number >> 6
            return word < entry.bits.count && entry.bits[word] & (1 << UInt64(number & 63)) != 0
        }
        return false
    }

    /// Adds `identifier`; returns whether it was not there yet.
    @discardableResult
    mutating func insert(_ identifier: ResourceIdentifier) -> Bool {
        guard let number = Self.dense(identifier) else { return others.insert(identifier).inserted }
        let position =
            types.firstIndex { $0.type == identifier.type }
            ?? {
                types.append((identifier.type, []))
                return types.count - 1
            }()
        let word = number >> 6, bit = UInt64(1) << UInt64(number & 63)
        if word >= types[position].bits.count {
            types[position].bits.append(
                contentsOf: repeatElement(0, count: max(word + 1, types[position].bits.count * 2) - types[position].bits.count))
        }
        if types[position].bits[word] & bit != 0 { return false }
        types[position].bits[word] |= bit
        return true
    }

    /// The id as a number when the identifier is an `id` in canonical decimal form (no sign, no leading zero) below
    /// the limit, with no `lid` or `meta`. Equal strings are then equal numbers: no other text is equal to digits.
    private static func dense(_ identifier: ResourceIdentifier) -> Int? {
        guard identifier.lid == nil, identifier.meta == nil, let id = identifier.id else { return nil }
        return dense(id)
    }

    private static func dense(_ id: String) -> Int? {
        var id = id
        return id.withUTF8 { utf8 -> Int? in
            guard utf8.count >= 1, utf8.count <= 7, utf8.count == 1 || utf8[0] != UInt8(ascii: "0") else { return nil }
            var value = 0
            for byte in utf8 {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int(digit)
            }
            return value < denseLimit ? value : nil
        }
    }
}
