import Foundation

/// Writes JSON:API documents: compound documents from your models (the server side), request bodies for create,
/// update and relationship endpoints (the client side), and the schema-less ``RawDocument``.
///
/// Output is deterministic: the same document always gives the same bytes (members sorted by name).
public struct JSONAPIEncoder: Sendable {
    /// How property names map to member names.
    public var keyStrategy: KeyStrategy
    /// How `Date` properties are written.
    public var dateStrategy: DateStrategy
    /// Layout of the output.
    public var outputFormatting: OutputFormatting
    /// Values your models can read through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Layout options.
    public struct OutputFormatting: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from bits.
        ///
        /// - Parameter rawValue: The option bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Indented, one member per line.
        public static let prettyPrinted = OutputFormatting(rawValue: 1)
    }

    /// Creates an encoder; every parameter has a default.
    ///
    /// - Parameters:
    ///   - keyStrategy: How property names become member names.
    ///   - dateStrategy: How dates are written.
    ///   - outputFormatting: Layout options (compact by default).
    ///   - userInfo: Values a model's `encode(to:)` reads from its encoder's `userInfo`.
    public init(
        keyStrategy: KeyStrategy = .useDefaultKeys, dateStrategy: DateStrategy = .iso8601,
        outputFormatting: OutputFormatting = [], userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.keyStrategy = keyStrategy
        self.dateStrategy = dateStrategy
        self.outputFormatting = outputFormatting
        self.userInfo = userInfo
    }

    /// Encodes a document. With models as primary data (`Document<[Article]>`), every related model is written
    /// once to `included`; with ``PrimaryData`` the document is written as it is.
    ///
    /// The work is linear in the models written, whatever graph they form (cycles, meshes, a resource reached by
    /// many paths): a related resource is written the first time the encode reaches it, and every other path links
    /// it by its identity (``ResourceIdentifier/init(of:)``) without encoding it again. Of two copies of one
    /// resource that differ, the first reached is written.
    ///
    /// - Parameter document: The document to write.
    /// - Returns: The document's JSON text, members sorted by name.
    /// - Throws: `EncodingError` when a model cannot be written (its `encode(to:)` throws, a value has no JSON
    ///   form, primary data that is not resources).
    public func encode<Primary: Encodable & Sendable>(_ document: Document<Primary>) throws -> Data {
        if !outputFormatting.contains(.prettyPrinted), document.extensionMembers == nil, let data = document.data,
            let models = Self.models(in: data)
        {
            return try encode(models, of: document)
        }
        let raw = try rawDocument(document)
        if outputFormatting.contains(.prettyPrinted) { return Data(bytes(of: DocumentWriter.value(of: raw))) }
        var writer = JSONWriter(capacity: 4096)
        DocumentWriter.write(raw, into: &writer)
        return writer.data
    }

    /// The schema-less form of a typed document, with related models collected into `included`.
    ///
    /// - Parameter document: The document.
    /// - Returns: The same document as resource objects.
    /// - Throws: `EncodingError` when a model cannot be written.
    public func rawDocument<Primary: Encodable & Sendable>(_ document: Document<Primary>) throws -> RawDocument {
        if let raw = document as? RawDocument { return raw }
        var raw = RawDocument(
            meta: document.meta, links: document.links, jsonapi: document.jsonapi, errors: document.errors,
            extensionMembers: document.extensionMembers)
        guard let data = document.data else { return raw }
        let context = ResourceEncodingContext(options: self, collectsIncluded: true)
        defer { context.endEncode() }
        let primary = try primaryData(data, context: context)
        raw.data = primary
        let primaryIdentifiers = Set(primary.identifiers.map { ResourceIdentifier(type: $0.type, id: $0.id, lid: $0.lid) })
        let included = (document.included ?? []) + context.included.filter { !primaryIdentifiers.contains($0.identifier) }
        raw.included = included.isEmpty ? nil : included
        return raw
    }

    /// The resource object for one model: its identification, attributes and relationships (as linkage).
    ///
    /// Only the model itself is encoded: a related model becomes its identifier, read from its `id` and `lid`,
    /// however much it links in turn.
    ///
    /// - Parameter model: The model to write.
    /// - Returns: The model's resource object.
    /// - Throws: `EncodingError` when the model cannot be written.
    public func resourceObject<Model: Encodable>(for model: Model) throws -> ResourceObject {
        let context = ResourceEncodingContext(options: self, collectsIncluded: false)
        defer { context.endEncode() }
        return try context.resourceObject(for: model, type: (model as? any Resource).map { type(of: $0).resourceType })
    }

    /// The body of a create request (`POST` to a collection): the model with its attributes and relationships,
    /// and its `id` only when the model sets one (a client-generated id); an empty `id` is left out.
    ///
    /// A relationship without linkage (a ``ToOne`` or ``ToMany`` decoded from a relationship that had only links or
    /// meta) is left out: a request must give each relationship it sends a `data` member. Related models are sent
    /// as their identifiers (see ``resourceObject(for:)``): nothing is written to `included`.
    ///
    /// - Parameter model: The model to create.
    /// - Returns: The request body's JSON text.
    /// - Throws: `EncodingError` when the model cannot be written.
    public func encodeCreateBody<Model: Encodable>(for model: Model) throws -> Data {
        var resource = try resourceObject(for: model)
        if resource.id?.isEmpty == true { resource.id = nil }
        resource.relationships = resource.relationships?.filter { $0.value.data != nil }
        if resource.relationships?.isEmpty == true { resource.relationships = nil }
        return try encode(RawDocument(data: .resource(resource)))
    }

    /// The body of an update request (`PATCH` to a resource): only the members the update sets.
    ///
    /// - Parameter update: The update.
    /// - Returns: The request body's JSON text.
    /// - Throws: `EncodingError` when a value set cannot be written.
    public func encodeUpdateBody<Model: Resource>(for update: ResourceUpdate<Model>) throws -> Data {
        try encode(RawDocument(data: .resource(update.resourceObject(encoder: self))))
    }

    /// The body of a to-one relationship request: an identifier, or `null` to empty it.
    ///
    /// - Parameter identifier: The new target; `nil` empties the relationship.
    /// - Returns: The request body's JSON text.
    /// - Throws: `EncodingError` when the identifier's meta cannot be written.
    public func encodeRelationshipBody(_ identifier: ResourceIdentifier?) throws -> Data {
        try encode(RawDocument(data: identifier.map(PrimaryData.identifier) ?? .null))
    }

    /// The body of a to-many relationship request: identifiers (`[]` empties a relationship).
    ///
    /// - Parameter identifiers: The targets.
    /// - Returns: The request body's JSON text.
    /// - Throws: `EncodingError` when an identifier's meta cannot be written.
    public func encodeRelationshipBody(_ identifiers: [ResourceIdentifier]) throws -> Data {
        try encode(RawDocument(data: .identifiers(identifiers)))
    }

    /// The JSON value of a plain value under this encoder's strategies.
    ///
    /// - Parameter value: The value.
    /// - Returns: Its JSON value.
    /// - Throws: `EncodingError` when the value cannot be written.
    public func jsonValue<Value: Encodable>(of value: Value) throws -> JSONValue {
        let context = ResourceEncodingContext(options: self, collectsIncluded: false)
        defer { context.endEncode() }
        return try context.jsonValue(of: value)
    }

    func bytes(of value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        if outputFormatting.contains(.prettyPrinted) {
            writer.writePretty(value)
        } else {
            writer.write(value, sortedKeys: true)
        }
        return writer.bytes
    }

    /// The models of primary data that ``primaryData(_:context:)`` would read as models (and whether it is one
    /// model rather than an array); `nil` for anything else.
    private static func models(in data: some Encodable) -> (models: [(model: any Encodable, type: String)], single: Bool)? {
        switch data {
        case is PrimaryData, is ResourceIdentifier, is [ResourceIdentifier], is ResourceObject, is [ResourceObject]:
            return nil
        case let model as any Resource: return ([(model, type(of: model).resourceType)], true)
        case let models as [any Resource]: return (models.map { ($0, type(of: $0).resourceType) }, false)
        case let polymorphic as any PolymorphicResource:
            let model = polymorphic.resource
            return ([(model, type(of: model).resourceType)], true)
        case let polymorphics as [any PolymorphicResource]:
            return (polymorphics.map { ($0.resource, type(of: $0.resource).resourceType) }, false)
        default: return nil
        }
    }

    /// A compound document of models written straight to bytes: the same bytes as writing ``rawDocument(_:)``,
    /// without building a resource object (and its dictionaries) per model.
    private func encode<Primary>(
        _ primary: (models: [(model: any Encodable, type: String)], single: Bool), of document: Document<Primary>
    ) throws -> Data {
        let context = ResourceEncodingContext(options: self, collectsIncluded: true, writesBytes: true)
        defer { context.endEncode() }
        // `data` is the first member in key order: the models are written straight into the document.
        var data = JSONWriter(capacity: 64 * 1024)
        data.writeRaw(#"{"data":"#)
        var identifiers = IdentifierSet()
        if !primary.single { data.append(UInt8(ascii: "[")) }
        for (position, (model, type)) in primary.models.enumerated() {
            if position > 0 { data.append(UInt8(ascii: ",")) }
            var capture = context.makeCapture()
            defer { context.recycle(&capture) }
            let resourceType = try context.capture(model, type: type, into: capture)
            DocumentWriter.write(capture, type: resourceType, into: &data)
            identifiers.insert(ResourceIdentifier(type: resourceType, id: capture.id, lid: capture.lid))
        }
        if !primary.single { data.append(UInt8(ascii: "]")) }
        // Related resources that are also primary data are written there only.
        let related = context.includedRanges.filter { !identifiers.contains($0.identifier) }.map(\.range)
        let rest = RawDocument(
            included: document.included, meta: document.meta, links: document.links, jsonapi: document.jsonapi,
            errors: document.errors)
        DocumentWriter.writeMembersAfterData(of: rest, related: related, of: context.includedText, into: &data)
        return data.takeData()
    }

    private func primaryData(_ data: some Encodable, context: ResourceEncodingContext) throws -> PrimaryData {
        switch data {
        case let raw as PrimaryData: return raw
        case let identifier as ResourceIdentifier: return .identifier(identifier)
        case let identifiers as [ResourceIdentifier]: return .identifiers(identifiers)
        case let resource as ResourceObject: return .resource(resource)
        case let resources as [ResourceObject]: return .resources(resources)
        case let model as any Resource:
            return .resource(try context.resourceObject(for: model, type: type(of: model).resourceType))
        case let models as [any Resource]:
            return .resources(try models.map { try context.resourceObject(for: $0, type: type(of: $0).resourceType) })
        case let polymorphic as any PolymorphicResource:
            let model = polymorphic.resource
            return .resource(try context.resourceObject(for: model, type: type(of: model).resourceType))
        case let polymorphics as [any PolymorphicResource]:
            return .resources(
                try polymorphics.map { try context.resourceObject(for: $0.resource, type: type(of: $0.resource).resourceType) })
        default:
            if Mirror(reflecting: data).displayStyle == .optional { return .null }
            throw EncodingError.invalidValue(
                data,
                EncodingError.Context(
                    codingPath: [], debugDescription: "primary data must be resources (models conforming to Resource)"))
        }
    }
}
