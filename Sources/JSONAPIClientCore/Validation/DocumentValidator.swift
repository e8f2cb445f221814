import Foundation

/// Checks a document against the MUST-level rules of JSON:API 1.1 and reports every violation, each with its
/// pointer — where decoding stops at the first problem (and is lenient where the meaning is plain), validation
/// goes on and is strict.
///
/// ```swift
/// let violations = try DocumentValidator.validate(data)
/// for violation in violations { print(violation) }   // "/data/0/id: id must be a string"
///
/// // The body of a POST that creates a resource: no `id` needed, every relationship needs `data`.
/// let problems = try DocumentValidator.validate(body, as: .createRequest)
/// ```
///
/// Violations come in document order. Besides the structure of every object the specification defines, the
/// validator checks member names and `type` values (the allowed characters), links objects (only the links the
/// specification defines there, plus extension members), error objects (not empty; `source.pointer` a JSON
/// Pointer), duplicate member names in any object, `null` where an object belongs (`"meta": null`, which the
/// decoder reads as absent), unique `(type, id)` pairs and full linkage: every included resource must be reached by
/// a chain of relationships from primary data.
///
/// What a document alone cannot tell is left to the reader of the report:
/// - Full linkage has one exception: a relationship left out by a sparse fieldset (`fields[TYPE]=…`) may leave an
///   included resource unlinked. The validator does not know the request, so it reports every unlinked resource.
/// - Extension members (`ns:name`) are accepted anywhere, since an extension may be applied through the media type
///   only; a document whose only top-level member is an extension's needs that extension named in `jsonapi.ext`.
/// - Link strings are not parsed as URI-references.
///
/// The work is linear in the size of the document: one walk over the parsed document, and one breadth-first walk
/// over the resources for full linkage.
public enum DocumentValidator {
    /// The violations in the JSON document `data`; empty when it is valid.
    /// - Parameters:
    ///   - data: A JSON text.
    ///   - kind: What the document is for; a server's response unless told otherwise.
    /// - Returns: Every violation found, in document order.
    /// - Throws: ``JSONAPIDecodingError`` (``JSONAPIDecodingError/Code/invalidJSON``) when the bytes are not JSON.
    public static func validate(_ data: Data, as kind: Kind = .response) throws(JSONAPIDecodingError) -> [SpecViolation] {
        let tape: JSONTape
        do {
            tape = try JSONTape(parsing: [UInt8](data))
        } catch {
            throw JSONAPIDecodingError(parseError: error)
        }
        return validate(tape, as: kind)
    }

    /// The violations in a parsed JSON value; empty when it is a valid document. A ``JSONValue`` cannot hold
    /// duplicate member names, so none are reported here.
    /// - Parameters:
    ///   - document: The whole document.
    ///   - kind: What the document is for; a server's response unless told otherwise.
    /// - Returns: Every violation found, in document order (members of an object in sorted order).
    public static func validate(_ document: JSONValue, as kind: Kind = .response) -> [SpecViolation] {
        var writer = JSONWriter()
        writer.write(document, sortedKeys: true)
        // The writer's output is JSON by construction; only nesting deeper than the parser's limit can fail.
        guard let tape = try? JSONTape(parsing: writer.bytes) else {
            return [SpecViolation(pointer: "", message: "the document is nested deeper than 512 levels")]
        }
        return validate(tape, as: kind)
    }

    static func validate(_ tape: JSONTape, as kind: Kind) -> [SpecViolation] {
        var checker = SpecChecker(tape: tape, kind: kind)
        checker.checkDocument()
        return checker.orderedViolations()
    }
}
