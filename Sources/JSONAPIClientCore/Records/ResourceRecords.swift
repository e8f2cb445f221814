import Foundation

/// The resources of one parsed document, kept as parsed: the document's tape (over bytes of its own) and where each
/// resource object with an `id` is in it. What the client's store keeps instead of reading each resource into a
/// ``ResourceObject``: a response's records come from the parse its typed decode made (one parse), and a typed read
/// from the store decodes straight from their tapes (``JSONAPIDecoder/decode(_:records:collection:included:)``).
/// `package`: for JSONAPIClient's store.
///
/// Every resource listed here has been checked as ``ResourceObject`` reading checks it (`DocumentReader.checkResource`),
/// so each reads back without an error; the document's `(type, id)`s are unique.
package final class ResourceRecords: @unchecked Sendable {
    // `@unchecked`: the tape's `TapeBytes` is a class whose bytes `adoptCopy()` may replace. Every tape held here
    // owns its bytes (checked in `init`), on which `adoptCopy()` does nothing, and nothing else writes them; the
    // nodes are an array that never changes. So a `ResourceRecords` is immutable, and safe to read from any thread.
    /// The document, over bytes it owns.
    let tape: JSONTape
    /// The resources with an `id`: primary data (resource objects, not identifiers), then `included`.
    package let resources: [Entry]
    /// The number of elements of the primary data when it is an array; `nil` otherwise.
    package let listedCount: Int?
    /// The number of elements of `included`.
    package let includedCount: Int

    /// One resource of the document: its `type`, its `id` and its object's place in the tape.
    package struct Entry: Sendable {
        /// The resource's type.
        package let type: String
        /// The resource's id (a number's text for a numeric `id`).
        package let id: String
        /// The node of the resource object.
        let index: UInt32

        /// The resource, as a record.
        package func record(in records: ResourceRecords) -> ResourceRecord {
            ResourceRecord(records: records, index: index)
        }
    }

    /// The records of `tape` (whose bytes it must own), the resources at `entries`.
    init(owning tape: JSONTape, entries: [Entry], listedCount: Int? = nil, includedCount: Int = 0) {
        // Every caller made the tape own its bytes (`adoptCopy()` or `TapeBytes(concatenating:)`); a borrowed one
        // would be read after its lender returned.
        tape.bytes.adoptCopy()
        self.tape = tape
        self.resources = entries
        self.listedCount = listedCount
        self.includedCount = includedCount
    }

    /// The document's bytes and nodes, for tests and the benchmark: their sizes in memory.
    package var byteCount: Int { tape.bytes.count + tape.nodes.count * MemoryLayout<JSONTape.Node>.stride }

    // MARK: Finding the resources

    /// The resources of the document on `reader`'s tape whose primary data is at `dataIndex` and `included` array at
    /// `includedIndex`: resource objects with an `id` (an identifier is not a resource; one with a `lid` only is not
    /// kept), each checked as ``DocumentReader/resource(_:)`` reads it.
    ///
    /// - Throws: What reading the document as a ``RawDocument`` throws for its resources: a resource object that is
    ///   not one, or a `(type, id)` twice.
    static func entries(reader: DocumentReader, dataIndex: Int?, includedIndex: Int?, checkUnique: Bool) throws(
        JSONAPIDecodingError
    ) -> [Entry] {
        let tape = reader.tape
        var objects: [Int] = []
        if let dataIndex {
            switch tape.kind(dataIndex) {
            case .null: break
            case .object:
                if tape.isIdentifierOnly(dataIndex) { try reader.checkIdentifier(dataIndex) } else { objects.append(dataIndex) }
            case .array:
                if tape.count(dataIndex) > 0, tape.elementsAreIdentifierOnly(dataIndex) {
                    try reader.forEachElement(dataIndex) { element throws(JSONAPIDecodingError) in
                        try reader.checkIdentifier(element)
                    }
                } else {
                    try reader.forEachElement(dataIndex) { objects.append($0) }
                }
            default: throw reader.mismatch(dataIndex, expected: "an object, an array or null")
            }
        }
        if let includedIndex { try reader.forEachElement(includedIndex) { objects.append($0) } }
        if checkUnique {
            var index = ResourceIndex(capacity: objects.count)
            for object in objects { try index.register(object, reader: reader) }
        }
        var entries: [Entry] = []
        entries.reserveCapacity(objects.count)
        for object in objects {
            try reader.checkResource(object)
            let identity = ResourceMembers.identity(of: object, in: tape)
            guard let typeIndex = identity.type, let idIndex = identity.id else { continue }
            entries.append(
                Entry(
                    type: try reader.repeatedString(typeIndex), id: try reader.identifierString(idIndex),
                    index: UInt32(truncatingIfNeeded: object)))
        }
        return entries
    }
}

extension JSONAPIDecoder {
    /// Decodes a document as ``decodeWithOutline(_:from:resourceMeta:)`` does and keeps its resources as parsed,
    /// from the same tape: one parse for the typed result and the store's records.
    ///
    /// - Returns: The document, its outline, and its records; `nil` records when a resource of the document would
    ///   not read as a ``ResourceObject`` (the store keeps none of such a document, as it never did).
    /// - Throws: What ``decodeWithOutline(_:from:resourceMeta:)`` throws.
    package func decodeKeepingRecords<Primary: Decodable & Sendable>(
        _ type: Document<Primary>.Type, from data: Data, resourceMeta: Bool
    ) throws(JSONAPIDecodingError) -> (Document<Primary>, PrimaryDataOutline, ResourceRecords?) {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            let document = try decode(type, tape: tape)
            let outline = try Self.outline(tape, resourceMeta: resourceMeta)
            let reader = DocumentReader(tape: tape)
            let top = Self.topLevelMembers(tape)
            guard
                let entries = try? ResourceRecords.entries(
                    reader: reader, dataIndex: top.data, includedIndex: top.included, checkUnique: false)
            else { return (document, outline, nil) }
            return (document, outline, ResourceRecords(owning: tape, entries: entries))
        }
    }

    /// The records of a document's resources (primary data and `included`), read schema-less: what the store keeps
    /// of a body no typed decode parsed, and of its file.
    ///
    /// - Throws: ``JSONAPIDecodingError`` when the body is not a document that reads as a ``RawDocument``'s
    ///   resources: not JSON, not a document, a malformed resource, a `(type, id)` twice.
    package func records(from data: Data) throws(JSONAPIDecodingError) -> ResourceRecords {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            let reader = DocumentReader(tape: tape)
            var document = RawDocument()
            let (dataIndex, includedIndex) = try reader.readTopLevel(into: &document)
            let entries = try ResourceRecords.entries(
                reader: reader, dataIndex: dataIndex, includedIndex: includedIndex, checkUnique: true)
            let listed = dataIndex.flatMap { tape.kind($0) == .array ? tape.count($0) : nil }
            return ResourceRecords(
                owning: tape, entries: entries, listedCount: listed, includedCount: includedIndex.map(tape.count) ?? 0)
        }
    }

    /// The `data` and `included` members of the document on `tape` (the last of each, as reading takes them).
    static func topLevelMembers(_ tape: JSONTape) -> (data: Int?, included: Int?) {
        guard tape.kind(0) == .object else { return (nil, nil) }
        var data: Int?, included: Int?
        var child = 1
        for _ in 0..<tape.count(0) {
            if tape.key(child, is: "data") {
                data = child + 1
            } else if tape.key(child, is: "included") {
                included = tape.kind(child + 1) == .array ? child + 1 : nil
            }
            child = tape.skip(child + 1)
        }
        return (data, included)
    }
}

extension JSONAPIDecoder {
    /// Decodes `Primary` from records, as from a document whose primary data is `primary` (a list when
    /// `collection`, else its one record) and whose `included` is `included`: relationships resolve among them as
    /// in any document. The records' nodes are copied into one tape, and their bytes too unless they all lie in one
    /// ``ResourceRecords``; nothing is written or parsed.
    ///
    /// - Throws: ``JSONAPIDecodingError`` when a record does not make a `Primary` (its pointer as if the records were
    ///   a document's `/data` and `/included`), or when they are more than one tape holds.
    package func decode<Primary: Decodable & Sendable>(
        _ type: Document<Primary>.Type, records primary: [ResourceRecord], collection: Bool,
        included: [ResourceRecord]
    ) throws(JSONAPIDecodingError) -> Document<Primary> {
        guard collection || primary.count == 1 else {
            throw JSONAPIDecodingError(code: .invalidDocument, pointer: "/data", detail: "expected one record")
        }
        let first = primary.first?.records
        let shared = [primary, included].allSatisfy { $0.allSatisfy { $0.records === first } }
        var nodeCount = 3
        for record in primary { nodeCount += record.nodeCount }
        for record in included { nodeCount += record.nodeCount }
        guard nodeCount < JSONTape.maxNodes else {
            throw JSONAPIDecodingError(code: .invalidDocument, pointer: "", detail: "too many records for one read")
        }
        var nodes: [JSONTape.Node] = []
        nodes.reserveCapacity(nodeCount)
        var pieces: [(bytes: TapeBytes, range: Range<Int>)] = []
        var byteCount = 0
        func append(_ record: ResourceRecord) {
            var shift = 0
            if !shared {
                let range = record.byteRange
                shift = byteCount - range.lowerBound
                pieces.append((record.records.tape.bytes, range))
                byteCount += range.count
            }
            let source = record.records.tape.nodes
            let moved = nodes.count - Int(record.index)
            for position in Int(record.index)..<Int(record.index) + record.nodeCount {
                nodes.append(source[position].moved(nodes: moved, bytes: shift))
            }
        }
        // [data, included]: the root is an array, so that no key needs bytes of its own.
        nodes.append(JSONTape.Node(kind: .array, flags: 0, start: 2, end: UInt32(truncatingIfNeeded: nodeCount)))
        if collection {
            nodes.append(JSONTape.Node(kind: .array, flags: 0, start: UInt32(truncatingIfNeeded: primary.count)))
            for record in primary { append(record) }
            nodes[1].end = UInt32(truncatingIfNeeded: nodes.count)
        } else {
            append(primary[0])
        }
        let includedIndex = nodes.count
        nodes.append(JSONTape.Node(kind: .array, flags: 0, start: UInt32(truncatingIfNeeded: included.count)))
        for record in included { append(record) }
        nodes[includedIndex].end = UInt32(truncatingIfNeeded: nodes.count)
        nodes[0].end = UInt32(truncatingIfNeeded: nodes.count)
        guard byteCount <= Int(UInt32.max) else {
            throw JSONAPIDecodingError(code: .invalidDocument, pointer: "", detail: "too many records for one read")
        }
        let bytes = shared ? (first?.tape.bytes ?? TapeBytes(concatenating: [])) : TapeBytes(concatenating: pieces)
        let tape = JSONTape(bytes: bytes, nodes: nodes)
        let reader = DocumentReader(tape: tape)
        var context = try ResourceDecodingContext(
            tape: tape, reader: reader, options: self, dataIndex: 1, includedArrays: [includedIndex])
        defer { ResourceDecodingContext.endDecode(&context) }
        var document = Document<Primary>()
        do {
            document.data = try context.decode(Primary.self, at: context.linkagePosition(1))
        } catch {
            var failure = context.describe(error)
            // The tape's root is `[data, included]`.
            if failure.pointer.hasPrefix("/0") {
                failure.pointer = "/data" + failure.pointer.dropFirst(2)
            } else if failure.pointer.hasPrefix("/1") {
                failure.pointer = "/included" + failure.pointer.dropFirst(2)
            }
            throw failure
        }
        return document
    }
}
