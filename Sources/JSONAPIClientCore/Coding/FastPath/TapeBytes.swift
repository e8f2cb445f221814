/// The input of a tape.
///
/// Decoding borrows the caller's bytes for the length of the call (``JSONTape/init(borrowing:maxDepth:)``), so a
/// 12 MB response is never copied; a tape that must live on its own (``JSONTape/init(parsing:maxDepth:)``) keeps a
/// copy in storage it owns.
struct TapeBytes {
    /// Where the bytes are: shared by every copy of the tape, so that ``adoptCopy()`` moves them all at once.
    private let source: Source

    /// The bytes; valid while `owner` lives or, for borrowed bytes, while the call that lent them runs.
    ///
    /// A class, so that a tape can stay a constant of the decoding context (reading a constant's arrays needs no
    /// retain; reading a variable's does, and the decoder reads the tape hundreds of thousands of times) and still
    /// move onto a copy of its bytes when the decode ends with a decoder kept. Exclusivity: `buffer` and `owner` are
    /// written only by `adoptCopy()`, which ``ResourceDecodingContext/endDecode(_:)`` calls after the decode's last
    /// read; every other access is a read that calls no user code, so none overlaps a write.
    private final class Source {
        @exclusivity(unchecked) var buffer: UnsafeBufferPointer<UInt8>
        /// The storage that holds copied bytes; `nil` for borrowed bytes. (Read only by `adoptCopy()`: checked.)
        var owner: Storage?

        init(buffer: UnsafeBufferPointer<UInt8>, owner: Storage?) {
            self.buffer = buffer
            self.owner = owner
        }
    }

    /// Storage allocated for a copy, freed with the last tape that uses it.
    private final class Storage {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        init(copying bytes: UnsafeBufferPointer<UInt8>) {
            buffer = UnsafeMutableBufferPointer.allocate(capacity: max(bytes.count, 1))
            if let base = buffer.baseAddress, let from = bytes.baseAddress { base.initialize(from: from, count: bytes.count) }
        }
        deinit { buffer.deallocate() }
    }

    /// Bytes borrowed from the caller, who keeps them alive for as long as the tape is used.
    init(borrowing buffer: UnsafeBufferPointer<UInt8>) {
        source = Source(buffer: buffer, owner: nil)
    }

    /// A copy of `bytes` that lives as long as the tape.
    init(copying bytes: [UInt8]) {
        let storage = bytes.withUnsafeBufferPointer { Storage(copying: $0) }
        source = Source(buffer: UnsafeBufferPointer(rebasing: storage.buffer[0..<bytes.count]), owner: storage)
    }

    /// The bytes.
    var buffer: UnsafeBufferPointer<UInt8> { source.buffer }

    /// Moves every copy of this tape's bytes onto a copy that they own, for a tape that must outlive the bytes it
    /// borrowed; nothing to do for bytes it owns already.
    func adoptCopy() {
        guard source.owner == nil else { return }
        let storage = Storage(copying: source.buffer)
        source.buffer = UnsafeBufferPointer(rebasing: storage.buffer[0..<source.buffer.count])
        source.owner = storage
    }

    var count: Int { buffer.count }
    var indices: Range<Int> { 0..<buffer.count }

    @inline(__always)
    func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        defer { withExtendedLifetime(source) {} }
        return try body(source.buffer)
    }

    @inline(__always) subscript(position: Int) -> UInt8 { source.buffer[position] }

    /// The `length` (≤ 15) bytes at `start` packed into two words (``ShortStringTable/pack(_:_:_:)``).
    @inline(__always)
    func packed(at start: Int, length: Int) -> (UInt64, UInt64) {
        defer { withExtendedLifetime(source) {} }
        return ShortStringTable.pack(source.buffer, start, length)
    }
    subscript(range: Range<Int>) -> Slice<UnsafeBufferPointer<UInt8>> { source.buffer[range] }
}
