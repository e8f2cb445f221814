/// The `String`s of short texts a document repeats: member names (`type`, `attributes`, `title`) and types
/// (`people`), thousands of times each in a large document.
///
/// Building a `String` from bytes costs about 200 instructions, even for a short one (the standard library validates
/// the bytes again, then builds the small form); finding one here about 30. A text of up to 15 bytes without escapes
/// is its bytes, packed into two words, so equal words are equal texts. The table is direct-mapped: a newer text
/// replaces an older one in its slot.
final class ShortStringTable {
    private struct Entry {
        /// Bytes 0–7 of the text.
        var low: UInt64
        /// Bytes 8–14, and the length in the top byte.
        var high: UInt64
        var string: String
    }

    private static let slotCount = 256
    /// Allocated at the first lookup (most readers read few strings): memory of its own, so that a lookup neither
    /// retains an array nor checks exclusive access. Every slot starts as the empty text, whose packed form is zero,
    /// so a lookup needs no "empty" check.
    private var entries: UnsafeMutablePointer<Entry>?

    deinit {
        guard let entries else { return }
        entries.deinitialize(count: Self.slotCount)
        entries.deallocate()
    }

    /// The string at `index` of `tape` (which must be a string or a key).
    func string(at index: Int, in tape: JSONTape) -> String {
        let node = tape.nodes[index]
        let length = Int(node.length)
        guard length <= 15, node.flags & JSONTape.stringHasEscapes == 0 else { return tape.string(index) }
        let start = Int(node.start)
        let (low, high) = tape.bytes.packed(at: start, length: length)
        let slot = Int(truncatingIfNeeded: ((low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 56)
        let table = entries ?? makeEntries()
        if table[slot].low == low, table[slot].high == high { return table[slot].string }
        let string = tape.string(index)
        table[slot] = Entry(low: low, high: high, string: string)
        return string
    }

    private func makeEntries() -> UnsafeMutablePointer<Entry> {
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: Self.slotCount)
        table.initialize(repeating: Entry(low: 0, high: 0, string: ""), count: Self.slotCount)
        entries = table
        return table
    }

    /// The `length` (≤ 15) bytes at `start`, the first in the lowest bits, and the length in the top byte.
    @inline(__always)
    static func pack(_ bytes: BorrowedBytes, _ start: Int, _ length: Int) -> (UInt64, UInt64) {
        var low: UInt64 = 0, high: UInt64 = 0
        if start &+ 16 <= bytes.count {
            // Two loads, masked to the text.
            let first = bytes.word(at: start), second = bytes.word(at: start &+ 8)
            if length >= 8 {
                low = first
                high = length == 8 ? 0 : second & (~0 >> (64 &- 8 &* (length &- 8)))
            } else {
                low = length == 0 ? 0 : first & (~0 >> (64 &- 8 &* length))
            }
        } else {
            for offset in 0..<length {
                let byte = UInt64(bytes[start &+ offset])
                if offset < 8 { low |= byte << (8 &* offset) } else { high |= byte << (8 &* (offset &- 8)) }
            }
        }
        return (low, high | UInt64(length) << 56)
    }
}
