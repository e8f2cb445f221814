/// The thread an encode runs on: the only thread its encoders and containers answer on.
///
/// An encode's state (the context's caches, the capture a model writes into, the values being built) is not
/// synchronized: it is one encode's, on one thread, and `JSONAPIEncoder`'s methods are synchronous. A model's
/// `encode(to:)` that hands its encoder or a container to another thread (`DispatchQueue.concurrentPerform`, a
/// detached thread, a `Sendable` wrapper) would race that state; such a use throws instead, as a decode's does
/// (``DecodingThread``, whose comparison this uses). A container asked for on another thread writes nowhere, and
/// its first write throws.
struct EncodingThread {
    private let thread = DecodingThread()

    /// Whether the caller runs on the encode's thread.
    var isCurrent: Bool { thread.isCurrent }

    /// Throws unless the caller runs on the encode's thread.
    @inline(__always)
    func check() throws {
        guard thread.isCurrent else { throw Self.wrongThread() }
    }

    /// The error for a use on another thread. (It reads nothing of the encode: its state is not this thread's.)
    @inline(never)
    static func wrongThread() -> EncodingError {
        EncodingError.invalidValue(
            "wrongThread",
            EncodingError.Context(
                codingPath: [],
                debugDescription: "wrongThread: an encoder or container was used on another thread than its encode's; "
                    + "a model's encode(to:) must write to its encoder on the thread that calls it"))
    }
}
