import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 that answers every request with the same JSON:API document and keeps each
/// connection open, counting the connections it accepts: how a test sees whether requests share a URLSession (one
/// URLSession reuses its idle connection; two open two).
final class KeepAliveServer: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var requestCount = 0
    private var stopped = false
    private let response: [UInt8]

    /// A server answering `status` (e.g. `302 Found`) with `headers` (`Name: value` lines) and `body`.
    init(body: String = #"{"data": []}"#, status: String = "200 OK", headers: [String] = []) throws {
        (descriptor, port) = try LoopbackSocket.listen()
        let bytes = Array(body.utf8)
        response = Array(
            ("HTTP/1.1 \(status)\r\nContent-Type: application/vnd.api+json\r\nContent-Length: \(bytes.count)\r\n"
                + headers.map { $0 + "\r\n" }.joined() + "Connection: keep-alive\r\n\r\n").utf8) + bytes
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }

    /// The connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// The requests answered so far.
    var requests: Int { lock.withLock { requestCount } }

    /// Stops accepting (connections already open stay until the client closes them). The accept loop sees the flag
    /// within one poll (50 ms) and closes the socket itself: closed here, its number could be reused by another
    /// test's socket while the loop still polls it. (Not `shutdown()`: on Darwin it does not wake a blocked
    /// `accept()`.)
    func stop() {
        lock.withLock { stopped = true }
    }

    private func acceptLoop() {
        while !lock.withLock({ stopped }) {
            guard LoopbackSocket.waitForInput(descriptor) else { continue }
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { continue }
            lock.withLock { accepted += 1 }
            Thread.detachNewThread { [self] in serve(client) }
        }
        close(descriptor)
    }

    /// Answers each request (a head ending in an empty line; the tests send no bodies) until the client closes.
    private func serve(_ client: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            pending += chunk[0..<count]
            while let range = pending.firstRange(of: end) {
                pending.removeSubrange(..<range.upperBound)
                lock.withLock { requestCount += 1 }
                let sent = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
                guard sent == response.count else { break }
            }
        }
        close(client)
    }
}
