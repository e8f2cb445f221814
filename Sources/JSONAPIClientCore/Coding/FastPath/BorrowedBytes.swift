import Foundation

/// Bytes that something else keeps alive, read by index: the input of a decode (``TapeBytes``), a name's UTF-8 for
/// the length of a `withUTF8` call, the text of a number or a date.
///
/// The one type through which the coders read bytes by address, so that the rule that keeps it sound is stated once:
/// a `BorrowedBytes` is used only while the bytes it views live — inside the call that lent them, or, for a tape's
/// input, until the decode ends (invariant 5 of this folder's README). Indexes are checked in debug builds, as
/// `UnsafeBufferPointer`'s are; release builds trust the callers, which check them against ``count`` themselves.
/// A struct of two words that the optimizer sees through: reading through it costs what reading the pointer did.
struct BorrowedBytes {
    private let buffer: UnsafeBufferPointer<UInt8>

    /// A view of `buffer`, which must outlive every use of the view.
    @inline(__always) init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    /// Lends `text`'s UTF-8 to `body`: in place when the string is contiguous, else from a contiguous copy.
    @inline(__always)
    static func lending<Result>(_ text: String, _ body: (BorrowedBytes) throws -> Result) rethrows -> Result {
        if let result = try text.utf8.withContiguousStorageIfAvailable({ try body(BorrowedBytes($0)) }) {
            return result
        }
        var text = text
        return try text.withUTF8 { try body(BorrowedBytes($0)) }
    }

    /// Lends `bytes` (an array, `Data`, …) to `body`.
    @inline(__always)
    static func lending<Result>(_ bytes: some ContiguousBytes, _ body: (BorrowedBytes) throws -> Result) rethrows
        -> Result
    {
        try bytes.withUnsafeBytes { try body(BorrowedBytes($0.assumingMemoryBound(to: UInt8.self))) }
    }

    /// Lends `literal`'s UTF-8 to `body`.
    @inline(__always)
    static func lending<Result>(_ literal: StaticString, _ body: (BorrowedBytes) -> Result) -> Result {
        literal.withUTF8Buffer { body(BorrowedBytes($0)) }
    }

    /// The number of bytes.
    @inline(__always) var count: Int { buffer.count }

    /// The byte at `position` (`0..<count`).
    @inline(__always) subscript(position: Int) -> UInt8 { buffer[position] }

    /// The bytes in `range` (within `0..<count`), indexed from 0.
    @inline(__always) subscript(range: Range<Int>) -> BorrowedBytes {
        BorrowedBytes(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    /// The eight bytes at `position` (`position + 8 <= count`) as one word, the first byte in the lowest bits.
    @inline(__always) func word(at position: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// The bytes as text, invalid UTF-8 repaired.
    @inline(__always) var string: String { String(decoding: buffer, as: UTF8.self) }

    /// The bytes, copied.
    var array: [UInt8] { Array(buffer) }

    /// The bytes, copied.
    var data: Data { Data(buffer: buffer) }

    /// Copies the bytes to `destination`, which has room for ``count`` of them; returns how many.
    @inline(__always) func copy(to destination: UnsafeMutablePointer<UInt8>) -> Int {
        if let source = buffer.baseAddress { destination.update(from: source, count: buffer.count) }
        return buffer.count
    }

    /// Appends the bytes to `output`.
    @inline(__always) func append(to output: inout [UInt8]) { output.append(contentsOf: buffer) }

    /// Whether the bytes are `other`'s.
    @inline(__always) func elementsEqual(_ other: some Sequence<UInt8>) -> Bool { buffer.elementsEqual(other) }

    /// Whether the bytes are `other`'s: compared by `memcmp`, not one by one through an iterator (comparing each
    /// record of a refresh with the one it replaces, `ResourceRecord.isWrittenAs`, cost `live-apply` 50 M
    /// instructions that way).
    @inline(__always) func elementsEqual(_ other: BorrowedBytes) -> Bool {
        guard buffer.count == other.buffer.count else { return false }
        guard buffer.count > 0 else { return true }  // an empty view may have no address
        // Both views hold `count` bytes that live for this call (the type's rule); a view of one byte or more has
        // an address, so the fallback is never taken.
        guard let first = buffer.baseAddress, let second = other.buffer.baseAddress else {
            return buffer.elementsEqual(other.buffer)
        }
        return memcmp(first, second, buffer.count) == 0
    }

    /// Feeds the bytes (not their count) to `hasher`.
    @inline(__always) func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(buffer)) }
}
