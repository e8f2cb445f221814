/// The order in which a store's keys were last used, oldest first, so that evicting the least recently used takes
/// the front instead of sorting everything (the stored responses' eviction sorted all of them on every insert past
/// the limit).
///
/// Each use appends `(tick, key)`; ticks only grow, so the entries are in order of use. A key used again leaves its
/// older entry behind, stale: an entry counts only while its tick is still the key's last use (`isCurrent`), and
/// stale ones are skipped when met and dropped when they outnumber the live ones (`compact`), so a use costs O(1)
/// amortised and the entries stay under twice the keys plus a constant. The front is an index, not a removal from
/// the array's start: taking the oldest is O(1) too (the old waiting bodies left an array's front, which moved all
/// the others, 30 % of a fetch at 170,000 of them).
struct UseOrder<Key: Hashable> {
    private var entries: [(tick: UInt64, key: Key)] = []
    private var head = 0

    /// The number of entries, stale ones included (for tests of the bound).
    var entryCount: Int { entries.count - head }

    /// Notes that `key` was used at `tick` (larger than every tick noted before).
    mutating func use(_ key: Key, at tick: UInt64) {
        entries.append((tick, key))
    }

    /// Removes and returns the least recently used key whose entry is current, or `nil` when there is none.
    mutating func popOldest(isCurrent: (Key, UInt64) -> Bool) -> Key? {
        while head < entries.count {
            let entry = entries[head]
            head += 1
            if isCurrent(entry.key, entry.tick) {
                dropConsumedFront()
                return entry.key
            }
        }
        removeAll()
        return nil
    }

    /// Drops the stale entries once the entries are more than twice the `live` keys (plus 32): amortised over the
    /// uses that made them.
    mutating func compact(live: Int, isCurrent: (Key, UInt64) -> Bool) {
        guard (entries.count - head) / 2 > live + 16 else { return }
        entries = entries[head...].filter { isCurrent($0.key, $0.tick) }
        head = 0
    }

    /// The current keys, least recently used first.
    func keysInOrder(isCurrent: (Key, UInt64) -> Bool) -> [Key] {
        entries[head...].compactMap { isCurrent($0.key, $0.tick) ? $0.key : nil }
    }

    /// Forgets every entry.
    mutating func removeAll() {
        entries.removeAll()
        head = 0
    }

    /// Frees the consumed front once it is half the array (amortised O(1) per entry).
    private mutating func dropConsumedFront() {
        guard head > 64, head * 2 > entries.count else { return }
        entries.removeFirst(head)
        head = 0
    }
}
