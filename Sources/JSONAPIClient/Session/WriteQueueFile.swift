import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a persisted session keeps its ``WriteQueue`` in: `writes.jsonapiqueue`, beside the store's file in
/// ``ResourceStore/Persistence/directory``.
///
/// Layout, all integers little-endian: the magic `JAPIWRTQ` (8 bytes), the format version (4), the payload's length
/// (8) and its checksum (8, ``StoreFile/checksum(of:)``), then the payload: the entries as a JSON array. It is
/// rewritten whole on changes of the queue, on ``WriteQueuePersister``'s queue (a queued write returns only once
/// its entry is on disk; a burst of changes is one write), by ``StoreWriter/writeAtomically(_:to:in:)``: a new owner-only file, `fsync`, rename,
/// directory `fsync`. A file of another version, cut short or damaged is discarded whole with the reason logged to
/// ``ResourceStore/Persistence/log``; the queue then starts empty.
struct WriteQueueFile: WriteQueueStorage {
    static let name = "writes.jsonapiqueue"
    static let magic = Array("JAPIWRTQ".utf8)
    static let version: UInt32 = 1
    static let headerSize = 8 + 4 + 8 + 8

    let directory: URL
    let log: @Sendable (String) -> Void

    init(_ persistence: ResourceStore.Persistence) {
        self.directory = persistence.directory
        self.log = persistence.log
    }

    var url: URL { directory.appendingPathComponent(Self.name) }

    /// The entries of the file; `nil` without one, or when it was discarded (logged, and removed). The new files of
    /// writes that never finished (a process killed while writing) are removed first.
    func load() -> [WriteQueue.Entry]? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(Self.name + ".") && name.hasSuffix(".tmp") {
            unlink(directory.appendingPathComponent(name).path)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try Self.decode(data)
        } catch {
            log("JSONAPIClient write queue: discarded \(url.path): \(error); the queue starts empty")
            unlink(url.path)
            return nil
        }
    }

    /// Replaces the file with `entries` (removes it when there are none).
    ///
    /// - Throws: The step that failed; the previous file is left whole.
    func save(_ entries: [WriteQueue.Entry]) throws {
        guard !entries.isEmpty else {
            if unlink(url.path) == 0 { StoreWriter.synchronizeDirectory(directory) }
            return
        }
        try StoreWriter.writeAtomically(try Self.encode(entries), to: url, in: directory)
    }

    // MARK: Format

    /// The bytes of a file holding `entries`.
    static func encode(_ entries: [WriteQueue.Entry]) throws -> [UInt8] {
        let payload = try JSONEncoder().encode(entries.map(Stored.init))
        var bytes = magic
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt64(payload.count))
        bytes.appendLittleEndian(StoreFile.checksum(of: payload))
        bytes += payload
        return bytes
    }

    /// The entries of the file `data`, all or none.
    ///
    /// - Throws: ``StoreFile/Unreadable`` saying what does not match, and where.
    static func decode(_ data: Data) throws(StoreFile.Unreadable) -> [WriteQueue.Entry] {
        let bytes = [UInt8](data)
        guard bytes.count >= headerSize else {
            throw StoreFile.Unreadable(reason: "the file is \(bytes.count) bytes, shorter than its header", offset: 0)
        }
        guard bytes[0..<8].elementsEqual(magic) else {
            throw StoreFile.Unreadable(reason: "the file is not a write queue (its first bytes are not JAPIWRTQ)", offset: 0)
        }
        let version = integer(bytes[8..<12])
        guard version == UInt64(Self.version) else {
            throw StoreFile.Unreadable(reason: "format version \(version), this library reads \(Self.version)", offset: 8)
        }
        let length = integer(bytes[12..<20])
        guard length == UInt64(bytes.count - headerSize) else {
            throw StoreFile.Unreadable(
                reason: "the payload is \(bytes.count - headerSize) bytes, the header says \(length)", offset: 12)
        }
        let payload = Data(bytes[headerSize...])
        guard integer(bytes[20..<28]) == StoreFile.checksum(of: payload) else {
            throw StoreFile.Unreadable(reason: "the checksum does not match (the file is damaged)", offset: 20)
        }
        do {
            return try JSONDecoder().decode([Stored].self, from: payload).map { try $0.entry() }
        } catch let error as StoreFile.Unreadable {
            throw error
        } catch {
            throw StoreFile.Unreadable(reason: "the entries do not parse (\(error))", offset: headerSize)
        }
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// An entry as the file keeps it.
    private struct Stored: Codable {
        var id: String
        var method: String
        var url: String
        var type: String
        var resourceID: String
        var attempts: Int
        var serverErrors: Int
        var created: Date
        var body: Data?
        var headerFields: [[String]]
        var kind: ResourceStore.PendingKind
        var optimistic: Bool
        var clientGeneratedID: Bool
        var sent: Bool
        /// Whether it is held until the app retries it (absent in files of earlier versions of the library).
        var failing: Bool?
        /// The owner's digest (``CredentialDigest/description``), never the credentials.
        var owner: String?
        /// A relationship endpoint's relationship, and what the store shows of the write (absent in files of
        /// earlier versions of the library, and for other writes).
        var relationship: String?
        var shown: Data?

        init(_ entry: WriteQueue.Entry) {
            id = entry.id
            method = entry.method.rawValue
            url = entry.url.absoluteString
            type = entry.type
            resourceID = entry.resourceID
            attempts = entry.attempts
            serverErrors = entry.serverErrors
            created = entry.created
            body = entry.body
            headerFields = entry.headerFields.map { [$0.name.rawName, $0.value] }
            kind = entry.kind
            optimistic = entry.optimistic
            clientGeneratedID = entry.clientGeneratedID
            sent = entry.sent
            failing = entry.isFailing
            owner = entry.owner?.description
            relationship = entry.relationship
            shown = entry.shown
        }

        func entry() throws(StoreFile.Unreadable) -> WriteQueue.Entry {
            guard let url = URL(string: url), headerFields.allSatisfy({ $0.count == 2 }) else {
                throw StoreFile.Unreadable(reason: "entry \(id) has an invalid URL or header field", offset: 0)
            }
            var entry = WriteQueue.Entry(
                method: HTTPMethod(rawValue: method), url: url, type: type, resourceID: resourceID, body: body,
                headerFields: HTTPFields(headerFields.map { HTTPField(name: HTTPField.Name($0[0]), value: $0[1]) }),
                kind: kind, clientGeneratedID: clientGeneratedID, id: id, attempts: max(attempts, 0), created: created,
                optimistic: optimistic)
            entry.serverErrors = max(serverErrors, 0)
            entry.sent = sent
            entry.isFailing = failing ?? false
            entry.relationship = relationship
            entry.shown = shown
            if let owner {
                guard let digest = CredentialDigest(owner) else {
                    throw StoreFile.Unreadable(reason: "entry \(id) has an invalid owner", offset: 0)
                }
                entry.owner = digest
            }
            return entry
        }
    }
}
