import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the library keeps its database in the directory the app gives (``ResourceStore/Persistence/directory``),
/// and how it opens one: `<directory>/JSONAPIClient/<partition>.sqlite` (with SQLite's `-wal` and `-shm` beside it).
///
/// **A folder of its own.** The library works in `JSONAPIClient/` inside the app's directory and changes nothing of
/// the directory itself (its backup exclusion, its protection class): the directory is the app's, and may be
/// Application Support or an app group's shared container.
///
/// **One database per account partition.** Everything kept for one partition — the write queue's entries and the
/// store's records and responses — lives in one file, `default.sqlite` for now (the accounts issue adds one per account). A
/// partition is found, hidden or removed as a unit by its files: removing an account removes its file, which leaves
/// no free pages with its data inside a database still in use, and no query can ever read across two accounts,
/// since no connection holds both. The alternative, an account key on every row of one file, would leave both
/// open to a mistake of a single `WHERE`.
///
/// **Its own file, or set aside.** The file carries an application id (`JAPI`) and a schema version
/// (`user_version`). A file that is not a database, is damaged, belongs to another program or was written by a
/// newer schema is renamed whole (`default.sqlite.set-aside-<time>-<random>`, a name no file has, its `-wal` with
/// it) with the reason logged, and a new one is made: the data starts empty, and the old file stays for a person to look at
/// — only while no connection of this process has the file open (it would go on writing into the file set aside):
/// else opening fails. Opening, setting aside and removing (``remove(_:in:)``) run one at a time. Any other failure
/// (no permission, a full disk, a file the device cannot read yet) leaves the file alone and is reported to the
/// caller.
enum PartitionDatabase {
    /// The library's folder inside the app's directory.
    static let folderName = "JSONAPIClient"
    /// The partition used until accounts have their own.
    static let defaultPartition = "default"
    /// `JAPI`: marks a file as this library's (`PRAGMA application_id`).
    static let applicationID: Int32 = 0x4A41_5049
    /// The schema this library writes: 1, the write queue's tables (``schema``) and the store's (``storeTables``),
    /// made together in a new file. (No released version wrote another: a file of a later version is set aside.)
    static let schemaVersion: Int32 = 1

    /// The write queue's tables.
    ///
    /// `write_queue`: one row per queued write, in the order written (`seq`, the rowid); `entry` is the entry as
    /// JSON. `claim_token`, `claim_pid` and `claim_until` (milliseconds since 1970) say which process is sending it
    /// and until when its claim holds (``WriteQueueDatabase``). No index: rows are found by `seq`, which each
    /// process keeps for the rows it knows, so an append writes one table page. `meta`: facts about the file (the
    /// partition key, the records' owner, the credentials' renewals).
    static let schema = """
        CREATE TABLE write_queue (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            entry BLOB NOT NULL,
            claim_token TEXT,
            claim_pid INTEGER,
            claim_until INTEGER
        );
        CREATE TABLE meta (key TEXT PRIMARY KEY, value);
        """

    /// The store's tables: a persisted ``ResourceStore``'s rows (``StoreWriter``).
    ///
    /// `records`: one row per record, `object` its resource object as JSON, keyed by type and id. `responses`: one
    /// row per stored response, keyed by its partition digest (16 bytes), URL and `Accept`; `response` holds its
    /// status, header fields, `Vary`, freshness and collection types (``RowCodec/appendResponse(_:for:to:)``, with
    /// no body), `body_id` the row of its body in `response_bodies`. The body has a table of its own so that what
    /// changes without it — a `304`'s freshness, the same body fetched again — rewrites the small row only: SQLite
    /// writes a row whole, overflow pages included. A body is kept as its outline (``ResponseOutline``: the text
    /// around its resources, which are rows of `records`), the response's `whole_size` the body's size as it came;
    /// or whole, `whole_size` `NULL` (a body without resources to cut out): a walk writes each resource once. (The
    /// size is the response's, not the body row's: a column after a large blob is read through its overflow pages,
    /// and opening reads every response's.) A save replaces a changed row whole (`INSERT OR REPLACE`), which
    /// gives it the next rowid: reading by rowid reads the least recently changed first, the order eviction wants.
    /// A row keeps its key in a table with a rowid rather than `WITHOUT ROWID`, since records and bodies are often
    /// larger than a twentieth of a page.
    static let storeTables = """
        CREATE TABLE records (
            type TEXT NOT NULL,
            id TEXT NOT NULL,
            object BLOB NOT NULL,
            UNIQUE (type, id)
        );
        CREATE TABLE responses (
            partition BLOB NOT NULL,
            url TEXT NOT NULL,
            accept TEXT NOT NULL,
            response BLOB NOT NULL,
            body_id INTEGER NOT NULL,
            whole_size INTEGER,
            UNIQUE (partition, url, accept)
        );
        CREATE TABLE response_bodies (
            id INTEGER PRIMARY KEY,
            body BLOB NOT NULL
        );
        """

    /// The partition of `account` (``Session/Configuration/account``), `nil` for none (``defaultPartition``):
    /// `account-` and 32 hexadecimal digits, a digest of the identifier under a key fixed in the library, so that
    /// every process and launch finds the same file and the file's name does not show the identifier. (It is not a
    /// secret from someone who can guess the identifier and read the app's container.)
    static func partition(forAccount account: String?) -> String {
        guard let account else { return defaultPartition }
        let digest = CredentialDigest(account: account, key: accountNaming)
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "account-" + hex(digest.high) + hex(digest.low)
    }

    /// The fixed key that names account partitions (never changed: a new one would lose every account's files).
    static let accountNaming = DigestKey(
        k0: 0x4a41_5049_6163_636f, k1: 0x756e_7431_0000_0001, k2: 0x4a41_5049_6163_636f, k3: 0x756e_7431_0000_0002)

    /// The library's folder in `directory`.
    static func folder(in directory: URL) -> URL {
        directory.appendingPathComponent(folderName, isDirectory: true)
    }

    /// The database file of `partition` in `directory`.
    static func file(in directory: URL, partition: String = defaultPartition) -> URL {
        folder(in: directory).appendingPathComponent(partition + ".sqlite")
    }

    /// Opens the database of `partition` in `directory`: makes the folder (owner-only) and the schema when
    /// missing; sets a damaged or foreign file aside (logged) and opens a new one.
    ///
    /// - Parameters:
    ///   - directory: The app's directory.
    ///   - partition: The partition's name.
    ///   - protection: The folder's data protection class on Apple platforms.
    ///   - log: Told when a file is set aside, and why.
    /// - Returns: The open database, with the current schema.
    /// - Throws: ``SQLiteError`` when the folder or database cannot be opened for a reason other than damage.
    static func open(
        in directory: URL, partition: String = defaultPartition,
        protection: ResourceStore.Persistence.FileProtection = .appDefault, log: @Sendable (String) -> Void
    ) throws(SQLiteError) -> SQLiteDatabase {
        let result = files.sync { () -> Result<SQLiteDatabase, SQLiteError> in
            do throws(SQLiteError) {
                return .success(try openNow(in: directory, partition: partition, protection: protection, log: log))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Where a partition's files are made, set aside and removed, one at a time, process-wide: a removal
    /// (``remove(_:)``) and an opening of the same file never interleave, so a file made again just after it was
    /// removed is never removed with it.
    private static let files = DispatchQueue(label: "JSONAPIClient.PartitionDatabase.files", qos: .userInitiated)

    /// ``open(in:partition:protection:log:)``, on ``files``.
    private static func openNow(
        in directory: URL, partition: String, protection: ResourceStore.Persistence.FileProtection,
        log: @Sendable (String) -> Void
    ) throws(SQLiteError) -> SQLiteDatabase {
        dispatchPrecondition(condition: .onQueue(files))
        let folder = folder(in: directory)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SQLiteError(code: 14, message: "\(error)", operation: "making the folder \(folder.path)")  // CANTOPEN
        }
        Platform.protectDirectory(folder, protection)
        let path = file(in: directory, partition: partition).path
        Platform.protectFiles(at: path, protection)
        var setAside = false
        while true {
            do throws(SQLiteError) {
                let database = try SQLiteDatabase(path: path, protection: protection)
                if let foreign = try prepare(database) {
                    guard !setAside else {
                        throw SQLiteError(code: SQLiteError.notADatabase, message: foreign, operation: "opening \(path)")
                    }
                    database.close()
                    guard Self.setAside(path, reason: foreign, log: log) else {
                        throw SQLiteError(code: SQLiteError.notADatabase, message: foreign, operation: "opening \(path)")
                    }
                    setAside = true
                    continue
                }
                return database
            } catch {
                guard error.isDamage && !setAside, Self.setAside(path, reason: error.description, log: log) else {
                    throw error
                }
                setAside = true
            }
        }
    }

    /// Removes the files of `partition` in `directory` — the database and SQLite's `-wal` and `-shm` — unless this
    /// process holds a connection to it (then nothing is removed): SQLite's last connection deletes `-wal` and
    /// `-shm` by path when it closes, so one left open would delete those of a database made there again.
    ///
    /// - Returns: Why some of the files are still there; `nil` when none is.
    static func remove(_ partition: String, in directory: URL) -> String? {
        let path = file(in: directory, partition: partition).path
        return files.sync { () -> String? in
            guard SQLiteDatabase.connections(to: path) == 0 else {
                return "\(path) is open in this process: nothing was removed"
            }
            let failed = [path, path + "-wal", path + "-shm"].filter { file in
                FileManager.default.fileExists(atPath: file) && (try? FileManager.default.removeItem(atPath: file)) == nil
            }
            return failed.isEmpty ? nil : "could not remove \(failed.joined(separator: ", "))"
        }
    }

    /// Makes the schema of a new file, or checks that the file is this library's.
    ///
    /// - Returns: Why the file is not this library's (to set it aside); `nil` when it is, with the current schema.
    private static func prepare(_ database: SQLiteDatabase) throws(SQLiteError) -> String? {
        if let foreign = try check(database) { return foreign }
        guard try database.userVersion() < Int64(schemaVersion) else { return nil }
        // New: made in a write transaction, checked again inside it, since another process may be doing it too.
        // On the opening thread (an app's main thread): fails rather than waits while persistence is suspended.
        return try database.immediateTransaction(ifSuspended: .fail) { () throws(SQLiteError) -> String? in
            if let foreign = try check(database) { return foreign }
            guard try database.userVersion() == 0 else { return nil }
            try database.executeScript(schema + storeTables)
            try database.setApplicationID(applicationID)
            try database.setUserVersion(schemaVersion)
            return nil
        }
    }

    /// Why the file is not this library's at the current schema, or `nil` (its schema, or a new empty file).
    ///
    /// The application id, schema version and object count are read by one statement, so from one snapshot: read
    /// one by one, another connection's commit of a new file's schema could fall between them (id 0, version 2),
    /// and the file — in use by that connection — would be set aside as another program's.
    private static func check(_ database: SQLiteDatabase) throws(SQLiteError) -> String? {
        let row = try database.rows(
            "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version), "
                + "(SELECT count(*) FROM sqlite_master)").first ?? []
        let id = row.first?.integer ?? 0
        let version = row.dropFirst().first?.integer ?? 0
        if id == 0 && version == 0 {
            let tables = row.last?.integer ?? 0
            return tables == 0 ? nil : "the file is another program's database (\(tables) objects, no application id)"
        }
        guard id == Int64(applicationID) else { return "the file is another program's database (application id \(id))" }
        guard version <= Int64(schemaVersion) else {
            return "the file was written by a newer version of the library (schema \(version), this one reads \(schemaVersion))"
        }
        guard version >= 1 else { return "the file has no schema version" }
        return nil
    }

    /// Renames the file at `path` (and its `-wal`) aside, removes its `-shm`, and logs why (`subject` and `outcome`
    /// frame the line) — only when this process holds no connection to it (``SQLiteDatabase/connections(to:)``):
    /// an open connection would go on writing into the file set aside, and delete the new file's `-wal` and `-shm`
    /// when it closes. Paths and reasons only: no row of the file is read into the message.
    ///
    /// - Returns: Whether the file was set aside.
    @discardableResult
    static func setAside(
        _ path: String, reason: String, log: @Sendable (String) -> Void, subject: String = "JSONAPIClient persistence",
        outcome: String = "it starts empty"
    ) -> Bool {
        guard SQLiteDatabase.connections(to: path) == 0 else {
            log("\(subject): \(path) is damaged (\(reason)) but was not set aside: a connection of this process has it open")
            return false
        }
        let aside = asideName(for: path)
        let moved = aside.map { rename(path, $0) == 0 } ?? false
        let failure = errno
        if let aside, moved { _ = rename(path + "-wal", aside + "-wal") }
        unlink(path + "-shm")
        let result = moved ? "set aside as \(aside ?? "")" : "could not be set aside (\(String(cString: strerror(failure))))"
        log("\(subject): \(path) \(result): \(reason); \(outcome)")
        return moved
    }

    /// A name to set `path` aside as that no file has: `<path>.set-aside-<seconds>-<random>` — two set-asides in
    /// one second (an app and its extension, or the queue and the store) never take the same name, so none
    /// overwrites an earlier one. `nil` when 16 random names are all taken (then nothing is renamed).
    static func asideName(for path: String) -> String? {
        let seconds = String(Int64(Date().timeIntervalSince1970))
        for _ in 0..<16 {
            let aside = path + ".set-aside-" + seconds + "-" + String(UInt64.random(in: 0 ... .max), radix: 16)
            if access(aside, F_OK) != 0 && access(aside + "-wal", F_OK) != 0 { return aside }
        }
        return nil
    }
}
