import Foundation
import Testing

@testable import JSONAPIClientCore

/// Identifiers are matched as bytes (numbers by their text, escapes decoded, small decimals through an array):
/// what matches must be exactly what equal `(type, id)` strings would match.
@Suite("Resolution keys")
struct ResolutionKeyTests {
    struct Author: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    struct Post: Resource {
        static let resourceType = "posts"
        var id: String
        var author: Author?
    }

    /// The author's name for each post whose author is `linkage`, with people `included`.
    private func authors(_ linkages: [String], included: String) throws -> [String?] {
        let posts = linkages.enumerated().map { position, linkage in
            #"{"type":"posts","id":"p\#(position)","relationships":{"author":{"data":\#(linkage)}}}"#
        }
        let json = #"{"data":[\#(posts.joined(separator: ","))],"included":[\#(included)]}"#
        let document = try JSONAPIDecoder().decode(Document<[Post]>.self, from: Data(json.utf8))
        return (document.data ?? []).map { $0.author?.name }
    }

    private func person(_ id: String, _ name: String) -> String {
        #"{"type":"people","id":\#(id),"attributes":{"name":"\#(name)"}}"#
    }

    @Test("Small decimal ids, large ids and other ids resolve alike")
    func idShapes() throws {
        let included = [
            person(#""1""#, "one"), person(#""973""#, "small"), person(#""12345678901""#, "large"),
            person(#""0""#, "zero"), person(#""b7e2-uuid""#, "uuid"), person(#""999999""#, "sparse"),
        ].joined(separator: ",")
        let names = try authors(
            [
                #"{"type":"people","id":"1"}"#, #"{"type":"people","id":"973"}"#,
                #"{"type":"people","id":"12345678901"}"#, #"{"type":"people","id":"0"}"#,
                #"{"type":"people","id":"b7e2-uuid"}"#, #"{"type":"people","id":"999999"}"#,
                #"{"type":"people","id":"2"}"#,
            ], included: included)
        #expect(names == ["one", "small", "large", "zero", "uuid", "sparse", nil])
    }

    @Test("A numeric id matches the same text; leading zeros and signs are different ids")
    func numericText() throws {
        let included = [person("7", "seven"), person(#""-3""#, "minus"), person(#""1.5""#, "fraction")]
            .joined(separator: ",")
        let names = try authors(
            [
                #"{"type":"people","id":"7"}"#, #"{"type":"people","id":7}"#, #"{"type":"people","id":"07"}"#,
                #"{"type":"people","id":-3}"#, #"{"type":"people","id":1.5}"#, #"{"type":"people","id":"1.50"}"#,
            ], included: included)
        #expect(names == ["seven", "seven", nil, "minus", "fraction", nil])
    }

    @Test("Escaped ids and types match their decoded text")
    func escapes() throws {
        let included = [person(#""1""#, "one"), person(#""a/b""#, "slash"), person(#""\u0032""#, "two")]
            .joined(separator: ",")
        let names = try authors(
            [
                #"{"type":"people","id":"\u0031"}"#, #"{"type":"peop\u006ce","id":"1"}"#,
                #"{"type":"people","id":"a\/b"}"#, #"{"type":"people","id":"2"}"#,
            ], included: included)
        #expect(names == ["one", "one", "slash", "two"])
    }

    @Test("Keys match as Swift strings do: canonically equivalent text is the same key")
    func canonicalEquivalence() throws {
        let included = [
            person(#""caf\u00e9""#, "composed"), person(#""K7""#, "kelvin"), #"{"type":"peop\u006ce","id":"a;b","attributes":{"name":"semicolon"}}"#,
            person(#""\u00c5ngstr\u00f6m""#, "angstrom"),
        ].joined(separator: ",")
        let names = try authors(
            [
                #"{"type":"people","id":"cafe\u0301"}"#, #"{"type":"people","id":"café"}"#,
                #"{"type":"people","id":"\u212a7"}"#, #"{"type":"people","id":"a\u037eb"}"#,
                #"{"type":"people","id":"\u212bngstro\u0308m"}"#, #"{"type":"people","id":"cafe"}"#,
            ], included: included)
        #expect(names == ["composed", "composed", "kelvin", "semicolon", "angstrom", nil])
        let duplicates = [person(#""caf\u00e9""#, "a"), person(#""cafe\u0301""#, "b")].joined(separator: ",")
        #expect(throws: JSONAPIDecodingError.self) { try authors([], included: duplicates) }
        let kelvin = [person(#""K""#, "a"), person(#""\u212a""#, "b")].joined(separator: ",")
        #expect(throws: JSONAPIDecodingError.self) { try authors([], included: kelvin) }
    }

    @Test("Types are kept apart")
    func typesApart() throws {
        let included = [
            person(#""1""#, "person"), #"{"type":"robots","id":"1","attributes":{"name":"robot"}}"#,
        ].joined(separator: ",")
        // people 1 resolves to the person, not to robots 1.
        #expect(try authors([#"{"type":"people","id":"1"}"#], included: included) == ["person"])
        // robots 1 resolves to the robot, which an `Author` (type "people") is not made from: an error at its type.
        let error = expectThrows(JSONAPIDecodingError.self) {
            try authors([#"{"type":"robots","id":"1"}"#, #"{"type":"people","id":"1"}"#], included: included)
        }
        #expect(error?.pointer == "/included/1/type")
        #expect(error?.code == .typeMismatch)
        #expect(error?.description.contains(#"expected "people", found "robots""#) == true)
    }

    @Test("The same (type, id) twice is an error, however the id is written")
    func duplicates() throws {
        for (first, second) in [
            (#""5""#, #""5""#), (#""5""#, "5"), (#""\u0035""#, #""5""#), (#""123456789012""#, #""123456789012""#),
            (#""x""#, #""x""#), (#""900000""#, #""900000""#),
        ] {
            let included = [person(first, "a"), person(second, "b")].joined(separator: ",")
            #expect(throws: JSONAPIDecodingError.self) { try authors([], included: included) }
        }
        // Ids that only look alike are different resources.
        let included = [person(#""5""#, "a"), person(#""05""#, "b"), person(#""5.0""#, "c")].joined(separator: ",")
        #expect(try authors([#"{"type":"people","id":"05"}"#], included: included) == ["b"])
    }

    @Test("The schema-less reader finds the same duplicates")
    func rawDuplicates() throws {
        func raw(_ first: String, _ second: String) throws -> RawDocument {
            let included = [person(first, "a"), person(second, "b")].joined(separator: ",")
            return try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"data":[],"included":[\#(included)]}"#.utf8))
        }
        for (first, second) in [
            (#""5""#, "5"), (#""\u0035""#, #""5""#), (#""caf\u00e9""#, #""cafe\u0301""#), (#""K""#, #""\u212a""#),
            (#""x-1""#, #""x-1""#),
        ] {
            #expect(throws: JSONAPIDecodingError.self) { try raw(first, second) }
        }
        #expect(try raw(#""5""#, #""05""#).included?.count == 2)
        #expect(try raw(#""5""#, #""5.0""#).included?.count == 2)
        // One rule, one place: the reader and the typed decode report a duplicate identically.
        let document = Data(#"{"data":[],"included":[\#(person(#""5""#, "a")),\#(person("5", "b"))]}"#.utf8)
        let rawError = expectThrows(JSONAPIDecodingError.self) { try JSONAPIDecoder().decode(RawDocument.self, from: document) }
        let typedError = expectThrows(JSONAPIDecodingError.self) { try JSONAPIDecoder().decode(Document<[Post]>.self, from: document) }
        #expect(rawError?.description == typedError?.description)
        #expect(rawError?.pointer == "/included/1")
    }

    @Test("Many ids spread wide stay correct when the direct array runs out of room")
    func sparseIds() throws {
        let ids = (0..<200).map { $0 * 7_919 + 1 }
        let included = ids.map { person(#""\#($0)""#, "n\($0)") }.joined(separator: ",")
        let names = try authors(ids.reversed().map { #"{"type":"people","id":"\#($0)"}"# }, included: included)
        #expect(names == ids.reversed().map { "n\($0)" })
    }

    /// A later page of a collection: ids near each other, far from 0, in any order. Each resolves to its own resource,
    /// whether the array grows up, grows down below its first id, or runs out of room.
    @Test("Ids far from 0, ascending, descending, shuffled or spread, resolve to their own resources")
    func idsFarFromZero() throws {
        let ascending = Array(1_000_001...1_000_300)
        var generator = SplitMix(seed: 7)
        let orders: [[Int]] = [
            ascending, ascending.reversed(), ascending.shuffled(using: &generator),
            // Down below the first id by more than the array holds, then far above it: the array's room runs out.
            [500_000, 499_999, 1] + ascending + [999_999_999],
        ]
        for ids in orders {
            let included = ids.map { person(#""\#($0)""#, "n\($0)") }.joined(separator: ",")
            let linked = ids.shuffled(using: &generator) + [1_000_301, 1_000_000, 0]
            let names = try authors(linked.map { #"{"type":"people","id":"\#($0)"}"# }, included: included)
            #expect(names == linked.map { ids.contains($0) ? "n\($0)" : nil })
        }
    }

    /// Any resource with a name, whatever its type: resolution alone decides which one a relationship reaches.
    struct Named: Codable, Equatable {
        var name: String
    }

    struct Credit: Resource {
        static let resourceType = "credits"
        var id: String
        var subject: Named?
    }

    @Test("Types are told apart by every byte: the same first 15 or 8, the same length, one a prefix of another")
    func typeNames() throws {
        // The two "photographs-of-…" types differ in their 16th byte alone; "photographs1" and "photographs2"
        // share their first eight bytes and their length, "people" and "places" their length only; "photograph" is
        // a prefix of "photographs". The last resource's type ends within 16 bytes of the end of the input.
        let types = [
            "photographs-of-cats", "photographs-of-bats", "photographs1", "photographs2", "photograph", "photographs",
            "people", "places", "ph",
        ]
        let included = types.map { #"{"type":"\#($0)","id":"1","attributes":{"name":"\#($0)"}}"# }.dropLast()
            + [#"{"id":"1","attributes":{"name":"ph"},"type":"ph"}"#]
        let linked = types + ["photographs3", "photographs", "p", "placez", "photographs-of-cows"]
        let credits = linked.enumerated().map { position, type in
            #"{"type":"credits","id":"c\#(position)","relationships":{"subject":{"data":{"type":"\#(type)","id":"1"}}}}"#
        }
        let json = #"{"data":[\#(credits.joined(separator: ","))],"included":[\#(included.joined(separator: ","))]}"#
        #expect(json.hasSuffix(#""type":"ph"}]}"#))
        let document = try JSONAPIDecoder().decode(Document<[Credit]>.self, from: Data(json.utf8))
        let names = (document.data ?? []).map { $0.subject?.name }
        #expect(names == types + [nil, "photographs", nil, nil, nil])
    }
}
