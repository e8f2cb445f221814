import Foundation

/// One resource kept as parsed: a resource object in the tape of a ``ResourceRecords``. Many records of one response
/// share its records; a record made alone (``init(_:)``, ``compacted()``) has a tape of its own. `package`: for
/// JSONAPIClient's store, which keeps one per `(type, id)`.
package struct ResourceRecord: Sendable {
    /// The document the resource is in.
    package let records: ResourceRecords
    /// The node of its resource object.
    let index: UInt32

    init(records: ResourceRecords, index: UInt32) {
        self.records = records
        self.index = index
    }

    private var tape: JSONTape { records.tape }
    private var object: Int { Int(index) }
    /// The node just past the resource object.
    private var end: Int { Int(tape.nodes[object].end) }
    /// The number of nodes of the resource object.
    var nodeCount: Int { end - object }

    /// A record of `object`, in a tape of its own (written, then parsed).
    ///
    /// - Throws: ``JSONAPIDecodingError`` when `object` has no `id`, or what writing or parsing it throws (not
    ///   expected: a ``ResourceObject`` writes as a resource object).
    package init(_ object: ResourceObject) throws {
        guard object.id != nil else {
            throw JSONAPIDecodingError(code: .missingMember, pointer: "/data/id", expected: "member \"id\"")
        }
        // In `included`, where every member is a resource object: as primary data, an object with no attributes,
        // relationships or links would read as an identifier.
        let document = RawDocument(data: .resources([]), included: [object])
        let records = try JSONAPIDecoder().records(from: try JSONAPIEncoder().encode(document))
        guard let entry = records.resources.first else {
            throw JSONAPIDecodingError(code: .invalidDocument, pointer: "/data", detail: "the record wrote no resource")
        }
        self = entry.record(in: records)
    }

    /// The record in a tape of its own, holding only its resource object's nodes and the bytes they name: what
    /// the store keeps of a resource once the rest of the document it came in has gone.
    package func compacted() -> ResourceRecord {
        let range = textRange ?? byteRange
        let shift = -range.lowerBound
        var nodes: [JSONTape.Node] = []
        nodes.reserveCapacity(nodeCount)
        for position in object..<end { nodes.append(tape.nodes[position].moved(nodes: -object, bytes: shift)) }
        let copy = JSONTape(bytes: TapeBytes(concatenating: [(tape.bytes, range)]), nodes: nodes)
        return ResourceRecord(
            records: ResourceRecords(owning: copy, entries: [], index: ResourceIndex(capacity: 0)), index: 0)
    }

    /// The bytes of the resource object's JSON text, `{` to `}`, as it was parsed; `nil` when they cannot be found
    /// (not expected: every record's tape holds its object's whole text).
    ///
    /// A tape keeps no container's byte offsets, so they are found from its strings': the `{` is the first
    /// non-blank byte before the first key, and the `}` closes the containers open after its last string, number or
    /// literal — past which the text holds only brackets, commas, colons and blanks (every string is a node).
    package var textRange: Range<Int>? {
        let first = object + 1
        guard end > first, tape.kind(first) == .string else { return nil }
        let bytes = tape.bytes
        var lower = Int(tape.nodes[first].start) - 1  // the key's opening quote
        repeat { lower -= 1 } while lower >= 0 && Self.isBlank(bytes[lower])
        guard lower >= 0, bytes[lower] == UInt8(ascii: "{") else { return nil }
        // The last leaf, and how many containers of the object enclose it.
        var leaf = end - 1
        while leaf > object, tape.kind(leaf) == .object || tape.kind(leaf) == .array { leaf -= 1 }
        var open = 0
        var container = object
        while container != leaf {
            open += 1
            guard tape.kind(container) == .object || tape.kind(container) == .array else { return nil }
            var child = container + 1
            while tape.skip(child) <= leaf { child = tape.skip(child) }
            container = child
        }
        let node = tape.nodes[leaf]
        var upper = Int(node.start)
        switch node.kind {
        case .string: upper += Int(node.length) + 1
        case .number: upper += Int(node.length)
        case .true, .null: upper += 4
        case .false: upper += 5
        case .object, .array: return nil
        }
        while upper < bytes.count {
            switch bytes[upper] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): open += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                open -= 1
                if open == 0 { return lower..<(upper + 1) }
            case UInt8(ascii: ","), UInt8(ascii: ":"): break
            default: guard Self.isBlank(bytes[upper]) else { return nil }
            }
            upper += 1
        }
        return nil
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    /// About the length of the resource object's JSON text: the bytes of its strings and numbers and what lies
    /// between them (``write(into:)`` may write fewer: no white space).
    package var textSize: Int { byteRange.count + 2 }

    /// The bytes the resource object's strings and numbers lie in: from its first key to the end of its last text.
    var byteRange: Range<Int> {
        var last = end - 1
        while last > object, tape.kind(last) == .object || tape.kind(last) == .array { last -= 1 }
        guard last > object else { return 0..<0 }
        let node = tape.nodes[last]
        let upper = Int(node.start) + Int(node.length)
        return Int(tape.nodes[object + 1].start)..<upper
    }

    // MARK: Reading

    /// The resource object, read (checked when the record was made, so reading does not fail; one that did would
    /// read as its `type` and `id` alone).
    package func resourceObject() -> ResourceObject {
        let reader = DocumentReader(tape: tape)
        if let resource = try? reader.resource(object) { return resource }
        let identity = ResourceMembers.identity(of: object, in: tape)
        return ResourceObject(
            type: identity.type.map(tape.string) ?? "",
            id: identity.id.flatMap { try? DocumentReader.identifierString($0, in: tape) })
    }

    /// The record's position among its ``ResourceRecords/resources``, when it is one of them.
    package var position: Int? { records.position(ofNode: object) }

    /// One identifier of a record's relationship linkage.
    package struct Linked {
        /// The record the identifier is in.
        let record: ResourceRecord
        /// The identifier's node (in the record's tape: ``ResourceRecords/identifierKey(at:)`` reads it).
        package let node: Int
        /// The position among the record's ``ResourceRecords/resources`` of the resource the identifier names,
        /// when that document holds it: found by bytes, with no `String` built.
        package let position: Int?

        /// The `type` and `id` the identifier names (`nil` for a `lid` alone).
        package var key: (type: String, id: String)? { record.records.identifierKey(at: node) }
    }

    /// Calls `body` with each identifier of the record's relationships' linkage that has an `id` (a `lid` alone
    /// names no record), in the order written.
    package func forEachLinked(_ body: (Linked) -> Void) {
        forEachIdentifier { identifier in
            linked(identifier, body)
            return true
        }
    }

    /// Calls `body` with the node of each element of the record's relationships' linkage (an identifier, or
    /// whatever stands in its place), in the order written, until it returns `false`.
    private func forEachIdentifier(_ body: (Int) -> Bool) {
        guard let relationships = member("relationships", of: object), tape.kind(relationships) == .object else { return }
        var key = relationships + 1
        for _ in 0..<tape.count(relationships) {
            if let data = ResourceMembers.data(of: key + 1, in: tape) {
                let isArray = tape.kind(data) == .array
                var element = isArray ? data + 1 : data
                for _ in 0..<(isArray ? tape.count(data) : 1) {
                    guard body(element) else { return }
                    element = tape.skip(element)
                }
            }
            key = tape.skip(key + 1)
        }
    }

    private func linked(_ identifier: Int, _ body: (Linked) -> Void) {
        guard tape.kind(identifier) == .object else { return }
        let identity = ResourceMembers.identity(of: identifier, in: tape)
        guard let type = identity.type, tape.kind(type) == .string, let id = identity.id,
            tape.kind(id) == .string || tape.kind(id) == .number
        else { return }
        let target = records.index.lookup(type: type, key: id, local: false, in: tape)
        body(Linked(record: self, node: identifier, position: target.flatMap(records.position(ofNode:))))
    }

    /// Whether a relationship's linkage names a resource by its `lid` alone.
    package var linksByLocalID: Bool {
        var found = false
        forEachIdentifier { identifier in
            guard tape.kind(identifier) == .object else { return true }
            let identity = ResourceMembers.identity(of: identifier, in: tape)
            found = identity.id == nil && identity.lid != nil
            return !found
        }
        return found
    }

    /// The resource's `links.self` (a link object's `href`), or `nil`.
    package var selfLink: String? {
        guard let links = member("links", of: object), tape.kind(links) == .object,
            let link = member("self", of: links)
        else { return nil }
        switch tape.kind(link) {
        case .string: return tape.string(link)
        case .object:
            guard let href = member("href", of: link), tape.kind(href) == .string else { return nil }
            return tape.string(href)
        default: return nil
        }
    }

    /// The value of the last member `name` of the object at `index`.
    private func member(_ name: StaticString, of index: Int) -> Int? {
        BorrowedBytes.lending(name) { tape.member($0, of: index) }
    }

    // MARK: Comparing

    /// Whether the record is written exactly as `other` (the same members in the same order, the same text):
    /// then it reads the same. (Two records that read the same may be written differently.)
    package func isWrittenAs(_ other: ResourceRecord) -> Bool {
        guard nodeCount == other.nodeCount else { return false }
        let tape = tape, otherTape = other.tape
        for offset in 0..<nodeCount {
            let a = tape.nodes[object &+ offset], b = otherTape.nodes[other.object &+ offset]
            guard a.kind == b.kind else { return false }
            switch a.kind {
            case .object, .array:
                guard a.count == b.count, Int(a.end) &- object == Int(b.end) &- other.object else { return false }
            case .string, .number:
                guard a.length == b.length, a.flags == b.flags else { return false }
                let equal = tape.bytes.withBytes(in: Int(a.start)..<Int(a.start) &+ Int(a.length)) { first in
                    otherTape.bytes.withBytes(in: Int(b.start)..<Int(b.start) &+ Int(b.length)) {
                        first.elementsEqual($0)
                    }
                }
                guard equal else { return false }
            case .null, .true, .false:
                break
            }
        }
        return true
    }

    /// Whether merging this record over `older` (the store's merge: attributes and relationships by name, a
    /// relationship without `data` keeping the older linkage, `links` and `meta` whole, the older `lid`) gives this
    /// record as it is: then it replaces `older` without either being read. `false` when it cannot tell cheaply.
    package func replaces(_ older: ResourceRecord) -> Bool {
        let new = ResourceMembers(tape: tape, object: object)
        let old = ResourceMembers(tape: older.tape, object: older.object)
        // The older `lid` stays; `links` and `meta` of the older are kept when the newer has none.
        guard new.lid == nil, old.lid == nil else { return false }
        if old.links != nil, new.links == nil { return false }
        if old.meta != nil, new.meta == nil { return false }
        if let oldAttributes = old.attributes {
            guard let attributes = new.attributes, tape.kind(attributes) == .object,
                covers(attributes, older, oldAttributes, needsData: false)
            else { return false }
        }
        if let oldRelationships = old.relationships {
            guard let relationships = new.relationships, tape.kind(relationships) == .object,
                covers(relationships, older, oldRelationships, needsData: true)
            else { return false }
        }
        return true
    }

    /// Whether the object at `members` has every member the object `olderMembers` of `older` has — with `data`,
    /// when `needsData`.
    private func covers(_ members: Int, _ older: ResourceRecord, _ olderMembers: Int, needsData: Bool) -> Bool {
        let olderTape = older.tape
        guard olderTape.kind(olderMembers) == .object else { return true }
        if coversInStep(members, older, olderMembers, needsData: needsData) { return true }
        var key = olderMembers + 1
        for _ in 0..<olderTape.count(olderMembers) {
            guard let value = olderTape.withStringBytes(key, { tape.member($0, of: members) }) else { return false }
            if needsData, ResourceMembers.data(of: value, in: tape) == nil { return false }
            key = olderTape.skip(key + 1)
        }
        return true
    }

    /// ``covers(_:_:_:needsData:)`` for the common case, a server writing a resource's members the same way each
    /// time: both objects have the same names in the same order, and (when `needsData`) every member here has
    /// `data`. Each name is then compared once, not looked up among all the members (`live-apply`: five
    /// attributes and two relationships per article, looked up one by one, cost 31 M instructions a refresh).
    ///
    /// `true` only when ``covers(_:_:_:needsData:)`` is: every older name is here, and every member here, so the
    /// last of any repeated name, has `data`. `false` says nothing; the caller looks the names up.
    private func coversInStep(_ members: Int, _ older: ResourceRecord, _ olderMembers: Int, needsData: Bool) -> Bool {
        let olderTape = older.tape
        let count = olderTape.count(olderMembers)
        guard tape.count(members) == count else { return false }
        var key = members + 1, olderKey = olderMembers + 1
        for _ in 0..<count {
            guard olderTape.withStringBytes(olderKey, { tape.keyEquals(key, $0) }) else { return false }
            if needsData, ResourceMembers.data(of: key + 1, in: tape) == nil { return false }
            key = tape.skip(key + 1)
            olderKey = olderTape.skip(olderKey + 1)
        }
        return true
    }

    // MARK: Writing

    /// Appends the resource object's JSON text to `output`: the bytes it was parsed from (``textRange``), or else
    /// its tape written out, strings and numbers as they were written.
    package func write(into output: inout [UInt8]) {
        if let range = textRange {
            tape.bytes.withBytes(in: range) { $0.append(to: &output) }
        } else {
            _ = write(object, into: &output)
        }
    }

    /// Writes the value at `index`; returns the index after it.
    private func write(_ index: Int, into output: inout [UInt8]) -> Int {
        let node = tape.nodes[index]
        switch node.kind {
        case .object, .array:
            let isObject = node.kind == .object
            output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            var child = index + 1
            for position in 0..<Int(node.count) {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                if isObject {
                    child = write(child, into: &output)
                    output.append(UInt8(ascii: ":"))
                }
                child = write(child, into: &output)
            }
            output.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            return child
        case .string:
            output.append(UInt8(ascii: "\""))
            tape.bytes.withBytes(in: Int(node.start)..<Int(node.start) + Int(node.length)) { $0.append(to: &output) }
            output.append(UInt8(ascii: "\""))
        case .number:
            tape.bytes.withBytes(in: Int(node.start)..<Int(node.start) + Int(node.length)) { $0.append(to: &output) }
        case .true: output += Array("true".utf8)
        case .false: output += Array("false".utf8)
        case .null: output += Array("null".utf8)
        }
        return index + 1
    }
}
