#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#else
import Foundation
#endif

/// The thread a decode runs on: the only thread its decoders and containers answer on.
///
/// A decode's state (the container pool, the shared-model table, the tape's bytes) is not synchronized: it is one
/// decode's, on one thread, and `JSONAPIDecoder.decode` is synchronous. A model's `init(from:)` that hands its
/// decoder or a container to another thread (`DispatchQueue.concurrentPerform`, a detached thread, a `Sendable`
/// wrapper) would race that state; such a use throws ``JSONAPIDecodingError/Code/wrongThread`` instead. The thread
/// is compared where a decoder or container is asked for something, before any state is read (about 8 instructions:
/// a call to `pthread_self` and a comparison).
struct DecodingThread {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
    private let thread = pthread_self()

    /// Whether the caller runs on the decode's thread. (`pthread_t` is an integer on Linux and a pointer on Apple
    /// platforms, compared as such: `pthread_equal` would be a second call into the C library.)
    var isCurrent: Bool { pthread_self() == thread }
    #else
    private let thread = ObjectIdentifier(Thread.current)

    /// Whether the caller runs on the decode's thread.
    var isCurrent: Bool { ObjectIdentifier(Thread.current) == thread }
    #endif

    /// Throws unless the caller runs on the decode's thread.
    @inline(__always)
    func check() throws {
        guard isCurrent else { throw Self.wrongThread() }
    }

    /// The error for a use on another thread. (It reads nothing of the decode: its state is not this thread's.)
    @inline(never)
    static func wrongThread() -> DecodingError {
        let error = JSONAPIDecodingError(
            code: .wrongThread, pointer: "",
            detail: "a decoder or container was used on another thread than its decode's; a model's init(from:) must "
                + "read its decoder on the thread that calls it")
        return DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: error.description, underlyingError: error))
    }
}
