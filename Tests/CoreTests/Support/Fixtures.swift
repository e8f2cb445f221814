import Foundation
import Testing

@testable import JSONAPIClientCore

/// The JSON files in `Fixtures/`.
enum Fixture {
    static let valid = [
        "spec-compound", "single-resource", "null-data", "empty-collection", "meta-only", "errors", "identifiers",
        "to-one-identifier", "cycles", "polymorphic", "missing-includes", "lid", "lenient", "paginated-linkage",
        "sparse-first",
    ]

    static func data(_ name: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
            "fixture \(name).json is missing")
        return try Data(contentsOf: url)
    }

    static func raw(_ name: String) throws -> RawDocument {
        try JSONAPIDecoder().decode(RawDocument.self, from: data(name))
    }
}

extension JSONValue {
    /// Parses a JSON text in a test.
    static func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }
}

/// Decodes `text` as a document of `Primary`.
func decode<Primary: Decodable & Sendable>(_ type: Primary.Type, _ text: String, decoder: JSONAPIDecoder = JSONAPIDecoder())
    throws -> Document<Primary>
{
    try decoder.decode(Document<Primary>.self, from: Data(text.utf8))
}

/// The error decoding `text` as `Primary` throws; records an issue when it does not throw.
func decodingError<Primary: Decodable & Sendable>(
    _ type: Primary.Type, _ text: String, decoder: JSONAPIDecoder = JSONAPIDecoder(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> JSONAPIDecodingError? {
    do {
        _ = try decoder.decode(Document<Primary>.self, from: Data(text.utf8))
        Issue.record("decoding succeeded; expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
