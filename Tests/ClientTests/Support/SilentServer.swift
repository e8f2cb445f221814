import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket on 127.0.0.1 that accepts connections (in the kernel's backlog) and never answers: for timeout and
/// cancellation tests.
final class SilentServer: Sendable {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try LoopbackSocket.listen()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/silent") ?? URL(fileURLWithPath: "/") }

    deinit { close(descriptor) }
}
