import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for transport tests: each request gets the reply its handler makes, on
/// keep-alive connections, and a reply can end its connection abruptly (a TCP reset) or without answering at all.
///
/// Bounded: at most `maxConnections` connections, each closed after 10 s without a request; everything stops when
/// the server is released.
final class LoopbackHTTPServer: Sendable {
    /// A request as the server read it.
    struct Request: Sendable {
        /// The method, e.g. `GET`.
        var method: String
        /// The request target, e.g. `/articles?page=2`.
        var target: String
        /// Which connection it came on: 0 for the first accepted, 1 for the next, …
        var connection: Int
        /// The header fields, by lowercased name (the last of a repeated one).
        var headers: [String: String] = [:]
    }

    /// What the server does with a request.
    enum Reply: Sendable {
        /// Answers with a response; the connection stays open for the next request (HTTP/1.1 keep-alive), or is
        /// reset (RST) right after the response is written when `thenReset`, as a crashing server's is.
        case response(status: Int, headers: [HTTPHeader] = [], body: String = "", thenReset: Bool = false)
        /// Resets the connection without answering.
        case reset
        /// Answers with a head announcing `contentLength` bytes, sends `body` (shorter), then resets the connection.
        case truncated(status: Int, contentLength: Int, body: String)
    }

    /// A response header field.
    struct HTTPHeader: Sendable {
        var name: String
        var value: String
    }

    let port: UInt16
    private let listener: Int32
    private let shared: Shared

    /// Starts listening; `handler` answers each request on the server's threads.
    init(maxConnections: Int = 16, handler: @escaping @Sendable (Request) -> Reply) throws {
        (listener, port) = try LoopbackSocket.listen()
        let shared = Shared()
        self.shared = shared
        let listener = self.listener
        Thread {
            Self.acceptLoop(on: listener, maxConnections: maxConnections, shared: shared, handler: handler)
        }.start()
    }

    deinit {
        shared.stop()
        shared.waitUntilAcceptLoopEnds()
        close(listener)
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// The requests read so far, in order.
    var requests: [Request] { shared.requests }

    // MARK: - Serving

    private static func acceptLoop(
        on listener: Int32, maxConnections: Int, shared: Shared, handler: @escaping @Sendable (Request) -> Reply
    ) {
        defer { shared.acceptLoopEnded() }
        var accepted = 0
        while accepted < maxConnections, !shared.isStopped {
            guard LoopbackSocket.waitForInput(listener) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            #if !os(Linux)
            var on: Int32 = 1
            _ = setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let index = accepted
            accepted += 1
            Thread { serve(connection, index: index, shared: shared, handler: handler) }.start()
        }
    }

    private static func serve(
        _ connection: Int32, index: Int, shared: Shared, handler: @escaping @Sendable (Request) -> Reply
    ) {
        var buffer: [UInt8] = []
        var idle = ContinuousClock.now
        while !shared.isStopped, ContinuousClock.now - idle < .seconds(10) {
            guard LoopbackSocket.waitForInput(connection) else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            buffer += chunk[..<count]
            idle = ContinuousClock.now
            while let (head, length) = parseRequest(buffer, connection: index) {
                buffer.removeFirst(length)
                shared.record(head)
                switch handler(head) {
                case .reset:
                    LoopbackSocket.reset(connection)
                    return
                case let .truncated(status, contentLength, body):
                    sendResponse(status: status, headers: [], body: body, contentLength: contentLength, to: connection)
                    LoopbackSocket.reset(connection)
                    return
                case let .response(status, headers, body, thenReset):
                    sendResponse(status: status, headers: headers, body: body, to: connection)
                    if thenReset {
                        LoopbackSocket.reset(connection)
                        return
                    }
                }
            }
        }
        close(connection)
    }

    /// The request at the start of `bytes` and its length, once its head and body are complete.
    private static func parseRequest(_ bytes: [UInt8], connection: Int) -> (Request, Int)? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) })
        else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let total = end + 4 + (headers["content-length"].flatMap { Int($0) } ?? 0)
        guard bytes.count >= total else { return nil }
        let request = Request(
            method: String(requestLine[0]), target: String(requestLine[1]), connection: connection, headers: headers)
        return (request, total)
    }

    private static func sendResponse(
        status: Int, headers: [HTTPHeader], body: String, contentLength: Int? = nil, to connection: Int32
    ) {
        let body = Array(body.utf8)
        var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(contentLength ?? body.count)\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, noSignal) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// `send` flags: no SIGPIPE when the client has gone (Darwin sets SO_NOSIGPIPE on the socket instead).
    #if os(Linux)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif

    /// The state the server's threads share.
    private final class Shared: @unchecked Sendable {
        private let lock = NSCondition()
        private var stopped = false
        private var acceptLoopRunning = true
        private var log: [Request] = []

        var isStopped: Bool { lock.withLock { stopped } }
        var requests: [Request] { lock.withLock { log } }
        func stop() { lock.withLock { stopped = true } }
        func record(_ request: Request) { lock.withLock { log.append(request) } }

        func acceptLoopEnded() {
            lock.withLock {
                acceptLoopRunning = false
                lock.broadcast()
            }
        }

        func waitUntilAcceptLoopEnds() {
            lock.withLock {
                while acceptLoopRunning { lock.wait() }
            }
        }
    }
}
