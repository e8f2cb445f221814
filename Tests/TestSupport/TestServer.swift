import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON:API test server (Tests/Server) for the integration tests.
///
/// `scripts/test.sh` starts one and passes its URL in `JSONAPI_TEST_SERVER_URL`. When the variable is absent (a plain
/// `swift test`), the first test that asks starts one with `Tests/Server/start.sh` — one server for the whole run,
/// stopped with `Tests/Server/stop.sh` when the test process exits. A test that needs the server fails — never
/// skips — when it cannot be had: the error thrown here fails the test with its description.
public enum TestServer {
    /// The server could not be started.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The server's base URL.
    public static func url() throws -> URL {
        if let value = ProcessInfo.processInfo.environment["JSONAPI_TEST_SERVER_URL"], !value.isEmpty {
            guard let url = URL(string: value) else {
                throw Unavailable(description: "JSONAPI_TEST_SERVER_URL is not a URL: \(value)")
            }
            _ = logStart
            return url
        }
        let url = try started.get()
        _ = logStart  // after start.sh emptied the log of the server it replaced
        return url
    }

    /// The server's access log: one line per request answered since this test process first asked for the server,
    /// e.g. `127.0.0.1 - - [23/Nov/2026:05:10:00 +0000] "GET /articles/5 HTTP/1.1" 304 0 "-" "…"`. A server that
    /// served an earlier run (`JSONAPI_TEST_SERVER_URL` set, or `mutate.py`'s one server for every mutant) has
    /// earlier lines; they are not this run's.
    public static func accessLog() -> [String] {
        Array(fullAccessLog().dropFirst(logStart))
    }

    private static func fullAccessLog() -> [String] {
        let log = packageRoot.appendingPathComponent("Tests/Server/.run/server.log")
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.contains("\" ") && $0.contains(" HTTP/1.1\" ") }
    }

    /// How many access-log lines there were when this process first asked for the server.
    private static let logStart = fullAccessLog().count

    /// The statuses of the requests whose request line (`GET /path?query`) is exactly `requestLine`, in order.
    public static func statuses(of requestLine: String) -> [Int] {
        accessLog().compactMap { line in
            guard let range = line.range(of: "\"\(requestLine) HTTP/1.1\" ") else { return nil }
            return Int(line[range.upperBound...].prefix(3))
        }
    }

    /// ``statuses(of:)`` once the log has at least `count` of them (the server writes a line just after it
    /// answers), or after 3 seconds; then a little longer, so that an extra request would be seen too.
    public static func statuses(of requestLine: String, count: Int) async -> [Int] {
        let deadline = ContinuousClock.now + .seconds(3)
        while statuses(of: requestLine).count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        try? await Task.sleep(for: .milliseconds(100))
        return statuses(of: requestLine)
    }

    /// The package's root folder (this file is Tests/TestSupport/TestServer.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The server this process started: once, on first use (a static `let` is initialised exactly once, even when
    /// tests ask concurrently).
    private static let started: Result<URL, Unavailable> = start()

    private static func start() -> Result<URL, Unavailable> {
        let script = packageRoot.appendingPathComponent("Tests/Server/start.sh").path
        FileHandle.standardError.write(Data("TestServer: JSONAPI_TEST_SERVER_URL is not set; running \(script)\n".utf8))
        let status = run(script)
        let urlFile = packageRoot.appendingPathComponent("Tests/Server/.run/url")
        let line = ((try? String(contentsOf: urlFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, let url = URL(string: line), url.host != nil else {
            return .failure(
                Unavailable(description: "\(script) exited with status \(status); see its messages on standard error"))
        }
        atexit { _ = TestServer.run(TestServer.packageRoot.appendingPathComponent("Tests/Server/stop.sh").path) }
        return .success(url)
    }

    /// Runs `script` with its standard output sent to standard error, and returns its exit status (-1 when it
    /// could not be started).
    ///
    /// Not `Foundation.Process`: its `waitUntilExit()` needs a free thread of the global dispatch pool to learn that
    /// the child exited, and the concurrent tests that are waiting for this server can occupy every one of them.
    private static func run(_ script: String) -> Int32 {
        #if os(tvOS) || os(watchOS)
        return -1  // no `posix_spawn` there: the server's tests run on a Mac or Linux
        #else
        #if canImport(Glibc) || canImport(Musl)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(script), nil]
        let environment: [UnsafeMutablePointer<CChar>?] =
            ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + environment).forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, script, &actions, nil, arguments, environment) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
        #endif
    }
}
