import Foundation

/// The bytes of the database's rows that are not JSON (``StoreWriter``): a stored response's row (`responses.response`,
/// its status, header fields, `Vary`, freshness and collection types, with no body), and the records' rows read back as
/// one document; with the error of bytes that do not read.
///
/// A response's bytes, all integers little-endian: partition digest (2 × 8), URL, `Accept`, status, header fields
/// (count, then name and value), the `Vary` names (count, names), the `Vary` digest (2 × 8), freshness (lifetime,
/// initial age, time received as seconds since 2001 — three IEEE doubles — then `no-cache` and `must-revalidate` as a
/// byte each), the collection types (count, names), and the body (empty in a row: the body has a row of its own). A
/// string or body is its length (8 bytes) and its bytes (UTF-8 for strings).
///
/// Credentials are never in it: stored responses carry their partition's digest, and the header fields that carry
/// credentials were taken out when they were stored. A URL is kept as it was requested.
enum RowCodec {
    /// What a database holds when its store opens: the stored responses, least recently changed first.
    struct Contents {
        var responses: [(key: ResponseKey, response: StoredResponse)] = []
    }

    /// Why bytes of the database (a row, an outline) were not read, and where: never a credential or a body.
    struct Unreadable: Error, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) (at byte \(offset))" }
    }

    // MARK: Writing

    /// Appends a stored response's bytes: what the database keeps of it, one row each (``StoreWriter``).
    static func appendResponse(_ stored: StoredResponse, for responseKey: ResponseKey, to row: inout ByteWriter) {
        row.append(responseKey.partition.high)
        row.append(responseKey.partition.low)
        row.append(responseKey.url)
        row.append(responseKey.accept)
        row.append(UInt64(clamping: stored.response.status.code))
        row.append(UInt64(stored.response.headerFields.count))
        for field in stored.response.headerFields {
            row.append(field.name.rawName)
            row.append(field.value)
        }
        row.append(UInt64(stored.varyNames.count))
        for name in stored.varyNames { row.append(name.rawName) }
        row.append(stored.varyDigest.high)
        row.append(stored.varyDigest.low)
        row.append(stored.freshness.lifetime.bitPattern)
        row.append(stored.freshness.initialAge.bitPattern)
        row.append(stored.freshness.receivedAt.timeIntervalSinceReferenceDate.bitPattern)
        row.append(UInt8(stored.freshness.requiresValidation ? 1 : 0))
        row.append(UInt8(stored.freshness.mustRevalidate ? 1 : 0))
        row.append(UInt64(stored.collectionTypes.count))
        for type in stored.collectionTypes.sorted() { row.append(type) }
        row.append(data: stored.response.body)
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

    // MARK: Reading

    /// The records of `bytes`, a document whose `included` is every record (``StoreWriter/document(of:)``).
    ///
    /// - Throws: ``Unreadable`` when it is not such a document.
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
}

extension ResponseKey {
    /// A key read back from a row.
    init(partition: CredentialDigest, url: String, accept: String) {
        self.partition = partition
        self.url = url
        self.accept = accept
    }
}

extension Freshness {
    /// Freshness read back from a row.
    init(lifetime: Double, initialAge: Double, receivedAt: Date, requiresValidation: Bool, mustRevalidate: Bool) {
        self.lifetime = lifetime
        self.initialAge = initialAge
        self.receivedAt = receivedAt
        self.requiresValidation = requiresValidation
        self.mustRevalidate = mustRevalidate
    }
}

/// Appends the rows' little-endian integers, strings and byte runs.
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
/// ``RowCodec/Unreadable`` naming what was being read and where, never a trap.
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
    mutating func take(_ count: Int, _ what: String) throws(RowCodec.Unreadable) -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - offset else {
            throw RowCodec.Unreadable(reason: "\(what) runs past the end of its section", offset: offset)
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8(_ what: String) throws(RowCodec.Unreadable) -> UInt8 {
        try take(1, what).first ?? 0
    }

    /// A little-endian `UInt64`.
    mutating func u64(_ what: String) throws(RowCodec.Unreadable) -> UInt64 {
        try take(8, what).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A length of bytes that follow: no more than what is left.
    mutating func length(_ what: String) throws(RowCodec.Unreadable) -> Int {
        let start = offset
        let value = try u64(what)
        guard value <= UInt64(end - offset) else {
            throw RowCodec.Unreadable(reason: "\(what) (\(value)) is more than the \(end - offset) bytes left", offset: start)
        }
        return Int(value)
    }

    /// A count of items that follow, each at least 8 bytes: no more than what is left could hold.
    mutating func count(_ what: String) throws(RowCodec.Unreadable) -> Int {
        let start = offset
        let value = try u64(what)
        guard value <= UInt64((end - offset) / 8) else {
            throw RowCodec.Unreadable(reason: "\(what) (\(value)) is more than the bytes left can hold", offset: start)
        }
        return Int(value)
    }

    mutating func string(_ what: String) throws(RowCodec.Unreadable) -> String {
        let start = offset
        let slice = try take(try length(what), what)
        // Decoding repairs what is not UTF-8 with U+FFFD (EF BF BD): a string without an EF byte was not repaired;
        // one with it is compared byte for byte (a slow walk, that most strings, ASCII, never take).
        let string = String(decoding: slice, as: UTF8.self)
        let mayBeRepaired = string.utf8.withContiguousStorageIfAvailable { $0.contains(0xEF) } ?? true
        guard !mayBeRepaired || string.utf8.elementsEqual(slice) else {
            throw RowCodec.Unreadable(reason: "\(what) is not UTF-8", offset: start)
        }
        return string
    }

    mutating func flag(_ what: String) throws(RowCodec.Unreadable) -> Bool {
        let start = offset
        switch try u8(what) {
        case 0: return false
        case 1: return true
        case let other: throw RowCodec.Unreadable(reason: "\(what) is \(other), not 0 or 1", offset: start)
        }
    }
}
