/// The input of a tape.
///
/// Decoding borrows the caller's bytes for the length of the call (``JSONTape/init(borrowing:maxDepth:)``), so a
/// 12 MB response is never copied; a tape that must live on its own (``JSONTape/init(parsing:maxDepth:)``) keeps a
/// copy in storage it owns.
struct TapeBytes {
    /// The bytes; valid while `owner` lives or, for borrowed bytes, while the call that lent them runs.
    let buffer: UnsafeBufferPointer<UInt8>
    /// The storage that holds copied bytes; `nil` for borrowed bytes.
    private let owner: Storage?

    /// Storage allocated for a copy, freed with the last tape that uses it.
    private final class Storage {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        init(copying bytes: [UInt8]) {
            buffer = UnsafeMutableBufferPointer.allocate(capacity: max(bytes.count, 1))
            _ = buffer.initialize(from: bytes)
        }
        deinit { buffer.deallocate() }
    }

    /// Bytes borrowed from the caller, who keeps them alive for as long as the tape is used.
    init(borrowing buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
        self.owner = nil
    }

    /// A copy of `bytes` that lives as long as the tape.
    init(copying bytes: [UInt8]) {
        let storage = Storage(copying: bytes)
        self.buffer = UnsafeBufferPointer(rebasing: storage.buffer[0..<bytes.count])
        self.owner = storage
    }

    var count: Int { buffer.count }
    var indices: Range<Int> { 0..<buffer.count }

    @inline(__always)
    func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        defer { withExtendedLifetime(owner) {} }
        return try body(buffer)
    }

    @inline(__always) subscript(position: Int) -> UInt8 { buffer[position] }
    subscript(range: Range<Int>) -> Slice<UnsafeBufferPointer<UInt8>> { buffer[range] }
}
