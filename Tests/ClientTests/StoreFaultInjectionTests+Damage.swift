import Foundation
import Testing

@testable import JSONAPIClient

/// The fault-injection scenarios with `SQLITE_CORRUPT` at the n-th call (issue 43, item 14): what a damaged page
/// answers whenever a read or a write meets it. The file is then set aside and the store goes on empty, so what was
/// saved before is in the file set aside; each run checks that nothing traps, every error is typed, a flush reports
/// a save only when it is on disk (what was saved since the last set-aside, read by a new store), and no row on
/// disk is a partial record over a whole one.
extension StoreFaultInjectionTests {
    static let damagePlans: [(name: String, code: Int32, persistent: Bool)] = [
        ("CORRUPT once", SQLiteFaults.corrupt, false), ("CORRUPT from n on", SQLiteFaults.corrupt, true),
    ]

    /// How many files were set aside in `directory`'s folder.
    static func setAsides(_ directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: PartitionDatabase.folder(in: directory).path)) ?? []
        return names.filter { $0.contains(".set-aside-") && !$0.hasSuffix("-wal") }.count
    }

    /// Flushes once the faults are gone: a set-aside that lost changes is reported once (then the store saves
    /// again), and a store whose new file could not be opened saves nothing. When a flush reports the save, every
    /// record the store shows is on disk.
    static func savesOnceFaultsGone(_ store: ResourceStore, _ directory: URL, ids: ClosedRange<Int>) async throws {
        var saved = await flushed(store)
        if !saved { saved = await flushed(store) }
        guard saved else { return }
        let onDisk = try articlesOnDisk(directory)
        for id in ids {
            guard let shown = store.record(type: "articles", id: "\(id)") else { continue }
            #expect(onDisk["\(id)"] == shown.attributes, "\(id) is shown and reported saved")
        }
    }

    @Test("Fault injection with SQLITE_CORRUPT: walking pages and flushing each, for every n", .timeLimit(.minutes(5)))
    func walkAndFlushDamaged() async throws {
        let counts = try await Self.everyFault(
            "walk and flush, damage", plans: Self.damagePlans,
            act: { directory -> (store: ResourceStore, saved: Set<Int>) in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                var saved: Set<Int> = []
                var asides = 0
                for page in 0..<3 {
                    let ids = (1...4).map { page * 4 + $0 }
                    store.merge(ids.map { Self.article($0) })
                    let flushed = await Self.flushed(store)
                    if Self.setAsides(directory) != asides {
                        asides = Self.setAsides(directory)
                        saved = []  // in the file set aside
                    }
                    if flushed { saved.formUnion(ids) }
                }
                return (store, saved)
            },
            check: { directory, kept in
                let onDisk = try Self.articlesOnDisk(directory)
                for id in kept.saved { #expect(onDisk["\(id)"] == ["title": .string("t\(id)"), "body": .string("b\(id)")], "\(id) reported saved") }
                for (id, attributes) in onDisk { #expect(attributes.count == 2, "row \(id) is partial") }
                try await Self.savesOnceFaultsGone(kept.store, directory, ids: 1...12)
            })
        #expect(counts.values.allSatisfy { $0.hit > 0 })
    }

    @Test("Fault injection with SQLITE_CORRUPT: a sparse merge into rows saved before, for every n", .timeLimit(.minutes(5)))
    func sparseMergeDamaged() async throws {
        let counts = try await Self.everyFault(
            "sparse merge, damage", plans: Self.damagePlans,
            prepare: { try await Self.seed($0, (1...3).map { Self.article($0) }) },
            act: { directory -> (store: ResourceStore, saved: Bool) in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                store.merge([ResourceObject(type: "articles", id: "2", attributes: ["title": "new"])])
                return (store, await Self.flushed(store))
            },
            check: { directory, kept in
                let row = try Self.articlesOnDisk(directory)["2"]
                if Self.setAsides(directory) == 0 {
                    #expect(row?["body"] == "b2", "the row was overwritten by a partial record: \(String(describing: row))")
                }
                if kept.saved { #expect(row?["title"] == "new", "\(String(describing: row))") }
                try await Self.savesOnceFaultsGone(kept.store, directory, ids: 1...3)
            })
        #expect(counts.values.allSatisfy { $0.hit > 0 })
    }

    @Test("Fault injection with SQLITE_CORRUPT: a read that faults rows in (a record, a walk, a list), for every n", .timeLimit(.minutes(5)))
    func readFaultsInDamaged() async throws {
        let counts = try await Self.everyFault(
            "read faulting rows in, damage", plans: Self.damagePlans,
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
                await store.writer?.drained()
                return store
            },
            check: { directory, store async throws in
                guard store.writer != nil else { return }
                if Self.setAsides(directory) == 0 {
                    // Nothing remembered as absent: every read reads again now.
                    #expect(store.record(type: "articles", id: "1")?.attributes?["body"] == "b1")
                    #expect(try store.resources(Article.self).count == 6)
                } else {
                    // Set aside: the store went on empty, and reads the new file — or, when none could be opened
                    // (the faults persisted), says every read failed.
                    do {
                        #expect(try store.resources(Article.self).isEmpty)
                    } catch let error as JSONAPIClientError {
                        #expect(error.code == .storeNotRead, "\(error)")
                    }
                    #expect(try Self.articlesOnDisk(directory).isEmpty)
                }
            })
        #expect(counts.values.allSatisfy { $0.hit > 0 })
    }

    @Test("Fault injection with SQLITE_CORRUPT: opening a new directory and saving, for every n", .timeLimit(.minutes(5)))
    func openingDamaged() async throws {
        _ = try await Self.everyFault(
            "opening, damage", plans: Self.damagePlans,
            act: { directory -> (store: ResourceStore, saved: Bool) in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                store.merge([Self.article(1)])
                return (store, await Self.flushed(store))
            },
            check: { directory, kept in
                if kept.saved { #expect(try Self.articlesOnDisk(directory)["1"] == ["title": "t1", "body": "b1"]) }
                if kept.store.writer != nil { try await Self.savesOnceFaultsGone(kept.store, directory, ids: 1...1) }
                try await Self.seed(directory, [Self.article(2)])
                #expect(try Self.articlesOnDisk(directory)["2"] != nil)
            })
    }
}
