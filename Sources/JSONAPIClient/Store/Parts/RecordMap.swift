extension ResourceStore {
    /// Where the identity map keeps its records: the keys and the records in two arrays side by side, in the order
    /// placed (a removal moves the last into the place it frees), found through a compact index of their positions.
    ///
    /// A `Dictionary<Key, Record>` keeps a 72-byte entry per record in a table of its own and writes it at a
    /// place the hash picks, all over memory not touched before: 41,000 inserts as a walk grows it took 7 ms here.
    /// Here the arrays are written in order, and the scattered writes are to the index alone, 8 bytes a slot: the
    /// same inserts take 2 ms (`Docs/Performance.md`, "The identity map's layout").
    ///
    /// The index is open addressing with linear probing, at most three quarters full: a slot is `0` when empty,
    /// else 32 bits of the key's hash (a tag: most slots of another key are passed without reading its key) above
    /// the position + 1. A removal shifts the slots after it back (no tombstones), so a lookup ends at the first
    /// empty slot. Every walk along the index stops after one round of it whatever it finds, so that a broken
    /// invariant makes wrong answers, never a loop without end. The key's hash is the per-process seeded one
    /// ``Key`` keeps, so no server can choose ids that collide.
    struct RecordMap {
        /// The keys, by position.
        private(set) var keys: [Key] = []
        /// The records, by position: `records[p]` is `keys[p]`'s.
        private(set) var records: [Record] = []
        /// Slots: `0`, or `tag << 32 | (position + 1)`. A power of two long, never full.
        private var index: [UInt64] = Array(repeating: 0, count: Self.smallest)

        private static let smallest = 8

        /// The number of records.
        var count: Int { keys.count }

        /// The number of the index's slots (for tests of when it grows).
        var indexSize: Int { index.count }

        /// The record of `key`.
        subscript(key: Key) -> Record? {
            guard let position = position(of: key) else { return nil }
            return records[position]
        }

        /// The position of `key`'s record, if it has one.
        func position(of key: Key) -> Int? {
            slot(of: key).map { Self.position(index[$0]) }
        }

        /// Changes the record at `position` (one ``position(of:)`` gave) in place.
        mutating func modify<Result>(at position: Int, _ body: (inout Record) -> Result) -> Result {
            body(&records[position])
        }

        /// Sets `key`'s record.
        ///
        /// - Returns: The record it replaced.
        @discardableResult
        mutating func updateValue(_ record: Record, forKey key: Key) -> Record? {
            // Grown first, so that one walk along the index finds the key or the empty slot it goes in (a key
            // already there may grow it a little early).
            if (keys.count + 1) * 4 > index.count * 3 { rebuildIndex(size: index.count * 2) }
            let (slot, found) = probe(key)
            if found {
                let position = Self.position(index[slot])
                let old = records[position]
                records[position] = record
                return old
            }
            keys.append(key)
            records.append(record)
            index[slot] = Self.tag(Self.bits(key)) << 32 | UInt64(keys.count)
            return nil
        }

        /// Removes `key`'s record.
        ///
        /// - Returns: The record it removed.
        @discardableResult
        mutating func removeValue(forKey key: Key) -> Record? {
            guard let found = slot(of: key) else { return nil }
            let position = Self.position(index[found])
            removeSlot(found)
            let removed = records[position]
            let last = keys.count - 1
            if position != last {
                // The last record takes the freed place; its slot is told.
                if let moved = slot(of: keys[last]) {
                    index[moved] = index[moved] & ~UInt64(UInt32.max) | UInt64(position + 1)
                }
                keys.swapAt(position, last)
                records.swapAt(position, last)
            }
            keys.removeLast()
            records.removeLast()
            return removed
        }

        /// Removes every record.
        mutating func removeAll() {
            keys = []
            records = []
            index = Array(repeating: 0, count: Self.smallest)
        }

        /// Makes room for `added` more records: geometric, so that a walk that adds a page at a time grows the
        /// index and the arrays a few times in all.
        mutating func reserve(adding added: Int) {
            let needed = keys.count + added
            guard needed * 4 > index.count * 3 else { return }
            var size = index.count * 2
            while needed * 4 > size * 3 { size *= 2 }
            rebuildIndex(size: size)
            keys.reserveCapacity(needed)
            records.reserveCapacity(needed)
        }

        // MARK: The index

        /// The slot of `key`, if it has one.
        private func slot(of key: Key) -> Int? {
            let (slot, found) = probe(key)
            return found ? slot : nil
        }

        /// Walks the index from `key`'s home slot: the slot holding `key` (`found`), else the empty slot that ends
        /// the walk, where it would go.
        private func probe(_ key: Key) -> (slot: Int, found: Bool) {
            let hash = Self.bits(key), tag = Self.tag(hash)
            let mask = index.count - 1
            var slot = Self.home(hash, index.count)
            for _ in 0..<index.count {
                let value = index[slot]
                if value == 0 { return (slot, false) }
                if value >> 32 == tag, keys[Self.position(value)] == key { return (slot, true) }
                slot = (slot + 1) & mask
            }
            return (slot, false)
        }

        /// Empties `slot`, moving back the slots after it that may not be past an empty one: each key stays
        /// reachable from its home slot without a gap.
        private mutating func removeSlot(_ slot: Int) {
            let mask = index.count - 1
            var hole = slot
            var next = (slot + 1) & mask
            for _ in 1..<index.count {
                guard index[next] != 0 else { break }
                let home = Self.home(Self.bits(keys[Self.position(index[next])]), index.count)
                // The key at `next` may fill the hole when its home is not between the hole and it (cyclically).
                if (next - home) & mask >= (next - hole) & mask {
                    index[hole] = index[next]
                    hole = next
                }
                next = (next + 1) & mask
            }
            index[hole] = 0
        }

        /// Makes the index `size` slots long (a power of two, more than a third larger than the count).
        private mutating func rebuildIndex(size: Int) {
            var rebuilt = [UInt64](repeating: 0, count: size)
            let mask = size - 1
            for (position, key) in keys.enumerated() {
                let hash = Self.bits(key)
                var slot = Self.home(hash, size)
                for _ in 0..<size {
                    if rebuilt[slot] == 0 { break }
                    slot = (slot + 1) & mask
                }
                rebuilt[slot] = Self.tag(hash) << 32 | UInt64(position + 1)
            }
            index = rebuilt
        }

        /// The key's hash, as 64 bits (32 on a 32-bit platform, the rest zero).
        private static func bits(_ key: Key) -> UInt64 { UInt64(UInt(bitPattern: key.seededHash)) }

        /// The slot a hash starts at in an index of `size` slots.
        private static func home(_ hash: UInt64, _ size: Int) -> Int { Int(truncatingIfNeeded: hash) & (size - 1) }

        /// The 32 bits of a hash a slot keeps: both halves mixed, so that the bits the slot's place already says
        /// still tell keys apart.
        private static func tag(_ hash: UInt64) -> UInt64 { (hash >> 32 ^ hash) & UInt64(UInt32.max) }

        /// The position a slot holds.
        private static func position(_ value: UInt64) -> Int { Int(truncatingIfNeeded: value & UInt64(UInt32.max)) - 1 }
    }
}
