import Foundation

/// Decodes JSON:API documents from bytes, into your models or into the schema-less ``RawDocument``.
///
/// ```swift
/// let decoder = JSONAPIDecoder()
/// let document = try decoder.decode(Document<[Article]>.self, from: data)
/// for article in document.data ?? [] { print(article.title, article.author?.name ?? "?") }
/// ```
///
/// The decoder parses the bytes itself (no `JSONSerialization`, no `JSONDecoder`) and reads only what your models
/// ask for. Every failure is a ``JSONAPIDecodingError`` that names the JSON Pointer of the offending member.
public struct JSONAPIDecoder: Sendable {
    /// How property names map to member names.
    public var keyStrategy: KeyStrategy
    /// How `Date` properties are read.
    public var dateStrategy: DateStrategy
    /// The deepest nesting of arrays and objects accepted; deeper input is rejected, never a stack overflow.
    public var maxNestingDepth: Int
    /// How many relationships deep resolution goes before related resources decode from their identifiers alone.
    /// A resource already being decoded further up (a cycle) always decodes from its identifier alone.
    public var maxRelationshipDepth: Int
    /// Values your models can read through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder; every parameter has a default.
    ///
    /// - Parameters:
    ///   - keyStrategy: How property names map to member names.
    ///   - dateStrategy: How dates are read.
    ///   - maxNestingDepth: The deepest nesting of arrays and objects accepted.
    ///   - maxRelationshipDepth: How deep related resources are resolved into models.
    ///   - userInfo: Values models read from `decoder.userInfo`.
    public init(
        keyStrategy: KeyStrategy = .useDefaultKeys, dateStrategy: DateStrategy = .iso8601,
        maxNestingDepth: Int = 512, maxRelationshipDepth: Int = 32, userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.keyStrategy = keyStrategy
        self.dateStrategy = dateStrategy
        self.maxNestingDepth = maxNestingDepth
        self.maxRelationshipDepth = maxRelationshipDepth
        self.userInfo = userInfo
    }

    /// Decodes a document whose primary data is `Primary`: a model (`Article`), an optional model (`Article?`),
    /// an array of models (`[Article]`), ``ResourceIdentifier``(s), or ``PrimaryData`` for the schema-less layer.
    ///
    /// - Parameters:
    ///   - type: The document type, e.g. `Document<[Article]>.self`.
    ///   - data: The response body.
    /// - Returns: The document, relationships resolved from `included`.
    /// - Throws: ``JSONAPIDecodingError`` with the JSON Pointer of what was wrong and why.
    public func decode<Primary: Decodable & Sendable>(_ type: Document<Primary>.Type, from data: Data) throws(
        JSONAPIDecodingError
    ) -> Document<Primary> {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            try decode(type, tape: tape)
        }
    }

    /// Decodes a document from bytes; see ``decode(_:from:)-(_,Data)``.
    ///
    /// - Parameters:
    ///   - type: The document type, e.g. `Document<[Article]>.self`.
    ///   - bytes: The response body.
    /// - Returns: The document, relationships resolved from `included`.
    /// - Throws: ``JSONAPIDecodingError`` with the JSON Pointer of what was wrong and why.
    public func decode<Primary: Decodable & Sendable>(_ type: Document<Primary>.Type, from bytes: [UInt8]) throws(
        JSONAPIDecodingError
    ) -> Document<Primary> {
        try Self.withTape(of: bytes, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            try decode(type, tape: tape)
        }
    }

    func decode<Primary: Decodable & Sendable>(_ type: Document<Primary>.Type, tape: JSONTape) throws(
        JSONAPIDecodingError
    ) -> Document<Primary> {
        var index: ResourceIndex?
        return try decode(type, tape: tape, keepingIndex: false, index: &index)
    }

    /// ``decode(_:tape:)``, giving back the index of the document's resources it made when `keepingIndex` (none
    /// when it made none: no primary data, or a schema-less read). Inlined, so that the plain decode's copy of it
    /// has no index to keep.
    @inline(__always)
    func decode<Primary: Decodable & Sendable>(
        _ type: Document<Primary>.Type, tape: JSONTape, keepingIndex: Bool, index: inout ResourceIndex?
    ) throws(JSONAPIDecodingError) -> Document<Primary> {
        let reader = DocumentReader(tape: tape)
        if Primary.self == PrimaryData.self, let document = try reader.document() as? Document<Primary> {
            return document
        }
        var document = Document<Primary>()
        guard let dataIndex = try reader.readTopLevel(into: &document).data else { return document }
        var context = try ResourceDecodingContext(tape: tape, reader: reader, options: self, dataIndex: dataIndex)
        defer { ResourceDecodingContext.endDecode(&context) }
        if keepingIndex { index = context.resourceIndex }
        do {
            document.data = try context.decode(Primary.self, at: context.linkagePosition(dataIndex))
        } catch {
            throw context.describe(error)
        }
        return document
    }

    /// Decodes one model from a single resource object (not a whole document), e.g. one element of `included`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - data: One resource object.
    /// - Returns: The model.
    /// - Throws: ``JSONAPIDecodingError`` with the JSON Pointer of what was wrong and why.
    public func decodeResource<Model: Decodable>(_ type: Model.Type, from data: Data) throws(JSONAPIDecodingError)
        -> Model
    {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            let reader = DocumentReader(tape: tape)
            try reader.expectObject(0)
            var context = try ResourceDecodingContext(tape: tape, reader: reader, options: self, dataIndex: 0)
            defer { ResourceDecodingContext.endDecode(&context) }
            do {
                return try context.decode(Model.self, at: .linked(0))
            } catch {
                throw context.describe(error)
            }
        }
    }

    /// Reads any JSON text — not only a document — as a ``JSONValue``, within ``maxNestingDepth``.
    ///
    /// - Parameter data: UTF-8 JSON text, e.g. `{"title": "Hello"}` or `42`.
    /// - Returns: The value; numbers in the case that holds them exactly, of duplicate keys the last.
    /// - Throws: ``JSONAPIDecodingError`` with code `invalidJSON` and the byte offset when `data` is not JSON.
    public func decodeValue(from data: Data) throws(JSONAPIDecodingError) -> JSONValue {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape in JSONValue(tape: tape, index: 0) }
    }

    /// Reads the body of an error response leniently, member by member, so that nothing the server says about a
    /// failure is lost to one odd member.
    ///
    /// Every element of `errors` is kept (a lone error object in place of the array counts as one). Within an
    /// error object, a member of the wrong shape — a `links.type` that is an array, a numeric `source.pointer` — is
    /// left out of its typed field and kept as sent in ``ErrorObject/unreadMembers``, keyed by its pointer; a links
    /// or source member that cannot be read costs only itself. Top-level `meta`, `links` and `jsonapi` are kept when
    /// each can be read. `data`, `included` and unknown members are ignored.
    ///
    /// - Parameter data: The response body; it need not be a JSON:API document, nor JSON.
    /// - Returns: The error document as far as it could be read: empty (no `errors`) when the body is not JSON or
    ///   not a JSON object. This never throws.
    public func decodeErrorDocument(from data: Data) -> RawDocument {
        let document = try? Self.withTape(of: data, maxDepth: maxNestingDepth) { tape in
            DocumentReader(tape: tape).lenientErrorDocument()
        }
        return document ?? RawDocument()
    }

    /// Parses `bytes` without copying them and runs `body` with the tape, which must not escape it: the tape
    /// borrows the bytes for the length of this call.
    static func withTape<Result>(
        of bytes: some ContiguousBytes, maxDepth: Int, _ body: (JSONTape) throws(JSONAPIDecodingError) -> Result
    ) throws(JSONAPIDecodingError) -> Result {
        if let counter = ParseCounter.current { bytes.withUnsafeBytes(counter.note) }
        let outcome = BorrowedBytes.lending(bytes) { borrowed in
            Swift.Result { () throws(JSONAPIDecodingError) -> Result in
                let tape: JSONTape
                do throws(JSONParseError) {
                    tape = try JSONTape(borrowing: borrowed, maxDepth: maxDepth)
                } catch {
                    throw JSONAPIDecodingError(parseError: error)
                }
                return try body(tape)
            }
        }
        return try outcome.get()
    }
}

extension JSONAPIDecodingError {
    init(parseError error: JSONParseError) {
        self.init(code: .invalidJSON, pointer: "", detail: "invalid JSON: \(error.reason)", byteOffset: error.offset)
    }
}

extension DocumentReader {
    /// Reads every top-level member but `data` and `included` (which a typed decode resolves itself), and checks the
    /// document's shape rules.
    ///
    /// `null` for `meta`, `links`, `jsonapi` or `included` means the member is absent. A member of an applied
    /// extension (`ns:member`, such as `atomic:results`) stands in for `data`, `errors` and `meta`: JSON:API 1.1
    /// allows a document whose only top-level member is an extension's. The decoder cannot always see the media type
    /// that names the applied extensions, so any `ns:member` name counts.
    func readTopLevel<Primary>(into document: inout Document<Primary>) throws(Failure) -> (
        data: Int?, included: Int?
    ) {
        try expectObject(0)
        var dataIndex: Int?, errorsIndex: Int?, includedIndex: Int?
        var hasExtensionMember = false
        try forEachMember(0) { key, value throws(Failure) in
            let name = tape.string(key)
            switch name {
            case "data": dataIndex = value
            case "included":
                guard tape.kind(value) != .null else { return }
                includedIndex = value
                guard tape.kind(value) == .array else { throw mismatch(value, expected: "an array") }
            case "meta": document.meta = try optionalMeta(value)
            case "links": document.links = try optionalLinks(value)
            case "jsonapi": document.jsonapi = tape.kind(value) == .null ? nil : try jsonapiObject(value)
            case "errors":
                errorsIndex = value
                guard tape.kind(value) == .array else { throw mismatch(value, expected: "an array") }
                var errors: [ErrorObject] = []
                try forEachElement(value) { element throws(Failure) in errors.append(try errorObject(element)) }
                document.errors = errors
            default:
                guard Self.isExtensionMember(name) else { return }
                hasExtensionMember = true
                var members = document.extensionMembers ?? [:]
                members[name] = self.value(value)
                document.extensionMembers = members
            }
        }
        if let dataIndex, errorsIndex != nil {
            throw invalid(dataIndex, "a document must not contain both \"data\" and \"errors\"")
        }
        if let includedIndex, dataIndex == nil {
            throw invalid(includedIndex, "\"included\" is only allowed together with \"data\"")
        }
        if dataIndex == nil, errorsIndex == nil, document.meta == nil, !hasExtensionMember {
            throw Failure(
                code: .invalidDocument, pointer: "",
                detail: "a document needs \"data\", \"errors\", \"meta\" or a member of an extension (\"ns:member\")")
        }
        return (dataIndex, includedIndex)
    }

    /// Whether `name` is an extension member's: a namespace and a member name joined by a colon, both non-empty.
    static func isExtensionMember(_ name: String) -> Bool {
        guard let colon = name.firstIndex(of: ":") else { return false }
        return colon != name.startIndex && name.index(after: colon) != name.endIndex
    }
}
