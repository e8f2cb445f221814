import Foundation

/// The file earlier versions of the library kept a persisted session's ``WriteQueue`` in: `writes.jsonapiqueue`, in
/// ``ResourceStore/Persistence/directory``. The queue now lives in the partition's database (``WriteQueueDatabase``),
/// which imports such a file once, when it opens, and removes it; this reads it.
///
/// Layout, all integers little-endian: the magic `JAPIWRTQ` (8 bytes), the format version (4), the payload's length
/// (8) and its checksum (8, ``StoreFile/checksum(of:)``), then the payload: the entries as a JSON array. A file of
/// another version, cut short or damaged is discarded whole with the reason logged to
/// ``ResourceStore/Persistence/log``.
enum WriteQueueFile {
    static let name = "writes.jsonapiqueue"
    static let magic = Array("JAPIWRTQ".utf8)
    static let version: UInt32 = 1
    static let headerSize = 8 + 4 + 8 + 8

    // MARK: Format

    /// The bytes of a file holding `entries`, as earlier versions wrote it (tests make the files to import with it).
    static func encode(_ entries: [WriteQueue.Entry]) throws -> [UInt8] {
        let payload = try JSONEncoder().encode(entries.map(WriteQueue.StoredEntry.init))
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
            return try JSONDecoder().decode([WriteQueue.StoredEntry].self, from: payload).map { try $0.entry() }
        } catch let error as StoreFile.Unreadable {
            throw error
        } catch {
            throw StoreFile.Unreadable(reason: "the entries do not parse (\(error))", offset: headerSize)
        }
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
