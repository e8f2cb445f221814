import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

/// Opening a persisted session's database while another connection (another process: an extension) holds its
/// write lock: opening a database that has its schema and key writes nothing, so it waits for no lock.
@Suite("Opening persistence beside a writer")
struct PersistenceOpeningTests {
    @Test("A session made while another connection holds the file's write lock opens its store and queue without waiting for the lock")
    func openUnderWriteLock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("opening-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600), log: { _ in })
        do {
            // A first launch makes the file, its key, a record and a queued write.
            let server = FlakyMemos()
            let (api, memos) = try WriteQueueTests.session(server, persistence: persistence)
            _ = try #require(try await memos.create(Memo(id: "2", title: "Queued")).queued)
            try await api.store?.flush()
        }
        let holder = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        try holder.execute("BEGIN IMMEDIATE")
        let server = FlakyMemos()
        let (api, _) = try WriteQueueTests.session(server, persistence: persistence)
        // Back from init with the lock still held: the store opened (it did not give up after the busy timeout).
        #expect(api.store?.writer != nil)
        #expect(api.writeQueue.entries.map(\.resourceID) == ["2"])
        #expect(try api.store?.resource(Memo.self, id: "2")?.title == "Queued")
        try holder.execute("ROLLBACK")
        try await api.store?.flush()
    }
}
