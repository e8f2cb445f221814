// Tests that the plain path — a new keyed container every time, which is what runs when the standard library's
// container layout is not the single reference the pools rely on — decodes and encodes exactly as the pooled path,
// and that the layout check tells a single reference from everything else.
import Foundation
import Testing

@testable import JSONAPIClientCore

private struct Tree: Codable, Equatable {
    var name: String
    var children: [Tree]
}

private struct Grove: Resource, Equatable {
    static let resourceType = "groves"
    var id: String
    var tree: Tree
    var neighbour: ToOne<Grove>?
}

@Suite("The plain path beside the container pools")
struct PlainPathTests {
    private static func decoders() -> (pooled: JSONAPIDecoder, plain: JSONAPIDecoder) {
        (JSONAPIDecoder(), JSONAPIDecoder(userInfo: [plainPathKey: true]))
    }

    @Test("The layout check: a keyed container is one reference; same-sized plain bytes and wider types are not")
    func layoutCheck() {
        #expect(isOneReference(KeyedDecodingContainer<AnyCodingKey>.self))
        #expect(isOneReference(KeyedEncodingContainer<AnyCodingKey>.self))
        #expect(isOneReference(AnyObject.self))
        #expect(!isOneReference(Int.self))  // the size and alignment of a reference, but plain bytes
        #expect(!isOneReference(UnsafeRawPointer.self))
        #expect(!isOneReference(UInt32.self))
        #expect(!isOneReference(String.self))  // holds a reference, but two words
        #expect(!isOneReference((AnyObject, AnyObject).self))
    }

    @Test("Compound documents decode alike with and without the pool")
    func compound() throws {
        let (pooled, plain) = Self.decoders()
        let data = try Fixture.data("spec-compound")
        let expected = try pooled.decode(Document<[Article]>.self, from: data)
        let actual = try plain.decode(Document<[Article]>.self, from: data)
        #expect(actual.data == expected.data)
        #expect(actual.data?.isEmpty == false)
        #expect(try plain.decode(Document<[LinkedArticle]>.self, from: data).data
            == pooled.decode(Document<[LinkedArticle]>.self, from: data).data)
    }

    @Test("Plain nested objects and resources of one type inside one another decode alike without the pool")
    func nested() throws {
        let (pooled, plain) = Self.decoders()
        let body = Data(
            #"""
            {"data":[{"type":"groves","id":"1","attributes":{"tree":{"name":"oak","children":[
                        {"name":"a","children":[{"name":"a1","children":[]}]},{"name":"b","children":[]}]}},
                      "relationships":{"neighbour":{"data":{"type":"groves","id":"2"}}}},
                     {"type":"groves","id":"2","attributes":{"tree":{"name":"elm","children":[]}},
                      "relationships":{"neighbour":{"data":{"type":"groves","id":"1"}}}}]}
            """#.utf8)
        let expected = try pooled.decode(Document<[Grove]>.self, from: body).data
        let actual = try plain.decode(Document<[Grove]>.self, from: body).data
        #expect(actual == expected)
        #expect(actual?.first?.tree.children.first?.children.first?.name == "a1")
        #expect(actual?.first?.neighbour?.resource?.tree.name == "elm")
    }

    @Test("Errors are the same with and without the pool")
    func errors() throws {
        let (pooled, plain) = Self.decoders()
        let body = Data(#"{"data":[{"type":"groves","id":"1","attributes":{"tree":{"name":"oak","children":[{"name":3}]}}}]}"#.utf8)
        let pooledError = expectThrows(JSONAPIDecodingError.self) { try pooled.decode(Document<[Grove]>.self, from: body) }
        let plainError = expectThrows(JSONAPIDecodingError.self) { try plain.decode(Document<[Grove]>.self, from: body) }
        #expect(pooledError == plainError)
    }

    @Test("Encoding writes the same bytes with and without the pool")
    func encoding() throws {
        let data = try Fixture.data("spec-compound")
        let articles = try JSONAPIDecoder().decode(Document<[Article]>.self, from: data)
        let plain = JSONAPIEncoder(userInfo: [plainPathKey: true])
        let expected = try JSONAPIEncoder().encode(articles)
        #expect(try plain.encode(articles) == expected)
        #expect(!expected.isEmpty)
    }
}
