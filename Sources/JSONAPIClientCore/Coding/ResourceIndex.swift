/// The resources of one document by `(type, id)` and by `(type, lid)`, keyed by their bytes in the tape.
///
/// Keys match exactly when the `String`s would be equal (Swift compares strings by canonical equivalence), but
/// the usual keys build no `String`: text that is ASCII (after unescaping; a numeric `id` by its text, as
/// ``DocumentReader/identifierString(_:)`` reads it) is compared as bytes. Only three non-ASCII characters are
/// canonically equivalent to ASCII (U+037E `;`, U+1FEF `` ` ``, U+212A `K`); they are mapped to it. Any other
/// non-ASCII key goes to a dictionary of `String`s.
///
/// Types are few, so each has its own table, found by comparing bytes. Ids written as small decimal numbers
/// (`"1"`, `"973"`: most servers' primary keys) index an array directly, from the lowest of them (a later page of a
/// collection holds ids near each other, far from 0); any other id is hashed with the standard
/// library's seeded `Hasher`, so a hostile document cannot make lookups degrade. The arrays' total size is bounded
/// by a multiple of the document's resource count.
struct ResourceIndex {
    /// A key node with how its text is read: `plain` when its bytes in the input are its ASCII text.
    private struct Key {
        var index: Int
        var plain: Bool
    }

    private struct TypeTable {
        /// A `type` string naming this type.
        var type: Key
        /// For a plain `type`: its length, and its first 15 bytes packed into two words
        /// (``ShortStringTable/pack(_:_:_:)``), so that finding a type compares words rather than bytes in a loop.
        var length = 0
        var packed: (UInt64, UInt64) = (0, 0)
        /// `id` − `base` → the tape index of the resource object plus one (0: none), for ids that are small decimals.
        var dense: [UInt32] = []
        /// The id `dense[0]` stands for: a page of a collection holds ids near each other, but rarely near 0.
        var base = 0
    }

    private struct Entry {
        var hash: Int
        /// Tape indices of the `type` string, the `id` (or `lid`) value and the resource object.
        var type: UInt32
        var key: UInt32
        var target: UInt32
        var isLocal: Bool
        var typePlain: Bool
        var keyPlain: Bool
    }

    private struct UnicodeKey: Hashable {
        var type: String
        var key: String
        var isLocal: Bool
    }

    private var types: [TypeTable] = []
    /// Room left for dense arrays, in elements.
    private var denseBudget: Int
    /// Open addressing for other keys: each slot holds an entry's position plus one, or 0 when empty.
    private var slots: [UInt32] = []
    private var entries: [Entry] = []
    /// Keys with non-ASCII text.
    private var unicodeKeys: [UnicodeKey: Int] = [:]

    /// An index sized for about `count` resources.
    init(capacity count: Int) {
        denseBudget = 4 * count + 64
    }

    /// Adds the resource at `target` under the `type` string and `key` (`id` or `lid`) nodes. For an `id`, returns
    /// the resource already registered under the same key, if any (the new one is not added); a `lid` replaces.
    mutating func insert(type typeIndex: Int, key keyIndex: Int, local: Bool, target: Int, in tape: JSONTape) -> Int? {
        guard let type = Self.key(typeIndex, in: tape), let key = Self.key(keyIndex, in: tape) else {
            let unicodeKey = UnicodeKey(
                type: Self.text(typeIndex, in: tape), key: Self.text(keyIndex, in: tape), isLocal: local)
            if !local, let existing = unicodeKeys[unicodeKey] { return existing }
            unicodeKeys[unicodeKey] = target
            return nil
        }
        let table = tableIndex(type, in: tape) ?? addTable(type, in: tape)
        if !local, let number = Self.smallDecimal(key, in: tape), let offset = denseOffset(of: number, in: table) {
            let existing = types[table].dense[offset]
            if existing != 0 { return Int(existing) - 1 }
            // It may have been hashed before the array reached it.
            if !entries.isEmpty, let existing = find(type: type, key: key, local: false, in: tape) {
                return Int(entries[existing].target)
            }
            types[table].dense[offset] = UInt32(truncatingIfNeeded: target + 1)
            return nil
        }
        let hash = Self.hash(type: type, key: key, local: local, in: tape)
        if let existing = find(hash: hash, type: type, key: key, local: local, in: tape) {
            if local {
                entries[existing].target = UInt32(truncatingIfNeeded: target)
                return nil
            }
            return Int(entries[existing].target)
        }
        if entries.count * 2 >= slots.count { grow() }
        entries.append(
            Entry(
                hash: hash, type: UInt32(truncatingIfNeeded: type.index), key: UInt32(truncatingIfNeeded: key.index),
                target: UInt32(truncatingIfNeeded: target), isLocal: local, typePlain: type.plain, keyPlain: key.plain))
        place(entries.count - 1)
        return nil
    }

    /// The resource registered under the `type` string and `key` nodes (which may be anywhere in the same tape).
    func lookup(type typeIndex: Int, key keyIndex: Int, local: Bool, in tape: JSONTape) -> Int? {
        guard let type = Self.key(typeIndex, in: tape), let key = Self.key(keyIndex, in: tape) else {
            guard !unicodeKeys.isEmpty else { return nil }
            return unicodeKeys[
                UnicodeKey(type: Self.text(typeIndex, in: tape), key: Self.text(keyIndex, in: tape), isLocal: local)]
        }
        guard let table = tableIndex(type, in: tape) else { return nil }
        if !local, let number = Self.smallDecimal(key, in: tape) {
            let offset = number &- types[table].base
            if offset >= 0, offset < types[table].dense.count {
                let target = types[table].dense[offset]
                if target != 0 { return Int(target) - 1 }
            }
        }
        guard !entries.isEmpty else { return nil }
        return find(type: type, key: key, local: local, in: tape).map { Int(entries[$0].target) }
    }

    // MARK: Types

    private func tableIndex(_ type: Key, in tape: JSONTape) -> Int? {
        guard type.plain else {
            for position in types.indices where Self.equal(types[position].type, type, in: tape) { return position }
            return nil
        }
        // Types are few and short: compare lengths and packed first bytes, then any bytes after them, without
        // leaving the loop.
        let node = tape.nodes[type.index]
        let start = Int(node.start), length = Int(node.length)
        let packed = tape.bytes.packed(at: start, length: min(length, 15))
        let bytes = tape.bytes
        for position in types.indices {
            let known = types[position]
            guard known.type.plain else {
                if Self.equal(known.type, type, in: tape) { return position }
                continue
            }
            guard known.length == length, known.packed == packed else { continue }
            guard length > 15 else { return position }
            let otherStart = Int(tape.nodes[known.type.index].start)
            var offset = 15
            while offset < length, bytes[start &+ offset] == bytes[otherStart &+ offset] { offset &+= 1 }
            if offset == length { return position }
        }
        return nil
    }

    /// Where `number` goes in the table's array, which grows (up or down, at least doubling) while the budget lasts;
    /// `nil` when it would outgrow the budget (the id is hashed instead).
    @inline(__always)
    private mutating func denseOffset(of number: Int, in table: Int) -> Int? {
        let base = types[table].base, count = types[table].dense.count
        let offset = number &- base
        // The common case: inside the array.
        if offset >= 0, offset < count { return offset }
        return growDense(to: number, in: table)
    }

    private mutating func growDense(to number: Int, in table: Int) -> Int? {
        if types[table].dense.isEmpty { types[table].base = number }
        let base = types[table].base, count = types[table].dense.count
        if number < base {
            // Ids are not negative: the array reaches down to 0 at most.
            let newBase = max(0, base - max(base - number, count, 16))
            guard base - newBase <= denseBudget else { return nil }
            denseBudget -= base - newBase
            types[table].dense.insert(contentsOf: repeatElement(0, count: base - newBase), at: 0)
            types[table].base = newBase
            return number - newBase
        }
        let offset = number - base
        if offset >= count {
            let growth = max(offset + 1, count * 2, 16) - count
            guard growth <= denseBudget else { return nil }
            denseBudget -= growth
            types[table].dense.append(contentsOf: repeatElement(0, count: growth))
        }
        return offset
    }

    private mutating func addTable(_ type: Key, in tape: JSONTape) -> Int {
        var table = TypeTable(type: type)
        if type.plain {
            let node = tape.nodes[type.index]
            table.length = Int(node.length)
            table.packed = tape.bytes.packed(at: Int(node.start), length: min(Int(node.length), 15))
        }
        types.append(table)
        return types.count - 1
    }

    /// The key as a number when it is written as one in canonical decimal form (no sign, no leading zero, at most
    /// nine digits), so that equal numbers are equal texts.
    @inline(__always)
    private static func smallDecimal(_ key: Key, in tape: JSONTape) -> Int? {
        withKeyBytes(key, in: tape) { bytes -> Int? in
            guard bytes.count >= 1, bytes.count <= 9, bytes.count == 1 || bytes[0] != UInt8(ascii: "0") else {
                return nil
            }
            var value = 0
            for position in 0..<bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int(digit)
            }
            return value
        }
    }

    // MARK: Hashed keys

    private func find(type: Key, key: Key, local: Bool, in tape: JSONTape) -> Int? {
        find(hash: Self.hash(type: type, key: key, local: local, in: tape), type: type, key: key, local: local, in: tape)
    }

    private func find(hash: Int, type: Key, key: Key, local: Bool, in tape: JSONTape) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = hash & mask
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { return nil }
            let entry = entries[stored - 1]
            if entry.hash == hash, entry.isLocal == local,
                Self.equal(Key(index: Int(entry.type), plain: entry.typePlain), type, in: tape),
                Self.equal(Key(index: Int(entry.key), plain: entry.keyPlain), key, in: tape)
            {
                return stored - 1
            }
            slot = (slot &+ 1) & mask
        }
    }

    private mutating func place(_ position: Int) {
        let mask = slots.count - 1
        var slot = entries[position].hash & mask
        while slots[slot] != 0 { slot = (slot &+ 1) & mask }
        slots[slot] = UInt32(truncatingIfNeeded: position + 1)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: max(16, slots.count * 2))
        for position in entries.indices { place(position) }
    }

    private static func hash(type: Key, key: Key, local: Bool, in tape: JSONTape) -> Int {
        var hasher = Hasher()
        hasher.combine(local)
        withKeyBytes(type, in: tape) { bytes in
            hasher.combine(bytes.count)
            bytes.hash(into: &hasher)
        }
        withKeyBytes(key, in: tape) { bytes in bytes.hash(into: &hasher) }
        return hasher.finalize()
    }

    // MARK: Keys as bytes

    /// The key at `index`, or `nil` when its text is not ASCII even once the three characters canonically
    /// equivalent to ASCII are mapped.
    @inline(__always)
    private static func key(_ index: Int, in tape: JSONTape) -> Key? {
        let node = tape.nodes[index]
        if node.kind == .number || node.flags & JSONTape.stringHasEscapes == 0 {
            let start = Int(node.start), end = start + Int(node.length)
            let bytes = tape.bytes
            var any: UInt8 = 0
            for position in start..<end { any |= bytes[position] }
            if any < 0x80 { return Key(index: index, plain: true) }
        }
        let mappable = text(index, in: tape).unicodeScalars.allSatisfy { $0.isASCII || asciiEquivalent($0) != nil }
        return mappable ? Key(index: index, plain: false) : nil
    }

    private static func asciiEquivalent(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x037E: UInt8(ascii: ";")
        case 0x1FEF: UInt8(ascii: "`")
        case 0x212A: UInt8(ascii: "K")
        default: nil
        }
    }

    /// The key's text: a string's (unescaped) text, or a number's.
    private static func text(_ index: Int, in tape: JSONTape) -> String {
        tape.kind(index) == .number ? tape.numberText(index) : tape.string(index)
    }

    private static func equal(_ a: Key, _ b: Key, in tape: JSONTape) -> Bool {
        if a.index == b.index { return true }
        guard a.plain, b.plain else {
            return withKeyBytes(a, in: tape) { first in withKeyBytes(b, in: tape) { first.elementsEqual($0) } }
        }
        let nodeA = tape.nodes[a.index], nodeB = tape.nodes[b.index]
        guard nodeA.length == nodeB.length else { return false }
        let bytes = tape.bytes
        let start = Int(nodeA.start), other = Int(nodeB.start)
        for offset in 0..<Int(nodeA.length) where bytes[start &+ offset] != bytes[other &+ offset] {
            return false
        }
        return true
    }

    /// Calls `body` with the key's ASCII text: its bytes when plain, otherwise its text unescaped with the three
    /// equivalent characters mapped.
    @inline(__always)
    private static func withKeyBytes<R>(_ key: Key, in tape: JSONTape, _ body: (BorrowedBytes) -> R) -> R {
        if key.plain {
            let node = tape.nodes[key.index]
            let start = Int(node.start), end = start + Int(node.length)
            return tape.bytes.withBytes(in: start..<end, body)
        }
        var ascii: [UInt8] = []
        for scalar in text(key.index, in: tape).unicodeScalars {
            if scalar.isASCII {
                ascii.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                ascii.append(asciiEquivalent(scalar) ?? UInt8(ascii: "?"))
            }
        }
        return BorrowedBytes.lending(ascii, body)
    }
}
