import Foundation

/// Where a value to decode sits in the tape, and how to read it.
enum TapePosition {
    /// A plain JSON value (an attribute, meta, a nested object).
    case value(Int)
    /// A resource object or identifier to resolve through the document before it is read as a model.
    case linked(Int)
    /// A resolved resource object (or an identifier that could not be resolved), read as a model.
    case resource(Int)
    /// An array of resource objects or identifiers, each resolved as it is read.
    case resources(Int)
    /// A relationship object, read through its linkage unless the type wants the whole relationship.
    case relationship(Int)

    var index: Int {
        switch self {
        case .value(let i), .linked(let i), .resource(let i), .resources(let i), .relationship(let i): i
        }
    }
}

/// Where a decoding failure happened in the tape; carried as a `DecodingError`'s underlying error.
struct TapeLocation: Error {
    var index: Int
    var member: String?
    var code: JSONAPIDecodingError.Code
    var expected: String?
    var found: String?
    var detail: String?
}

/// Identifies a resource in a document.
struct ResourceKey: Hashable {
    var type: String
    var id: String
}

/// The state of one typed decode: the tape, the options, the index of the document's resources, and the
/// resources being decoded (to cut cycles).
final class ResourceDecodingContext {
    let tape: JSONTape
    let reader: DocumentReader
    let keyStrategy: KeyStrategy
    let dateStrategy: DateStrategy
    let maxRelationshipDepth: Int
    let userInfo: [CodingUserInfoKey: Any]
    /// `(type, id)` → the tape index of the resource object, over primary data and `included`.
    private var resources: [ResourceKey: Int] = [:]
    /// `(type, lid)` → the tape index of a resource created in this document.
    private var localResources: [ResourceKey: Int] = [:]
    /// Resources being decoded, outermost first.
    private var ancestors: [Int] = []
    private var wireNames: [String: String] = [:]

    init(tape: JSONTape, reader: DocumentReader, options: JSONAPIDecoder, dataIndex: Int) throws(JSONAPIDecodingError) {
        self.tape = tape
        self.reader = reader
        self.keyStrategy = options.keyStrategy
        self.dateStrategy = options.dateStrategy
        self.maxRelationshipDepth = options.maxRelationshipDepth
        self.userInfo = options.userInfo
        try indexResources(dataIndex: dataIndex)
    }

    // MARK: Resource index

    private func indexResources(dataIndex: Int) throws(JSONAPIDecodingError) {
        switch tape.kind(dataIndex) {
        case .object: try register(dataIndex)
        case .array: try registerElements(of: dataIndex)
        default: break
        }
        // `included` is a top-level member; a document decoded from a single resource has none.
        guard dataIndex != 0, tape.kind(0) == .object else { return }
        var child = 1
        for _ in 0..<tape.count(0) {
            if tape.stringEquals(child, "included"), tape.kind(child + 1) == .array {
                try registerElements(of: child + 1)
            }
            child = tape.skip(child + 1)
        }
    }

    private func registerElements(of array: Int) throws(JSONAPIDecodingError) {
        resources.reserveCapacity(resources.count + tape.count(array))
        var element = array + 1
        for _ in 0..<tape.count(array) {
            try register(element)
            element = tape.skip(element)
        }
    }

    private func register(_ index: Int) throws(JSONAPIDecodingError) {
        guard tape.kind(index) == .object else {
            throw reader.mismatch(index, expected: "a resource object")
        }
        let members = ResourceMembers(tape: tape, object: index)
        guard let typeIndex = members.type else { throw reader.missing("type", in: index) }
        let type = try reader.string(typeIndex)
        if let idIndex = members.id {
            let key = ResourceKey(type: type, id: try reader.identifierString(idIndex))
            if resources.updateValue(index, forKey: key) != nil {
                throw reader.invalid(index, "resource \(type)/\(key.id) appears more than once in the document")
            }
        } else if let lidIndex = members.lid {
            localResources[ResourceKey(type: type, id: try reader.string(lidIndex))] = index
        }
    }

    /// The resource object an identifier (or resource) at `index` names, or `nil` when the document does not hold
    /// it, it is being decoded further up (a cycle), or resolution is too deep.
    func resolve(_ index: Int) -> Int? {
        guard tape.kind(index) == .object, ancestors.count < maxRelationshipDepth else { return nil }
        let members = ResourceMembers(tape: tape, object: index)
        guard let typeIndex = members.type, tape.kind(typeIndex) == .string else { return nil }
        let target: Int?
        if let idIndex = members.id, let id = try? reader.identifierString(idIndex) {
            target = resources[ResourceKey(type: tape.string(typeIndex), id: id)]
        } else if let lidIndex = members.lid, tape.kind(lidIndex) == .string {
            target = localResources[ResourceKey(type: tape.string(typeIndex), id: tape.string(lidIndex))]
        } else {
            target = nil
        }
        guard let target, !ancestors.contains(target) else { return nil }
        return target
    }

    // MARK: Decoding

    /// The position of linkage (or primary data) at `index`: `null`, one resource, or many.
    func linkagePosition(_ index: Int) -> TapePosition {
        switch tape.kind(index) {
        case .object: .linked(index)
        case .array: .resources(index)
        default: .value(index)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, at position: TapePosition) throws -> T {
        switch position {
        case .value(let index):
            if let special = try decodeSpecialValue(T.self, at: index) { return special }
            return try T(from: ResourceDecoder(context: self, position: position))
        case .linked(let index):
            if T.self == ResourceIdentifier.self, let identifier = try reader.identifier(index) as? T { return identifier }
            if T.self == ResourceObject.self, let resource = try reader.resource(resolve(index) ?? index) as? T {
                return resource
            }
            return try decodeResource(T.self, at: resolve(index) ?? index)
        case .resource(let index):
            return try decodeResource(T.self, at: index)
        case .resources(let index):
            if T.self == [ResourceIdentifier].self, case .toMany(let identifiers) = try reader.linkage(index),
                let identifiers = identifiers as? T
            {
                return identifiers
            }
            return try T(from: ResourceDecoder(context: self, position: position))
        case .relationship(let index):
            if let relationshipType = T.self as? any RelationshipDecodable.Type,
                let value = try relationshipType.init(relationshipAt: index, context: self) as? T
            {
                return value
            }
            if T.self == Relationship.self, let relationship = try reader.relationship(index) as? T {
                return relationship
            }
            guard let dataIndex = ResourceMembers.member("data", of: index, in: tape) else {
                throw DecodingError.valueNotFound(
                    T.self,
                    failure(
                        at: index, code: .missingMember, expected: "member \"data\"",
                        detail: "the relationship has no linkage (only links or meta); use ToOne/ToMany to read it"))
            }
            return try decode(T.self, at: linkagePosition(dataIndex))
        }
    }

    /// Decodes a model from the resource (or unresolved identifier) at `index`, marking it as being decoded.
    private func decodeResource<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        ancestors.append(index)
        defer { ancestors.removeLast() }
        return try T(from: ResourceDecoder(context: self, position: .resource(index)))
    }

    /// Decodes a to-one relationship's target for an optional property: `nil` when the target is not in the
    /// document (or is a cycle) and the model cannot be built from its identifier alone.
    func decodeIfResolvable<T: Decodable>(_ type: T.Type, at position: TapePosition) throws -> T? {
        guard case .relationship(let index) = position, !(T.self is any RelationshipDecodable.Type),
            T.self != Relationship.self
        else { return try decode(T.self, at: position) }
        guard let dataIndex = ResourceMembers.member("data", of: index, in: tape), tape.kind(dataIndex) != .null else {
            return nil
        }
        guard tape.kind(dataIndex) == .object, T.self != ResourceIdentifier.self, resolve(dataIndex) == nil else {
            return try decode(T.self, at: linkagePosition(dataIndex))
        }
        return try? decode(T.self, at: .linked(dataIndex))
    }

    /// Types read straight from the tape rather than through `init(from:)`.
    private func decodeSpecialValue<T>(_ type: T.Type, at index: Int) throws -> T? {
        if T.self == Date.self { return try decodeDate(at: index) as? T }
        if T.self == JSONValue.self { return reader.value(index) as? T }
        if T.self == URL.self {
            guard tape.kind(index) == .string, let url = URL(string: tape.string(index)) else {
                throw DecodingError.typeMismatch(URL.self, failure(at: index, code: .invalidValue, expected: "a URL"))
            }
            return url as? T
        }
        if T.self == Decimal.self {
            guard tape.kind(index) == .number, let decimal = Decimal(string: tape.numberText(index)) else {
                throw DecodingError.typeMismatch(Decimal.self, failure(at: index, expected: "a number"))
            }
            return decimal as? T
        }
        if T.self == Meta.self { return try reader.meta(index) as? T }
        if T.self == Links.self { return try reader.links(index) as? T }
        if T.self == Link.self { return try reader.link(index) as? T }
        if T.self == ResourceIdentifier.self { return try reader.identifier(index) as? T }
        if T.self == ResourceObject.self { return try reader.resource(index) as? T }
        if T.self == PrimaryData.self { return try reader.primaryData(index) as? T }
        if T.self == ErrorObject.self { return try reader.errorObject(index) as? T }
        return nil
    }

    func decodeDate(at index: Int) throws -> Date {
        switch dateStrategy.kind {
        case .iso8601:
            guard tape.kind(index) == .string else {
                throw DecodingError.typeMismatch(Date.self, failure(at: index, expected: "an ISO 8601 date string"))
            }
            guard let date = ISO8601.parse(tape.string(index)) else {
                throw DecodingError.dataCorrupted(
                    failure(at: index, code: .invalidValue, expected: "an ISO 8601 date", found: "\"\(tape.string(index))\""))
            }
            return date
        case .secondsSince1970, .millisecondsSince1970:
            guard tape.kind(index) == .number else {
                throw DecodingError.typeMismatch(Date.self, failure(at: index, expected: "a number of seconds"))
            }
            let scale = if case .millisecondsSince1970 = dateStrategy.kind { 1000.0 } else { 1.0 }
            return Date(timeIntervalSince1970: tape.double(index) / scale)
        case .custom(let decode, _):
            return try decode(reader.value(index))
        }
    }

    // MARK: Keys

    /// The member name for a property name under the key strategy.
    func wireName(_ key: String) -> String {
        guard keyStrategy.transform != nil else { return key }
        if let cached = wireNames[key] { return cached }
        let name = keyStrategy.wireName(for: key)
        wireNames[key] = name
        return name
    }

    // MARK: Errors

    func failure(
        at index: Int, member: String? = nil, code: JSONAPIDecodingError.Code = .typeMismatch, expected: String? = nil,
        found: String? = nil, detail: String? = nil
    ) -> DecodingError.Context {
        let location = TapeLocation(
            index: index, member: member, code: code, expected: expected,
            found: found ?? (member == nil && code == .typeMismatch ? tape.describe(index) : nil), detail: detail)
        return DecodingError.Context(
            codingPath: codingPath(to: index), debugDescription: describe(location).description,
            underlyingError: location)
    }

    func describe(_ location: TapeLocation) -> JSONAPIDecodingError {
        var pointer = tape.pointer(to: location.index)
        if let member = location.member { pointer += "/" + JSONTape.escapePointerToken(member) }
        return JSONAPIDecodingError(
            code: location.code, pointer: pointer, expected: location.expected, found: location.found,
            detail: location.detail)
    }

    /// Turns whatever a model's decoding threw into a ``JSONAPIDecodingError`` with a pointer.
    func describe(_ error: any Error) -> JSONAPIDecodingError {
        if let error = error as? JSONAPIDecodingError { return error }
        guard let decodingError = error as? DecodingError else {
            return JSONAPIDecodingError(code: .invalidValue, pointer: "", detail: String(describing: error))
        }
        let context: DecodingError.Context
        var code = JSONAPIDecodingError.Code.invalidValue
        switch decodingError {
        case .typeMismatch(_, let c): context = c; code = .typeMismatch
        case .valueNotFound(_, let c): context = c; code = .typeMismatch
        case .keyNotFound(_, let c): context = c; code = .missingMember
        case .dataCorrupted(let c): context = c
        @unknown default: return JSONAPIDecodingError(code: .invalidValue, pointer: "", detail: "\(error)")
        }
        if let location = context.underlyingError as? TapeLocation { return describe(location) }
        if let inner = context.underlyingError as? JSONAPIDecodingError { return inner }
        let pointer = context.codingPath.map { "/" + JSONTape.escapePointerToken($0.stringValue) }.joined()
        return JSONAPIDecodingError(code: code, pointer: pointer, detail: context.debugDescription)
    }

    /// The coding path of the value at `index`: the JSON path to it.
    func codingPath(to index: Int) -> [any CodingKey] {
        tape.pointer(to: index).split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { token in
            let name = String(token).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            return AnyCodingKey(name)
        }
    }
}

/// The members of a resource object (or identifier) that have fixed meanings, found in one pass.
struct ResourceMembers {
    var type: Int?
    var id: Int?
    var lid: Int?
    var attributes: Int?
    var relationships: Int?
    var links: Int?
    var meta: Int?

    init(tape: JSONTape, object: Int) {
        var child = object + 1
        for _ in 0..<tape.count(object) {
            let value = child + 1
            let node = tape.nodes[child]
            // Dispatch on length first: most keys are compared once.
            switch node.length {
            case 2: if tape.stringEquals(child, "id") { id = value }
            case 3: if tape.stringEquals(child, "lid") { lid = value }
            case 4:
                if tape.stringEquals(child, "type") {
                    type = value
                } else if tape.stringEquals(child, "meta") {
                    meta = value
                }
            case 5: if tape.stringEquals(child, "links") { links = value }
            case 10: if tape.stringEquals(child, "attributes") { attributes = value }
            case 13: if tape.stringEquals(child, "relationships") { relationships = value }
            default: break
            }
            child = tape.skip(value)
        }
    }

    /// The value index of the member `name` of the object at `object`.
    static func member(_ name: String, of object: Int, in tape: JSONTape) -> Int? {
        guard tape.kind(object) == .object else { return nil }
        var child = object + 1
        for _ in 0..<tape.count(object) {
            if tape.stringEquals(child, name) { return child + 1 }
            child = tape.skip(child + 1)
        }
        return nil
    }
}

/// A coding key with any name.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) {
        stringValue = string
        intValue = Int(string)
    }
    init(stringValue: String) { self.init(stringValue) }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Types that read a whole relationship object (linkage, links, meta), such as ``ToOne`` and ``ToMany``.
protocol RelationshipDecodable {
    init(relationshipAt index: Int, context: ResourceDecodingContext) throws
}
