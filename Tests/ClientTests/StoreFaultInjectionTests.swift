import Foundation
import Testing

@testable import JSONAPIClient

/// Failure as a state, tested the way SQLite tests itself: each scenario runs again and again with the n-th SQLite
/// call failing (``SQLiteFaults``: `SQLITE_IOERR`, `SQLITE_BUSY`, `SQLITE_FULL`, `SQLITE_CANTOPEN`, once or from
/// then on), for n = 1, 2, 3 … until a run completes without meeting the fault, and every run is checked: no trap;
/// a typed error or a retry; nothing reported saved that is not on disk (read again by a new store, without
/// faults); no row overwritten by a partial record; and, once the faults stop, a retry saves and reads everything.
@Suite("Store fault injection")
struct StoreFaultInjectionTests {
    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var body: String
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString)")
    }

    /// A store opened on `directory` with faults injected, paused (its connections find them as they open): the
    /// test arms them with ``SQLiteFaults/fail(after:)``.
    static func opened(
        _ directory: URL, code: Int32 = SQLiteFaults.ioError, persistent: Bool = true,
        calls: Set<SQLiteFaults.Call> = Set(SQLiteFaults.Call.allCases)
    ) -> (ResourceStore, SQLiteFaults) {
        let faults = SQLiteFaults.inject(.init(code: code, at: .max, persistent: persistent, calls: calls), under: directory)
        faults.pause()
        return (ResourceStore(configuration: .init(persistence: persistence(directory))), faults)
    }

    static func persistence(_ directory: URL) -> ResourceStore.Persistence {
        ResourceStore.Persistence(directory: directory, delay: .seconds(3600), log: { _ in })
    }

    static func article(_ id: Int, title: String? = nil, author: Int? = nil) -> ResourceObject {
        ResourceObject(
            type: "articles", id: "\(id)",
            attributes: ["title": .string(title ?? "t\(id)"), "body": .string("b\(id)")],
            relationships: author.map { ["author": Relationship(data: .toOne(ResourceIdentifier(type: "people", id: "\($0)")))] })
    }

    /// Saves `objects` in `directory` without faults.
    static func seed(_ directory: URL, _ objects: [ResourceObject]) async throws {
        let store = ResourceStore(configuration: .init(persistence: persistence(directory)))
        store.merge(objects)
        try await store.flush()
    }

    /// The attributes of every article row in `directory`, read by a new store without faults.
    static func articlesOnDisk(_ directory: URL) throws -> [String: [String: JSONValue]] {
        let database = try PartitionDatabase.open(in: directory, log: { _ in })
        var found: [String: [String: JSONValue]] = [:]
        for row in try database.rows("SELECT id, object FROM records WHERE type = 'articles'") {
            guard let id = row.first?.text, let object = row.last?.blob else { continue }
            let document = try JSONAPIDecoder().decode(RawDocument.self, from: StoreWriter.document(of: [object]))
            found[id] = document.included?.first?.attributes ?? [:]
        }
        return found
    }

    /// What a fault plan did over every n: runs, and runs that met the fault.
    struct Counts: CustomStringConvertible {
        var runs = 0
        var hit = 0
        var description: String { "\(runs) runs, \(hit) met the fault" }
    }

    /// The plans each scenario runs under. A persistent `SQLITE_BUSY` is left out: opening waits its busy timeout
    /// (5 s) for it, at each n.
    static let plans: [(name: String, code: Int32, persistent: Bool)] = [
        ("IOERR once", SQLiteFaults.ioError, false), ("IOERR from n on", SQLiteFaults.ioError, true),
        ("BUSY once", SQLiteFaults.busy, false), ("FULL from n on", SQLiteFaults.full, true),
        ("CANTOPEN once", SQLiteFaults.cannotOpen, false),
    ]

    /// Runs `scenario` under each plan for n = 1, 2, … until a run meets no fault; `prepare` seeds each run's
    /// directory without faults, `check` reads it after the faults are gone.
    static func everyFault<Kept>(
        _ name: String, plans: [(name: String, code: Int32, persistent: Bool)] = plans,
        prepare: (URL) async throws -> Void = { _ in },
        act: (URL) async throws -> Kept, check: (URL, Kept) async throws -> Void
    ) async throws -> [String: Counts] {
        var counts: [String: Counts] = [:]
        for plan in plans {
            var count = Counts()
            for n in 1...5_000 {
                let directory = Self.directory()
                defer { try? FileManager.default.removeItem(at: directory) }
                try await prepare(directory)
                // A run is a launch of its own: the connections of what `prepare` made (kept a moment by work they
                // still had queued) are closed first, so that every connection of the run opens under its faults.
                try await WriteQueuePersistenceTests.closed(directory)
                let faults = SQLiteFaults.inject(
                    .init(code: plan.code, at: n, persistent: plan.persistent), under: directory)
                let kept: Kept
                do {
                    kept = try await act(directory)
                } catch {
                    faults.remove()
                    throw error
                }
                faults.remove()
                count.runs += 1
                if faults.failures > 0 { count.hit += 1 }
                try await check(directory, kept)
                if faults.failures == 0 { break }
            }
            counts[plan.name] = count
        }
        print("fault injection, \(name): " + counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        return counts
    }

    /// A flush under faults: whether it reported the save; any error it throws is typed (`storeNotSaved`).
    static func flushed(_ store: ResourceStore) async -> Bool {
        do {
            try await store.flush()
            return true
        } catch {
            #expect(error.code == .storeNotSaved, "\(error)")
            return false
        }
    }

    // MARK: The seam

    @Test("The seam fails the n-th open, prepare, step or exec under its directory with the code asked, once or from then on; other directories and real failures are untouched")
    func seam() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("x.sqlite").path
        func code(_ body: () throws -> Void) -> Int32? {
            do { try body(); return nil } catch { return (error as? SQLiteError)?.code ?? -1 }
        }
        let opening = SQLiteFaults.inject(.init(code: SQLiteFaults.cannotOpen, at: 1, persistent: false, calls: [.open]), under: directory)
        do {
            _ = try SQLiteDatabase(path: path)
            Issue.record("opened through a fault")
        } catch {
            #expect(error.code == SQLiteFaults.cannotOpen && error.message == SQLiteFaults.message)
        }
        opening.remove()
        // A real failure keeps SQLite's own message, with or without faults somewhere.
        do {
            _ = try SQLiteDatabase(path: directory.appendingPathComponent("missing/x.sqlite").path)
            Issue.record("opened in a missing folder")
        } catch {
            #expect(error.message != SQLiteFaults.message && error.primaryCode == SQLiteFaults.cannotOpen, "\(error)")
        }
        let faults = SQLiteFaults.inject(.init(code: SQLiteFaults.full, at: .max, persistent: false), under: directory)
        defer { faults.remove() }
        let database = try SQLiteDatabase(path: path)
        try database.execute("CREATE TABLE t (x)")
        faults.fail()
        #expect(code { try database.execute("INSERT INTO t VALUES (1)") } == SQLiteFaults.full)  // prepare
        #expect(code { try database.execute("INSERT INTO t VALUES (1)") } == nil)  // once only
        faults.fail(after: 1)
        // Its prepare is the first call, its step the second: the step fails; the statement, cached, steps next time.
        #expect(code { try database.execute("INSERT INTO t VALUES (2)") } == SQLiteFaults.full)
        #expect(code { try database.execute("INSERT INTO t VALUES (2)") } == nil)
        faults.fail()
        #expect(code { try database.executeScript("INSERT INTO t VALUES (3);") } == SQLiteFaults.full)
        #expect(try database.rows("SELECT x FROM t") == [[.integer(1)], [.integer(2)]])
        #expect(faults.failures == 3)
        // Another directory's connection never fails.
        let other = Self.directory()
        defer { try? FileManager.default.removeItem(at: other) }
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        faults.fail()
        #expect(code { try SQLiteDatabase(path: other.appendingPathComponent("y.sqlite").path).execute("CREATE TABLE u (x)") } == nil)
    }

    // MARK: A failed read is not an empty one

    @Test("A read that fails is retried at the next use, never remembered as absent: a record, a walk, a list")
    func failedReadRetried() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.seed(directory, (1...300).map { Self.article($0, author: 9) } + [
            ResourceObject(type: "people", id: "9", attributes: ["name": "Nine"])])
        let (store, faults) = Self.opened(directory)
        defer { faults.remove() }
        faults.fail()
        #expect(store.record(type: "articles", id: "1") == nil)
        #expect(store.graph(from: [ResourceStore.Key(type: "articles", id: "2")]) == nil)
        // The public throwing reads say the read failed, rather than answer without the rows.
        #expect { try store.resources(Article.self) } throws: { ($0 as? JSONAPIClientError)?.code == .storeNotRead }
        #expect { try store.resource(Article.self, id: "3") } throws: { ($0 as? JSONAPIClientError)?.code == .storeNotRead }
        #expect(faults.failures >= 4 * StoreFaultInjectionTests.attempts)  // each read tried again before it failed
        faults.remove()
        #expect(store.record(type: "articles", id: "1")?.attributes?["body"] == "b1")
        let graph = try #require(store.graph(from: [ResourceStore.Key(type: "articles", id: "2")]))
        #expect(graph.included.map { $0.resourceObject().id } == ["9"])
        #expect(try store.resources(Article.self).count == 300)
    }

    static let attempts = ResourceStore.readAttempts

    @Test("A read that fails once is tried again at once and succeeds")
    func transientReadRetried() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.seed(directory, [Self.article(1)])
        let (store, faults) = Self.opened(directory, code: SQLiteFaults.busy, persistent: false)
        defer { faults.remove() }
        faults.fail()
        #expect(store.record(type: "articles", id: "1")?.attributes?["body"] == "b1")
        #expect(faults.failures == 1)
    }

    @Test("A sparse merge over a row that could not be read never saves the partial record over the whole row: the save merges the row beneath, and so does the next read")
    func sparseMergeOverFailedRead() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.seed(directory, (1...3).map { Self.article($0) })
        let (store, faults) = Self.opened(directory)
        defer { faults.remove() }
        faults.fail()
        store.merge([ResourceObject(type: "articles", id: "2", attributes: ["title": "new"])])
        #expect(store.record(type: "articles", id: "2")?.attributes == ["title": "new"])  // all the store can say
        await #expect(throws: JSONAPIClientError.self) { try await store.flush() }
        faults.pause()
        #expect(try Self.articlesOnDisk(directory)["2"] == ["title": "t2", "body": "b2"])  // untouched
        faults.remove()
        try await store.flush()
        #expect(try Self.articlesOnDisk(directory)["2"] == ["title": "new", "body": "b2"])
        #expect(store.record(type: "articles", id: "2")?.attributes == ["title": "new", "body": "b2"])
        #expect(store.parts.records.unreadBeneath.isEmpty)
    }

    @Test("A save of a record placed over an unread row writes the record alone when there is no row")
    func beneathWithoutRow() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.seed(directory, [Self.article(1)])
        let (store, faults) = Self.opened(directory)
        defer { faults.remove() }
        faults.fail()
        store.merge([ResourceObject(type: "articles", id: "7", attributes: ["title": "seven"])])
        faults.remove()
        #expect(store.parts.records.unreadBeneath.count == 1)
        try await store.flush()
        #expect(try Self.articlesOnDisk(directory)["7"] == ["title": "seven"])
        #expect(try Self.articlesOnDisk(directory)["1"] == ["title": "t1", "body": "b1"])
    }

    // MARK: Every loop that reads again ends

    @Test("A walk ends when its reads fail, and reads a chain of linkage 40 deep, one step a read", .timeLimit(.minutes(1)))
    func walksEnd() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Article n's author links to article n + 1: a chain the walk reads a step at a time.
        try await Self.seed(directory, (1...40).map { n in
            ResourceObject(
                type: "articles", id: "\(n)", attributes: ["title": "t", "body": "b"],
                relationships: n < 40 ? ["next": Relationship(data: .toOne(ResourceIdentifier(type: "articles", id: "\(n + 1)")))] : nil)
        })
        let (store, faults) = Self.opened(directory)
        defer { faults.remove() }
        for after in [0, 1, 4] {
            faults.fail(after: after)
            _ = store.graph(from: [ResourceStore.Key(type: "articles", id: "1")])
            faults.pause()
        }
        let graph = try #require(store.graph(from: [ResourceStore.Key(type: "articles", id: "1")]))
        #expect(graph.included.count == 39)
    }

    // MARK: Every SQLite call of each scenario

    @Test("Fault injection: walking pages and flushing each, for every n", .timeLimit(.minutes(5)))
    func walkAndFlush() async throws {
        let counts = try await Self.everyFault(
            "walk and flush",
            act: { directory -> (store: ResourceStore, saved: [Int]) in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                var saved: [Int] = []
                for page in 0..<3 {
                    store.merge((1...4).map { Self.article(page * 4 + $0) })
                    if await Self.flushed(store) { saved = Array(1...(page * 4 + 4)) }
                }
                return (store, saved)
            },
            check: { directory, kept in
                let onDisk = try Self.articlesOnDisk(directory)
                for id in kept.saved { #expect(onDisk["\(id)"] == ["title": .string("t\(id)"), "body": .string("b\(id)")], "\(id) reported saved") }
                for (id, attributes) in onDisk { #expect(attributes.count == 2, "row \(id) is partial") }
                // Once the faults are gone, a store that opened saves all of it.
                guard kept.store.writer != nil else { return }
                try await kept.store.flush()
                #expect(try Self.articlesOnDisk(directory).count == 12)
            })
        #expect(counts.values.allSatisfy { $0.hit > 0 && $0.runs == $0.hit + 1 })
    }

    @Test("Fault injection: a sparse merge into rows saved before, for every n", .timeLimit(.minutes(5)))
    func sparseMerge() async throws {
        let counts = try await Self.everyFault(
            "sparse merge",
            prepare: { try await Self.seed($0, (1...3).map { Self.article($0) }) },
            act: { directory -> (store: ResourceStore, saved: Bool) in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                store.merge([ResourceObject(type: "articles", id: "2", attributes: ["title": "new"])])
                return (store, await Self.flushed(store))
            },
            check: { directory, kept in
                let row = try Self.articlesOnDisk(directory)["2"]
                #expect(row?["body"] == "b2", "the row was overwritten by a partial record: \(String(describing: row))")
                if kept.saved { #expect(row?["title"] == "new") }
                guard kept.store.writer != nil else { return }
                try await kept.store.flush()
                #expect(try Self.articlesOnDisk(directory)["2"] == ["title": "new", "body": "b2"])
                #expect(kept.store.record(type: "articles", id: "2")?.attributes == ["title": "new", "body": "b2"])
            })
        #expect(counts.values.allSatisfy { $0.hit > 0 })
    }

    @Test("Fault injection: a read that faults rows in (a record, a walk, a list), for every n", .timeLimit(.minutes(5)))
    func readFaultsIn() async throws {
        let counts = try await Self.everyFault(
            "read faulting rows in",
            prepare: { try await Self.seed($0, (1...6).map { Self.article($0, author: 9) } + [ResourceObject(type: "people", id: "9")]) },
            act: { directory -> ResourceStore in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                if let found = store.record(type: "articles", id: "1") { #expect(found.attributes?["body"] == "b1") }
                if let graph = store.graph(from: [ResourceStore.Key(type: "articles", id: "2")]) {
                    #expect(graph.primary.count == 1)
                }
                do {
                    let listed = try store.resources(Article.self)
                    #expect(listed.allSatisfy { $0.body == "b\($0.id)" })
                } catch let error as JSONAPIClientError {
                    #expect(error.code == .storeNotRead, "\(error)")
                }
                return store
            },
            check: { _, store in
                // Nothing remembered as absent: every read reads again now.
                guard store.writer != nil else { return }
                #expect(store.record(type: "articles", id: "1")?.attributes?["body"] == "b1")
                #expect(store.graph(from: [ResourceStore.Key(type: "articles", id: "2")])?.included.count == 1)
                let listed = try store.resources(Article.self)
                #expect(listed.count == 6)
            })
        #expect(counts.values.allSatisfy { $0.hit > 0 })
    }

    @Test("Fault injection: opening a new directory and saving, for every n", .timeLimit(.minutes(5)))
    func opening() async throws {
        _ = try await Self.everyFault(
            "opening",
            act: { directory -> (store: ResourceStore, saved: Bool) in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                store.merge([Self.article(1)])
                return (store, await Self.flushed(store))
            },
            check: { directory, kept in
                if kept.saved { #expect(try Self.articlesOnDisk(directory)["1"] == ["title": "t1", "body": "b1"]) }
                // The store that opened saves now; another store opens the file, and saves.
                if kept.store.writer != nil { try await kept.store.flush() }
                try await Self.seed(directory, [Self.article(2)])
                #expect(try Self.articlesOnDisk(directory)["2"] != nil)
            })
    }

    @Test("Fault injection: queue append, claim and settle, for every n", .timeLimit(.minutes(5)))
    func queue() async throws {
        let a = WriteQueueDatabaseTests.entry("a")
        let b = WriteQueueDatabaseTests.entry("b")
        let steps: [(WriteQueueDatabase) throws -> Void] = [
            { try $0.save([.insert(a)]) },
            { try $0.save([.insert(b)]) },
            { let claim = try $0.claim(a); #expect(claim == .claimed) },
            { try $0.save([.delete(id: "a")]) },
            { let claim = try $0.claim(b); #expect(claim == .claimed) },
            { try $0.save([.update(WriteQueueDatabaseTests.entry("b", attempts: 1))]) },
        ]
        // The queue's ids after each step.
        let after: [[String]] = [["a"], ["a", "b"], ["a", "b"], ["b"], ["b"], ["b"]]
        _ = try await Self.everyFault(
            "queue append, claim, settle",
            act: { directory -> (storage: WriteQueueDatabase, done: Int) in
                let storage = WriteQueueDatabase(directory: directory, log: { _ in })
                _ = storage.load()
                var done = 0
                for step in steps {
                    do {
                        try step(storage)
                    } catch {
                        #expect(error is SQLiteError, "\(error)")
                        break  // the queue's caller tries the same step again later
                    }
                    done += 1
                }
                return (storage, done)
            },
            check: { directory, kept in
                let reopened = WriteQueueDatabase(directory: directory, log: { _ in })
                let ids = reopened.load()?.map(\.id) ?? []
                if kept.done > 0 { #expect(ids == after[kept.done - 1], "after \(kept.done) steps reported") }
                // The same storage goes on once the faults are gone, from the step that failed.
                for step in steps.dropFirst(kept.done) { try step(kept.storage) }
                let final = WriteQueueDatabase(directory: directory, log: { _ in }).load()
                #expect(final?.map(\.id) == ["b"] && final?.first?.attempts == 1)
            })
    }
}
