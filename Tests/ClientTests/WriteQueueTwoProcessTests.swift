import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// Two processes on one directory, as an app and its extension in one app-group container: both replay the same
/// queue at once against the real test server (children `store-kill-child replay …`, Tests/StoreKillChild), and each
/// queued write is made exactly once — the claim in the database lets one process send an entry, and the other
/// finds it gone.
@Suite("Write queue shared by two processes")
struct WriteQueueTwoProcessTests {
    /// Fails every request in the transport, as a phone without a network does.
    struct Offline: Middleware {
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            throw URLError(.notConnectedToInternet)
        }
    }

    /// Queues `count` creates of tags named `name-n` offline, without ids (the server makes them, so a write sent
    /// twice would make two tags), in a session on `directory` that then goes.
    static func queueOffline(_ count: Int, name: String, in directory: URL, server: URL) async throws {
        let api = Session(
            baseURL: server,
            configuration: .init(
                middlewares: [Offline()], store: .init(persistence: .init(directory: directory)), writes: .offline))
        let tags = api.source(ArticleTag.self, .path("tags/<id>"))
        for n in 0..<count {
            let response = try await tags.create(ArticleTag(id: "", name: "\(name)-\(n)"))
            #expect(response.queued != nil)
        }
        #expect(api.writeQueue.entries.count == count)
    }

    /// Starts a replaying child on `directory`.
    static func start(_ directory: URL, server: URL) throws -> (Process, ChildOutput) {
        try start(["replay", directory.path, server.absoluteString])
    }

    /// Starts `store-kill-child` with `arguments`, gathering what it prints.
    static func start(_ arguments: [String]) throws -> (Process, ChildOutput) {
        let process = Process()
        process.executableURL = try StoreKillTests.child()
        process.arguments = arguments
        process.environment = StoreKillTests.childEnvironment
        let output = ChildOutput(of: process)
        try process.run()
        return (process, output)
    }

    /// Waits (on a thread of its own, a minute at most) for `process` to end, and returns what it printed.
    static func finish(_ process: Process, _ output: ChildOutput) async -> String {
        let ended = (try? await offPool {
            let deadline = Date() + 60
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { process.terminate() }
            return !process.isRunning
        }) ?? false
        #expect(ended, "a child did not end")
        await output.finish()
        return output.text
    }

    @Test("Two processes replaying one queue of 20 creates at once: each write made exactly once")
    func replayTogether() async throws {
        let server = try TestServer.url()
        let run = "twoproc-\(UUID().uuidString.prefix(8))"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(run)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.queueOffline(20, name: run, in: directory, server: server)

        let (first, firstOutput) = try Self.start(directory, server: server)
        let (second, secondOutput) = try Self.start(directory, server: server)
        let reports = [await Self.finish(first, firstOutput), await Self.finish(second, secondOutput)]

        let made = try await ArticleTag.all(containing: run, on: server)
        let counts = Dictionary(grouping: made, by: \.name).mapValues(\.count)
        for n in 0..<20 { #expect(counts["\(run)-\(n)"] == 1, "write \(n) was made \(counts["\(run)-\(n)"] ?? 0) times") }
        #expect(made.count == 20, "\(reports)")
        // Each child's events: delivered ones add up to 20, the others it found gone (discarded here).
        let delivered = reports.compactMap { report -> Int? in
            let words = report.split(whereSeparator: \.isWhitespace)
            guard let index = words.firstIndex(of: "delivered"), index + 1 < words.count else { return nil }
            return Int(words[index + 1])
        }
        #expect(delivered.count == 2 && delivered.reduce(0, +) == 20, "\(reports)")
        #expect(reports.allSatisfy { $0.contains("left 0") }, "\(reports)")
        // Nothing is left in the database for a third process.
        let api = Session(baseURL: server, configuration: .init(store: .init(persistence: .init(directory: directory))))
        #expect(api.writeQueue.entries.isEmpty)
        print("two-process replay: \(reports.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })")
    }

    @Test("An app that stays up sends what another process queued meanwhile, within seconds and exactly once, without a relaunch")
    func followsAnotherProcess() async throws {
        let server = try TestServer.url()
        let run = "follow-\(UUID().uuidString.prefix(8))"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(run)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The app: online, its queue empty, up the whole time.
        let api = Session(
            baseURL: server,
            configuration: .init(
                store: .init(persistence: .init(directory: directory)),
                writeQueue: .init(firstDelay: .milliseconds(10), maxDelay: .milliseconds(50))))
        let events = api.writeQueue.events()
        #expect(api.writeQueue.entries.isEmpty)
        // The extension: another process queues 5 creates offline, then ends.
        let (child, output) = try Self.start(["enqueue", directory.path, server.absoluteString, run, "5"])
        let report = await Self.finish(child, output)
        #expect(report.contains("queued 5"), "\(report)")
        // The app sends them at its pool's next look (about a second): a bound on a hang, not a timing.
        let delivered = await bounded {
            var delivered = 0
            for await event in events {
                if case .delivered = event.outcome { delivered += 1 }
                if delivered == 5 { break }
            }
            return delivered
        }
        #expect(delivered == 5, "the app did not send what the other process queued")
        let made = try await ArticleTag.all(containing: run, on: server)
        let counts = Dictionary(grouping: made, by: \.name).mapValues(\.count)
        for n in 0..<5 { #expect(counts["\(run)-\(n)"] == 1, "write \(n) was made \(counts["\(run)-\(n)"] ?? 0) times") }
        #expect(api.writeQueue.entries.isEmpty)
    }
}
