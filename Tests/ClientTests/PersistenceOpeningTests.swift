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

    static let protections: [ResourceStore.Persistence.FileProtection] = [
        .appDefault, .complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication, .none,
    ]

    @Test(
        "A database made under one protection class opens and saves under each other: the class is given to the files there before opening",
        arguments: protections)
    func protectionOfExistingFiles(made: ResourceStore.Persistence.FileProtection) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("protect-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = ResourceStore(
            configuration: .init(persistence: .init(directory: directory, fileProtection: made, log: { _ in })))
        first.merge([ResourceObject(type: "memos", id: "0", attributes: ["title": .string("made")])])
        try await first.flush()
        for (n, protection) in Self.protections.enumerated() {
            let store = ResourceStore(
                configuration: .init(persistence: .init(directory: directory, fileProtection: protection, log: { _ in })))
            #expect(store.writer != nil, "\(protection)")
            #expect(store.record(type: "memos", id: "\(n)")?.attributes?["title"] == .string(n == 0 ? "made" : "\(n)"))
            store.merge([ResourceObject(type: "memos", id: "\(n + 1)", attributes: ["title": .string("\(n + 1)")])])
            try await store.flush()
        }
    }

    @Test("The open flag of each class is Apple's SQLITE_OPEN_FILEPROTECTION_* on its mobile platforms, and none elsewhere")
    func protectionOpenFlags() {
        let flags = Self.protections.map { Platform.openFlags($0) }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        #expect(flags == [0, 0x0010_0000, 0x0020_0000, 0x0030_0000, 0x0040_0000])
        #else
        #expect(flags == [0, 0, 0, 0, 0])
        #endif
    }
}
