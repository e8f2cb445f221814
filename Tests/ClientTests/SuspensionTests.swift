import Foundation
import Testing
import TestSupport

@testable import JSONAPIClient

/// Persistence suspended, as an app about to be suspended asks (`ResourceStore.Persistence.suspend()`): no write
/// transaction runs, a running one is interrupted and run again whole after the resume, and nothing is lost. Each test
/// suspends its own directory alone (`Suspension.suspend(under:)`), since the tests share one process; the public
/// calls suspend them all. (`ProcessInfo.performExpiringActivity` is Apple's: the Linux run takes the same path
/// without it.)
@Suite("Persistence suspended", .serialized)
struct SuspensionTests {
    /// A connection handed to a thread of its own (``offPool(_:)``) and used there alone.
    final class Owned: @unchecked Sendable {
        // @unchecked Sendable: the test touches `database` on one thread at a time, in turn.
        let database: SQLiteDatabase
        init(_ database: SQLiteDatabase) { self.database = database }
    }

    /// The `meta` keys of the database in `directory`, read through a connection of their own (reads go on while
    /// suspended).
    static func metaKeys(_ directory: URL) throws -> [String] {
        let reader = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path, creating: false)
        return try reader.rows("SELECT key FROM meta ORDER BY key").compactMap { $0.first?.text }
    }

    /// The ids of the `articles` rows in `directory`.
    static func articleIDs(_ directory: URL) throws -> [String] {
        try StoreFaultInjectionTests.articlesOnDisk(directory).keys.sorted()
    }

    /// Returns once `condition` holds (checked every 2 ms), or records an issue after a minute.
    static func until(_ what: String, _ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("While suspended a flush waits on the writer's queue, reads go on, and the save is written whole after the resume")
    func flushWaitsForResume() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(configuration: .init(persistence: StoreFaultInjectionTests.persistence(directory)))
        store.merge([StoreFaultInjectionTests.article(1)])
        try await store.flush()

        Suspension.shared.suspend(under: directory)
        store.merge([StoreFaultInjectionTests.article(2)])
        let flushing = Task { try await store.flush() }
        await Self.until("the save waits for the resume") { Suspension.shared.waiting == 1 }
        #expect(try Self.articleIDs(directory) == ["1"])
        #expect(store.record(type: "articles", id: "2") != nil)

        Suspension.shared.resume(under: directory)
        try await flushing.value
        #expect(try Self.articleIDs(directory) == ["1", "2"])
        #expect(Suspension.shared.waiting == 0)
    }

    @Test("A transaction running when persistence is suspended stops at its next statement, is rolled back, and runs again whole after the resume")
    func runningTransactionInterrupted() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let owned = Owned(try PartitionDatabase.open(in: directory, log: { _ in }))
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let runs = LockedValue(0)
        let writing = Task {
            try await offPool {
                let database = owned.database
                try database.immediateTransaction { () throws(SQLiteError) in
                    let run = runs.withLock { runs in
                        runs += 1
                        return runs
                    }
                    try database.execute("INSERT INTO meta (key, value) VALUES (?, 1)", [.text("first of run \(run)")])
                    if run == 1 {
                        entered.signal()
                        proceed.wait()
                    }
                    try database.execute("INSERT INTO meta (key, value) VALUES (?, 1)", [.text("second of run \(run)")])
                }
            }
        }
        try await offPool { entered.wait() }
        Suspension.shared.suspend(under: directory)
        proceed.signal()
        await Self.until("the interrupted transaction waits for the resume") { Suspension.shared.waiting == 1 }
        #expect(try Self.metaKeys(directory).filter { $0.contains("run") }.isEmpty, "the first run was not rolled back")

        Suspension.shared.resume(under: directory)
        try await writing.value
        #expect(runs.withLock { $0 } == 2)
        #expect(try Self.metaKeys(directory).filter { $0.contains("run") } == ["first of run 2", "second of run 2"])
    }

    @Test("A new file opened while suspended is not given its schema on the caller's thread: the store runs in memory, saying why, opens it at its first flush after the resume, and so does a store made after it")
    func openingWhileSuspended() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        Suspension.shared.suspend(under: directory)
        let suspended = ResourceStore(
            configuration: .init(persistence: .init(directory: directory, delay: .seconds(3600), log: { log.write($0) })))
        Suspension.shared.resume(under: directory)
        #expect(suspended.writer == nil)
        #expect(log.messages.contains { $0.contains("suspended") }, "\(log.messages)")
        try await suspended.flush()  // opened late, now that it can be
        #expect(suspended.writer != nil)

        let resumed = ResourceStore(configuration: .init(persistence: StoreFaultInjectionTests.persistence(directory)))
        #expect(resumed.writer != nil)
        resumed.merge([StoreFaultInjectionTests.article(1)])
        try await resumed.flush()
        #expect(try Self.articleIDs(directory) == ["1"])
    }

    @Test("Suspending one folder holds the writes under it alone; the public switch reads as suspended only while it is")
    func scopes() {
        let held = URL(fileURLWithPath: "/tmp/suspension-scope-a")
        Suspension.shared.suspend(under: held)
        #expect(Suspension.shared.holds("/tmp/suspension-scope-a/JSONAPIClient/default.sqlite"))
        #expect(!Suspension.shared.holds("/tmp/suspension-scope-ab/JSONAPIClient/default.sqlite"))
        #expect(!Suspension.shared.holds("/tmp/other/JSONAPIClient/default.sqlite"))
        #expect(!ResourceStore.Persistence.isSuspended)
        Suspension.shared.resume(under: held)
        #expect(!Suspension.shared.holds("/tmp/suspension-scope-a/JSONAPIClient/default.sqlite"))
    }
}
