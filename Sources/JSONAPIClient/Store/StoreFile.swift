import Foundation

/// The file a persisted ``ResourceStore`` keeps in its directory (`store.jsonapistore`): everything it holds, written
/// whole and replaced whole (`StoreWriter`), so that it is read back entirely or not at all.
///
/// Format version 2, all integers little-endian (version 1 wrote the records as primary data, where a record with
/// no attributes, relationships or links reads as an identifier):
///
/// | bytes | what |
/// |---|---|
/// | 8 | magic `JAPISTOR` |
/// | 4 | format version (`2`) |
/// | 16 | the key check: the digest of nothing under the directory's partition key (a file written under another key is discarded: its partitions would never match) |
/// | 8 | payload length |
/// | 8 | FNV-1a 64 checksum of the payload |
/// | … | payload: sections, each a kind byte, a length (8 bytes) and its bytes |
///
/// Sections: kind `1`, the records — a JSON:API document, `{"data":[],"included":[…]}`, whose `included` is every
/// record, least recently used first, each resource object written from its tape as it was parsed — once; kind `2`, one stored response each, least recently used first:
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
    static let version: UInt32 = 2
    static let headerSize = 8 + 4 + 16 + 8 + 8

    /// What a store file holds, least recently used first.
    struct Contents {
        /// The records, as parsed from the file's records document (each resource read back without an error).
        var records: ResourceRecords?
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

    /// The file of `records` and `responses`, under `key`, built in one buffer (the lengths and the checksum are
    /// filled in once their bytes are written). The records go in as one document's `included` (every member of
    /// it is a resource object; primary data would read a record without fields as an identifier).
    static func encode(
        records: [ResourceRecord], responses: [(key: ResponseKey, response: StoredResponse)], key: DigestKey
    ) -> [UInt8] {
        var file = ByteWriter()
        var capacity = headerSize + 32
        for record in records { capacity += record.textSize + 1 }
        for (_, stored) in responses { capacity += stored.response.body.count + 1024 }
        file.bytes.reserveCapacity(capacity)
        file.bytes += magic
        file.bytes.appendLittleEndian(version)
        let check = key.check
        file.append(check.high)
        file.append(check.low)
        file.append(UInt64(0))  // the payload's length, below
        file.append(UInt64(0))  // its checksum, below

        file.append(Section.records.rawValue)
        let recordsStart = file.beginLength()
        file.bytes += Array(#"{"data":[],"included":["#.utf8)
        for (index, record) in records.enumerated() {
            if index > 0 { file.append(UInt8(ascii: ",")) }
            record.write(into: &file.bytes)
        }
        file.bytes += Array("]}".utf8)
        file.endLength(recordsStart)

        for (responseKey, stored) in responses {
            file.append(Section.response.rawValue)
            let start = file.beginLength()
            appendResponse(stored, for: responseKey, to: &file)
            file.endLength(start)
        }
        file.patch(UInt64(file.bytes.count - headerSize), at: 28)
        file.patch(checksum(of: file.bytes[headerSize...]), at: 36)
        return file.bytes
    }

    /// Appends a response section's bytes (without its kind and length): what the database keeps of a stored
    /// response, one row each (``StoreWriter``).
    static func appendResponse(_ stored: StoredResponse, for responseKey: ResponseKey, to file: inout ByteWriter) {
        file.append(responseKey.partition.high)
        file.append(responseKey.partition.low)
        file.append(responseKey.url)
        file.append(responseKey.accept)
        file.append(UInt64(clamping: stored.response.status.code))
        file.append(UInt64(stored.response.headerFields.count))
        for field in stored.response.headerFields {
            file.append(field.name.rawName)
            file.append(field.value)
        }
        file.append(UInt64(stored.varyNames.count))
        for name in stored.varyNames { file.append(name.rawName) }
        file.append(stored.varyDigest.high)
        file.append(stored.varyDigest.low)
        file.append(stored.freshness.lifetime.bitPattern)
        file.append(stored.freshness.initialAge.bitPattern)
        file.append(stored.freshness.receivedAt.timeIntervalSinceReferenceDate.bitPattern)
        file.append(UInt8(stored.freshness.requiresValidation ? 1 : 0))
        file.append(UInt8(stored.freshness.mustRevalidate ? 1 : 0))
        file.append(UInt64(stored.collectionTypes.count))
        for type in stored.collectionTypes.sorted() { file.append(type) }
        file.append(data: stored.response.body)
    }

    /// A stored response's bytes, as ``appendResponse(_:for:to:)`` writes them.
    static func responseBytes(_ stored: StoredResponse, for key: ResponseKey) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(stored.response.body.count + 512)
        appendResponse(stored, for: key, to: &writer)
        return writer.bytes
    }

    /// The stored response of `bytes`, as ``appendResponse(_:for:to:)`` wrote it.
    ///
    /// - Throws: ``Unreadable`` when the bytes are not one whole response (damaged, cut short, bytes left over).
    static func response(from bytes: Data) throws(Unreadable) -> (key: ResponseKey, response: StoredResponse) {
        let bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
        var reader = ByteReader(data: bytes)
        let response = try response(&reader)
        guard reader.isAtEnd else { throw Unreadable(reason: "a response has bytes left over", offset: reader.offset) }
        return response
    }

    /// The file of `contents` under `key`.
    static func encode(_ contents: Contents, key: DigestKey) -> [UInt8] {
        let records = contents.records.map { records in records.resources.map { $0.record(in: records) } } ?? []
        return encode(records: records, responses: contents.responses, key: key)
    }

    // MARK: Reading

    /// The contents of `data`, all of it or nothing.
    ///
    /// - Throws: ``Unreadable`` when the file is not one this version writes — another format version, another
    ///   key, a length or checksum that does not match (cut short, damaged), a section that does not parse.
    static func decode(_ data: Data, key: DigestKey) throws(Unreadable) -> Contents {
        let data = data.startIndex == 0 ? data : Data(data)
        var reader = ByteReader(data: data)
        guard data.count >= headerSize else {
            throw Unreadable(reason: "the file is \(data.count) bytes, shorter than its header", offset: 0)
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
        guard length == UInt64(data.count - headerSize) else {
            throw Unreadable(
                reason: "the payload is \(data.count - headerSize) bytes, its header says \(length) (cut short or damaged)",
                offset: 28)
        }
        let sum = try reader.u64("the checksum")
        guard checksum(of: data[headerSize...]) == sum else {
            throw Unreadable(reason: "the checksum does not match: the file is damaged", offset: 36)
        }
        var contents = Contents()
        var sawRecords = false
        while !reader.isAtEnd {
            let start = reader.offset
            let kind = try reader.u8("a section kind")
            let length = try reader.length("the section's length")
            var section = ByteReader(bytes: reader.bytes, offset: reader.offset, end: reader.offset + length)
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
        guard sawRecords else { throw Unreadable(reason: "no records section", offset: data.count) }
        return contents
    }

    static func records(_ bytes: Data, offset: Int) throws(Unreadable) -> ResourceRecords {
        let records: ResourceRecords
        do {
            records = try JSONAPIDecoder().records(from: bytes)
        } catch {
            throw Unreadable(reason: "the records are not a JSON:API document", offset: offset)
        }
        guard records.listedCount == 0 else {
            throw Unreadable(reason: "the records document's primary data is not an empty list", offset: offset)
        }
        guard records.includedCount == records.resources.count else {
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
        let body = Data(try reader.take(try reader.length("a body's length"), "a body"))  // a copy: not the file's
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

    /// The checksum of `bytes`: catches a damaged or mixed-up file (the rename makes a torn one impossible). Not a
    /// MAC: nothing secret is checked by it.
    static func checksum(of bytes: some ContiguousBytes) -> UInt64 {
        bytes.withUnsafeBytes(checksum)
    }

    /// A 64-bit multiply-and-rotate hash of `bytes`, eight at a time (then the last few one at a time): each word is
    /// folded in by xor, a multiplication by an odd constant (carrying every bit upwards) and a rotation (bringing
    /// the high bits back down), so any change of a byte changes what follows; the length is folded in last.
    ///
    /// Unsafe: it reads the words with `loadUnaligned`. Invariant: the loop reads at `offset` only while
    /// `offset + 8 <= bytes.count`, and `bytes` does not outlive the caller's `withUnsafeBytes`. Payoff, measured
    /// with callgrind at N = 1,000 (`store-load`, 2.6 MB checked): 1.3 M instructions a load against 12.0 M for
    /// FNV-1a a byte at a time, 15 % of a load.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9e37_79b9_7f4a_7c15
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let whole = bytes.count - bytes.count % 8
        var offset = 0
        while offset < whole {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = (hash ^ word) &* multiplier
            hash = hash << 31 | hash >> 33
            offset += 8
        }
        while offset < bytes.count {
            hash = ((hash ^ UInt64(bytes[offset])) &* multiplier)
            hash = hash << 31 | hash >> 33
            offset += 1
        }
        return (hash ^ UInt64(truncatingIfNeeded: bytes.count)) &* multiplier
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
        bytes.appendLittleEndian(value)
    }

    mutating func append(_ string: String) {
        append(UInt64(string.utf8.count))
        bytes.append(contentsOf: string.utf8)
    }

    mutating func append(data: Data) {
        append(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// Writes a length to be filled in by ``endLength(_:)``, and returns where its bytes start.
    mutating func beginLength() -> Int {
        append(UInt64(0))
        return bytes.count
    }

    /// Fills in the length begun at `start`: the bytes written since.
    mutating func endLength(_ start: Int) {
        patch(UInt64(bytes.count - start), at: start - 8)
    }

    /// Overwrites the eight bytes at `offset` with `value`.
    mutating func patch(_ value: UInt64, at offset: Int) {
        for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }
}

/// Reads what ``ByteWriter`` wrote, every length checked against what is left: a value that does not fit is an
/// ``StoreFile/Unreadable`` naming what was being read and where, never a trap.
struct ByteReader {
    /// The file's bytes: an array, whose reads the compiler inlines (a `Data`'s cost a call and an exclusivity check
    /// per byte on Linux: most of a store's opening, measured). A section's reader shares its file's array.
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    /// A reader of `data`'s bytes, copied once.
    init(data: Data) {
        self.init(bytes: Array(data))
    }

    /// A reader of `bytes` from `offset` to `end` (the end of `bytes` when `nil`).
    init(bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { offset >= end }

    /// The bytes left, consumed (a copy).
    mutating func rest() -> Data {
        defer { offset = end }
        return Data(bytes[offset..<end])
    }

    /// The next `count` bytes, consumed.
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

    /// A little-endian `UInt64`.
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
        // Decoding repairs what is not UTF-8 with U+FFFD (EF BF BD): a string without an EF byte was not repaired;
        // one with it is compared byte for byte (a slow walk, that most strings, ASCII, never take).
        let string = String(decoding: slice, as: UTF8.self)
        let mayBeRepaired = string.utf8.withContiguousStorageIfAvailable { $0.contains(0xEF) } ?? true
        guard !mayBeRepaired || string.utf8.elementsEqual(slice) else {
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
