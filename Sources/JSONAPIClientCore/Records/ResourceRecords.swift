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
    /// The document's resources by `(type, id)`, as bytes: how a record's linkage finds a resource of the same
    /// document without building a `String` (``ResourceRecord/forEachLinked(_:)``).
    let index: ResourceIndex
    /// The nodes of ``resources``' objects, in order: what ``position(ofNode:)`` bisects.
    private let nodes: [UInt32]

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
    /// The records of `tape` (whose bytes it must own), the resources at `entries` (in document order), indexed
    /// by `index`.
    init(
        owning tape: JSONTape, entries: [Entry], index: ResourceIndex, listedCount: Int? = nil, includedCount: Int = 0
    ) {
        // Every caller made the tape own its bytes (`adoptCopy()` or `TapeBytes(concatenating:)`); a borrowed one
        // would be read after its lender returned.
        tape.bytes.adoptCopy()
        self.tape = tape
        // In document order (`included` may come before `data`), so that a node's entry is found by bisection.
        var nodes: [UInt32] = []
        nodes.reserveCapacity(entries.count)
        var ordered = true
        for entry in entries {
            if let last = nodes.last, entry.index <= last { ordered = false }
            nodes.append(entry.index)
        }
        if ordered {
            self.resources = entries
        } else {
            self.resources = entries.sorted { $0.index < $1.index }
            nodes.sort()
        }
        self.nodes = nodes
        self.index = index
        self.listedCount = listedCount
        self.includedCount = includedCount
    }

    /// The position in ``resources`` of the resource whose object is the node `node`, if it is one.
    func position(ofNode node: Int) -> Int? {
        var low = 0, high = nodes.count
        while low < high {
            let middle = low + (high - low) / 2
            let found = Int(nodes[middle])
            if found == node { return middle }
            if found < node { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The `type` and `id` of the identifier at `node` (``ResourceRecord/Linked/node``); `nil` when it has none
    /// (a `lid` alone) or `node` is not an identifier of this tape.
    package func identifierKey(at node: Int) -> (type: String, id: String)? {
        guard node >= 0, node < tape.nodes.count, tape.kind(node) == .object else { return nil }
        let identity = ResourceMembers.identity(of: node, in: tape)
        guard let type = identity.type, tape.kind(type) == .string, let id = identity.id,
            let text = try? DocumentReader.identifierString(id, in: tape)
        else { return nil }
        return (tape.string(type), text)
    }

    // MARK: Finding the resources

    /// The resources of the document on `reader`'s tape whose primary data is at `dataIndex` and `included` array at
    /// `includedIndex`: resource objects with an `id` (an identifier is not a resource; one with a `lid` only is not
    /// kept), each checked as ``DocumentReader/resource(_:)`` reads it.
    ///
    /// - Throws: What reading the document as a ``RawDocument`` throws for its resources: a resource object that is
    ///   not one, or a `(type, id)` twice.
    /// - Parameter indexed: The index of the document's resources a typed decode of it made (which checked that
    ///   each `(type, id)` names one resource), if any; else one is made here.
    static func entries(reader: DocumentReader, dataIndex: Int?, includedIndex: Int?, indexed: ResourceIndex?) throws(
        JSONAPIDecodingError
    ) -> (entries: [Entry], index: ResourceIndex) {
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
        var index: ResourceIndex
        if let indexed {
            index = indexed
        } else {
            index = ResourceIndex(capacity: objects.count)
            for object in objects { try index.register(object, reader: reader) }
        }
        var entries: [Entry] = []
        entries.reserveCapacity(objects.count)
        for object in objects {
            let identity = try reader.checkResource(object)
            guard let idIndex = identity.id else { continue }
            let typeIndex = identity.type
            entries.append(
                Entry(
                    type: try reader.repeatedString(typeIndex), id: try reader.identifierString(idIndex),
                    index: UInt32(truncatingIfNeeded: object)))
        }
        return (entries, index)
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
            var indexed: ResourceIndex?
            let document = try decode(type, tape: tape, keepingIndex: true, index: &indexed)
            let outline = try Self.outline(tape, resourceMeta: resourceMeta)
            let reader = DocumentReader(tape: tape)
            let top = Self.topLevelMembers(tape)
            guard let (entries, index) = try? ResourceRecords.entries(
                reader: reader, dataIndex: top.data, includedIndex: top.included, indexed: indexed)
            else { return (document, outline, nil) }
            return (document, outline, ResourceRecords(owning: tape, entries: entries, index: index))
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
            let (entries, index) = try ResourceRecords.entries(
                reader: reader, dataIndex: dataIndex, includedIndex: includedIndex, indexed: nil)
            let listed = dataIndex.flatMap { tape.kind($0) == .array ? tape.count($0) : nil }
            return ResourceRecords(
                owning: tape, entries: entries, index: index, listedCount: listed,
                includedCount: includedIndex.map(tape.count) ?? 0)
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
    /// Decodes a `Model` from each of the records `primary`, relationships resolving among them and `included` as
    /// in a document whose primary data and `included` they were. Nothing is written or parsed: when all the records
    /// lie in one ``ResourceRecords``, the models are decoded from its tape; otherwise their nodes are copied into
    /// one tape (with the bytes their strings and numbers lie in).
    ///
    /// - Throws: ``JSONAPIDecodingError`` when a record does not make a `Model` (its pointer locates the member in
    ///   the document the records came in, or, for records of several documents, as if `primary` were a document's
    ///   `data` and `included` its `included`), or when the records are more than one tape holds.
    package func decode<Model: Decodable>(
        _ type: Model.Type, records primary: [ResourceRecord], included: [ResourceRecord]
    ) throws(JSONAPIDecodingError) -> [Model] {
        guard let first = primary.first?.records else { return [] }
        let tape: JSONTape
        var objects: [Int] = []
        objects.reserveCapacity(primary.count + included.count)
        let shared = primary.allSatisfy({ $0.records === first }) && included.allSatisfy({ $0.records === first })
        if shared {
            tape = first.tape
            for record in primary { objects.append(Int(record.index)) }
            for record in included { objects.append(Int(record.index)) }
        } else {
            (tape, objects) = try Self.assemble(primary + included)
        }
        let reader = DocumentReader(tape: tape)
        var index = ResourceIndex(capacity: objects.count)
        for object in objects { try index.register(object, reader: reader) }
        var context = ResourceDecodingContext(tape: tape, reader: reader, options: self, resources: index)
        defer { ResourceDecodingContext.endDecode(&context) }
        var models: [Model] = []
        models.reserveCapacity(primary.count)
        do {
            for object in objects.prefix(primary.count) {
                models.append(try context.decode(Model.self, at: .resource(object)))
            }
        } catch {
            var failure = context.describe(error)
            // An assembled tape's root is the list of the records: point as into a document of them.
            if !shared, let slash = failure.pointer.dropFirst().firstIndex(of: "/") ?? Optional(failure.pointer.endIndex),
                let position = Int(failure.pointer.dropFirst()[..<slash])
            {
                let rest = failure.pointer[slash...]
                failure.pointer = position < primary.count
                    ? "/data/\(position)\(rest)" : "/included/\(position - primary.count)\(rest)"
            }
            throw failure
        }
        return models
    }

    /// One tape holding the resource objects of `records`, in order, as the elements of its root array, over one
    /// copy of the bytes their strings and numbers lie in; and where each object is in it.
    private static func assemble(_ records: [ResourceRecord]) throws(JSONAPIDecodingError) -> (JSONTape, [Int]) {
        var nodeCount = 1
        for record in records { nodeCount += record.nodeCount }
        guard nodeCount < JSONTape.maxNodes else {
            throw JSONAPIDecodingError(code: .invalidDocument, pointer: "", detail: "too many records for one read")
        }
        var nodes: [JSONTape.Node] = []
        nodes.reserveCapacity(nodeCount)
        nodes.append(
            JSONTape.Node(
                kind: .array, flags: 0, start: UInt32(truncatingIfNeeded: records.count),
                end: UInt32(truncatingIfNeeded: nodeCount)))
        var objects: [Int] = []
        objects.reserveCapacity(records.count)
        var pieces: [(bytes: TapeBytes, range: Range<Int>)] = []
        pieces.reserveCapacity(records.count)
        var byteCount = 0
        for record in records {
            let range = record.byteRange
            let shift = byteCount - range.lowerBound
            pieces.append((record.records.tape.bytes, range))
            byteCount += range.count
            let source = record.records.tape.nodes
            let start = Int(record.index)
            let moved = nodes.count - start
            objects.append(nodes.count)
            for position in start..<start + record.nodeCount {
                nodes.append(source[position].moved(nodes: moved, bytes: shift))
            }
        }
        // Compared as 64-bit: `Int(UInt32.max)` traps where `Int` is 32 bits (watchOS on arm64_32).
        guard UInt64(byteCount) <= UInt64(UInt32.max) else {
            throw JSONAPIDecodingError(code: .invalidDocument, pointer: "", detail: "too many records for one read")
        }
        return (JSONTape(bytes: TapeBytes(concatenating: pieces), nodes: nodes), objects)
    }
}
