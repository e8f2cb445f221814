// Tests at the size boundaries of the speed pieces: texts, keys and type names of exactly 15, 16 and 17 bytes.
// Up to 15 bytes are packed into two words with the length in the top byte; a 16th byte packed by mistake would
// share that byte with the length, so texts that differ only in their last byte by the length's bit (`A` = 0x41 and
// `Q` = 0x51 differ by 0x10, the length 16) are where a wrong boundary shows.
import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Size boundaries of the speed pieces: 15, 16 and 17 bytes")
struct SizeBoundaryTests {
    /// Texts of `length` bytes that differ only in their last byte: `A`, `Q` (one bit apart, the bit of the length
    /// 16 in the top byte) and `B`.
    private static func texts(_ length: Int) -> [String] {
        let stem = String(String("abcdefghijklmnopqrstuvwxyz".prefix(length - 1)))
        return ["A", "Q", "B"].map { stem + $0 }
    }

    private static let lengths = [14, 15, 16, 17]

    @Test("Types read through the short-string table keep every byte", arguments: lengths)
    func shortStringTypes(length: Int) throws {
        // Each type twice, so that the second read is answered by the table.
        let types = Self.texts(length) + Self.texts(length)
        let resources = types.enumerated().map { #"{"type":"\#($1)","id":"\#($0)"}"# }
        let document = try JSONAPIDecoder().decode(
            RawDocument.self, from: Data(#"{"data":[\#(resources.joined(separator: ","))]}"#.utf8))
        let read = try #require(document.data?.resources).map(\.type)
        #expect(read == types)
    }

    @Test("Member names read through the short-string table keep every byte", arguments: lengths)
    func shortStringKeys(length: Int) throws {
        let keys = Self.texts(length)
        // One object per key, each seen twice: the table answers the second.
        let resources = (keys + keys).enumerated().map { position, key in
            #"{"type":"things","id":"\#(position)","attributes":{"\#(key)":\#(position)}}"#
        }
        let document = try JSONAPIDecoder().decode(
            RawDocument.self, from: Data(#"{"data":[\#(resources.joined(separator: ","))]}"#.utf8))
        let attributes = try #require(document.data?.resources).map(\.attributes)
        #expect(attributes == (keys + keys).enumerated().map { [$1: .int(Int64($0))] })
    }

    @Test("Object templates tell keys apart by every byte; longer keys are read key by key", arguments: lengths)
    func objectTemplates(length: Int) throws {
        let keys = Self.texts(length)
        // Objects of one key each and of two keys, each shape seen three times: the later ones are templated.
        let objects = keys.flatMap { key in [#"{"\#(key)":1}"#, #"{"\#(key)":2,"v":0}"#] }
        let repeated = objects + objects + objects
        let resources = repeated.enumerated().map { #"{"type":"things","id":"\#($0)","attributes":\#($1)}"# }
        let document = try JSONAPIDecoder().decode(
            RawDocument.self, from: Data(#"{"data":[\#(resources.joined(separator: ","))]}"#.utf8))
        let read = try #require(document.data?.resources).map(\.attributes)
        let expected: [[String: JSONValue]?] = (0..<3).flatMap { _ in
            keys.flatMap { key -> [[String: JSONValue]?] in [[key: 1], [key: 2, "v": 0]] }
        }
        #expect(read == expected)
    }

    struct Named: Codable, Equatable {
        var name: String
    }

    struct Credit: Resource {
        static let resourceType = "credits"
        var id: String
        var subject: Named?
    }

    @Test("Relationships resolve to the resource of their own type by every byte of it", arguments: lengths)
    func resourceIndexTypes(length: Int) throws {
        let types = Self.texts(length)
        // Two of the three types are in the document; the third (`B`) is not, and resolves to nothing.
        let included = types.prefix(2).map { #"{"type":"\#($0)","id":"1","attributes":{"name":"\#($0)"}}"# }
        let credits = (types + types).enumerated().map { position, type in
            #"{"type":"credits","id":"c\#(position)","relationships":{"subject":{"data":{"type":"\#(type)","id":"1"}}}}"#
        }
        let json = #"{"data":[\#(credits.joined(separator: ","))],"included":[\#(included.joined(separator: ","))]}"#
        let document = try JSONAPIDecoder().decode(Document<[Credit]>.self, from: Data(json.utf8))
        let names = (document.data ?? []).map { $0.subject?.name }
        let expected: [String?] = [types[0], types[1], nil]
        #expect(names == expected + expected)
    }

    @Test("Typed member lookup compares keys of 15, 16 and 17 bytes in full", arguments: lengths)
    func typedKeys(length: Int) throws {
        let keys = Self.texts(length)
        struct Probe: Decodable, Sendable {
            var values: [String: Int]
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyCodingKey.self)
                var values: [String: Int] = [:]
                for key in container.allKeys where key.stringValue != "id" && key.stringValue != "type" {
                    values[key.stringValue] = try container.decode(Int.self, forKey: key)
                }
                self.values = values
            }
        }
        let attributes = keys.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",")
        let json = #"{"data":{"type":"things","id":"1","attributes":{\#(attributes)}}}"#
        let probe = try #require(try JSONAPIDecoder().decode(Document<Probe>.self, from: Data(json.utf8)).data)
        #expect(probe.values == Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
    }
}
