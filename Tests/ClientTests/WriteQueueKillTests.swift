import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The write queue killed at random instants: a child process (`store-kill-child queue …`,
/// Tests/StoreKillChild/QueueChild.swift) creates tags offline in a loop and prints each once its write returned
/// queued; the test kills it with `SIGKILL` after a random number of writes and a random pause, several times on
/// one directory, then replays the queue against the real test server and checks that every tag the children
/// reported was made exactly once, and no other tag twice. `QUEUE_KILL_COUNT` sets the number of kills
/// (`scripts/queue-kill-test.sh N`); 4 by default.
@Suite("Write queue killed while queueing")
struct WriteQueueKillTests {
    /// Runs a child from write `first` on, kills it after `after` reported writes (or 20 s) and `pause` more, and
    /// returns the writes it reported.
    static func runChild(
        _ arguments: [String], after: Int, pause: Duration
    ) async throws -> [Int] {
        let process = Process()
        process.executableURL = try StoreKillTests.child()
        process.arguments = arguments
        process.environment = StoreKillTests.childEnvironment
        let output = ChildOutput(of: process)
        try process.run()
        output.kill(process, after: after, of: "queued", pause: pause)
        // A child that never queues as many (its server gone) is killed after 20 s all the same.
        let deadline = ContinuousClock.now + .seconds(20)
        while !output.killed, process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        if !output.killed { kill(process.processIdentifier, SIGKILL) }
        try await StoreKillTests.reap(process, into: output)
        #expect(process.terminationReason == .uncaughtSignal, "the child ended on its own: \(process.terminationStatus)")
        return output.numbers(after: "queued")
    }

    @Test("Every write a killed child queued is sent after the restart, exactly once")
    func killedWhileQueueing() async throws {
        let kills = ProcessInfo.processInfo.environment["QUEUE_KILL_COUNT"].flatMap(Int.init) ?? 4
        let server = try TestServer.url()
        let run = UUID().uuidString
        let firstID = Int.random(in: 1_000_000_000...1_900_000_000)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var reported: [Int] = []
        var next = 0
        for _ in 0..<kills {
            let queued = try await Self.runChild(
                ["queue", directory.path, server.absoluteString, run, String(firstID), String(next)],
                after: Int.random(in: 1...3), pause: .microseconds(Int.random(in: 0...20_000)))
            #expect(queued == Array(queued.indices.map { next + $0 }), "writes out of order: \(queued)")
            reported += queued
            // A write killed before it printed may still be queued: the next child starts after it.
            next = (queued.last ?? next - 1) + 2
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []

        let log = StorePersistenceTests.Log()
        let api = Session(
            baseURL: server,
            configuration: .init(
                store: .init(persistence: .init(directory: directory, log: { log.write($0) })),
                writeQueue: .init(firstDelay: .milliseconds(10), maxDelay: .milliseconds(50))))
        let entries = api.writeQueue.entries
        #expect(log.messages.isEmpty, "\(log.messages)")
        let queuedIDs = Set(entries.map(\.resourceID))
        for n in reported { #expect(queuedIDs.contains(String(firstID - n)), "write \(n) was lost") }
        let postsBefore = TestServer.statuses(of: "POST /tags").count
        // Each child, offline, also tried the queue's first entry (a write behind waiting ones tries the next), at
        // no cost: no child was ever told the network was there. So no entry is failing, and the network back is
        // all it takes (no retry()).
        #expect(!entries.contains { $0.isFailing } && entries.allSatisfy { $0.attempts == 0 })
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        let made = try await ArticleTag.all(containing: "kill-\(run)-", on: server)
        let counts = Dictionary(grouping: made, by: \.name).mapValues(\.count)
        for n in reported { #expect(counts["kill-\(run)-\(n)"] == 1, "write \(n) was made \(counts["kill-\(run)-\(n)"] ?? 0) times") }
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(made.count == entries.count)
        // The server writes its log line just after it answers: read it once it holds every replayed POST (other
        // tests may POST tags meanwhile, so there may be more). Read at once, the last line could be missing — what
        // once looked like a write that left the queue without reaching the server.
        let posts = await TestServer.statuses(of: "POST /tags", count: postsBefore + entries.count).dropFirst(postsBefore)
        #expect(posts.count >= entries.count, "\(posts.count) POSTs in the server's log for \(entries.count) entries")
        print(
            "queue-kill-test: kills=\(kills) writes_reported=\(reported.count) entries_replayed=\(entries.count) made=\(made.count) files=\(names.sorted()) posts_in_run=\(posts.count)"
        )
        #expect(!reported.isEmpty)
    }
}
