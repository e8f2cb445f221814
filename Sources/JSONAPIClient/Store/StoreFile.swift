import Foundation

/// The file a persisted ``ResourceStore`` keeps in its directory (`store.jsonapistore`): everything it holds, written
/// whole and replaced whole (`StoreWriter`), so that it is read back entirely or not at all.
///
/// Format version 1, all integers little-endian:
///
/// | bytes | what |
/// |---|---|
/// | 8 | magic `JAPISTOR` |
/// | 4 | format version (`1`) |
/// | 16 | the key check: the digest of nothing under the directory's partition key (a file written under another key is discarded: its partitions would never match) |
/// | 8 | payload length |
/// | 8 | FNV-1a 64 checksum of the payload |
/// | … | payload: sections, each a kind byte, a length (8 bytes) and its bytes |
///
/// Sections: kind `1`, the records — a JSON:API document written by ``JSONAPIEncoder`` whose primary data is every
/// record, least recently used first — once; kind `2`, one stored response each, least recently used first:
/// partition digest (2 × 8), URL, `Accept`, status, header fields (count, then name and value), the `Vary` names
/// (count, names), the `Vary` digest (2 × 8), freshness (lifetime, initial age, time received as seconds since
/// 2001 — three IEEE doubles — then `no-cache` and `must-revalidate` as a byte each), the collection types (count,
/// names), and the body. A string or body is its length (8 bytes) and its bytes (UTF-8 for strings).
///
/// Credentials are never in it: stored responses carry their partition's digest, and the header fields that carry
/// credentials were taken out when they were stored. A URL is kept as it was requested.
enum StoreFile {
    static let name = "store.jsonapistore"
    static let magic = Array("JAPISTOR".utf8)
    static let version: UInt32 = 1
    static let headerSize = 8 + 4 + 16 + 8 + 8

    /// What a store file holds, least recently used first.
    struct Contents {
        var records: [ResourceObject] = []
        var responses: [(key: ResponseKey, response: StoredResponse)] = []
    }

    enum Section: UInt8 {
        case records = 1
        case response = 2
    }

    /// Why a file was not read, and where: never a credential or a body.
    struct Unreadable: Error, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) (at byte \(offset))" }
    }

    // MARK: Writing

    /// The file of `contents` under `key`.
    ///
    /// - Throws: What ``JSONAPIEncoder`` throws for the records (not expected: they were decoded by it).
    static func encode(_ contents: Contents, key: DigestKey) throws -> [UInt8] {
        var payload = ByteWriter()
        let records = try JSONAPIEncoder().encode(RawDocument(data: .resources(contents.records)))
        payload.append(Section.records.rawValue)
        payload.append(data: records)
        for (responseKey, stored) in contents.responses {
            var section = ByteWriter()
            section.append(responseKey.partition.high)
            section.append(responseKey.partition.low)
            section.append(responseKey.url)
            section.append(responseKey.accept)
            section.append(UInt64(clamping: stored.response.status.code))
            section.append(UInt64(stored.response.headerFields.count))
            for field in stored.response.headerFields {
                section.append(field.name.rawName)
                section.append(field.value)
            }
            section.append(UInt64(stored.varyNames.count))
            for name in stored.varyNames { section.append(name.rawName) }
            section.append(stored.varyDigest.high)
            section.append(stored.varyDigest.low)
            section.append(stored.freshness.lifetime.bitPattern)
            section.append(stored.freshness.initialAge.bitPattern)
            section.append(stored.freshness.receivedAt.timeIntervalSinceReferenceDate.bitPattern)
            section.append(UInt8(stored.freshness.requiresValidation ? 1 : 0))
            section.append(UInt8(stored.freshness.mustRevalidate ? 1 : 0))
            section.append(UInt64(stored.collectionTypes.count))
            for type in stored.collectionTypes.sorted() { section.append(type) }
            section.append(data: stored.response.body)
            payload.append(Section.response.rawValue)
            payload.append(bytes: section.bytes)
        }
        var file = ByteWriter()
        file.bytes.reserveCapacity(headerSize + payload.bytes.count)
        file.bytes += magic
        withUnsafeBytes(of: version.littleEndian) { file.bytes.append(contentsOf: $0) }
        let check = key.check
        file.append(check.high)
        file.append(check.low)
        file.append(UInt64(payload.bytes.count))
        file.append(checksum(payload.bytes[...]))
        file.bytes += payload.bytes
        return file.bytes
    }

    // MARK: Reading

    /// The contents of `bytes`, all of it or nothing.
    ///
    /// - Throws: ``Unreadable`` when the file is not one this version writes — another format version, another
    ///   key, a length or checksum that does not match (cut short, damaged), a section that does not parse.
    static func decode(_ bytes: [UInt8], key: DigestKey) throws(Unreadable) -> Contents {
        var reader = ByteReader(bytes: bytes)
        guard bytes.count >= headerSize else {
            throw Unreadable(reason: "the file is \(bytes.count) bytes, shorter than its header", offset: 0)
        }
        guard try reader.take(8, "the magic").elementsEqual(magic) else {
            throw Unreadable(reason: "the file is not a store file (its first bytes are not JAPISTOR)", offset: 0)
        }
        let version = try reader.take(4, "the version").reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == Self.version else {
            throw Unreadable(reason: "format version \(version), this library reads \(Self.version)", offset: 8)
        }
        let check = CredentialDigest(high: try reader.u64("the key check"), low: try reader.u64("the key check"))
        guard check == key.check else {
            throw Unreadable(reason: "the file was written under another partition key", offset: 12)
        }
        let length = try reader.u64("the payload length")
        guard length == UInt64(bytes.count - headerSize) else {
            throw Unreadable(
                reason: "the payload is \(bytes.count - headerSize) bytes, its header says \(length) (cut short or damaged)",
                offset: 28)
        }
        let sum = try reader.u64("the checksum")
        guard checksum(bytes[headerSize...]) == sum else {
            throw Unreadable(reason: "the checksum does not match: the file is damaged", offset: 36)
        }
        var contents = Contents()
        var sawRecords = false
        while !reader.isAtEnd {
            let start = reader.offset
            let kind = try reader.u8("a section kind")
            let length = try reader.length("the section's length")
            var section = ByteReader(bytes: bytes, offset: reader.offset, end: reader.offset + length)
            reader.offset += length
            switch Section(rawValue: kind) {
            case .records:
                guard !sawRecords else { throw Unreadable(reason: "a second records section", offset: start) }
                sawRecords = true
                contents.records = try records(section.rest(), offset: section.offset)
            case .response:
                contents.responses.append(try response(&section))
                guard section.isAtEnd else {
                    throw Unreadable(reason: "a response section has bytes left over", offset: section.offset)
                }
            case nil:
                throw Unreadable(reason: "unknown section kind \(kind)", offset: start)
            }
        }
        guard sawRecords else { throw Unreadable(reason: "no records section", offset: bytes.count) }
        return contents
    }

    private static func records(_ bytes: ArraySlice<UInt8>, offset: Int) throws(Unreadable) -> [ResourceObject] {
        let document: RawDocument
        do {
            document = try JSONAPIDecoder().decode(RawDocument.self, from: Array(bytes))
        } catch {
            throw Unreadable(reason: "the records are not a JSON:API document", offset: offset)
        }
        guard case .resources(let records) = document.data else {
            throw Unreadable(reason: "the records document's primary data is not a list", offset: offset)
        }
        guard records.allSatisfy({ $0.id != nil }) else {
            throw Unreadable(reason: "a record has no id", offset: offset)
        }
        return records
    }

    private static func response(_ reader: inout ByteReader) throws(Unreadable) -> (
        key: ResponseKey, response: StoredResponse
    ) {
        let partition = CredentialDigest(high: try reader.u64("a partition"), low: try reader.u64("a partition"))
        let url = try reader.string("a URL")
        let accept = try reader.string("an Accept value")
        let statusOffset = reader.offset
        let status = try reader.u64("a status")
        guard (200...299).contains(status) else {
            throw Unreadable(reason: "status \(status) is not a success", offset: statusOffset)
        }
        var fields = HTTPFields()
        for _ in 0..<(try reader.count("the header field count")) {
            fields.append(HTTPField.Name(try reader.string("a field name")), try reader.string("a field value"))
        }
        var varyNames: [HTTPField.Name] = []
        for _ in 0..<(try reader.count("the Vary name count")) { varyNames.append(HTTPField.Name(try reader.string("a Vary name"))) }
        let varyDigest = CredentialDigest(high: try reader.u64("a Vary digest"), low: try reader.u64("a Vary digest"))
        let numbersOffset = reader.offset
        let lifetime = Double(bitPattern: try reader.u64("a lifetime"))
        let initialAge = Double(bitPattern: try reader.u64("an age"))
        let received = Double(bitPattern: try reader.u64("a time received"))
        guard lifetime.isFinite, lifetime >= 0, initialAge.isFinite, initialAge >= 0, received.isFinite else {
            throw Unreadable(reason: "a freshness value is not a time", offset: numbersOffset)
        }
        let requiresValidation = try reader.flag("no-cache")
        let mustRevalidate = try reader.flag("must-revalidate")
        var collectionTypes: Set<String> = []
        for _ in 0..<(try reader.count("the collection type count")) {
            collectionTypes.insert(try reader.string("a collection type"))
        }
        let body = Data(try reader.take(try reader.length("a body's length"), "a body"))
        let key = ResponseKey(partition: partition, url: url, accept: accept)
        let stored = StoredResponse(
            response: HTTPResponse(status: .init(code: Int(status)), headerFields: fields, body: body), lastUse: 0,
            varyNames: varyNames, varyDigest: varyDigest,
            freshness: Freshness(
                lifetime: lifetime, initialAge: initialAge, receivedAt: Date(timeIntervalSinceReferenceDate: received),
                requiresValidation: requiresValidation, mustRevalidate: mustRevalidate),
            collectionTypes: collectionTypes)
        return (key, stored)
    }

    /// FNV-1a, 64 bits, over `bytes`: catches a damaged or mixed-up file (the rename makes a torn one impossible).
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}

extension ResponseKey {
    /// A key read back from a store file.
    init(partition: CredentialDigest, url: String, accept: String) {
        self.partition = partition
        self.url = url
        self.accept = accept
    }
}

extension Freshness {
    /// Freshness read back from a store file.
    init(lifetime: Double, initialAge: Double, receivedAt: Date, requiresValidation: Bool, mustRevalidate: Bool) {
        self.lifetime = lifetime
        self.initialAge = initialAge
        self.receivedAt = receivedAt
        self.requiresValidation = requiresValidation
        self.mustRevalidate = mustRevalidate
    }
}

/// Appends the store file's little-endian integers, strings and byte runs.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ string: String) {
        append(UInt64(string.utf8.count))
        bytes.append(contentsOf: string.utf8)
    }

    mutating func append(data: Data) {
        append(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func append(bytes more: [UInt8]) {
        append(UInt64(more.count))
        bytes.append(contentsOf: more)
    }
}

/// Reads what ``ByteWriter`` wrote, every length checked against what is left: a value that does not fit is an
/// ``StoreFile/Unreadable`` naming what was being read and where, never a trap.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { offset >= end }

    /// The bytes left, consumed.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { offset = end }
        return bytes[offset..<end]
    }

    mutating func take(_ count: Int, _ what: String) throws(StoreFile.Unreadable) -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - offset else {
            throw StoreFile.Unreadable(reason: "\(what) runs past the end of its section", offset: offset)
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8(_ what: String) throws(StoreFile.Unreadable) -> UInt8 {
        try take(1, what).first ?? 0
    }

    mutating func u64(_ what: String) throws(StoreFile.Unreadable) -> UInt64 {
        try take(8, what).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A length of bytes that follow: no more than what is left.
    mutating func length(_ what: String) throws(StoreFile.Unreadable) -> Int {
        let start = offset
        let value = try u64(what)
        guard value <= UInt64(end - offset) else {
            throw StoreFile.Unreadable(reason: "\(what) (\(value)) is more than the \(end - offset) bytes left", offset: start)
        }
        return Int(value)
    }

    /// A count of items that follow, each at least 8 bytes: no more than what is left could hold.
    mutating func count(_ what: String) throws(StoreFile.Unreadable) -> Int {
        let start = offset
        let value = try u64(what)
        guard value <= UInt64((end - offset) / 8) else {
            throw StoreFile.Unreadable(reason: "\(what) (\(value)) is more than the bytes left can hold", offset: start)
        }
        return Int(value)
    }

    mutating func string(_ what: String) throws(StoreFile.Unreadable) -> String {
        let start = offset
        let slice = try take(try length(what), what)
        guard let string = String(bytes: slice, encoding: .utf8) else {
            throw StoreFile.Unreadable(reason: "\(what) is not UTF-8", offset: start)
        }
        return string
    }

    mutating func flag(_ what: String) throws(StoreFile.Unreadable) -> Bool {
        let start = offset
        switch try u8(what) {
        case 0: return false
        case 1: return true
        case let other: throw StoreFile.Unreadable(reason: "\(what) is \(other), not 0 or 1", offset: start)
        }
    }
}
