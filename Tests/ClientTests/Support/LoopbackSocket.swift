import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket calls the loopback test servers share: a listening TCP socket on 127.0.0.1 and its port.
enum LoopbackSocket {
    /// A TCP socket listening on 127.0.0.1 on a free port; the caller closes it.
    static func listen(backlog: Int32 = 16) throws -> (descriptor: Int32, port: UInt16) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #if canImport(Glibc)
        let listening = bound == 0 && Glibc.listen(fd, backlog) == 0
        #elseif canImport(Musl)
        let listening = bound == 0 && Musl.listen(fd, backlog) == 0
        #else
        let listening = bound == 0 && Darwin.listen(fd, backlog) == 0
        #endif
        guard listening else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw POSIXError(.EIO)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Whether `descriptor` has input (a connection to accept, bytes to read) within 50 ms: loops that poll rather
    /// than block in `accept()` or `recv()` can stop on a flag, on Darwin as on Linux.
    static func waitForInput(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 50) > 0
    }

    /// Closes `descriptor` with a TCP reset instead of an orderly FIN (SO_LINGER with a zero timeout), as a server
    /// that crashes or drops a connection does.
    static func reset(_ descriptor: Int32) {
        var linger = SocketLinger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<SocketLinger>.size))
        close(descriptor)
    }
}

#if canImport(Glibc)
private typealias SocketLinger = Glibc.linger
#elseif canImport(Musl)
private typealias SocketLinger = Musl.linger
#else
private typealias SocketLinger = Darwin.linger
#endif
