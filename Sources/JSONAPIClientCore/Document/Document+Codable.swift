// The document model is Codable with any coder (JSONDecoder, a property-list coder, your own): it goes through
// `JSONValue` and the same reader and writer the library uses. The library's own coders read and write these
// types directly.

/// A type read by `DocumentReader` and written by `DocumentWriter`.
protocol WireCodable: Codable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self
    var wireValue: JSONValue { get }
}

extension WireCodable {
    /// Reads the value from any decoder, through ``JSONValue``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not what the type needs.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        var writer = JSONWriter()
        writer.write(value, sortedKeys: false)
        do {
            let tape = try JSONTape(parsing: writer.bytes)
            self = try Self.read(DocumentReader(tape: tape), at: 0)
        } catch {
            // The reader points into the value's own tape: after the decoder's path, it points into the document.
            var located = error
            if let inner = error as? JSONAPIDecodingError {
                var outer = inner
                outer.pointer =
                    decoder.codingPath.map { "/" + JSONTape.escapePointerToken($0.stringValue) }.joined() + inner.pointer
                located = outer
            }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "\(located)", underlyingError: located))
        }
    }

    /// Writes the value to any encoder, as the specification writes it.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Any error the encoder throws.
    public func encode(to encoder: any Encoder) throws { try wireValue.encode(to: encoder) }
}

extension PrimaryData: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.primaryData(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension ResourceObject: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.resource(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension ResourceIdentifier: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.identifier(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension Relationship: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.relationship(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension Links: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.links(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension Link: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.link(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension ErrorObject: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.errorObject(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension JSONAPIObject: WireCodable {
    static func read(_ reader: DocumentReader, at index: Int) throws(JSONAPIDecodingError) -> Self {
        try reader.jsonapiObject(index)
    }
    var wireValue: JSONValue { DocumentWriter.value(of: self) }
}

extension Document: Encodable where Primary: Encodable {
    /// Writes the document to any encoder as ``JSONAPIEncoder`` (default options) writes it: models' related
    /// resources collected into `included`.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Any error the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try DocumentWriter.value(of: JSONAPIEncoder().rawDocument(self)).encode(to: encoder)
    }
}

extension Document: Decodable where Primary: Decodable {
    /// Reads a document from any decoder as ``JSONAPIDecoder`` (default options) reads it, through ``JSONValue``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: An error saying where, when the value is not a document of `Primary`.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        var writer = JSONWriter()
        writer.write(value, sortedKeys: false)
        do {
            self = try JSONAPIDecoder().decode(Document.self, from: writer.bytes)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error))
        }
    }
}
