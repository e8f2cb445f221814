/// The resources of one document by `(type, id)` and by `(type, lid)`, keyed by their bytes in the tape.
///
/// Looking an identifier up builds no `String`: the key is hashed and compared as the bytes the document wrote
/// (unescaped when the string has escapes; a numeric `id` by its text, as ``DocumentReader/identifierString(_:)``
/// reads it). Hashing uses the standard library's seeded `Hasher`, so a hostile document cannot make lookups
/// degrade.
struct ResourceIndex {
    private struct Entry {
        var hash: Int
        /// Tape indices of the `type` string, the `id` (or `lid`) value and the resource object.
        var type: UInt32
        var key: UInt32
        var target: UInt32
        var isLocal: Bool
    }

    /// Open addressing: each slot holds an entry's position plus one, or 0 when empty.
    private var slots: [UInt32]
    private var entries: [Entry] = []
    private var mask: Int

    /// An index sized for about `count` resources.
    init(capacity count: Int) {
        var size = 16
        while size < count * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
        entries.reserveCapacity(count)
    }

    /// Adds the resource at `target` under the `type` string and `key` (`id` or `lid`) nodes. For an `id`, returns
    /// the resource already registered under the same key, if any (the new one is not added); a `lid` replaces.
    mutating func insert(type: Int, key: Int, local: Bool, target: Int, in tape: JSONTape) -> Int? {
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
                hash: hash, type: UInt32(truncatingIfNeeded: type), key: UInt32(truncatingIfNeeded: key),
                target: UInt32(truncatingIfNeeded: target), isLocal: local))
        place(entries.count - 1)
        return nil
    }

    /// The resource registered under the `type` string and `key` nodes (which may be anywhere in the same tape).
    func lookup(type: Int, key: Int, local: Bool, in tape: JSONTape) -> Int? {
        let hash = Self.hash(type: type, key: key, local: local, in: tape)
        return find(hash: hash, type: type, key: key, local: local, in: tape).map { Int(entries[$0].target) }
    }

    private func find(hash: Int, type: Int, key: Int, local: Bool, in tape: JSONTape) -> Int? {
        var slot = hash & mask
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { return nil }
            let entry = entries[stored - 1]
            if entry.hash == hash, entry.isLocal == local, Self.equal(Int(entry.type), type, in: tape),
                Self.equal(Int(entry.key), key, in: tape)
            {
                return stored - 1
            }
            slot = (slot &+ 1) & mask
        }
    }

    private mutating func place(_ position: Int) {
        var slot = entries[position].hash & mask
        while slots[slot] != 0 { slot = (slot &+ 1) & mask }
        slots[slot] = UInt32(truncatingIfNeeded: position + 1)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for position in entries.indices { place(position) }
    }

    // MARK: Keys as bytes

    private static func hash(type: Int, key: Int, local: Bool, in tape: JSONTape) -> Int {
        var hasher = Hasher()
        hasher.combine(local)
        withKeyBytes(type, in: tape) { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        withKeyBytes(key, in: tape) { bytes in hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
        return hasher.finalize()
    }

    private static func equal(_ a: Int, _ b: Int, in tape: JSONTape) -> Bool {
        if a == b { return true }
        let nodeA = tape.nodes[a], nodeB = tape.nodes[b]
        if !needsUnescaping(nodeA), !needsUnescaping(nodeB) {
            // Compare the bytes as written.
            guard nodeA.length == nodeB.length else { return false }
            return tape.bytes.withUnsafeBufferPointer { bytes in
                let start = Int(nodeA.start), other = Int(nodeB.start)
                for offset in 0..<Int(nodeA.length) where bytes[start &+ offset] != bytes[other &+ offset] {
                    return false
                }
                return true
            }
        }
        return withKeyBytes(a, in: tape) { first in withKeyBytes(b, in: tape) { first.elementsEqual($0) } }
    }

    @inline(__always) private static func needsUnescaping(_ node: JSONTape.Node) -> Bool {
        node.kind == .string && node.flags & JSONTape.stringHasEscapes != 0
    }

    /// Calls `body` with the key's bytes: a string's (unescaped) UTF-8, or a number's text.
    private static func withKeyBytes<R>(_ index: Int, in tape: JSONTape, _ body: (UnsafeBufferPointer<UInt8>) -> R)
        -> R
    {
        let node = tape.nodes[index]
        if needsUnescaping(node) {
            var text = tape.string(index)
            return text.withUTF8(body)
        }
        let start = Int(node.start), end = start + Int(node.length)
        return tape.bytes.withUnsafeBufferPointer { bytes in body(UnsafeBufferPointer(rebasing: bytes[start..<end])) }
    }
}
