import Foundation
import JSONAPIClient

/// The persisted store's cases (issue 31), through the public API, over an in-memory server of pages of 100 articles
/// with their authors and comments (about 410 records and 80 KB a page). Each prints one line; bytes are this
/// process's `write_bytes` of `/proc/self/io` (the database, its WAL and checkpoints included; `n/a` elsewhere).
///
/// - `persist-walk`: walking 100 pages with a persisted store, then `flush()`, ÷ the same walk without a store
///   (target ≤ 2.0; `of_which_flush_s` the `flush()` alone); and the bytes written ÷ the bytes received (target ≤ 4);
///   `sqlite_floor_insert_s`, the engine's floor of that flush (the database's rows written to a new file in one
///   transaction through SQLite's C API alone, `SQLiteFloor.insert`), and `flush_per_floor` (target ≤ 1.3).
/// - `persist-edit`: with 1,000 and with 100,000 records stored, one page refetched whose records all changed, then
///   `flush()`: bytes written ÷ the page's bytes (target ≤ 16, the same at both sizes); and the same page refetched
///   unchanged (target ≤ 1).
/// - `cold-start`: opening the store and reading 30 articles with their authors by id, with 100,000 records on disk
///   ÷ with 1,000 (target ≤ 1.5).
///
/// Each figure is the median of `runs` runs, each in a new directory; `cold-start`'s of 3 × `runs` (at least 9)
/// openings of one directory per size, the two sizes taking turns.
enum Persist {
    static let names = ["persist-walk", "persist-edit", "cold-start"]
    static let pageSize = 100

    /// Page `n` (from 1) of `count`, its resources' attributes drawn from `seed`.
    static func page(_ n: Int, of count: Int, seed: UInt64 = 0x5EED_3000) -> Data {
        let link = { (number: Int) in
            #""https://bench.invalid/articles?include=author%2Ccomments&page%5Bnumber%5D=\#(number)&page%5Bsize%5D=\#(pageSize)""#
        }
        let document = GeneratedDocument(
            articles: pageSize, seed: seed &+ UInt64(n), firstArticle: (n - 1) * pageSize + 1,
            links: #"{"next":\#(n < count ? link(n + 1) : "null")}"#)
        return Data(document.bytes)
    }

    /// A server of `pages`, whose answers can be swapped (a page that changed).
    final class Server: Client, @unchecked Sendable {
        private let lock = NSLock()
        private var pages: [Data]
        init(_ pages: [Data]) { self.pages = pages }
        func replace(_ n: Int, with body: Data) { lock.withLock { pages[n - 1] = body } }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let pages = lock.withLock { self.pages }
            return try await Pipeline.InMemoryClient(pages: pages).send(request)
        }
    }

    static func session(_ server: Server, directory: URL?) -> Session {
        var store = ResourceStore.Configuration(maxResources: 1_000_000, maxResponseBytes: 1 << 30)
        store.persistence = directory.map { .init(directory: $0, delay: .seconds(3600)) }
        return Session(
            baseURL: URL(string: "https://bench.invalid")!, client: server,
            configuration: .init(store: directory == nil ? nil : store))
    }

    /// Walks every page of `server` through `api`, typed, and returns the articles seen.
    static func walk(_ api: Session, pages: Int) async throws -> Int {
        let source = api.source(Article.self, .path("articles/<id>"))
        var seen = 0
        for try await page in source.fetch().include("author", "comments").page(.pageBased(1, pageSize)).pages(prefetch: 0) {
            seen += page.data?.count ?? 0
        }
        guard seen == pages * pageSize else { throw BenchmarkFailure(description: "walked \(seen) articles, not \(pages * pageSize)") }
        return seen
    }

    static func fresh() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-bench-persist-\(UUID().uuidString)")
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func ratio(_ a: Int64?, _ b: Int) -> String {
        a.map { format(Double($0) / Double(b), 2) } ?? "n/a"
    }

    /// How many pages hold `stored` records, at about 410 records a page: at least 2.
    static func pages(holding stored: Int) -> Int {
        max(2, (stored + 409) / 410)
    }

    static func run(selected: Set<String>, runs: Int) throws {
        if selected.contains("persist-walk") { try persistWalk(runs: runs) }
        if selected.contains("persist-edit") { try persistEdit(runs: runs) }
        if selected.contains("cold-start") { try coldStart(runs: runs) }
    }

    static func persistWalk(runs: Int) throws {
        let count = 100
        let pages = (1...count).map { page($0, of: count) }
        let received = pages.reduce(0) { $0 + $1.count }
        var bare: [Double] = []
        var persisted: [Double] = []
        var written: [Int64] = []
        var flushing: [Double] = []
        var floor: [Double] = []
        for _ in 0..<runs {
            bare.append(try seconds {
                _ = try Pipeline.runBlocking { try await walk(session(Server(pages), directory: nil), pages: count) }
            })
            let directory = fresh()
            defer { try? FileManager.default.removeItem(at: directory) }
            let before = QueueAppend.writtenBytes()
            persisted.append(try seconds {
                let api = session(Server(pages), directory: directory)
                try Pipeline.runBlocking {
                    _ = try await walk(api, pages: count)
                }
                flushing.append(try seconds { try Pipeline.runBlocking { try await api.store?.flush() } })
            })
            if let before, let after = QueueAppend.writtenBytes() { written.append(after - before) }
            // The engine's floor of that flush: the same rows written to a new file in one transaction, through
            // SQLite's C API alone (one prepared statement a table).
            let rows = try SQLiteFloor.select(directory.appendingPathComponent("JSONAPIClient/default.sqlite").path)
            let copy = fresh()
            defer { try? FileManager.default.removeItem(at: copy) }
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            floor.append(try SQLiteFloor.insert(rows, into: copy.appendingPathComponent("floor.sqlite").path))
        }
        let bytes = written.isEmpty ? nil : Int64(median(written.map(Double.init)))
        print(
            "persist-walk \(count)x\(pageSize): bare_s=\(format(median(bare), 3)) persisted_s=\(format(median(persisted), 3))"
                + " of_which_flush_s=\(format(median(flushing), 3))"
                + " sqlite_floor_insert_s=\(format(median(floor), 3))"
                + " flush_per_floor=\(format(median(flushing) / median(floor), 2))"
                + " ratio=\(format(median(persisted) / median(bare), 2)) received=\(received) written=\(bytes.map(String.init) ?? "n/a")"
                + " written_per_received=\(ratio(bytes, received))"
                + " (targets: ratio ≤ 2.0, written_per_received ≤ 4, flush_per_floor ≤ 1.3)")
    }

    static func persistEdit(runs: Int) throws {
        for stored in [1_000, 100_000] {
            let count = pages(holding: stored)
            var changed: [Int64] = []
            var unchanged: [Int64] = []
            var pageBytes = 0
            for _ in 0..<runs {
                let directory = fresh()
                defer { try? FileManager.default.removeItem(at: directory) }
                let server = Server((1...count).map { page($0, of: count) })
                let api = session(server, directory: directory)
                let url = URL(string: "articles?include=author%2Ccomments&page%5Bnumber%5D=1&page%5Bsize%5D=\(pageSize)")!
                try Pipeline.runBlocking {
                    _ = try await walk(api, pages: count)
                    try await api.store?.flush()
                }
                // The same page again, unchanged.
                var before = QueueAppend.writtenBytes()
                try Pipeline.runBlocking {
                    _ = try await api.fetch(url, as: [Article].self).cachePolicy(.networkOnly).result()
                    try await api.store?.flush()
                }
                if let before, let after = QueueAppend.writtenBytes() { unchanged.append(after - before) }
                // The page with every resource changed (other attributes drawn).
                let edited = page(1, of: count, seed: 0x5EED_4000)
                pageBytes = edited.count
                server.replace(1, with: edited)
                before = QueueAppend.writtenBytes()
                try Pipeline.runBlocking {
                    _ = try await api.fetch(url, as: [Article].self).cachePolicy(.networkOnly).result()
                    try await api.store?.flush()
                }
                if let before, let after = QueueAppend.writtenBytes() { changed.append(after - before) }
            }
            let changedBytes = changed.isEmpty ? nil : Int64(median(changed.map(Double.init)))
            let unchangedBytes = unchanged.isEmpty ? nil : Int64(median(unchanged.map(Double.init)))
            print(
                "persist-edit stored≈\(count * 410): page=\(pageBytes) changed_written=\(changedBytes.map(String.init) ?? "n/a")"
                    + " changed_per_page=\(ratio(changedBytes, pageBytes)) unchanged_written=\(unchangedBytes.map(String.init) ?? "n/a")"
                    + " unchanged_per_page=\(ratio(unchangedBytes, pageBytes)) (targets: changed ≤ 16, unchanged ≤ 1)")
        }
    }

    static func coldStart(runs: Int) throws {
        let sizes = [1_000, 100_000]
        var directories: [Int: URL] = [:]
        defer { for directory in directories.values { try? FileManager.default.removeItem(at: directory) } }
        for stored in sizes {
            let count = pages(holding: stored)
            let directory = fresh()
            directories[stored] = directory
            try Pipeline.runBlocking {
                let api = session(Server((1...count).map { page($0, of: count) }), directory: directory)
                _ = try await walk(api, pages: count)
                try await api.store?.flush()
            }
        }
        // The sizes take turns, sample after sample: a change in the machine's load falls on both alike (measured
        // one size after the other, the ratio moved 0.6–1.8 from run to run at load 1–2).
        var samples: [Int: [Double]] = [:]
        var opening: [Int: [Double]] = [:]
        for _ in 0..<max(runs * 3, 9) {
            for stored in sizes {
                guard let directory = directories[stored] else { continue }
                samples[stored, default: []].append(try seconds {
                    var persistence = ResourceStore.Configuration(maxResources: 1_000_000, maxResponseBytes: 1 << 30)
                    persistence.persistence = .init(directory: directory, delay: .seconds(3600))
                    var opened: ResourceStore?
                    opening[stored, default: []].append(seconds { opened = ResourceStore(configuration: persistence) })
                    guard let store = opened else { return }
                    for id in 1...30 {
                        guard let article = try store.resource(Article.self, id: String(id)), article.author != nil else {
                            throw BenchmarkFailure(description: "article \(id) or its author is not in the store")
                        }
                    }
                })
            }
        }
        for stored in sizes {
            let count = pages(holding: stored)
            print(
                "cold-start stored≈\(count * 410): open_and_read_30_s=\(format(median(samples[stored] ?? []), 4))"
                    + " open_s=\(format(median(opening[stored] ?? []), 4))")
        }
        let small = median(samples[1_000] ?? []), large = median(samples[100_000] ?? [])
        print("cold-start ratio_100000_to_1000=\(format(large / small, 2)) (target ≤ 1.5)")
    }
}
