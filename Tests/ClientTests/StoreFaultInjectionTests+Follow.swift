import Foundation
import Testing

@testable import JSONAPIClient

extension StoreFaultInjectionTests {
    /// What a run of the follow scenario kept, for its check.
    struct Following: @unchecked Sendable {
        // @unchecked Sendable: the test's own objects, used from its one task.
        let store: ResourceStore
        let storage: WriteQueueDatabase
        let arrivals: WriteQueueFollowTests.Arrivals
        /// Whether the queue's rows were read (its launch read may fail), and what the other process committed.
        let queueRead: Bool
        let rowCommitted: Bool
        let recordCommitted: Bool
    }

    @Test("Fault injection: following another process's commits (a queued write, a saved record), for every n", .timeLimit(.minutes(5)))
    func following() async throws {
        _ = try await Self.everyFault(
            "following another process",
            prepare: { directory in
                do {
                    let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                    store.merge([Self.article(1)])
                    try await store.flush()
                    try WriteQueueDatabase(directory: directory, log: { _ in }).save(
                        [.insert(WriteQueueDatabaseTests.entry("a"))])
                }
            },
            act: { directory -> Following in
                let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
                _ = store.record(type: "articles", id: "1")  // held, when it reads
                let storage = WriteQueueDatabase(directory: directory, log: { _ in })
                let queueRead = (try? storage.read()) != nil
                let arrivals = WriteQueueFollowTests.Arrivals()
                storage.follow { arrivals.append($0) }
                // The other process's commits, through a connection of its own (under the same faults).
                let rowCommitted = (try? WriteQueueFollowTests.insertElsewhere(WriteQueueDatabaseTests.entry("x"), in: directory)) != nil
                let recordCommitted = (try? StoreFollowTests.saveElsewhere("1", "theirs", in: directory)) != nil
                store.writer?.pollNow()
                storage.pollNow()
                return Following(
                    store: store, storage: storage, arrivals: arrivals, queueRead: queueRead, rowCommitted: rowCommitted,
                    recordCommitted: recordCommitted)
            },
            check: { directory, kept in
                // The faults gone, the next looks read what the failed ones did not: each arrival told once.
                kept.store.writer?.pollNow()
                kept.storage.pollNow()
                let told = kept.arrivals.told.map(\.entry.id)
                #expect(told.count == Set(told).count, "an arrival told twice: \(told)")
                if kept.queueRead {
                    #expect(told == (kept.rowCommitted ? ["x"] : []), "\(told)")
                } else {
                    #expect(told.isEmpty, "\(told)")
                }
                let entries = try kept.storage.read().map(\.id)
                #expect(entries == (kept.rowCommitted ? ["a", "x"] : ["a"]), "\(entries)")
                // A record the store holds takes the other process's save; its title is never another's.
                if let title = kept.store.record(type: "articles", id: "1")?.attributes?["title"] {
                    let expected: [JSONValue] = kept.recordCommitted ? ["theirs", "t1"] : ["t1"]
                    #expect(expected.contains(title), "\(title)")
                    if kept.recordCommitted, kept.store.writer != nil, kept.queueRead {
                        #expect(title == "theirs", "a held record did not follow the other process's save")
                    }
                }
            })
    }
}
