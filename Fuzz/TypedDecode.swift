// Fuzz target: typed decoding into models with to-one, to-many, optional, cyclic and polymorphic relationships
// never crashes, and fails only with a JSONAPIDecodingError.
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    let decoder = JSONAPIDecoder()
    _ = try? decoder.decode(Document<[FuzzArticle]>.self, from: data)
    _ = try? decoder.decode(Document<FuzzArticle?>.self, from: data)
    _ = try? decoder.decode(Document<[FuzzStrictArticle]>.self, from: data)
    _ = try? decoder.decode(Document<[FuzzAttachment]>.self, from: data)
    _ = try? decoder.decode(Document<FuzzPerson>.self, from: data)
    _ = try? decoder.decode(Document<[ResourceIdentifier]>.self, from: data)
    _ = try? JSONAPIDecoder(keyStrategy: .snakeCase, dateStrategy: .secondsSince1970, maxRelationshipDepth: 3)
        .decode(Document<[FuzzArticle]>.self, from: data)
    return 0
}
