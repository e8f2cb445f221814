import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

/// The write queue kept beside a persisted store: it survives a restart (its entries sent after it, their
/// optimistic changes shown again), holds no credential, and a file it cannot read whole is discarded with a reason.
@Suite("Write queue kept across launches")
struct WriteQueuePersistenceTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("write-queue-\(UUID().uuidString)")
    }

    static func persistence(_ directory: URL, _ log: StorePersistenceTests.Log) -> ResourceStore.Persistence {
        ResourceStore.Persistence(directory: directory, log: { log.write($0) })
    }

    /// Queues a create of memo 2 offline, with a credential in its own header fields, in a session that then goes.
    static func queueOffline(in directory: URL, log: StorePersistenceTests.Log) async throws -> WriteQueue.Entry {
        let server = FlakyMemos()
        let (api, memos) = try WriteQueueTests.session(server, persistence: persistence(directory, log))
        let response = try await memos.create(
            Memo(id: "2", title: "Written offline"), headerFields: ["Authorization": "Bearer secret-token"])
        let entry = try #require(response.queued)
        #expect(api.writeQueue.entries == [entry])
        #expect(server.served.isEmpty)
        return entry
    }

    /// Returns once the sessions made before in `directory` are gone, with their database's connections (the
    /// next session, a launch again, opens its own: a fault injected now reaches them). A bound on a leak, not a
    /// timing: it returns as soon as no connection is open.
    static func closed(_ directory: URL) async throws {
        let path = PartitionDatabase.file(in: directory).path
        for _ in 0..<6_000 where SQLiteDatabase.connections(to: path) > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(SQLiteDatabase.connections(to: path) == 0, "a session left its database open")
    }

    @Test("A launch that cannot open the database yet reads the queue's rows when it first can, ahead of a write made since: the older rows are sent first")
    func lateOpenKeepsOrder() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        do {
            let server = FlakyMemos()
            let (api, memos) = try WriteQueueTests.session(server, persistence: Self.persistence(directory, log))
            _ = try #require(try await memos.create(Memo(id: "2", title: "First")).queued)
            _ = try #require(try await memos.create(Memo(id: "3", title: "Second")).queued)
            #expect(api.writeQueue.entries.count == 2)
        }
        try await Self.closed(directory)
        // The next launch's queue cannot read the file (here a read of its rows fails for good: the store and the
        // queue share one database object, so a device not unlocked yet fails both). The store opens first, and
        // does (its partition key keeps the entries' owners theirs) ...
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteFaults.ioError, at: 1, persistent: true, statement: "FROM write_queue"), under: directory)
        let server = FlakyMemos()
        let (api, memos) = try WriteQueueTests.session(server, persistence: Self.persistence(directory, log))
        #expect(api.store?.writer != nil && faults.failures == 1)
        #expect(api.writeQueue.entries.isEmpty)
        // ... then can, and a write is made online.
        faults.remove()
        server.go(online: true)
        let response = try await memos.create(Memo(id: "4", title: "Third"))
        #expect(response.queued != nil)  // behind the two found on disk
        await api.writeQueue.replay()
        #expect(server.served == [#"POST /memos "First""#, #"POST /memos "Second""#, #"POST /memos "Third""#])
        #expect(api.writeQueue.entries.isEmpty)
        await api.writeQueue.flush()
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load() == nil)
    }

    @Test("A queue whose database could not be read at launch reads it at the next replay")
    func lateOpenAtReplay() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        _ = try await Self.queueOffline(in: directory, log: log)
        try await Self.closed(directory)
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteFaults.ioError, at: 1, persistent: true, statement: "FROM write_queue"), under: directory)
        let server = FlakyMemos()
        let (api, _) = try WriteQueueTests.session(server, persistence: Self.persistence(directory, log))
        #expect(api.store?.writer != nil && faults.failures == 1)
        #expect(api.writeQueue.entries.isEmpty)
        faults.remove()
        server.go(online: true)
        await api.writeQueue.replay()
        #expect(server.served == [#"POST /memos "Written offline""#])
        #expect(api.writeQueue.entries.isEmpty)
    }

    @Test("A queued write survives a restart: shown again, then sent once")
    func restart() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        let entry = try await Self.queueOffline(in: directory, log: log)
        // The database (and its WAL) holds no credential.
        let database = PartitionDatabase.file(in: directory)
        let bytes = try Data(contentsOf: database) + ((try? Data(contentsOf: URL(fileURLWithPath: database.path + "-wal"))) ?? Data())
        #expect(!String(decoding: bytes, as: UTF8.self).contains("secret-token"))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""type":"memos""#))  // the entry is there, in plain JSON

        let server = FlakyMemos()
        server.go(online: true)
        let (api, _) = try WriteQueueTests.session(server, persistence: Self.persistence(directory, log))
        let restored = api.writeQueue.entries
        #expect(restored.map(\.id) == [entry.id])
        #expect(restored.first?.sent == true && restored.first?.attempts == 0)
        #expect(restored.first?.headerFields.isEmpty == true)
        #expect(try api.store?.resource(Memo.self, id: "2")?.title == "Written offline")
        await api.writeQueue.replay()
        #expect(server.served == [#"POST /memos "Written offline""#])
        #expect(api.writeQueue.entries.isEmpty)
        await api.writeQueue.flush()
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load() == nil)
        #expect(try api.store?.resource(Memo.self, id: "2")?.title == "Written offline")
        #expect(api.store?.pendingChanges().isEmpty == true)
        #expect(log.messages.isEmpty, "\(log.messages)")
    }

    @Test("50 writes queued offline over minutes, then the network back after a relaunch: each made once, without retry()")
    func offlineThenRelaunch() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        let delays = Delays()
        do {
            let server = FlakyMemos()
            let (api, memos) = try WriteQueueTests.session(server, delays: delays, persistence: Self.persistence(directory, log))
            for n in 0..<50 {
                #expect(try await memos.create(Memo(id: "m\(n)", title: "\(n)")).queued != nil)
                delays.advance(5)  // a write every five seconds: four minutes of the queue's clock in all
                await WriteQueueTests.idle(api.writeQueue)
            }
            #expect(delays.now.timeIntervalSince(Date(timeIntervalSince1970: 1_700_000_000)) == 250)
            #expect(api.writeQueue.entries.map(\.attempts) == Array(repeating: 0, count: 50))
            await api.writeQueue.flush()
            #expect(server.served.isEmpty)
        }
        // The next launch, with the network back: the app says so, as it would from its path monitor.
        let server = FlakyMemos()
        server.go(online: true)
        let (api, _) = try WriteQueueTests.session(server, delays: delays, persistence: Self.persistence(directory, log))
        #expect(api.writeQueue.entries.count == 50)
        #expect(!api.writeQueue.entries.contains { $0.isFailing })
        let (events, following) = WriteQueueTests.events(api.writeQueue)
        defer { following.cancel() }
        api.writeQueue.resume()
        var delivered = 0
        while delivered < 50, let event = await events.next("delivered") {
            guard case .delivered = event.outcome else { Issue.record("\(event)"); continue }
            delivered += 1
        }
        #expect(server.served == (0..<50).map { #"POST /memos "\#($0)""# })
        #expect(api.writeQueue.entries.isEmpty)
        #expect(delays.all.isEmpty)
        await api.writeQueue.flush()
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load() == nil)
        #expect(log.messages.isEmpty, "\(log.messages)")
    }

    @Test("Entries read back as they were written")
    func roundTrip() throws {
        var entry = WriteQueue.Entry(
            method: .patch, url: URL(string: "https://api.example.com/memos/1?x=%20y")!, type: "memos", resourceID: "1",
            body: Data(#"{"data":{"type":"memos","id":"1"}}"#.utf8),
            headerFields: ["X-Trace": "1", "Cookie": "c=1", "Proxy-Authorization": "p"], kind: .update,
            clientGeneratedID: false, attempts: 3, created: Date(timeIntervalSince1970: 1_700_000_000.5),
            optimistic: true)
        entry.sent = true
        entry.owner = CredentialDigest(high: .max, low: 0x0f)
        let other = WriteQueue.Entry(
            method: .delete, url: URL(string: "https://api.example.com/memos/2")!, type: "memos", resourceID: "2",
            body: nil, headerFields: [:], kind: .delete, clientGeneratedID: true)
        #expect(entry.headerFields.map(\.name) == ["X-Trace"])
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try WriteQueueDatabase(directory: directory, log: { _ in }).save([.insert(entry), .insert(other)])
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load() == [entry, other])
    }
}
