import Foundation
import Testing

@testable import JSONAPIClient

/// The one file that calls SQLite's C API, at its boundaries: every kind of value in and out (the empty and the
/// extreme ones), transactions, the write lock two connections share, the schema version, and the errors a damaged
/// or foreign file gives.
@Suite("SQLite database")
struct SQLiteDatabaseTests {
    /// A new folder, removed by the caller.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("Opens in WAL mode with synchronous=NORMAL and foreign keys on")
    func opening() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("a.sqlite").path)
        #expect(try database.rows("PRAGMA journal_mode") == [[.text("wal")]])
        #expect(try database.rows("PRAGMA synchronous") == [[.integer(1)]])  // NORMAL
        #expect(try database.rows("PRAGMA foreign_keys") == [[.integer(1)]])
        #expect(try database.userVersion() == 0)
        #expect(try database.applicationID() == 0)
    }

    @Test("appendColumn appends each row's blob or text straight to the buffer, a separator between two appended; NULL, empty, other types and columns out of range append nothing")
    func appendColumn() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("a.sqlite").path)
        try database.execute("CREATE TABLE t (n INTEGER, v)")
        let values: [SQLiteValue] = [.blob(Data("ab".utf8)), .null, .text("c"), .blob(Data()), .integer(7), .text("é\u{0}d")]
        for (n, value) in values.enumerated() {
            try database.execute("INSERT INTO t (n, v) VALUES (?, ?)", [.integer(Int64(n)), value])
        }
        var buffer = Data("[".utf8)
        let appended = try database.appendColumn(1, of: "SELECT n, v FROM t ORDER BY n", to: &buffer, separator: UInt8(ascii: ","))
        #expect(appended == 3)
        #expect(buffer == Data("[ab,c,é\u{0}d".utf8))
        for column: Int32 in [-1, 2, 3, .max] {
            var none = Data()
            #expect(try database.appendColumn(column, of: "SELECT n, v FROM t", to: &none, separator: 0) == 0)
            #expect(none.isEmpty)
        }
        var nothing = Data()
        #expect(try database.appendColumn(0, of: "SELECT v FROM t WHERE n < 0", to: &nothing, separator: 0) == 0)
        #expect { try database.appendColumn(0, of: "SELECT v FROM t WHERE n = ?", to: &nothing, separator: 0) } throws: {
            ($0 as? SQLiteError)?.code == SQLiteError.range
        }
    }

    @Test("Integers, blobs, texts and NULL read back as bound, the empty and extreme ones included")
    func values() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("a.sqlite").path)
        try database.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, v)")
        let values: [SQLiteValue] = [
            .integer(.max), .integer(.min), .integer(0), .integer(-1),
            .blob(Data()), .blob(Data([0, 1, 2, 255])), .blob(Data(repeating: 7, count: 100_000)),
            .text(""), .text("é ✓ 🧩"), .text("a\u{0}b"), .null, .real(0.5),
        ]
        for (number, value) in values.enumerated() {
            try database.execute("INSERT INTO t(n, v) VALUES (?, ?)", [.integer(Int64(number)), value])
        }
        let read = try database.rows("SELECT v FROM t ORDER BY n").map { $0[0] }
        #expect(read == values)
        // The empty blob is a blob, not NULL; the empty text a text.
        #expect(try database.rows("SELECT typeof(v) FROM t WHERE n IN (4, 7) ORDER BY n") == [[.text("blob")], [.text("text")]])
        #expect(database.changes == 1)
        #expect(database.lastInsertRowID == Int64(values.count - 1))
    }

    @Test("Statements are reused: the same SQL again, with new values, and none left open")
    func reuse() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("a.sqlite").path)
        try database.execute("CREATE TABLE t(v)")
        for n in 0..<100 { try database.execute("INSERT INTO t(v) VALUES (?)", [.integer(Int64(n))]) }
        #expect(try database.rows("SELECT count(*), sum(v) FROM t") == [[.integer(100), .integer(4950)]])
        // A query stopped by an error leaves no read open: a second connection can still write.
        let other = try SQLiteDatabase(path: database.path, busyTimeout: .zero)
        try other.execute("INSERT INTO t(v) VALUES (1)")
    }

    @Test("Misuse is an error, never a crash: wrong parameter counts, bad SQL, a closed database")
    func misuse() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("a.sqlite").path)
        try database.execute("CREATE TABLE t(v)")
        #expect { try database.execute("INSERT INTO t(v) VALUES (?)") } throws: { error in
            (error as? SQLiteError)?.primaryCode == SQLiteError.range
        }
        #expect { try database.execute("INSERT INTO t(v) VALUES (?)", [.null, .null]) } throws: { error in
            (error as? SQLiteError)?.primaryCode == SQLiteError.range
        }
        #expect { try database.execute("SELEC 1") } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.operation.contains("SELEC 1") && error.message.contains("syntax")
        }
        #expect(throws: SQLiteError.self) { try database.execute("") }
        #expect { try database.execute("INSERT INTO missing VALUES (1)") } throws: { error in
            (error as? SQLiteError)?.description.contains("no such table: missing") == true
        }
        database.close()
        database.close()
        #expect { try database.execute("SELECT 1") } throws: { error in
            (error as? SQLiteError)?.primaryCode == SQLiteError.misuse
        }
    }

    @Test("A transaction commits when its body returns and rolls back when it throws")
    func transactions() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("a.sqlite").path)
        try database.execute("CREATE TABLE t(v UNIQUE)")
        try database.immediateTransaction { () throws(SQLiteError) in
            try database.execute("INSERT INTO t(v) VALUES (1)")
            try database.execute("INSERT INTO t(v) VALUES (2)")
        }
        #expect(throws: SQLiteError.self) {
            try database.immediateTransaction { () throws(SQLiteError) in
                try database.execute("INSERT INTO t(v) VALUES (3)")
                try database.execute("INSERT INTO t(v) VALUES (1)")  // not unique
            }
        }
        #expect(try database.rows("SELECT v FROM t ORDER BY v") == [[.integer(1)], [.integer(2)]])
        // The connection is usable after the rollback.
        let three = try database.immediateTransaction { () throws(SQLiteError) -> Int64 in
            try database.execute("INSERT INTO t(v) VALUES (3)")
            return database.lastInsertRowID
        }
        #expect(three == 3)
    }

    @Test("BEGIN IMMEDIATE serialises writers: a second connection waits for the first, and fails as busy past its timeout")
    func writersSerialise() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.sqlite").path
        let first = try SQLiteDatabase(path: path)
        try first.execute("CREATE TABLE t(v)")
        let second = try SQLiteDatabase(path: path, busyTimeout: .milliseconds(50))
        try first.execute("BEGIN IMMEDIATE")
        try first.execute("INSERT INTO t(v) VALUES (1)")
        #expect { try second.immediateTransaction { () throws(SQLiteError) in } } throws: { error in
            (error as? SQLiteError)?.primaryCode == SQLiteError.busy
        }
        // A reader is not blocked by the writer (WAL), and sees only what was committed.
        #expect(try second.rows("SELECT count(*) FROM t") == [[.integer(0)]])
        try first.execute("COMMIT")
        try second.immediateTransaction { () throws(SQLiteError) in
            try second.execute("INSERT INTO t(v) VALUES (2)")
        }
        #expect(try first.rows("SELECT count(*) FROM t") == [[.integer(2)]])
    }

    @Test("The schema version and application id are kept in the file")
    func versions() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.sqlite").path
        do {
            let database = try SQLiteDatabase(path: path)
            try database.immediateTransaction { () throws(SQLiteError) in
                try database.setUserVersion(3)
                try database.setApplicationID(.max)
            }
        }
        let database = try SQLiteDatabase(path: path)
        #expect(try database.userVersion() == 3)
        #expect(try database.applicationID() == Int64(Int32.max))
    }

    @Test("A file that is not a database fails to open as such (SQLITE_NOTADB): damage, never a crash")
    func notADatabase() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.sqlite").path
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect { _ = try SQLiteDatabase(path: path) } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.isDamage && error.primaryCode == SQLiteError.notADatabase
        }
    }

    @Test("A database whose pages were overwritten reads as damaged (SQLITE_CORRUPT or NOTADB), never a crash")
    func damagedPages() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.sqlite").path
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("PRAGMA journal_mode=DELETE")  // everything in the main file, for the test
            try database.execute("CREATE TABLE t(v)")
            for n in 0..<2000 { try database.execute("INSERT INTO t(v) VALUES (?)", [.text(String(repeating: "x", count: n % 50))]) }
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in stride(from: 4096 + 8, to: bytes.count, by: 4096) { bytes[index] = 0xff; bytes[index + 1] = 0xff }
        try bytes.write(to: URL(fileURLWithPath: path))
        var failure: SQLiteError?
        do {
            let database = try SQLiteDatabase(path: path)
            _ = try database.rows("SELECT count(*), max(length(v)) FROM t")
            _ = try database.rows("PRAGMA quick_check")
        } catch {
            failure = error
        }
        // quick_check reports damage as rows rather than failing at times; what matters is that nothing crashed and
        // a failure, when there is one, is classed as damage.
        if let failure { #expect(failure.isDamage, "\(failure)") }
    }

    @Test("A directory that does not exist cannot be opened: an error, not damage")
    func cannotOpen() {
        #expect { _ = try SQLiteDatabase(path: "/nonexistent-\(UUID().uuidString)/a.sqlite") } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return !error.isDamage && error.operation.hasPrefix("opening")
        }
    }

    @Test("The benchmark's floor reads every row of a store's database, and writes the same rows into a new file that reads back equal")
    func floorCopiesRows() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(configuration: .init(persistence: StoreFaultInjectionTests.persistence(directory)))
        store.merge((1...30).map { StoreFaultInjectionTests.article($0) })
        try await store.flush()
        let rows = try SQLiteFloor.select(PartitionDatabase.file(in: directory).path)
        #expect(rows.count == 30)
        let copy = directory.appendingPathComponent("copy.sqlite").path
        let seconds = try SQLiteFloor.insert(rows, into: copy)
        #expect(seconds >= 0)
        let again = try SQLiteFloor.select(copy)
        #expect(again.count == 30)
        let database = try SQLiteDatabase(path: copy, creating: false)
        #expect(try database.rows("SELECT count(*) FROM records").first?.first == .integer(30))
        #expect(try database.rows("SELECT count(*) FROM meta").first?.first == .integer(0))
        // Into a file that has the tables already, the schema fails, named.
        #expect(throws: SQLiteFloor.FloorError.self) { _ = try SQLiteFloor.insert(rows, into: copy) }
    }
}
