import Foundation
import Testing

@testable import JSONAPIClient

/// What another connection saves after a store opened (issue 43, item 16) — another process, or another store on
/// the same directory, which is the same code path — is read when the store first needs it: a stored response it
/// never held, a record it read before as absent, a type it listed before.
@Suite("Store reads what others saved since it opened")
struct StoreDiskChangesTests {

    @Test("A page another store saved after this one opened is answered from disk (cacheOnly), not notCached, and sends nothing")
    func responseSavedByAnother() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (early, earlyClient) = StorePersistenceTests.session(directory)
        // `early` has opened its store (nothing on disk yet); another store on the directory fetches and saves.
        let (other, _) = StorePersistenceTests.session(directory)
        _ = try await other.fetch(URL(string: "labels/3")!).result()
        try await other.store?.flush()
        let answer = try await early.fetch(URL(string: "labels/3")!).cachePolicy(.cacheOnly).result()
        #expect(answer.source == .cache)
        #expect(earlyClient.count == 0)
        #expect(early.store?.record(type: "labels", id: "3")?.attributes?["name"] == "swift")
    }

    @Test("A record read as absent, and a type listed, are read again once another store saved rows since")
    func recordsSavedByAnother() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600), log: { _ in })
        let early = ResourceStore(configuration: .init(persistence: persistence))
        #expect(early.record(type: "labels", id: "1") == nil)  // read: none
        #expect(try early.resources(StorePersistenceTests.Label.self).isEmpty)  // listed: none
        let other = ResourceStore(configuration: .init(persistence: persistence))
        other.merge((1...3).map { ResourceObject(type: "labels", id: "\($0)", attributes: ["name": .string("n\($0)")]) })
        try await other.flush()
        #expect(early.record(type: "labels", id: "1")?.attributes?["name"] == "n1")
        #expect(try early.resources(StorePersistenceTests.Label.self).map(\.id) == ["1", "2", "3"])
        // A record this store removed and has not saved is not read back.
        early.remove(type: "labels", id: "2")
        other.merge([ResourceObject(type: "labels", id: "4", attributes: ["name": "n4"])])
        try await other.flush()
        #expect(early.record(type: "labels", id: "2") == nil)
        #expect(early.record(type: "labels", id: "4")?.attributes?["name"] == "n4")
        try await early.flush()
        #expect(ResourceStore(configuration: .init(persistence: persistence)).record(type: "labels", id: "2") == nil)
    }
}
