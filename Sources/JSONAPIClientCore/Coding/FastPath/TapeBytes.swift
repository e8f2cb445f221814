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
    /// move onto a copy of its bytes when the decode ends with a decoder kept. `bytes` and `owner` are written only
    /// by `adoptCopy()`, which ``ResourceDecodingContext/endDecode(_:)`` calls after the decode's last read.
    private final class Source {
        var bytes: BorrowedBytes
        /// The storage that holds copied bytes; `nil` for borrowed bytes.
        var owner: Storage?

        init(bytes: BorrowedBytes, owner: Storage?) {
            self.bytes = bytes
            self.owner = owner
        }
    }

    /// Storage allocated for a copy, freed with the last tape that uses it.
    private final class Storage {
        private let buffer: UnsafeMutableBufferPointer<UInt8>
        /// The copy; valid while this storage lives.
        let bytes: BorrowedBytes

        init(copying source: BorrowedBytes) {
            buffer = .allocate(capacity: max(source.count, 1))
            let end = buffer.baseAddress.map(source.copy(to:)) ?? 0
            bytes = BorrowedBytes(UnsafeBufferPointer(rebasing: buffer[0..<end]))
        }

        /// Storage of `count` bytes that `fill` writes (each `BorrowedBytes` it copies from fits: the caller sums
        /// their counts into `count`); `fill` returns how many it wrote, never more than `count`.
        init(count: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Int) {
            buffer = .allocate(capacity: max(count, 1))
            let end = buffer.baseAddress.map { min(fill($0), count) } ?? 0
            bytes = BorrowedBytes(UnsafeBufferPointer(rebasing: buffer[0..<end]))
        }
        deinit { buffer.deallocate() }
    }

    /// Bytes borrowed from the caller, who keeps them alive for as long as the tape is used.
    init(borrowing bytes: BorrowedBytes) {
        source = Source(bytes: bytes, owner: nil)
    }

    /// A copy of `bytes` that lives as long as the tape.
    init(copying bytes: [UInt8]) {
        let storage = BorrowedBytes.lending(bytes) { Storage(copying: $0) }
        source = Source(bytes: storage.bytes, owner: storage)
    }

    /// The concatenation of `pieces`, in storage the tape owns: one allocation, each piece copied once.
    init(concatenating pieces: [(bytes: TapeBytes, range: Range<Int>)]) {
        let count = pieces.reduce(0) { $0 + $1.range.count }
        let storage = Storage(count: count) { destination in
            var written = 0
            for piece in pieces {
                written += piece.bytes.withBytes(in: piece.range) { $0.copy(to: destination + written) }
            }
            return written
        }
        source = Source(bytes: storage.bytes, owner: storage)
    }

    /// Whether the bytes are owned by the tape (copied), not borrowed from a caller.
    var isOwned: Bool { source.owner != nil }

    /// Whether `self` and `other` are the same bytes (one storage, shared by copies of one tape).
    func isSame(as other: TapeBytes) -> Bool { source === other.source }

    /// Moves every copy of this tape's bytes onto a copy that they own, for a tape that must outlive the bytes it
    /// borrowed; nothing to do for bytes it owns already.
    func adoptCopy() {
        guard source.owner == nil else { return }
        let storage = Storage(copying: source.bytes)
        source.bytes = storage.bytes
        source.owner = storage
    }

    var count: Int { source.bytes.count }
    var indices: Range<Int> { 0..<source.bytes.count }

    /// Calls `body` with the bytes, kept alive until it returns.
    @inline(__always)
    func withBytes<Result, Failure: Error>(_ body: (BorrowedBytes) throws(Failure) -> Result) throws(Failure) -> Result {
        defer { withExtendedLifetime(source) {} }
        return try body(source.bytes)
    }

    /// Calls `body` with the bytes in `range`, kept alive until it returns.
    @inline(__always)
    func withBytes<Result, Failure: Error>(
        in range: Range<Int>, _ body: (BorrowedBytes) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        defer { withExtendedLifetime(source) {} }
        return try body(source.bytes[range])
    }

    @inline(__always) subscript(position: Int) -> UInt8 { source.bytes[position] }

    /// The `length` (≤ 15) bytes at `start` packed into two words (``ShortStringTable/pack(_:_:_:)``).
    @inline(__always)
    func packed(at start: Int, length: Int) -> (UInt64, UInt64) {
        defer { withExtendedLifetime(source) {} }
        return ShortStringTable.pack(source.bytes, start, length)
    }
}
