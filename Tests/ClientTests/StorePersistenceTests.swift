import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// A store kept on disk: what survives a restart (a second store on the same directory), what is never written,
/// what a damaged or foreign file does (discarded whole, logged, never a crash), and the file's limits.
@Suite("Resource store kept across launches")
struct StorePersistenceTests {
    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    static let label3 = #"{"data":{"type":"labels","id":"3","attributes":{"name":"swift"},"links":{"self":"https://api.example.com/v1/labels/3"}}}"#

    /// A fresh directory for one test.
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
    }

    /// What a store told its log.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        var messages: [String] { lock.withLock { lines } }
        func write(_ line: String) { lock.withLock { lines.append(line) } }
    }

    /// A session on `directory` whose transport answers `body` (with `cacheControl`) and counts what it sends.
    static func session(
        _ directory: URL, body: String = label3, cacheControl: String = "max-age=3600", log: Log = Log(),
        headers: HTTPFields = [:], limits: (Int, Int) = (10_000, 32 << 20)
    ) -> (Session, CountingClient) {
        let client = CountingClient(ScriptedClient { _ in
            var response = HTTPResponse.document(body)
            response.headerFields.append("Cache-Control", cacheControl)
            response.headerFields.append("ETag", "\"v1\"")
            response.headerFields.append("Set-Cookie", "session=secret-cookie")
            return response
        })
        let persistence = ResourceStore.Persistence(directory: directory, log: { log.write($0) })
        let store = ResourceStore.Configuration(
            maxResources: limits.0, maxResponseBytes: limits.1, persistence: persistence)
        return (Session(baseURL: exampleBase, client: client, configuration: .init(headerFields: headers, store: store)), client)
    }

    @Test("Every kind of change is saved: a relationship's new linkage, a removal and a local id rewritten survive a restart")
    func everyChangeSaved() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        let store = ResourceStore(configuration: .init(persistence: persistence))
        let article = #"{"data":[{"type":"articles","id":"1","relationships":{"tags":{"data":[]},"#
            + #""author":{"data":{"type":"people","lid":"p1"}}}},{"type":"articles","id":"2"}]}"#
        store.merge(try JSONAPIDecoder().decode(RawDocument.self, from: Data(article.utf8)))
        try await store.flush()
        store.changeLinkage(of: "tags", type: "articles", id: "1") { _ in .toMany([ResourceIdentifier(type: "tags", id: "3")]) }
        try await store.flush()
        #expect(ResourceStore(configuration: .init(persistence: persistence))
            .record(type: "articles", id: "1")?.relationships?["tags"]?.data == .toMany([ResourceIdentifier(type: "tags", id: "3")]))
        store.remove(type: "articles", id: "2")
        try await store.flush()
        #expect(ResourceStore(configuration: .init(persistence: persistence)).record(type: "articles", id: "2") == nil)
        store.replaceLocalIDs { type, lid in type == "people" && lid == "p1" ? "9" : nil }
        try await store.flush()
        #expect(ResourceStore(configuration: .init(persistence: persistence))
            .record(type: "articles", id: "1")?.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", id: "9")))
    }

    @Test("A restarted session answers cacheFirst and cacheOnly from disk, records and validators included, sending nothing")
    func restart() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, _) = Self.session(directory)
        let labels = first.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch(id: "3").result()
        try await first.store?.flush()

        let (second, client) = Self.session(directory)
        let again = second.source(Label.self, .path("labels/<id>"))
        let cached = try await again.fetch(id: "3").cachePolicy(.cacheFirst).result()
        #expect(cached.source == .cache)
        #expect(cached.data == Label(id: "3", name: "swift"))
        #expect(try await again.fetch(id: "3").cachePolicy(.cacheOnly).result().data?.name == "swift")
        #expect(client.count == 0)
        #expect(try second.store?.resource(Label.self, id: "3") == Label(id: "3", name: "swift"))
        // The validator came back too: a networkOnly fetch is conditional.
        let stored = try #require(second.store?.storedResponse(for: HTTPRequest(method: .get, url: exampleBase.appendingPathComponent("labels/3"), headerFields: ["Accept": "application/vnd.api+json"])))
        #expect(stored.entityTag == "\"v1\"")
        #expect(stored.response.headerFields["Set-Cookie"] == nil)
    }

    @Test("Another user's restarted session is not answered with the first user's stored response")
    func partitionsSurvive() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (alice, _) = Self.session(directory, headers: [.authorization: "Bearer alice-token"])
        _ = try await alice.fetch(URL(string: "labels/3")!).result()
        try await alice.store?.flush()
        let file = try Self.databaseBytes(directory)
        #expect(file.range(of: Data("labels/3".utf8)) != nil)  // the response is there
        #expect(file.range(of: Data("alice-token".utf8)) == nil)
        #expect(file.range(of: Data("secret-cookie".utf8)) == nil)

        let (bob, bobClient) = Self.session(directory, headers: [.authorization: "Bearer bob-token"])
        await #expect(throws: JSONAPIClientError.self) {
            try await bob.fetch(URL(string: "labels/3")!).cachePolicy(.cacheOnly).result()
        }
        #expect(bobClient.count == 0)
        let (aliceAgain, aliceClient) = Self.session(directory, headers: [.authorization: "Bearer alice-token"])
        #expect(try await aliceAgain.fetch(URL(string: "labels/3")!).cachePolicy(.cacheOnly).result().source == .cache)
        #expect(aliceClient.count == 0)
    }

    @Test("A no-store response is never written")
    func noStoreNotWritten() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, _) = Self.session(directory, cacheControl: "no-store")
        _ = try await api.fetch(URL(string: "labels/3")!).result()
        try await api.store?.flush()
        let (again, _) = Self.session(directory)
        await #expect(throws: JSONAPIClientError.self) {
            try await again.fetch(URL(string: "labels/3")!).cachePolicy(.cacheOnly).result()
        }
        #expect(again.store?.usage.responses == 0)
    }

    /// The bytes of `directory`'s database and its WAL: everything the store wrote.
    static func databaseBytes(_ directory: URL) throws -> Data {
        let path = PartitionDatabase.file(in: directory).path
        return try Data(contentsOf: URL(fileURLWithPath: path))
            + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
    }

    /// The persistence of `directory`, its database holding the labels `ids` (named "n"), saved by a store now gone.
    static func savedLabels(_ ids: some Sequence<Int>, in directory: URL) async throws -> ResourceStore.Persistence {
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        let store = ResourceStore(configuration: .init(persistence: persistence))
        store.merge(ids.map { ResourceObject(type: "labels", id: "\($0)", attributes: ["name": "n"]) })
        try await store.flush()
        return persistence
    }

    /// The number of rows of `table` in `directory`'s database, read by a connection of its own.
    static func rows(_ table: String, in directory: URL) throws -> Int64 {
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        defer { database.close() }
        return try database.rows("SELECT count(*) FROM \(table)").first?.first?.integer ?? -1
    }

    @Test("clear() deletes the rows in the background; flush() returns once they are: a restart finds nothing")
    func clearDeletesRows() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, _) = Self.session(directory)
        _ = try await api.fetch(URL(string: "labels/3")!).result()
        try await api.store?.flush()
        #expect(try Self.rows("records", in: directory) == 1)
        #expect(try Self.rows("responses", in: directory) == 1)
        api.store?.clear()
        try await api.store?.flush()
        #expect(try Self.rows("records", in: directory) == 0)
        #expect(try Self.rows("responses", in: directory) == 0)
        let (again, _) = Self.session(directory)
        #expect(again.store?.usage == ResourceStore.Usage(records: 0, responses: 0, responseBytes: 0))
    }

    @Test("The library's folder is the owner's only; the app's directory keeps its own mode")
    func permissions() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let (api, _) = Self.session(directory)
        _ = try await api.fetch(URL(string: "labels/3")!).result()
        try await api.store?.flush()
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try mode(directory.path) == 0o755)
        #expect(try mode(PartitionDatabase.folder(in: directory).path) == 0o700)
    }

    @Test("A database that cannot be opened (a locked device's protected file; here, a folder in its place) is not damage: the store stays in memory, logged, nothing is set aside, and flush() says nothing was saved")
    func unopenableIsNotDamage() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = PartitionDatabase.file(in: directory).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: path).appendingPathComponent("inside"))
        let log = Log()
        let store = ResourceStore(
            configuration: .init(persistence: .init(directory: directory, fileProtection: .complete, log: { log.write($0) })))
        store.merge([ResourceObject(type: "labels", id: "1", attributes: ["name": "n"])])
        #expect(store.record(type: "labels", id: "1") != nil)  // in memory
        await #expect(throws: JSONAPIClientError.self) { try await store.flush() }  // nothing to write to: not saved
        // Logged at the opening, and at the flush's try to open it again.
        #expect(log.messages.count == 2 && log.messages.allSatisfy { $0.contains("stays in memory") }, "\(log.messages)")
        let folder = try FileManager.default.contentsOfDirectory(atPath: PartitionDatabase.folder(in: directory).path)
        #expect(folder == ["default.sqlite"])  // nothing set aside beside it
        #expect(FileManager.default.contents(atPath: path + "/inside") == Data("kept".utf8))
    }

    @Test("A store that could not open its database (a device not unlocked yet) opens it at its next flush: its observers are told its records went, what it held goes over the rows (merged with them), the optimistic changes shown stay, and the flush saves it", arguments: [nil, "alice"] as [String?])
    func opensLate(account: String?) async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        func make() -> ResourceStore {
            // Made alone (no account), or an account's session store.
            ResourceStore(
                configuration: .init(persistence: persistence), decoder: JSONAPIDecoder(), account: account,
                ofSession: account != nil)
        }
        do {
            let store = make()
            store.merge([ResourceObject(type: "labels", id: "1", attributes: ["name": "on disk", "kept": "row"])])
            try await store.flush()
        }
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteFaults.cannotOpen, at: 1, persistent: true, calls: [.open]), under: directory)
        let store = make()
        #expect(store.writer == nil)
        store.merge([ResourceObject(type: "labels", id: "2", attributes: ["name": "fetched in memory"])])
        store.merge([ResourceObject(type: "labels", id: "1", attributes: ["name": "fetched again"])])
        _ = store.addPending(.create, object: ResourceObject(type: "labels", id: "3", attributes: ["name": "mine"]), id: "3")
        let changes = store.changes(of: Label.self)
        await #expect(throws: JSONAPIClientError.self) { try await store.flush() }  // still cannot
        faults.remove()
        try await store.flush()
        #expect(store.writer != nil)
        let kinds = await bounded {
            var kinds: [StoreChange.Kind] = []
            for await change in changes {
                kinds.append(change.kind)
                if kinds.count == 3 { break }
            }
            return kinds
        }
        #expect(kinds == [.evicted, .evicted, .evicted])
        #expect(try store.resource(Label.self, id: "2")?.name == "fetched in memory")
        #expect(try store.resource(Label.self, id: "3")?.name == "mine")
        let next = make()
        #expect(next.record(type: "labels", id: "2")?.attributes?["name"] == .string("fetched in memory"))
        // Merged with the row beneath: the member only the row had is kept.
        #expect(next.record(type: "labels", id: "1")?.attributes == ["name": "fetched again", "kept": "row"])
    }

    @Test("A session's store that names no account opens its database late without the records it held (whose they are is not known under the database's key), and that flush throws")
    func opensLateDroppingUnknownRecords() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteFaults.cannotOpen, at: 1, persistent: true, calls: [.open]), under: directory)
        let store = ResourceStore(
            configuration: .init(persistence: persistence), decoder: JSONAPIDecoder(), account: nil, ofSession: true)
        #expect(store.writer == nil)
        store.merge([ResourceObject(type: "labels", id: "2", attributes: ["name": "fetched in memory"])])
        faults.remove()
        await #expect { try await store.flush() } throws: { ($0 as? JSONAPIClientError)?.code == .storeNotSaved }
        #expect(store.writer != nil)
        #expect(store.record(type: "labels", id: "2") == nil)
        store.merge([ResourceObject(type: "labels", id: "3", attributes: ["name": "after"])])
        try await store.flush()
        let next = ResourceStore(configuration: .init(persistence: persistence))
        #expect(next.record(type: "labels", id: "3") != nil && next.record(type: "labels", id: "2") == nil)
    }

    @Test(
        "A store whose database cannot be opened runs in memory, and flush() throws storeNotSaved: the .sqlite is a folder, the library's folder is a file, the directory given is a file, the folder is read-only",
        arguments: ["sqlite is a folder", "folder is a file", "directory is a file", "read-only folder"])
    func flushThrowsWhenUnopenable(damage: String) async throws {
        let directory = Self.directory()
        defer {
            chmod(PartitionDatabase.folder(in: directory).path, 0o700)
            try? FileManager.default.removeItem(at: directory)
        }
        let folder = PartitionDatabase.folder(in: directory)
        switch damage {
        case "sqlite is a folder":
            try FileManager.default.createDirectory(at: PartitionDatabase.file(in: directory), withIntermediateDirectories: true)
        case "folder is a file":
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("a file".utf8).write(to: folder)
        case "directory is a file":
            try Data("a file".utf8).write(to: directory)
        default:
            // Root reads and writes whatever the mode says: the case cannot be made there.
            guard geteuid() != 0 else { return }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o500)
        }
        let log = Log()
        let store = ResourceStore(configuration: .init(persistence: .init(directory: directory, log: { log.write($0) })))
        #expect(store.writer == nil)
        store.merge([ResourceObject(type: "labels", id: "1", attributes: ["name": "n"])])
        #expect(store.record(type: "labels", id: "1") != nil)  // in memory
        do {
            try await store.flush()
            Issue.record("flush() returned with nothing saved")
        } catch {
            #expect(error.code == .storeNotSaved && error.detail.contains("in memory only"), "\(error)")
        }
        #expect(log.messages.contains { $0.contains("stays in memory") }, "\(log.messages)")
        // A store in memory by choice has nothing to save: its flush() returns.
        try await ResourceStore().flush()
    }

    @Test("Persistence compares and hashes its file protection; the app's own class is the default")
    func fileProtectionOption() {
        let directory = Self.directory()
        let plain = ResourceStore.Persistence(directory: directory)
        #expect(plain.fileProtection == .appDefault)
        let complete = ResourceStore.Persistence(directory: directory, fileProtection: .complete)
        #expect(plain != complete && Set([plain, complete]).count == 2)
        #expect(complete == ResourceStore.Persistence(directory: directory, fileProtection: .complete))
    }

    @Test("A database that is not one is set aside whole, logged without secrets; the store starts empty and saves again")
    func damagedDatabase() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            // Gone before the next launch: a file is never set aside while a connection of the process has it open.
            let (api, _) = Self.session(directory)
            _ = try await api.fetch(URL(string: "labels/3")!).result()
            try await api.store?.flush()
        }
        let path = PartitionDatabase.file(in: directory).path
        try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let log = Log()
        let (again, client) = Self.session(directory, log: log)
        #expect(again.store?.writer != nil)
        #expect(again.store?.usage == ResourceStore.Usage(records: 0, responses: 0, responseBytes: 0))
        #expect(log.messages.count == 1)
        let message = try #require(log.messages.first)
        #expect(message.contains("set aside"), "\(message)")
        for secret in ["labels/3", "swift", "secret-cookie"] { #expect(!message.contains(secret), "\(message)") }
        _ = try await again.fetch(URL(string: "labels/3")!).result()
        try await again.store?.flush()
        #expect(client.count == 1)
        #expect(try Self.rows("responses", in: directory) == 1)
    }

    @Test("A row that does not read is deleted and logged; the rows beside it load")
    func damagedRows() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ResourceStore.Configuration(persistence: .init(directory: directory, delay: .seconds(3600)))
        let store = ResourceStore(configuration: configuration)
        store.merge((1...3).map { ResourceObject(type: "labels", id: "\($0)", attributes: ["name": "n"]) })
        let (api, _) = Self.session(directory)
        _ = try await api.fetch(URL(string: "labels/3")!).result()
        try await api.store?.flush()
        try await store.flush()
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        try database.execute("UPDATE records SET object = ? WHERE id = '2'", [.blob(Data("{\"type\":".utf8))])
        try database.execute("UPDATE responses SET response = ?", [.blob(Data([1, 2, 3]))])
        database.close()
        let log = Log()
        let reopened = ResourceStore(
            configuration: .init(persistence: .init(directory: directory, log: { log.write($0) })))
        #expect(reopened.count == 0)  // no record is read before it is asked for
        #expect(reopened.usage.responses == 0)
        #expect(log.messages.count == 1, "\(log.messages)")  // the response, when it opened
        // The three read at once: the damaged one alone is left out.
        reopened.faultIn((1...3).map { ResourceStore.Key(type: "labels", id: "\($0)") })
        #expect(reopened.count == 2)
        #expect(reopened.record(type: "labels", id: "1") != nil && reopened.record(type: "labels", id: "3") != nil)
        #expect(reopened.record(type: "labels", id: "2") == nil)
        #expect(log.messages.count == 2, "\(log.messages)")
        #expect(log.messages.last?.contains("1 records did not read") == true, "\(log.messages)")
        try await reopened.flush()  // after the deletion handed to the writer's queue
        #expect(try Self.rows("records", in: directory) == 2)
        #expect(try Self.rows("responses", in: directory) == 0)
    }

    #if DEBUG
    @Test("Sound rows are read straight into one document — by a point query, 64 ids a query (padded), and a type whole — and row by row only when one does not read")
    func rowsReadAsOneDocument() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ResourceStore.Configuration(persistence: .init(directory: directory, delay: .seconds(3600)))
        do {
            let store = ResourceStore(configuration: configuration)
            store.merge((1...200).map { ResourceObject(type: "labels", id: "\($0)", attributes: ["name": .string("n\($0)")]) })
            try await store.flush()
        }
        let reopened = ResourceStore(configuration: configuration)
        let writer = try #require(reopened.writer)
        reopened.faultIn([ResourceStore.Key(type: "labels", id: "7")])
        #expect(reopened.count == 1)
        reopened.faultIn((1...150).map { ResourceStore.Key(type: "labels", id: "\($0)") } + [ResourceStore.Key(type: "labels", id: "none")])
        #expect(reopened.count == 150)
        #expect(reopened.record(type: "labels", id: "150")?.attributes?["name"] == .string("n150"))
        reopened.faultIn(type: "labels")
        #expect(reopened.count == 200)
        #expect(writer.rowByRowReads == 0)
        // One row that does not read: that read, and only it, goes row by row.
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        try database.execute("UPDATE records SET object = ? WHERE id = '2'", [.blob(Data("{\"type\":".utf8))])
        database.close()
        let damaged = ResourceStore(configuration: configuration)
        let damagedWriter = try #require(damaged.writer)
        damaged.faultIn((1...3).map { ResourceStore.Key(type: "labels", id: "\($0)") })
        #expect(damaged.count == 2)
        #expect(damagedWriter.rowByRowReads == 1)
    }
    #endif

    @Test("A file written with larger limits is loaded within the new ones")
    func limitsOnLoad() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, _) = Self.session(directory)
        for page in 1...3 { _ = try await api.fetch(URL(string: "labels/3?page=\(page)")!).result() }
        try await api.store?.flush()
        let size = Self.label3.utf8.count
        let (smaller, _) = Self.session(directory, limits: (10_000, size * 2))
        #expect(smaller.store?.usage.responses == 2)
        #expect(smaller.store?.usage.responseBytes == size * 2)
        // The least recently used went: page 1.
        await #expect(throws: JSONAPIClientError.self) {
            try await smaller.fetch(URL(string: "labels/3?page=1")!).cachePolicy(.cacheOnly).result()
        }
    }

    @Test("A stored response's body is read when the response is first used, not when the store opens; one whose body went is dropped")
    func bodiesReadWhenUsed() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, _) = Self.session(directory)
        for url in ["labels/3", "labels/3?page=2"] { _ = try await api.fetch(URL(string: url)!).result() }
        try await api.store?.flush()
        let (again, client) = Self.session(directory)
        let store = try #require(again.store)
        let unread = { store.readParts { $0.responses.entries.values.filter { $0.unreadBody != nil }.count } }
        #expect(unread() == 2)
        #expect(store.readParts { $0.responses.entries.values.allSatisfy { $0.response.body.isEmpty } })
        #expect(store.usage.responseBytes == Self.label3.utf8.count * 2)  // counted, though not read
        let answered = try await again.fetch(URL(string: "labels/3")!).cachePolicy(.cacheOnly).result()
        #expect(answered.source == .cache && client.count == 0)
        #expect(answered.document == (try JSONAPIDecoder().decode(RawDocument.self, from: Data(Self.label3.utf8))))
        #expect(unread() == 1)
        try await store.flush()  // the body read is not a change: the row keeps its body
        #expect(try Self.rows("response_bodies", in: directory) == 2)
        // Another process replaced the response of page 2 meanwhile: its body went, and so does the response.
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        try database.execute(
            "DELETE FROM response_bodies WHERE id = (SELECT body_id FROM responses WHERE url LIKE '%page=2')")
        database.close()
        await #expect(throws: JSONAPIClientError.self) {
            try await again.fetch(URL(string: "labels/3?page=2")!).cachePolicy(.cacheOnly).result()
        }
        #expect(store.usage.responses == 1 && store.usage.responseBytes == Self.label3.utf8.count)
    }

    @Test("Opening: a response kept whole whose body row is gone is deleted, logged; an outline's size is its row's, and it opens without its body")
    func openingWithoutBodies() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A body with no resource to cut out is kept whole; a label's body as its outline.
        let (whole, _) = Self.session(directory, body: #"{"meta":{"count":3}}"#)
        _ = try await whole.fetch(URL(string: "counts")!).result()
        try await whole.store?.flush()
        let (outlined, _) = Self.session(directory)
        _ = try await outlined.fetch(URL(string: "labels/3")!).result()
        try await outlined.store?.flush()
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        #expect(try database.rows("SELECT count(*) FROM responses WHERE whole_size IS NULL").first?.first?.integer == 1)
        try database.execute("DELETE FROM response_bodies")
        database.close()
        let log = Log()
        let (again, _) = Self.session(directory, log: log)
        let store = try #require(again.store)
        // The whole one is gone; the outline opens with its size (its body is read, and found missing, when used).
        #expect(store.usage.responses == 1 && store.usage.responseBytes == Self.label3.utf8.count)
        #expect(log.messages.contains { $0.contains("1 stored responses did not read") }, "\(log.messages)")
        #expect(try Self.rows("responses", in: directory) == 1)
    }

    @Test("A stored response changed before its body was read (made stale by a write) keeps its body's row, and the change reaches the disk")
    func unreadBodyKeptOnChange() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, _) = Self.session(directory)
        _ = try await api.fetch(URL(string: "labels/3")!).result()
        try await api.store?.flush()
        let (again, _) = Self.session(directory)
        let store = try #require(again.store)
        store.invalidateResponses(after: .patch, to: exampleBase.appendingPathComponent("labels/3"))
        try await store.flush()
        #expect(try Self.rows("response_bodies", in: directory) == 1)
        let (third, client) = Self.session(directory)
        let stored = try #require(third.store?.readParts { $0.responses.entries.values.first })
        #expect(stored.freshness.requiresValidation && stored.unreadBody?.count == Self.label3.utf8.count)
        // Stale: the next cacheFirst fetch revalidates (the scripted server answers a 200), answering as before.
        let answered = try await third.fetch(URL(string: "labels/3")!).cachePolicy(.cacheFirst).result()
        #expect(client.count == 1 && answered.source == .network)
    }

    @Test("Records a fault reads past the limit evict the least recently used: observers are told, and their rows go with the next save")
    func faultsEvict() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = try await Self.savedLabels(0..<12, in: directory)
        let small = ResourceStore(configuration: .init(maxResources: 10, persistence: persistence))
        let changes = small.changes(of: InFlightCancellationTests.Label.self)
        small.faultIn((0..<12).map { ResourceStore.Key(type: "labels", id: "\($0)") })
        #expect(small.count == 9)  // down to nine tenths of the limit
        // Told before faultIn returned (the stream holds them): bounded all the same, should they never come.
        let evicted = await bounded {
            var evicted: [StoreChange] = []
            for await change in changes {
                evicted.append(change)
                if evicted.count == 3 { break }
            }
            return evicted
        }
        #expect(evicted?.count == 3 && evicted?.allSatisfy { $0.kind == .evicted } == true)
        try await small.flush()
        #expect(try Self.rows("records", in: directory) == 9)
    }

    @Test("A store opens reading no record; a save keeps the database within its limit, the least recently written going first")
    func openReadsNothingAndSavesTrim() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = try await Self.savedLabels(1...30, in: directory)
        #expect(try Self.rows("records", in: directory) == 30)
        // A store of 20 opens: it reads nothing, so it holds, evicts and deletes nothing.
        let smaller = ResourceStore(configuration: .init(maxResources: 20, persistence: persistence))
        let (held, unsaved) = smaller.readParts { parts in (parts.records.count, parts.records.unsaved.keys ?? []) }
        #expect(held == 0 && unsaved.isEmpty)
        try await smaller.flush()  // nothing changed: nothing written, nothing trimmed
        #expect(try Self.rows("records", in: directory) == 30)
        // A save of one row (less than a tenth of 20) does not count the rows; one of two (a tenth) trims the
        // database to 20: the new ones, and 18 of those written before them.
        smaller.merge([ResourceObject(type: "labels", id: "new", attributes: ["name": "n"])])
        try await smaller.flush()
        #expect(try Self.rows("records", in: directory) == 31)
        smaller.merge([ResourceObject(type: "labels", id: "new2", attributes: ["name": "n"])])
        try await smaller.flush()
        #expect(try Self.rows("records", in: directory) == 20)
        let reopened = ResourceStore(configuration: .init(persistence: persistence))
        #expect(reopened.record(type: "labels", id: "new") != nil && reopened.record(type: "labels", id: "new2") != nil)
    }

    @Test("Rows are read 64 ids a query: one, exactly 64, 65, 129 and 300 keys of two types (300: each type whole), with keys found nowhere among them", arguments: [1, 64, 65, 129, 300])
    func readsInChunks(count: Int) async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        let store = ResourceStore(configuration: .init(persistence: persistence))
        store.merge((0..<count).flatMap { index in
            ["labels", "tags"].map { ResourceObject(type: $0, id: "\(index)", attributes: ["n": .string("\(index)"), "name": .string("n\(index)")]) }
        })
        try await store.flush()
        let reopened = ResourceStore(configuration: .init(persistence: persistence))
        let keys = (0..<count).flatMap { index in
            ["labels", "tags"].map { ResourceStore.Key(type: $0, id: "\(index)") }
        }
        reopened.faultIn(keys + [ResourceStore.Key(type: "labels", id: "none"), ResourceStore.Key(type: "other", id: "0")])
        #expect(reopened.count == count * 2)
        // Listing a type reads all its rows in one pass: the records already read stay as they are.
        let listed = ResourceStore(configuration: .init(persistence: persistence))
        _ = listed.record(type: "labels", id: "0")
        let labels = try listed.resources(InFlightCancellationTests.Label.self)
        #expect(labels.count == count && labels.first?.id == "0" && listed.count == count)
        #expect(reopened.record(type: "tags", id: "\(count - 1)")?.attributes?["n"] == .string("\(count - 1)"))
        #expect(reopened.record(type: "labels", id: "\(count)") == nil)
    }

    @Test("Saves too small to count the rows count them every 64th save")
    func trimEverySixtyFourSaves() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = try await Self.savedLabels(0..<1_100, in: directory)
        let store = ResourceStore(configuration: .init(maxResources: 1_000, persistence: persistence))
        var counts: [Int64] = []
        for save in 1...StoreWriter.trimEvery {
            store.merge([ResourceObject(type: "tags", id: "1", attributes: ["n": .string("\(save)")])])
            try await store.flush()
            counts.append(try Self.rows("records", in: directory))
        }
        // One row a save, 64 in all, under a tenth of 1,000: counted at the 64th save only.
        #expect(counts == Array(repeating: 1_101, count: StoreWriter.trimEvery - 1) + [1_000])
    }

    @Test("Rows read while the store merged a newer record of one of them: the store's record stays, and a read through the rows' linkage meets it, not the row")
    func readRaceKeepsNewer() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ResourceStore.Configuration(persistence: .init(directory: directory, delay: .seconds(3600)))
        let store = ResourceStore(configuration: configuration)
        let (article, person) = (ResourceIdentifier(type: "articles", id: "1"), ResourceIdentifier(type: "people", id: "9"))
        store.merge([
            ResourceObject(
                type: "articles", id: "1", attributes: ["title": "old"],
                relationships: ["author": Relationship(data: .toOne(person))]),
            ResourceObject(
                type: "people", id: "9", attributes: ["name": "Nine"],
                relationships: ["articles": Relationship(data: .toMany([article]))]),
        ])
        try await store.flush()
        let reopened = ResourceStore(configuration: configuration)
        let keys = [ResourceStore.Key(type: "articles", id: "1"), ResourceStore.Key(type: "people", id: "9")]
        // Read as a fault reads them; another thread merges a newer article 1 before they are placed.
        let rows = try #require(try reopened.writer?.records(keys))
        reopened.merge([ResourceObject(type: "articles", id: "1", attributes: ["title": "new"])])
        reopened.place(rows, asked: keys)
        let graph = try #require(reopened.graph(from: [keys[1]]))
        #expect(graph.included.map { $0.resourceObject().attributes?["title"] } == [.string("new")])
        #expect(reopened.record(type: "articles", id: "1")?.attributes?["title"] == "new")
    }

    @Test("Rows read before a clear or an account switch are not placed after it, and are read again when asked")
    func readBeforeSwitchNotPlaced() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = try await Self.savedLabels(0..<3, in: directory)
        let store = ResourceStore(configuration: .init(persistence: persistence))
        let keys = (0..<3).map { ResourceStore.Key(type: "labels", id: "\($0)") }
        let rows = try #require(try store.writer?.records(keys))
        #expect(!store.place(rows, asked: keys, epoch: store.clears &+ 1))  // read under another epoch: not placed
        #expect(store.parts.records.count == 0)
        #expect(store.place(rows, asked: keys, epoch: store.clears))
        #expect(store.parts.records.count == 3)
        #expect(store.graph(from: keys)?.primary.count == 3)
    }

    @Test("A fault asking for 256 rows or more of a type reads the whole type when they are a quarter of it or more, else by id", arguments: [(255, 255), (256, 1024), (256, 1025)])
    func wholeTypeReads(asked: Int, stored: Int) async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = try await Self.savedLabels(0..<stored, in: directory)
        let reopened = ResourceStore(configuration: .init(persistence: persistence))
        reopened.faultIn((0..<asked).map { ResourceStore.Key(type: "labels", id: "\($0)") })
        #expect(reopened.count == (asked >= 256 && asked * 4 >= stored ? stored : asked))
    }

    @Test("A save trims nothing at exactly the limit, and one row past it")
    func trimAtTheLimit() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        let first = ResourceStore(configuration: .init(maxResources: 3, persistence: persistence))
        for id in ["1", "2"] {  // a save each: 1 is written first
            first.merge([ResourceObject(type: "labels", id: id, attributes: ["name": "n"])])
            try await first.flush()
        }
        let second = ResourceStore(configuration: .init(maxResources: 3, persistence: persistence))
        second.merge([ResourceObject(type: "labels", id: "3", attributes: ["name": "n"])])
        try await second.flush()
        #expect(try Self.rows("records", in: directory) == 3)  // exactly the limit
        let third = ResourceStore(configuration: .init(maxResources: 3, persistence: persistence))
        third.merge([ResourceObject(type: "labels", id: "4", attributes: ["name": "n"])])
        try await third.flush()
        #expect(try Self.rows("records", in: directory) == 3)  // one past: the oldest went
        let reopened = ResourceStore(configuration: .init(persistence: persistence))
        #expect(reopened.record(type: "labels", id: "1") == nil)
        #expect(reopened.record(type: "labels", id: "2") != nil)
        #expect(reopened.record(type: "labels", id: "4") != nil)
    }

    @Test("Rows are read as asked: a read with its related records, a sparse merge member by member, a removal, clear()")
    func readsWhatIsAsked() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        let store = ResourceStore(configuration: .init(persistence: persistence))
        let author = ResourceIdentifier(type: "people", id: "9")
        store.merge(
            (1...5).map {
                ResourceObject(
                    type: "articles", id: "\($0)", attributes: ["title": .string("t\($0)"), "body": .string("b\($0)")],
                    relationships: ["author": Relationship(data: .toOne(author))])
            } + [ResourceObject(type: "people", id: "9", attributes: ["name": "Nine"])])
        try await store.flush()

        let reopened = ResourceStore(configuration: .init(persistence: persistence))
        // A read reads its record, then the records its linkage reaches: two of six.
        let graph = try #require(reopened.graph(from: [ResourceStore.Key(type: "articles", id: "1")]))
        #expect(graph.primary.count == 1 && graph.included.map { $0.resourceObject().id } == ["9"])
        #expect(reopened.count == 2)
        // A sparse fieldset merged into a record not read yet keeps the members the row has.
        reopened.merge([ResourceObject(type: "articles", id: "2", attributes: ["title": "new"])])
        #expect(reopened.record(type: "articles", id: "2")?.attributes == ["title": "new", "body": "b2"])
        // A record removed before it was read is not read back, and its row goes.
        reopened.remove(type: "articles", id: "3")
        #expect(reopened.record(type: "articles", id: "3") == nil)
        try await reopened.flush()
        #expect(try Self.rows("records", in: directory) == 5)
        #expect(ResourceStore(configuration: .init(persistence: persistence)).record(type: "articles", id: "2")?
            .attributes == ["title": "new", "body": "b2"])
        // Another store on the directory (another process's, as far as the database knows) saves a record: this
        // one reads it when asked.
        let other = ResourceStore(configuration: .init(persistence: persistence))
        other.merge([ResourceObject(type: "articles", id: "6", attributes: ["title": "six"])])
        try await other.flush()
        #expect(reopened.record(type: "articles", id: "6")?.attributes?["title"] == "six")
        // Cleared: no row is read again, even before the deletion is committed; flush() waits for it.
        reopened.clear()
        #expect(reopened.record(type: "articles", id: "4") == nil)
        try await reopened.flush()
        #expect(try Self.rows("records", in: directory) == 0)
    }

    @Test("A store dropped before its delayed save is not kept alive by it, and its changes are written all the same")
    func droppedStoreSaves() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory, delay: .seconds(3600))
        weak var dropped: ResourceStore?
        do {
            let store = ResourceStore(configuration: .init(persistence: persistence))
            store.merge([ResourceObject(type: "labels", id: "7", attributes: ["name": "seven"])])
            dropped = store
        }
        #expect(dropped == nil)  // the save scheduled an hour ahead holds it weakly
        // Not a timed test: wait for the handed-over write, however long it takes, and check what it wrote.
        while try Self.rows("records", in: directory) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let reopened = ResourceStore(configuration: .init(persistence: persistence))
        #expect(reopened.record(type: "labels", id: "7")?.attributes?["name"] == "seven")
    }

    @Test("Changes are written in the background after the delay, without flush()")
    func backgroundWrite() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(configuration: .init(persistence: .init(directory: directory, delay: .zero)))
        store.merge([ResourceObject(type: "labels", id: "9", attributes: ["name": "nine"])])
        // Not a timed test: wait for the write, however long it takes, and check what it wrote.
        while try Self.rows("records", in: directory) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let reopened = ResourceStore(configuration: .init(persistence: .init(directory: directory)))
        #expect(reopened.record(type: "labels", id: "9")?.attributes?["name"] == "nine")
    }

    @Test("Each save writes the records as they are now: changed, unchanged (kept from the last save), removed, relinked")
    func savesFollowChanges() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ResourceStore.Configuration(persistence: .init(directory: directory, delay: .seconds(3600)))
        let store = ResourceStore(configuration: configuration)
        store.merge((1...3).map { ResourceObject(type: "labels", id: "\($0)", attributes: ["name": .string("v1")]) })
        try await store.flush()
        store.merge([ResourceObject(type: "labels", id: "2", attributes: ["name": .string("v2")])])
        store.merge([ResourceObject(type: "labels", id: "3", attributes: ["name": .string("v1")])])  // the same again
        store.remove(type: "labels", id: "1")
        store.changeLinkage(of: "parent", type: "labels", id: "3") { _ in .toOne(ResourceIdentifier(type: "labels", id: "2")) }
        try await store.flush()
        let reopened = ResourceStore(configuration: configuration)
        #expect(reopened.record(type: "labels", id: "1") == nil)
        #expect(reopened.record(type: "labels", id: "2")?.attributes?["name"] == .string("v2"))
        #expect(reopened.record(type: "labels", id: "3")?.attributes?["name"] == .string("v1"))
        #expect(reopened.record(type: "labels", id: "3")?.relationships?["parent"]?.data == .toOne(ResourceIdentifier(type: "labels", id: "2")))
        #expect(reopened.count == 2)
    }

    @Test("Records of every shape survive a restart: bare (type and id alone), shared with a response, of their own")
    func recordShapesSurvive() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ResourceStore.Configuration(persistence: .init(directory: directory, delay: .seconds(3600)))
        let store = ResourceStore(configuration: configuration)
        // Version 1 wrote records as primary data, where these read as identifiers: the file lost them.
        store.merge([ResourceObject(type: "labels", id: "1"), ResourceObject(type: "labels", id: "2")])
        let body = #"{"data":[{"type":"labels","id":"3","attributes":{"name":"three"}} , {"type":"labels","id":"4","meta":{}}]}"#
        store.merge(try JSONAPIDecoder().records(from: Data(body.utf8)))
        try await store.flush()
        let reopened = ResourceStore(configuration: configuration)
        // Rows read at once are one shared tape, its records held.
        reopened.faultIn((1...4).map { ResourceStore.Key(type: "labels", id: "\($0)") })
        #expect(reopened.count == 4)
        let shared = reopened.readParts { $0.records.shared.values.map(\.live) }
        #expect(shared == [4])
        #expect(reopened.record(type: "labels", id: "1") == ResourceObject(type: "labels", id: "1"))
        #expect(reopened.record(type: "labels", id: "3")?.attributes?["name"] == .string("three"))
        #expect(reopened.record(type: "labels", id: "4")?.meta == [:])
    }

    @Test("A list's resource type survives a restart: a create after it makes the restored list stale")
    func collectionsSurvive() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func launch() -> (Session, CountingClient) {
            let client = CountingClient(ScriptedClient { request in
                var response = HTTPResponse.document(
                    request.method == .post ? Self.label3 : #"{"data":[{"type":"labels","id":"3","attributes":{"name":"swift"}}]}"#,
                    status: request.method == .post ? 201 : 200)
                response.headerFields.append("Cache-Control", "max-age=3600")
                return response
            })
            let configuration = Session.Configuration(store: .init(persistence: .init(directory: directory)))
            return (Session(baseURL: exampleBase, client: client, configuration: configuration), client)
        }
        let (first, _) = launch()
        _ = try await first.source(Label.self, .path("labels/<id>")).fetch().result()
        try await first.store?.flush()

        let (second, client) = launch()
        let labels = second.source(Label.self, .path("labels/<id>"))
        #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .cache)
        #expect(client.count == 0)
        _ = try await labels.create(Label(id: "", name: "new"))
        #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .network)
        #expect(client.count == 2)
    }

    @Test("A store without persistence writes nothing, and flush() returns at once")
    func memoryOnly() async throws {
        let store = ResourceStore()
        store.merge([ResourceObject(type: "labels", id: "9")])
        try await store.flush()
        #expect(store.writer == nil)
        #expect(store.digestKey == .process)
    }

    @Test("A directory that cannot be made leaves the store in memory, logged")
    func unwritableDirectory() async throws {
        let parent = Self.directory()
        defer { try? FileManager.default.removeItem(at: parent) }
        try Data("a file".utf8).write(to: parent)  // a file where the directory's parent should be
        let log = Log()
        let store = ResourceStore(
            configuration: .init(persistence: .init(directory: parent.appendingPathComponent("store"), log: { log.write($0) })))
        #expect(store.writer == nil)
        #expect(log.messages.count == 1)
        store.merge([ResourceObject(type: "labels", id: "9")])
        #expect(store.count == 1)
    }

    @Test("SipHash-2-4 matches the reference test vectors (key 00…0f, messages 00, 00 01, …)")
    func sipHashVectors() {
        let vectors: [Int: UInt64] = [
            0: 0x726f_db47_dd0e_0e31, 1: 0x74f8_39c5_93dc_67fd, 7: 0xab02_00f5_8b01_d137, 8: 0x93f5_f579_9a93_2462,
            15: 0xa129_ca61_49be_45e5, 16: 0x3f2a_cc7f_57c2_9bdb, 63: 0x958a_324c_eb06_4572,
        ]
        for (length, expected) in vectors {
            let message = (0..<length).map { UInt8($0) }
            #expect(SipHash.hash(message, k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908) == expected, "\(length)")
        }
    }

    @Test("A digest key reads back from its 32 bytes; other lengths are refused")
    func keyBytes() {
        let key = DigestKey.random()
        #expect(DigestKey(bytes: key.bytes) == key)
        #expect(DigestKey(bytes: Array(key.bytes.dropLast())) == nil)
        #expect(DigestKey(bytes: key.bytes + [0]) == nil)
        #expect(DigestKey(bytes: []) == nil)
        let fields: HTTPFields = [.authorization: "Bearer a"]
        #expect(CredentialDigest(credentialsOf: fields, key: key) == CredentialDigest(credentialsOf: fields, key: key))
        #expect(CredentialDigest(credentialsOf: fields, key: key) != CredentialDigest(credentialsOf: fields, key: .random()))
    }
}
