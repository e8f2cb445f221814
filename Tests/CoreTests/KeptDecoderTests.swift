// Tests that a model which keeps its decoder or a container past the decode reads valid memory through it: the
// decoder's tape borrows the input's bytes only for the length of the decode call.
import Foundation
import Testing

@testable import JSONAPIClientCore

/// Where a model leaves what it should not keep.
private final class Kept: @unchecked Sendable {
    var decoder: (any Decoder)?
    var container: KeyedDecodingContainer<KeptArticle.CodingKeys>?
}

/// An article whose `init(from:)` stores its decoder and its keyed container in `kept`.
private struct KeptArticle: Resource {
    static let resourceType = "articles"
    enum CodingKeys: String, CodingKey { case id, title, author }
    var id: String
    var kept: Kept

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        kept = Kept()
        kept.decoder = decoder
        kept.container = container
    }

    func encode(to encoder: any Encoder) throws {}
}

@Suite("A decoder kept past the decode")
struct KeptDecoderTests {
    static let body = #"""
        {"data":{"type":"articles","id":"1","attributes":{"title":"Kept title"},
          "relationships":{"author":{"data":{"type":"people","id":"9"}}}},
         "included":[{"type":"people","id":"9","attributes":{"firstName":"Dan","lastName":"Gebhardt"}}]}
        """#

    @Test("Reads through a kept container and decoder see the document, after its bytes are overwritten")
    func overwrittenInput() throws {
        var bytes = Array(Self.body.utf8)
        let article = try #require(try JSONAPIDecoder().decode(Document<KeptArticle>.self, from: bytes).data)
        // The decode borrowed this buffer; overwrite it in place (it is uniquely referenced).
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = UInt8(ascii: "x") }
        }
        let container = try #require(article.kept.container)
        #expect(try container.decode(String.self, forKey: .title) == "Kept title")
        #expect(try container.decode(Person.self, forKey: .author).lastName == "Gebhardt")
        let decoder = try #require(article.kept.decoder)
        let again = try decoder.container(keyedBy: KeptArticle.CodingKeys.self)
        #expect(try again.decode(String.self, forKey: .id) == "1")
        #expect(try again.decode(String.self, forKey: .title) == "Kept title")
        #expect(bytes.allSatisfy { $0 == UInt8(ascii: "x") })
    }

    @Test("Reads through a kept container after the input is freed are valid (run under --sanitize=address)")
    func freedInput() throws {
        func decodeAndDrop() throws -> KeptArticle? {
            let data = Data(Self.body.utf8)
            return try JSONAPIDecoder().decode(Document<KeptArticle>.self, from: data).data
        }
        let article = try #require(try decodeAndDrop())
        // Fill the heap a little, so that freed memory is likely reused.
        let filler = (0..<64).map { _ in Data(repeating: 0x7A, count: Self.body.utf8.count) }
        let container = try #require(article.kept.container)
        #expect(try container.decode(String.self, forKey: .title) == "Kept title")
        #expect(try container.decode(Person.self, forKey: .author).firstName == "Dan")
        let single = try JSONAPIDecoder().decodeResource(KeptArticle.self, from: Data(#"{"type":"articles","id":"2","attributes":{"title":"One"}}"#.utf8))
        #expect(try single.kept.container?.decode(String.self, forKey: .title) == "One")
        #expect(filler.count == 64)
    }
}
