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

/// The state of one typed decode: the tape, the options, the index of the document's resources, and the
/// resources being decoded (to cut cycles).
///
/// The decoders and containers a model sees reach the input only through their context's `tape` and `reader`.
/// The tape borrows the caller's bytes for the length of the decode call; a model that keeps its decoder or a
/// container past that call keeps the context, which ``endDecode(_:)`` then moves onto a copy of the bytes: a
/// late read reads that copy, never freed memory.
final class ResourceDecodingContext {
    // Exclusivity: `ancestors` and `caches` are read and written on every resource and property, and the runtime
    // would check every access (checked, `ancestors` alone costs `decode-typed` 2.2 M instructions; the attribute
    // on this scratch state saved 4.0 M when it came, `f8ac522`); they go unchecked because no two accesses to one
    // of them can overlap. A context
    // serves one decode on one thread (`thread`; a decoder or container used on another throws before touching
    // either), so a second access could only begin during a first through a call into code outside this file that
    // re-enters the context — a model's `init(from:)` (which re-enters through nested decodes), a custom date
    // strategy, a key transform, a model's `deinit` — made while that first access is open. None is (all accesses
    // are in this file; both are private):
    // - `ancestors`: `decodeModel` appends, then calls `init(from:)` with no access open, then (in a `defer`)
    //   removes the last; `resolve` reads it with `count` and `contains` (integers: no user code).
    // - `caches`: each access is one call into `DecodeCaches` that runs no code outside this module. `role(of:)`
    //   examines the type (casts, no user code); `wireName` reads the cache, calls the key transform with no
    //   access open, then stores; `decodeShared` reads the shared-model table, calls `init(from:)` with no access
    //   open, then stores; the container pool builds and releases containers (a box it lets go of is held
    //   elsewhere, so no `deinit` runs); `endDecode` empties the shared-model table while a copy keeps the models
    //   alive, so no `deinit` runs inside the write.
    // (`tape` and `reader` are constants; `endDecode` moves the bytes they share through `TapeBytes.adoptCopy()`.)
    /// The parsed input; it borrows the caller's bytes until ``endDecode(_:)`` (a constant: reading a variable's
    /// arrays would retain them on every read).
    let tape: JSONTape
    /// Reads schema-less values from `tape`.
    let reader: DocumentReader
    let keyStrategy: KeyStrategy
    /// Whether the key strategy maps names at all (when not, a property name is the member name).
    let transformsKeys: Bool
    let dateStrategy: DateStrategy
    let maxRelationshipDepth: Int
    let userInfo: [CodingUserInfoKey: Any]
    /// The only thread the decode's decoders and containers answer on.
    let thread = DecodingThread()
    /// The document's resources by `(type, id)` and `(type, lid)`, over primary data and `included`.
    private let resources: ResourceIndex
    /// The index of the document's resources, for records kept from the same parse (`ResourceRecords`).
    var resourceIndex: ResourceIndex { resources }
    /// Resources being decoded, outermost first.
    @exclusivity(unchecked) private var ancestors: [Int] = []
    /// What the decode keeps so as not to do work twice (`FastPath/`).
    @exclusivity(unchecked) private var caches: DecodeCaches

    /// A context for decoding the primary data at `dataIndex`, resolving relationships among it and the resources of
    /// the root object's `included` member.
    convenience init(tape: JSONTape, reader: DocumentReader, options: JSONAPIDecoder, dataIndex: Int) throws(
        JSONAPIDecodingError
    ) {
        self.init(
            tape: tape, reader: reader, options: options,
            resources: try Self.indexResources(tape: tape, reader: reader, dataIndex: dataIndex))
    }

    /// A context resolving relationships among the resources `resources` indexes.
    init(tape: JSONTape, reader: DocumentReader, options: JSONAPIDecoder, resources: ResourceIndex) {
        self.tape = tape
        self.reader = reader
        self.keyStrategy = options.keyStrategy
        self.transformsKeys = options.keyStrategy.transform != nil
        self.dateStrategy = options.dateStrategy
        self.maxRelationshipDepth = options.maxRelationshipDepth
        self.userInfo = options.userInfo
        self.caches = DecodeCaches(poolsContainers: options.userInfo[plainPathKey] == nil)
        self.resources = resources
    }

    /// Ends the decode that lent the tape's bytes; call it before the bytes go away, with the decode's own (and
    /// then only) reference to the context.
    ///
    /// When something else still holds the context — a model kept its decoder or a container — the tape (and every
    /// copy of it) moves onto a copy of the bytes that it owns, so a read through what was kept reads valid memory (the copy), and
    /// lets go of the models it decoded (a model that keeps its decoder would otherwise keep itself alive).
    static func endDecode(_ context: inout ResourceDecodingContext) {
        // The pooled containers hold the context.
        context.caches.containers.removeAll()
        guard !isKnownUniquelyReferenced(&context) else { return }
        context.tape.bytes.adoptCopy()
        let models = context.caches.sharedModels
        context.caches.sharedModels = SharedModelTable()
        withExtendedLifetime(models) {}
    }

    // MARK: Resource index

    private static func indexResources(tape: JSONTape, reader: DocumentReader, dataIndex: Int) throws(
        JSONAPIDecodingError
    ) -> ResourceIndex {
        // `included` is a top-level member; a document decoded from a single resource has none.
        var includedArrays: [Int] = []
        if dataIndex != 0, tape.kind(0) == .object {
            var child = 1
            for _ in 0..<tape.count(0) {
                if tape.stringEquals(child, "included"), tape.kind(child + 1) == .array { includedArrays.append(child + 1) }
                child = tape.skip(child + 1)
            }
        }
        let dataCount = tape.kind(dataIndex) == .array ? tape.count(dataIndex) : 1
        var index = ResourceIndex(capacity: includedArrays.reduce(dataCount) { $0 + tape.count($1) })
        switch tape.kind(dataIndex) {
        case .object: try index.register(dataIndex, reader: reader)
        case .array: try index.registerElements(of: dataIndex, reader: reader)
        default: break
        }
        for included in includedArrays { try index.registerElements(of: included, reader: reader) }
        return index
    }

    /// The resource object an identifier (or resource) at `index` names, or `nil` when the document does not hold
    /// it, it is being decoded further up (a cycle), or resolution is too deep.
    func resolve(_ index: Int) -> Int? {
        guard tape.kind(index) == .object, ancestors.count < maxRelationshipDepth else { return nil }
        let members = ResourceMembers.identity(of: index, in: tape)
        guard let typeIndex = members.type, tape.kind(typeIndex) == .string else { return nil }
        let target: Int?
        if let idIndex = members.id, tape.kind(idIndex) == .string || tape.kind(idIndex) == .number {
            target = resources.lookup(type: typeIndex, key: idIndex, local: false, in: tape)
        } else if let lidIndex = members.lid, tape.kind(lidIndex) == .string {
            target = resources.lookup(type: typeIndex, key: lidIndex, local: true, in: tape)
        } else {
            target = nil
        }
        guard let target, !ancestors.contains(target) else { return nil }
        return target
    }

    // MARK: Decoding

    /// A keyed container for the resource object at `index`; one handed out before when nothing holds it any more.
    func resourceContainer<Key: CodingKey>(keyedBy type: Key.Type, at index: Int) -> KeyedDecodingContainer<Key> {
        let members = caches.members(of: index, in: tape)
        return caches.containers.container(keyedBy: Key.self, at: index, members: members, context: self)
    }

    /// A keyed container for the plain object at `index`; one handed out before when nothing holds it any more.
    func objectContainer<Key: CodingKey>(keyedBy type: Key.Type, at index: Int) -> KeyedDecodingContainer<Key> {
        caches.containers.objectContainer(keyedBy: Key.self, at: index, context: self)
    }

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
            switch role(of: T.self) {
            case .special(let special): return try decodeSpecialValue(special, as: T.self, at: index)
            case .array(let arrayType):
                try expectKind(.array, at: index, "an array")
                return try decodeArray(arrayType, at: index, linked: false, as: T.self)
            default: return try T(from: ResourceDecoder(context: self, position: position))
            }
        case .linked(let index):
            switch role(of: T.self) {
            case .special(.identifier): return try reinterpret(reader.identifier(index), as: T.self)
            case .special(.resourceObject): return try reinterpret(reader.resource(resolve(index) ?? index), as: T.self)
            default:
                if let target = resolve(index) { return try decodeResource(T.self, at: target) }
                do {
                    return try decodeResource(T.self, at: index)
                } catch {
                    throw missingTarget(at: index, type: T.self, cause: error) ?? error
                }
            }
        case .resource(let index):
            return try decodeResource(T.self, at: index)
        case .resources(let index):
            switch role(of: T.self) {
            case .identifierArray:
                if case .toMany(let identifiers) = try reader.linkage(index) {
                    return try reinterpret(identifiers, as: T.self)
                }
            case .array(let arrayType): return try decodeArray(arrayType, at: index, linked: true, as: T.self)
            default: break
            }
            return try T(from: ResourceDecoder(context: self, position: position))
        case .relationship(let index):
            switch role(of: T.self) {
            case .relationshipDecodable(let relationshipType):
                return try decodeRelationship(relationshipType, at: index, as: T.self)
            case .relationship:
                return try reinterpret(reader.relationship(index), as: T.self)
            default:
                break
            }
            guard let dataIndex = ResourceMembers.data(of: index, in: tape) else {
                throw DecodingError.valueNotFound(
                    T.self,
                    failure(
                        at: index, code: .missingMember, expected: "member \"data\"",
                        detail: "the relationship has no linkage (only links or meta); use ToOne/ToMany to read it"))
            }
            return try decode(T.self, at: linkagePosition(dataIndex))
        }
    }

    private func decodeArray<A: TapeDecodableArray, T>(_ type: A.Type, at index: Int, linked: Bool, as: T.Type) throws
        -> T
    {
        try reinterpret(A(tapeArrayAt: index, linked: linked, context: self), as: T.self)
    }

    private func decodeRelationship<R: RelationshipDecodable, T>(_ type: R.Type, at index: Int, as: T.Type) throws -> T {
        try reinterpret(R(relationshipAt: index, context: self), as: T.self)
    }

    /// Decodes a model from the resource (or unresolved identifier) at `index`, or returns the model decoded from it
    /// before. While it is being decoded, a relationship that leads back to it (a cycle) gives its identifier alone.
    ///
    /// The primary data is always decoded afresh, at the top. A resource reached through a relationship is kept
    /// from its second time on (most are named once, and keeping costs an allocation), so each is decoded at most
    /// twice per type.
    private func decodeResource<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        guard !ancestors.isEmpty, caches.reachedBefore(index, nodeCount: tape.nodes.count) else {
            return try decodeModel(T.self, at: index)
        }
        return try decodeShared(T.self, at: index)
    }

    /// ``decodeResource(_:at:)`` for a resource reached before: the model kept from then, or decoded and kept now.
    /// (A function of its own: the common path, a resource reached once, does not pay for the table.)
    @inline(never)
    private func decodeShared<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        switch caches.sharedModels.kept(T.self, at: index) {
        case .model(let object): return SharedModelTable.model(object, as: T.self)
        case .failure(let error): throw error
        case .none: break
        }
        do {
            let model = try decodeModel(T.self, at: index)
            caches.sharedModels.keep(model, at: index)
            return model
        } catch {
            caches.sharedModels.keepFailure(error, as: T.self, at: index)
            throw error
        }
    }

    private func decodeModel<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        if case .resource(let resourceType) = role(of: T.self) {
            try checkType(of: index, is: resourceType.resourceType, for: T.self)
        }
        ancestors.append(index)
        defer { ancestors.removeLast() }
        return try T(from: ResourceDecoder(context: self, position: .resource(index)))
    }

    /// A ``Resource`` model is only read from a resource object of its own type: an `articles` resource read as a
    /// `Note` would be written back as `notes`, another resource. (A missing or non-string `type` is the document's
    /// fault, reported where the document is read.)
    private func checkType<T>(of index: Int, is resourceType: String, for model: T.Type) throws {
        guard tape.kind(index) == .object else { return }
        // The model's container takes these members rather than finding them again.
        let members = ResourceMembers(tape: tape, object: index)
        caches.noteMembers(members, of: index)
        guard let value = members.type, tape.kind(value) == .string, !tape.stringEquals(value, resourceType) else {
            return
        }
        throw DecodingError.typeMismatch(
            T.self,
            failure(
                at: value, expected: "\"\(resourceType)\"", found: "\"\(tape.string(value))\"",
                detail: "a \(T.self) is a resource of type \"\(resourceType)\""))
    }

    /// Decodes a to-one relationship's target for an optional property: `nil` when the target is not in the
    /// document (or is a cycle) and the model cannot be built from its identifier alone.
    func decodeIfResolvable<T: Decodable>(_ type: T.Type, at position: TapePosition) throws -> T? {
        guard case .relationship(let index) = position else { return try decode(T.self, at: position) }
        let role = role(of: T.self)
        switch role {
        case .relationshipDecodable, .relationship: return try decode(T.self, at: position)
        default: break
        }
        guard let dataIndex = ResourceMembers.data(of: index, in: tape), tape.kind(dataIndex) != .null else {
            return nil
        }
        if case .special(.identifier) = role { return try decode(T.self, at: linkagePosition(dataIndex)) }
        guard tape.kind(dataIndex) == .object else {
            // An optional to-many whose targets are not all in the document is nil when its models cannot be built
            // from the identifiers, as an optional to-one is; failures inside included resources still throw.
            if tape.kind(dataIndex) == .array, !resolvesAll(dataIndex) {
                return try? decode(T.self, at: linkagePosition(dataIndex))
            }
            return try decode(T.self, at: linkagePosition(dataIndex))
        }
        guard let target = resolve(dataIndex) else { return try? decode(T.self, at: .linked(dataIndex)) }
        if case .special(.resourceObject) = role { return try decode(T.self, at: .linked(dataIndex)) }
        return try decodeResource(T.self, at: target)
    }

    /// The error for a model that could not be built from the identifier at `index` because the document does not
    /// hold the resource it names: it names the missing resource (`comments 13 is not in included`) and says what
    /// the model lacked. `nil` when the document holds it (a cycle or the depth limit cut it) or `index` is not an
    /// identifier, so that the original error stands.
    private func missingTarget<T>(at index: Int, type: T.Type, cause: any Error) -> DecodingError? {
        guard tape.kind(index) == .object, ResourceMembers.member("attributes", of: index, in: tape) == nil,
            let identifier = try? reader.identifier(index)
        else { return nil }
        let members = ResourceMembers(tape: tape, object: index)
        guard let typeIndex = members.type else { return nil }
        let target: Int?
        if let idIndex = members.id {
            target = resources.lookup(type: typeIndex, key: idIndex, local: false, in: tape)
        } else if let lidIndex = members.lid {
            target = resources.lookup(type: typeIndex, key: lidIndex, local: true, in: tape)
        } else {
            return nil
        }
        guard target == nil else { return nil }
        let name =
            if let id = identifier.id { "\(identifier.type) \(id)" }
            else { "\(identifier.type) with lid \(identifier.lid ?? "")" }
        let lacking = describe(cause)
        let reason = lacking.expected.map { "expected \($0)" } ?? lacking.detail ?? lacking.description
        return DecodingError.valueNotFound(
            T.self,
            failure(
                at: index, code: .missingMember,
                detail: "\(name) is not in included, and \(T.self) needs more than its identifier (\(reason))"))
    }

    /// Whether every identifier in the linkage array at `index` names a resource the document holds.
    private func resolvesAll(_ index: Int) -> Bool {
        var element = index + 1
        for _ in 0..<tape.count(index) {
            if resolve(element) == nil { return false }
            element = tape.skip(element)
        }
        return true
    }

    // MARK: Types with their own handling

    /// Types read straight from the tape rather than through `init(from:)`.
    enum SpecialValue {
        case string, bool, int, int64, double
        case date, jsonValue, url, decimal, meta, links, link, identifier, resourceObject, primaryData, errorObject
    }

    /// How the decoder treats a type, found once per type and decode (casts and generic metadata are what make
    /// the Codable boundary slow, so each type is examined once).
    enum Role {
        case plain
        case special(SpecialValue)
        /// `[ResourceIdentifier]`, read straight from to-many linkage.
        case identifierArray
        /// Any other array: filled in one allocation (what `Array.init(from:)` does, without its overhead).
        case array(any TapeDecodableArray.Type)
        /// ``ToOne``, ``ToMany``: read the whole relationship object.
        case relationshipDecodable(any RelationshipDecodable.Type)
        /// ``Relationship``.
        case relationship
        /// A ``Resource`` model: the resource objects it is decoded from must be of its type.
        /// (The type, not its `resourceType`: a role is copied on every lookup, and a `String` would be retained.)
        case resource(any Resource.Type)
    }

    /// How the decoder treats `T`, examined once per type and decode.
    func role<T>(of type: T.Type) -> Role {
        caches.roles.role(of: T.self)
    }

    static func examine<T>(_ type: T.Type) -> Role {
        let specials: [(Any.Type, SpecialValue)] = [
            (String.self, .string), (Bool.self, .bool), (Int.self, .int), (Int64.self, .int64), (Double.self, .double),
            (Date.self, .date), (JSONValue.self, .jsonValue), (URL.self, .url), (Decimal.self, .decimal),
            (Meta.self, .meta), (Links.self, .links), (Link.self, .link), (ResourceIdentifier.self, .identifier),
            (ResourceObject.self, .resourceObject), (PrimaryData.self, .primaryData), (ErrorObject.self, .errorObject),
        ]
        for (special, value) in specials where special == T.self { return .special(value) }
        if T.self == [ResourceIdentifier].self { return .identifierArray }
        if T.self == Relationship.self { return .relationship }
        if let relationshipType = T.self as? any RelationshipDecodable.Type { return .relationshipDecodable(relationshipType) }
        if let arrayType = T.self as? any TapeDecodableArray.Type { return .array(arrayType) }
        if let resourceType = T.self as? any Resource.Type { return .resource(resourceType) }
        return .plain
    }

    private func decodeSpecialValue<T>(_ special: SpecialValue, as type: T.Type, at index: Int) throws -> T {
        // The primitives read exactly as `T(from:)` would read them through a single-value container.
        switch special {
        case .string: return try reinterpret(decodeString(at: index), as: T.self)
        case .bool: return try reinterpret(decodeBool(at: index), as: T.self)
        case .int: return try reinterpret(decodeInteger(Int.self, at: index), as: T.self)
        case .int64: return try reinterpret(decodeInteger(Int64.self, at: index), as: T.self)
        case .double: return try reinterpret(decodeFloatingPoint(Double.self, at: index), as: T.self)
        case .date: return try reinterpret(decodeDate(at: index), as: T.self)
        case .jsonValue: return try reinterpret(reader.value(index), as: T.self)
        case .url:
            guard tape.kind(index) == .string, let url = URL(percentEncoding: tape.string(index)) else {
                throw DecodingError.typeMismatch(URL.self, failure(at: index, code: .invalidValue, expected: "a URL"))
            }
            return try reinterpret(url, as: T.self)
        case .decimal: return try reinterpret(decodeDecimal(at: index), as: T.self)
        case .meta: return try reinterpret(reader.meta(index), as: T.self)
        case .links: return try reinterpret(reader.links(index), as: T.self)
        case .link: return try reinterpret(reader.link(index), as: T.self)
        case .identifier: return try reinterpret(reader.identifier(index), as: T.self)
        case .resourceObject: return try reinterpret(reader.resource(index), as: T.self)
        case .primaryData: return try reinterpret(reader.primaryData(index), as: T.self)
        case .errorObject: return try reinterpret(reader.errorObject(index), as: T.self)
        }
    }

    func decodeDate(at index: Int) throws -> Date {
        switch dateStrategy.kind {
        case .iso8601(_, let localTimes):
            guard tape.kind(index) == .string else {
                throw DecodingError.typeMismatch(Date.self, failure(at: index, expected: "an ISO 8601 date string"))
            }
            guard let date = tape.withStringBytes(index, { ISO8601.parse($0, localTimes: localTimes) }) else {
                let expected =
                    localTimes.isRejected ? "an ISO 8601 date with Z or a UTC offset" : "an ISO 8601 date"
                throw DecodingError.dataCorrupted(
                    failure(at: index, code: .invalidValue, expected: expected, found: "\"\(tape.string(index))\""))
            }
            return date
        case .secondsSince1970, .millisecondsSince1970:
            guard tape.kind(index) == .number else {
                throw DecodingError.typeMismatch(Date.self, failure(at: index, expected: "a number of seconds"))
            }
            let scale = if case .millisecondsSince1970 = dateStrategy.kind { 1000.0 } else { 1.0 }
            return Date(timeIntervalSince1970: try decodeFloatingPoint(Double.self, at: index) / scale)
        case .custom(let transcoder):
            return try transcoder.decode(reader.value(index))
        }
    }

    // MARK: Keys

    /// The member name for a property name under the key strategy.
    func wireName(_ key: String) -> String {
        guard transformsKeys, let transform = keyStrategy.transform else { return key }
        if let name = caches.wireNames.cached(key) { return name }
        let name = transform.wireName(for: key)
        caches.wireNames.remember(name, for: key)
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
///
/// `attributes`, `relationships`, `links` and `meta` given as `null` are absent (the specification makes each an
/// optional object; `null` can only mean "none"), so a model reads its optional members as `nil`.
struct ResourceMembers {
    var type: Int?
    var id: Int?
    var lid: Int?
    var attributes: Int?
    var relationships: Int?
    var links: Int?
    var meta: Int?

    /// No members.
    init() {}

    init(tape: JSONTape, object: Int) {
        var child = object + 1
        for _ in 0..<tape.count(object) {
            let value = child + 1
            switch Self.fixedMember(child, in: tape) {
            case .id: id = value
            case .lid: lid = value
            case .type: type = value
            case .meta: meta = value
            case .links: links = value
            case .attributes: attributes = value
            case .relationships: relationships = value
            case nil: break
            }
            child = tape.skip(value)
        }
        if let attributes, tape.kind(attributes) == .null { self.attributes = nil }
        if let relationships, tape.kind(relationships) == .null { self.relationships = nil }
        if let links, tape.kind(links) == .null { self.links = nil }
        if let meta, tape.kind(meta) == .null { self.meta = nil }
    }

    /// The `type`, `id` and `lid` members of the object at `object` (which must be an object), as
    /// ``init(tape:object:)`` finds them: what resolving an identifier or indexing a resource needs, without the
    /// rest.
    static func identity(of object: Int, in tape: JSONTape) -> (type: Int?, id: Int?, lid: Int?) {
        var type: Int?, id: Int?, lid: Int?
        var child = object + 1
        for _ in 0..<tape.count(object) {
            let value = child + 1
            switch fixedMember(child, in: tape) {
            case .id: id = value
            case .lid: lid = value
            case .type: type = value
            default: break
            }
            child = tape.skip(value)
        }
        return (type, id, lid)
    }

    /// The members of a resource object with fixed meanings.
    enum FixedMember: String {
        case id, lid, type, meta, links, attributes, relationships
    }

    /// Which fixed member the key at `child` names, if any. Dispatches on the length first: most keys are compared
    /// once, as bytes; a key with escapes is decoded and compared as text.
    @inline(__always)
    static func fixedMember(_ child: Int, in tape: JSONTape) -> FixedMember? {
        let node = tape.nodes[child]
        guard node.flags & JSONTape.stringHasEscapes == 0 else { return FixedMember(rawValue: tape.string(child)) }
        switch node.length {
        case 2: return tape.keyBytesEqual(child, "id") ? .id : nil
        case 3: return tape.keyBytesEqual(child, "lid") ? .lid : nil
        case 4: return tape.keyBytesEqual(child, "type") ? .type : tape.keyBytesEqual(child, "meta") ? .meta : nil
        case 5: return tape.keyBytesEqual(child, "links") ? .links : nil
        case 10: return tape.keyBytesEqual(child, "attributes") ? .attributes : nil
        case 13: return tape.keyBytesEqual(child, "relationships") ? .relationships : nil
        default: return nil
        }
    }

    /// Where the member for the property `name` is: `id`, `type` or `lid`, then an attribute, then a relationship,
    /// then the resource's `links` or `meta`. (Not generic over the key type, so no generic metadata is needed.)
    func position(of name: String, in context: ResourceDecodingContext) -> TapePosition? {
        // Without `var name = name; name.withUTF8`: the copy is retained and released on every lookup.
        if !context.transformsKeys,
            let found = name.utf8.withContiguousStorageIfAvailable({ position(name: BorrowedBytes($0), wire: BorrowedBytes($0), in: context.tape) })
        {
            return found
        }
        var name = name
        guard context.transformsKeys else {
            return name.withUTF8 { position(name: BorrowedBytes($0), wire: BorrowedBytes($0), in: context.tape) }
        }
        var wire = context.wireName(name)
        return name.withUTF8 { name in
            wire.withUTF8 { position(name: BorrowedBytes(name), wire: BorrowedBytes($0), in: context.tape) }
        }
    }

    /// Where the member for the property `name` (`wire` in the document) is; compared as bytes.
    private func position(name: BorrowedBytes, wire: BorrowedBytes, in tape: JSONTape)
        -> TapePosition?
    {
        switch name.count {
        case 2 where Self.equal(name, "id"): return id.map(TapePosition.value)
        case 3 where Self.equal(name, "lid"): return lid.map(TapePosition.value)
        case 4 where Self.equal(name, "type"): return type.map(TapePosition.value)
        default: break
        }
        if let attributes, let value = Self.member(wire, of: attributes, in: tape) { return .value(value) }
        if let relationships, let value = Self.member(wire, of: relationships, in: tape) {
            return .relationship(value)
        }
        if let links, Self.equal(name, "links") { return .value(links) }
        if let meta, Self.equal(name, "meta") { return .value(meta) }
        return nil
    }

    @inline(__always)
    private static func equal(_ bytes: BorrowedBytes, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        for i in 0..<bytes.count where bytes[i] != expected[i] { return false }
        return true
    }

    /// The value index of the member `name` of the object at `object`.
    static func member(_ name: String, of object: Int, in tape: JSONTape) -> Int? {
        guard tape.kind(object) == .object else { return nil }
        var name = name
        return name.withUTF8 { tape.member(BorrowedBytes($0), of: object) }
    }

    /// The value index of the member `utf8` of the object at `object`.
    @inline(__always)
    static func member(_ utf8: BorrowedBytes, of object: Int, in tape: JSONTape) -> Int? {
        guard tape.kind(object) == .object else { return nil }
        return tape.member(utf8, of: object)
    }

    /// The value index of the (last) `data` member of the (relationship) object at `object`.
    static func data(of object: Int, in tape: JSONTape) -> Int? {
        guard tape.kind(object) == .object else { return nil }
        var found: Int?
        var child = object + 1
        for _ in 0..<tape.count(object) {
            let node = tape.nodes[child]
            if node.flags & JSONTape.stringHasEscapes == 0 {
                if node.length == 4, tape.keyBytesEqual(child, "data") { found = child + 1 }
            } else if tape.stringEquals(child, "data") {
                found = child + 1
            }
            child = tape.skip(child + 1)
        }
        return found
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

/// Arrays the decoder fills itself.
protocol TapeDecodableArray {
    init(tapeArrayAt index: Int, linked: Bool, context: ResourceDecodingContext) throws
}

extension Array: TapeDecodableArray where Element: Decodable {
    /// What `Array.init(from:)` does (decode elements until the container is at its end), with no existential
    /// container, each element decoded into place. (`append` is not specialized outside the standard library: it
    /// checked uniqueness and capacity for every element.)
    init(tapeArrayAt index: Int, linked: Bool, context: ResourceDecodingContext) throws {
        // Arrays of strings and numbers are filled by code specialized for them. Generic code asks the runtime for
        // the array types' metadata (two hash lookups, ~770 instructions: more than decoding three tags) and goes
        // through `decode(_:at:)` for every element. Each branch has established that `Element` is the type it
        // fills, so `Self` is that array type: `assumingSameType` reinterprets nothing. (`reinterpret(_:as:)`, which
        // checks it again, asks the runtime for `Array<Element>`'s metadata: +0.33 M instructions a typed decode.)
        if !linked {
            if Element.self == String.self {
                self = assumingSameType(try [String](tapeElementsAt: index, context, context.decodeString), as: Self.self)
                return
            }
            if Element.self == Int.self {
                self = assumingSameType(
                    try [Int](tapeElementsAt: index, context) { try context.decodeInteger(Int.self, at: $0) },
                    as: Self.self)
                return
            }
            if Element.self == Double.self {
                self = assumingSameType(
                    try [Double](tapeElementsAt: index, context) { try context.decodeFloatingPoint(Double.self, at: $0) },
                    as: Self.self)
                return
            }
            if Element.self == Bool.self {
                self = assumingSameType(try [Bool](tapeElementsAt: index, context, context.decodeBool), as: Self.self)
                return
            }
        }
        var container = ArrayContainer(context: context, index: index, linked: linked)
        try self.init(unsafeUninitializedCapacity: context.tape.count(index)) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while initialized < buffer.count, !container.isAtEnd {
                (base + initialized).initialize(to: try container.decode(Element.self))
                initialized += 1
            }
        }
    }
}

extension Array {
    /// The elements of the array at `index`, each read by `element` from its tape index. (Inlined into callers with
    /// a concrete `Element`, so that it is specialized.)
    @inline(__always)
    fileprivate init(
        tapeElementsAt index: Int, _ context: ResourceDecodingContext, _ element: (Int) throws -> Element
    ) throws {
        let tape = context.tape
        var child = index &+ 1
        self = try Array(unsafeUninitializedCapacity: tape.count(index)) { buffer, initialized in
            while initialized < buffer.count {
                buffer.initializeElement(at: initialized, to: try element(child))
                initialized &+= 1
                child = tape.skip(child)
            }
        }
    }
}

/// Types that read a whole relationship object (linkage, links, meta), such as ``ToOne`` and ``ToMany``.
protocol RelationshipDecodable {
    init(relationshipAt index: Int, context: ResourceDecodingContext) throws
}
