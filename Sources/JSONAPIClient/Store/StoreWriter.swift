import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a persisted ``ResourceStore``'s directory: its partition key, its file, and the writes, in the background.
///
/// The directory holds two files: `partition.key`, the 32 random bytes of the store's ``DigestKey`` (made on first
/// use, owner-only, never rewritten), and `store.jsonapistore` (``StoreFile``), the whole store.
///
/// **Crash consistency.** The file is replaced, never changed in place: a write goes to a new file of its own in
/// the directory (owner-only), which is flushed to the disk (`fsync`; `F_FULLFSYNC` on Apple platforms, where
/// `fsync` leaves the data in the drive's cache), then renamed over the old one (atomic: a reader sees the old file
/// or the new, whole), and the directory is flushed so the rename itself survives a power cut. A process killed at
/// any instant leaves the last file whose write completed, and a new file of its own that the next open removes.
/// The file also carries its length and a checksum, so a file damaged some other way is discarded, never read in
/// part. One file rather than a log of changes: a read is one parse, there is nothing to compact, and a change
/// never leaves records and responses out of step; the price is that each save writes the whole store (bounded by
/// its limits), which the batching below keeps to one write per ``ResourceStore/Persistence/delay``.
///
/// **Batching.** A change only marks the store as changed; the first change after a write schedules the next one
/// `delay` later on a serial utility queue, which merges the bodies waiting, copies the state (copy-on-write,
/// under the store's lock only for the copy), and encodes and writes it. ``ResourceStore/flush()`` runs a write on
/// that queue at once and returns when it is on disk.
///
/// On Apple platforms the directory is excluded from backups and the files get the data protection class
/// `completeUntilFirstUserAuthentication`.
final class StoreWriter: Sendable {
    static let keyName = "partition.key"

    let directory: URL
    let persistence: ResourceStore.Persistence
    let key: DigestKey
    private let queue = DispatchQueue(label: "JSONAPIClient.ResourceStore.writer", qos: .utility)

    private struct State {
        /// Changes handed over, counted.
        var requested: UInt64 = 0
        /// The count the last successful write included.
        var saved: UInt64 = 0
        /// Whether a write is scheduled.
        var scheduled = false
    }

    private let state = LockedValue(State())


    private init(directory: URL, persistence: ResourceStore.Persistence, key: DigestKey) {
        self.directory = directory
        self.persistence = persistence
        self.key = key
    }

    // MARK: Opening

    /// Opens `persistence`'s directory — made owner-only if missing; its key read, or made — and reads its file.
    ///
    /// - Returns: The writer, the key, and the file's contents (`nil` without a file, or when it was discarded:
    ///   the reason is logged); `nil` when the directory or key cannot be had (logged: the store stays in memory).
    static func open(_ persistence: ResourceStore.Persistence) -> (
        writer: StoreWriter, key: DigestKey, contents: StoreFile.Contents?
    )? {
        let directory = persistence.directory
        let log = persistence.log
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            log("JSONAPIClient store: cannot make the directory \(directory.path) (\(error)); the store stays in memory")
            return nil
        }
        Platform.protectDirectory(directory)
        removeLeftovers(in: directory)
        let key: DigestKey
        var keyWasMade = false
        let keyURL = directory.appendingPathComponent(keyName)
        if let data = FileManager.default.contents(atPath: keyURL.path), let read = DigestKey(bytes: Array(data)) {
            key = read
        } else {
            if FileManager.default.fileExists(atPath: keyURL.path) {
                log("JSONAPIClient store: the partition key in \(directory.path) is damaged; a new one is made")
            }
            key = DigestKey.random()
            do {
                try writeAtomically(key.bytes, to: keyURL, in: directory)
            } catch {
                log("JSONAPIClient store: cannot write the partition key in \(directory.path) (\(error.detail)); the store stays in memory")
                return nil
            }
            keyWasMade = true
        }
        let writer = StoreWriter(directory: directory, persistence: persistence, key: key)
        return (writer, key, writer.read(keyWasMade: keyWasMade))
    }

    /// The file's contents, or `nil` (logged, and the file removed) when it is not there or cannot be read whole.
    private func read(keyWasMade: Bool) -> StoreFile.Contents? {
        let url = directory.appendingPathComponent(StoreFile.name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let reason: String
        do {
            return try StoreFile.decode(try Data(contentsOf: url), key: key)
        } catch let error as StoreFile.Unreadable {
            reason = keyWasMade ? "its partition key was lost" : error.description
        } catch {
            reason = "it cannot be read (\(error))"
        }
        persistence.log("JSONAPIClient store: discarded \(url.path): \(reason); the store starts empty")
        unlink(url.path)
        return nil
    }

    /// Removes the new files of writes that never finished (a process killed while writing).
    private static func removeLeftovers(in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".tmp") && (name.hasPrefix(StoreFile.name) || name.hasPrefix(keyName)) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    // MARK: Writing

    /// Notes a change of `store` and schedules a write `delay` from now, unless one is scheduled.
    func schedule(_ store: ResourceStore) {
        let start = state.withLock { state -> Bool in
            state.requested &+= 1
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        queue.asyncAfter(deadline: .now() + Self.interval(persistence.delay)) { [self] in
            state.withLock { $0.scheduled = false }
            if let error = save(store) { persistence.log("JSONAPIClient store: not saved: \(error.detail)") }
        }
    }

    /// Writes what `store` holds now, unless nothing changed since the last write, and returns when it is on disk.
    ///
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when the write failed; the file on disk is the previous one.
    func flush(_ store: ResourceStore) async throws(JSONAPIClientError) {
        let error: JSONAPIClientError? = await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: save(store)) }
        }
        if let error { throw error }
    }

    /// Removes the file, after any write in progress: when this returns, a restart finds no store.
    func removeFile() {
        queue.sync {
            unlink(directory.appendingPathComponent(StoreFile.name).path)
            Self.synchronizeDirectory(directory)
        }
    }

    /// Writes `store` when it changed since the last write (on the queue).
    private func save(_ store: ResourceStore) -> JSONAPIClientError? {
        let (target, saved) = state.withLock { ($0.requested, $0.saved) }
        guard target != saved else { return nil }
        let contents = store.contentsToSave()
        let records = contents.records.map(\.record.stored)
        let bytes = StoreFile.encode(records: records, responses: contents.responses, key: key)
        do {
            try Self.writeAtomically(bytes, to: directory.appendingPathComponent(StoreFile.name), in: directory)
        } catch {
            return error
        }
        state.withLock { $0.saved = max($0.saved, target) }
        return nil
    }

    /// Writes `bytes` to a new owner-only file beside `url`, flushes it to the disk, renames it over `url` and
    /// flushes the directory; on failure the new file is removed and `url` is as it was.
    static func writeAtomically(_ bytes: [UInt8], to url: URL, in directory: URL) throws(JSONAPIClientError) {
        let temporary = url.path + "." + String(UInt64.random(in: 0 ... .max), radix: 16) + ".tmp"
        func failure(_ step: String, _ code: Int32) -> JSONAPIClientError {
            JSONAPIClientError(
                code: .storeNotSaved, detail: "\(step) \(temporary) failed: \(String(cString: strerror(code)))",
                underlyingError: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
        }
        let descriptor = Glibc_open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("creating", errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            Platform.protectFile(temporary)
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            Platform.synchronizeFully(descriptor)
            try handle.close()
        } catch {
            try? handle.close()
            unlink(temporary)
            throw JSONAPIClientError(
                code: .storeNotSaved, detail: "writing \(temporary) failed", underlyingError: error)
        }
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("renaming", code)
        }
        synchronizeDirectory(directory)
    }

    /// Flushes `directory`'s entries (a rename) to the disk.
    static func synchronizeDirectory(_ directory: URL) {
        let descriptor = Glibc_open(directory.path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    /// `delay` as a dispatch interval: milliseconds, from zero to an hour (so it fits a 32-bit `Int`).
    static func interval(_ delay: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = delay.components
        guard seconds >= 0 else { return .milliseconds(0) }
        guard seconds < 3600 else { return .milliseconds(3_600_000) }
        return .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

/// `open(2)` with a mode (the C function is variadic; Swift imports this form on every platform).
private func Glibc_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

/// What only Apple platforms do to a store's files; nothing elsewhere.
enum Platform {
    /// Excludes `directory` from backups and gives it the protection class new files inherit.
    static func protectDirectory(_ directory: URL) {
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = directory
        try? url.setResourceValues(values)
        try? FileManager.default.setAttributes(
            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: directory.path)
        #endif
    }

    /// Gives the file at `path` the protection class `completeUntilFirstUserAuthentication`.
    static func protectFile(_ path: String) {
        #if canImport(Darwin)
        try? FileManager.default.setAttributes(
            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path)
        #endif
    }

    /// Asks the drive to write its cache to the medium (`F_FULLFSYNC`), after `fsync`, which on Apple platforms
    /// does not.
    static func synchronizeFully(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = fcntl(descriptor, F_FULLFSYNC)
        #endif
    }
}
