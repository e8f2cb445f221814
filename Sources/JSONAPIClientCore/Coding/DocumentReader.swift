/// Builds the schema-less document model straight from a parsed tape.
///
/// Lenient where the meaning is plain (a numeric `id` is read as its string; `null` for a member that the
/// specification makes an optional object — `meta`, `links`, `jsonapi`, `attributes`, `relationships`, `included`,
/// an error's `source` — is read as the member being absent; unknown members, extension members and `@`-members are
/// ignored), strict where it is not (a resource without `type`, `data` together with `errors`,
/// `included` without `data`, the same `(type, id)` twice, a resource that is not an object).
struct DocumentReader {
    let tape: JSONTape
    /// Member names and types, which a document repeats.
    let shortStrings = ShortStringTable()
    /// The shapes of objects read as `[String: JSONValue]` (attributes, meta) and of `relationships` objects.
    let memberShapes = ObjectTemplates<JSONValue>(placeholder: .null)
    let relationshipShapes = ObjectTemplates<Relationship>(placeholder: Relationship())

    typealias Failure = JSONAPIDecodingError

    // MARK: Errors

    func mismatch(_ index: Int, expected: String) -> Failure { Self.mismatch(index, expected: expected, in: tape) }

    static func mismatch(_ index: Int, expected: String, in tape: JSONTape) -> Failure {
        Failure(code: .typeMismatch, pointer: tape.pointer(to: index), expected: expected, found: tape.describe(index))
    }

    func missing(_ member: String, in index: Int) -> Failure {
        Failure(code: .missingMember, pointer: tape.pointer(to: index) + "/" + member, expected: "member \"\(member)\"")
    }

    func invalid(_ index: Int, _ detail: String) -> Failure {
        Failure(code: .invalidDocument, pointer: tape.pointer(to: index), detail: detail)
    }

    // MARK: Shapes

    /// Calls `body` with each member's key and value index of the object at `index`.
    @inline(__always)
    func forEachMember(_ index: Int, _ body: (_ key: Int, _ value: Int) throws(Failure) -> Void) throws(Failure) {
        var child = index + 1
        for _ in 0..<tape.count(index) {
            try body(child, child + 1)
            child = tape.skip(child + 1)
        }
    }

    /// Calls `body` with each element index of the array at `index`.
    @inline(__always)
    func forEachElement(_ index: Int, _ body: (_ element: Int) throws(Failure) -> Void) throws(Failure) {
        var child = index + 1
        for _ in 0..<tape.count(index) {
            try body(child)
            child = tape.skip(child)
        }
    }

    func expectObject(_ index: Int) throws(Failure) {
        guard tape.kind(index) == .object else { throw mismatch(index, expected: "an object") }
    }

    func string(_ index: Int) throws(Failure) -> String {
        guard tape.kind(index) == .string else { throw mismatch(index, expected: "a string") }
        return tape.string(index)
    }

    /// A string that the document likely repeats (a `type`), through ``shortStrings``.
    func repeatedString(_ index: Int) throws(Failure) -> String {
        guard tape.kind(index) == .string else { throw mismatch(index, expected: "a string") }
        return shortStrings.string(at: index, in: tape)
    }

    func optionalString(_ index: Int) throws(Failure) -> String? {
        tape.kind(index) == .null ? nil : try string(index)
    }

    /// An `id`: a string, or a number read as its text.
    func identifierString(_ index: Int) throws(Failure) -> String { try Self.identifierString(index, in: tape) }

    /// ``identifierString(_:)`` for a caller that has the tape: reading a reader out of a class copies it, which
    /// retains each of its tables.
    static func identifierString(_ index: Int, in tape: JSONTape) throws(Failure) -> String {
        switch tape.kind(index) {
        case .string: return tape.string(index)
        case .number: return tape.numberText(index)
        default: throw mismatch(index, expected: "a string", in: tape)
        }
    }

    // MARK: Values

    func value(_ index: Int) -> JSONValue { JSONValue(tape: tape, index: index) }

    /// The members of the object at `index` as JSON values (the last of duplicate keys wins).
    func object(_ index: Int) -> [String: JSONValue] {
        let tape = tape
        if let members = memberShapes.members(of: index, in: tape, { JSONValue(tape: tape, index: $0) }) {
            return members
        }
        var members = [String: JSONValue].empty(capacity: tape.count(index), from: DictionaryTemplates.members)
        var child = index + 1
        for _ in 0..<tape.count(index) {
            members[shortStrings.string(at: child, in: tape)] = JSONValue(tape: tape, index: child + 1)
            child = tape.skip(child + 1)
        }
        memberShapes.record(index, members: members, in: tape) { shortStrings.string(at: $0, in: tape) }
        return members
    }

    func meta(_ index: Int) throws(Failure) -> Meta {
        try expectObject(index)
        return object(index)
    }

    /// A `meta` member: `null` means it is absent.
    func optionalMeta(_ index: Int) throws(Failure) -> Meta? {
        tape.kind(index) == .null ? nil : try meta(index)
    }

    /// A `links` member: `null` means it is absent.
    func optionalLinks(_ index: Int) throws(Failure) -> Links? {
        tape.kind(index) == .null ? nil : try links(index)
    }

    // MARK: Document

    func document() throws(Failure) -> RawDocument {
        var document = RawDocument()
        let (dataIndex, includedIndex) = try readTopLevel(into: &document)
        if let dataIndex { document.data = try primaryData(dataIndex) }
        if let includedIndex {
            var included: [ResourceObject] = []
            included.reserveCapacity(tape.count(includedIndex))
            try forEachElement(includedIndex) { element throws(Failure) in included.append(try resource(element)) }
            document.included = included
        }
        try checkUnique(document, dataIndex: dataIndex, includedIndex: includedIndex)
        return document
    }

    /// `(type, id)` names one resource per document: the resources of the primary data and `included`, checked by
    /// ``ResourceIndex/register(_:reader:)`` as the typed decode checks them.
    private func checkUnique(_ document: RawDocument, dataIndex: Int?, includedIndex: Int?) throws(Failure) {
        let dataCount = dataIndex.map { tape.kind($0) == .array ? tape.count($0) : 1 } ?? 0
        var index = ResourceIndex(capacity: dataCount + (includedIndex.map(tape.count) ?? 0))
        if let dataIndex {
            switch document.data {
            case .resource: try index.register(dataIndex, reader: self)
            case .resources: try index.registerElements(of: dataIndex, reader: self)
            default: break
            }
        }
        if let includedIndex { try index.registerElements(of: includedIndex, reader: self) }
    }

    /// Primary data: `null`, a resource, an identifier, or an array of either.
    ///
    /// An array is ``PrimaryData/identifiers(_:)`` only when every element is identifier-only; when any element is
    /// a resource object (it has `attributes`, `relationships` or `links`), every element is read as a resource,
    /// the identifier-only ones with just their `type`, `id`, `lid` and `meta`: nothing any element holds is lost.
    func primaryData(_ index: Int) throws(Failure) -> PrimaryData {
        switch tape.kind(index) {
        case .null: return .null
        case .object:
            return isIdentifierOnly(index) ? .identifier(try identifier(index)) : .resource(try resource(index))
        case .array:
            let count = tape.count(index)
            if count > 0, allIdentifierOnly(index) {
                var identifiers: [ResourceIdentifier] = []
                identifiers.reserveCapacity(count)
                try forEachElement(index) { element throws(Failure) in identifiers.append(try identifier(element)) }
                return .identifiers(identifiers)
            }
            var resources: [ResourceObject] = []
            resources.reserveCapacity(count)
            try forEachElement(index) { element throws(Failure) in resources.append(try resource(element)) }
            return .resources(resources)
        default:
            throw mismatch(index, expected: "an object, an array or null")
        }
    }

    /// Whether every element of the array at `index` is identifier-only.
    private func allIdentifierOnly(_ index: Int) -> Bool { tape.elementsAreIdentifierOnly(index) }

    /// An object with no fields and an `id` or `lid`: read as a resource identifier (``JSONTape/isIdentifierOnly(_:)``).
    func isIdentifierOnly(_ index: Int) -> Bool { tape.isIdentifierOnly(index) }

    // MARK: Resources

    // The readers below loop over members themselves rather than through `forEachMember`: a struct variable that a
    // closure captures was copied out (and the original destroyed) when it was returned, 4 % of reading a
    // `RawDocument`.

    func resource(_ index: Int) throws(Failure) -> ResourceObject {
        try expectObject(index)
        var type: String?
        var id: String?, lid: String?
        var attributes: [String: JSONValue]?
        var relationships: [String: Relationship]?
        var links: Links?, meta: Meta?
        // Keys are compared as bytes (no String per key); the order of the tests does not matter, they exclude
        // one another.
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            if tape.key(key, is: "type") {
                type = try repeatedString(value)
            } else if tape.key(key, is: "id") {
                id = try identifierString(value)
            } else if tape.key(key, is: "attributes") {
                // `null` is absent; a repeated member reads as its last, `null` included.
                attributes = nil
                if tape.kind(value) != .null {
                    try expectObject(value)
                    attributes = object(value)
                }
            } else if tape.key(key, is: "relationships") {
                relationships = nil
                if tape.kind(value) != .null {
                    try expectObject(value)
                    relationships = try relationshipObject(value)
                }
            } else if tape.key(key, is: "lid") {
                lid = try string(value)
            } else if tape.key(key, is: "links") {
                links = try optionalLinks(value)
            } else if tape.key(key, is: "meta") {
                meta = try optionalMeta(value)
            }
            key = tape.skip(value)
        }
        guard let type else { throw missing("type", in: index) }
        return ResourceObject(
            type: type, id: id, lid: lid, attributes: attributes, relationships: relationships, links: links, meta: meta)
    }

    /// The members of a `relationships` object (which must be an object). `@`-members and extension members are not
    /// relationships: they are skipped, as the validator skips them.
    private func relationshipObject(_ index: Int) throws(Failure) -> [String: Relationship] {
        // A shape has no special members: its keys were all read as relationships (`record` checks the count).
        if let relationships = try relationshipShapes.members(of: index, in: tape, { (value: Int) throws(Failure) in
            try relationship(value)
        }) {
            return relationships
        }
        var relationships = [String: Relationship].empty(
            capacity: tape.count(index), from: DictionaryTemplates.relationships)
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let name = shortStrings.string(at: key, in: tape)
            if !mayNameSpecialMember(key) || !(name.hasPrefix("@") || MemberName.isExtensionMember(name)) {
                relationships[name] = try relationship(key + 1)
            }
            key = tape.skip(key + 1)
        }
        relationshipShapes.record(index, members: relationships, in: tape) { shortStrings.string(at: $0, in: tape) }
        return relationships
    }

    /// Whether the key at `index` may name an `@`-member or an extension member: it starts with `@` or holds a `:`.
    /// The bytes tell without the `String` checks, which walk characters (a key with escapes is left to them).
    private func mayNameSpecialMember(_ index: Int) -> Bool {
        let node = tape.nodes[index]
        guard node.flags & JSONTape.stringHasEscapes == 0 else { return true }
        let start = Int(node.start), end = start + Int(node.length)
        guard start < end else { return false }
        let bytes = tape.bytes
        if bytes[start] == UInt8(ascii: "@") { return true }
        for position in start..<end where bytes[position] == UInt8(ascii: ":") { return true }
        return false
    }

    func identifier(_ index: Int) throws(Failure) -> ResourceIdentifier {
        try expectObject(index)
        var type: String?
        var id: String?, lid: String?
        var meta: Meta?
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            if tape.key(key, is: "type") {
                type = try repeatedString(value)
            } else if tape.key(key, is: "id") {
                id = try identifierString(value)
            } else if tape.key(key, is: "lid") {
                lid = try string(value)
            } else if tape.key(key, is: "meta") {
                meta = try optionalMeta(value)
            }
            key = tape.skip(value)
        }
        guard let type else { throw missing("type", in: index) }
        guard id != nil || lid != nil else { throw missing("id", in: index) }
        return ResourceIdentifier(type: type, id: id, lid: lid, meta: meta)
    }

    func relationship(_ index: Int) throws(Failure) -> Relationship {
        try expectObject(index)
        var data: Linkage?
        var links: Links?, meta: Meta?
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            if tape.key(key, is: "data") {
                data = try linkage(value)
            } else if tape.key(key, is: "links") {
                links = try optionalLinks(value)
            } else if tape.key(key, is: "meta") {
                meta = try optionalMeta(value)
            }
            key = tape.skip(value)
        }
        return Relationship(data: data, links: links, meta: meta)
    }

    func linkage(_ index: Int) throws(Failure) -> Linkage {
        switch tape.kind(index) {
        case .null: return .toOne(nil)
        case .object: return .toOne(try identifier(index))
        case .array:
            var identifiers: [ResourceIdentifier] = []
            identifiers.reserveCapacity(tape.count(index))
            try forEachElement(index) { element throws(Failure) in identifiers.append(try identifier(element)) }
            return .toMany(identifiers)
        default: throw mismatch(index, expected: "an object, an array or null")
        }
    }

    // MARK: Links, errors, jsonapi

    func links(_ index: Int) throws(Failure) -> Links {
        try expectObject(index)
        var links = Links()
        try forEachMember(index) { key, value throws(Failure) in
            let name = tape.string(key)
            let special = mayNameSpecialMember(key)
            if special, name.hasPrefix("@") {
                // An @-member: processors ignore it (JSON:API 1.1, "@-Members"), as the validator does.
            } else if special, MemberName.isExtensionMember(name) {
                links.extensionMembers[name] = self.value(value)
            } else {
                links.members[name] = .some(tape.kind(value) == .null ? nil : try link(value))
            }
        }
        return links
    }

    func link(_ index: Int) throws(Failure) -> Link {
        switch tape.kind(index) {
        case .string: return Link(href: tape.string(index))
        case .object:
            var href: String?
            var link = Link(href: "")
            try forEachMember(index) { key, value throws(Failure) in
                switch tape.string(key) {
                case "href": href = try string(value)
                case "rel": link.rel = try optionalString(value)
                case "title": link.title = try optionalString(value)
                case "type": link.type = try optionalString(value)
                case "describedby": link.describedBy = tape.kind(value) == .null ? nil : try self.link(value)
                case "hreflang":
                    switch tape.kind(value) {
                    case .null: link.hreflang = nil
                    case .string: link.hreflang = [tape.string(value)]
                    case .array:
                        var languages: [String] = []
                        try forEachElement(value) { element throws(Failure) in languages.append(try string(element)) }
                        link.hreflang = languages
                    default: throw mismatch(value, expected: "a string or an array of strings")
                    }
                case "meta": link.meta = try optionalMeta(value)
                default: break
                }
            }
            guard let href else { throw missing("href", in: index) }
            link.href = href
            return link
        default:
            throw mismatch(index, expected: "a string, a link object or null")
        }
    }

    func errorObject(_ index: Int) throws(Failure) -> ErrorObject {
        try expectObject(index)
        var error = ErrorObject()
        try forEachMember(index) { key, value throws(Failure) in
            switch tape.string(key) {
            case "id": error.id = tape.kind(value) == .null ? nil : try identifierString(value)
            case "links": error.links = try optionalLinks(value)
            // Some servers send the status as a number; its meaning is plain.
            case "status": error.status = tape.kind(value) == .null ? nil : try identifierString(value)
            case "code": error.code = tape.kind(value) == .null ? nil : try identifierString(value)
            case "title": error.title = try optionalString(value)
            case "detail": error.detail = try optionalString(value)
            case "source":
                guard tape.kind(value) != .null else { return }
                try expectObject(value)
                var source = ErrorObject.Source()
                try forEachMember(value) { sourceKey, sourceValue throws(Failure) in
                    switch tape.string(sourceKey) {
                    case "pointer": source.pointer = try optionalString(sourceValue)
                    case "parameter": source.parameter = try optionalString(sourceValue)
                    case "header": source.header = try optionalString(sourceValue)
                    default: break
                    }
                }
                error.source = source
            case "meta": error.meta = try optionalMeta(value)
            default: break
            }
        }
        return error
    }

    func jsonapiObject(_ index: Int) throws(Failure) -> JSONAPIObject {
        try expectObject(index)
        var object = JSONAPIObject()
        try forEachMember(index) { key, value throws(Failure) in
            switch tape.string(key) {
            case "version": object.version = try optionalString(value)
            case "ext": object.ext = try stringArray(value)
            case "profile": object.profile = try stringArray(value)
            case "meta": object.meta = try optionalMeta(value)
            default: break
            }
        }
        return object
    }

    func stringArray(_ index: Int) throws(Failure) -> [String] {
        guard tape.kind(index) == .array else { throw mismatch(index, expected: "an array of strings") }
        var strings: [String] = []
        try forEachElement(index) { element throws(Failure) in strings.append(try string(element)) }
        return strings
    }
}

extension JSONTape {
    /// Whether the node at `index` is an object with no `attributes`, `relationships` or `links` (one given as
    /// `null` is absent, as everywhere) and with an `id` or `lid`: in primary data, a resource identifier (or a
    /// resource without fields, which reads the same). Without `id` and `lid` it can only be a resource object (one
    /// a create request sends). The one place for this rule: the schema-less reader and the validator both ask here.
    func isIdentifierOnly(_ index: Int) -> Bool {
        guard kind(index) == .object else { return false }
        var child = index + 1
        var identified = false
        for _ in 0..<count(index) {
            if kind(child + 1) != .null {
                if stringEquals(child, "attributes") || stringEquals(child, "relationships") || stringEquals(child, "links") {
                    return false
                }
                if stringEquals(child, "id") || stringEquals(child, "lid") { identified = true }
            }
            child = skip(child + 1)
        }
        return identified
    }

    /// Whether every element of the array at `index` is identifier-only (``isIdentifierOnly(_:)``): only then is a
    /// primary-data array a list of identifiers; otherwise every element is a resource object.
    func elementsAreIdentifierOnly(_ index: Int) -> Bool {
        var element = index + 1
        for _ in 0..<count(index) {
            if !isIdentifierOnly(element) { return false }
            element = skip(element)
        }
        return true
    }
}
