// Fuzz target: typed decoding into models with to-one, to-many, optional, ToOne/ToMany, cyclic and polymorphic
// relationships. Every input is decoded as each shape; any outcome but a crash, a hang or a leak is fine.
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedDecode(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = fuzzInput(bytes, count)
    let decoder = JSONAPIDecoder()
    let raw = try? decoder.decode(RawDocument.self, from: data)

    let articles = try? decoder.decode(Document<[Article]>.self, from: data)
    _ = try? decoder.decode(Document<Article?>.self, from: data)
    _ = try? decoder.decode(Document<Article>.self, from: data)
    _ = try? decoder.decode(Document<[LinkedArticle]>.self, from: data)
    _ = try? decoder.decode(Document<LinkedArticle?>.self, from: data)
    _ = try? decoder.decode(Document<[Writer]>.self, from: data)
    _ = try? decoder.decode(Document<Writer?>.self, from: data)
    _ = try? decoder.decode(Document<[Story]>.self, from: data)
    _ = try? decoder.decode(Document<[CitingArticle]>.self, from: data)
    _ = try? decoder.decode(Document<[StrictArticle]>.self, from: data)
    _ = try? decoder.decode(Document<[Note]>.self, from: data)
    _ = try? decoder.decode(Document<[QuickArticle]>.self, from: data)
    _ = try? JSONAPIDecoder(keyStrategy: .snakeCase, maxRelationshipDepth: 3)
        .decode(Document<[QuickArticle]>.self, from: data)
    _ = try? decoder.decode(Document<[Post]>.self, from: data)
    _ = try? decoder.decode(Document<[Attachment]>.self, from: data)
    _ = try? decoder.decode(Document<Owner?>.self, from: data)
    _ = try? decoder.decode(Document<[Shelf]>.self, from: data)
    let identifiers = try? decoder.decode(Document<[ResourceIdentifier]>.self, from: data)
    _ = try? decoder.decode(Document<ResourceIdentifier?>.self, from: data)
    _ = try? decoder.decodeResource(Writer.self, from: data)
    _ = try? decoder.decodeResource(Post.self, from: data)

    // A typed decode reads the same primary data as the schema-less one.
    if let raw, let data = raw.data {
        if let models = articles?.data {
            check(models.count == data.resources.count, "\(models.count) articles from \(data.resources.count) resources")
        }
        if let found = identifiers?.data {
            check(
                found.map(\.type) == data.identifiers.map(\.type) && found.map(\.id) == data.identifiers.map(\.id),
                "typed identifiers \(found) differ from the schema-less \(data.identifiers)")
        }
    }
    return 0
}
