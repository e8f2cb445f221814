// Models for the typed-decode fuzz targets: to-one, to-many, optional, cyclic and polymorphic relationships.
import Foundation
import JSONAPIClientCore

struct FuzzPerson: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String?
    var age: Int?
    var born: Date?
    var articles: [FuzzArticle]?
    var bestFriend: ToOne<FuzzPerson>?
}

struct FuzzComment: Resource, Equatable {
    static let resourceType = "comments"
    var id: String
    var body: String
    var author: FuzzPerson?
}

struct FuzzArticle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String?
    var score: Double?
    var price: Decimal?
    var tags: [String]?
    var author: FuzzPerson?
    var comments: [FuzzComment]?
    var related: ToMany<FuzzArticle>?
    var attachment: FuzzAttachment?
    var links: Links?
    var meta: Meta?
}

/// A model without relationships, for the typed round trip.
struct FuzzNote: Resource, Equatable {
    static let resourceType = "notes"
    var id: String
    var text: String?
    var count: Int?
    var ratio: Double?
    var price: Decimal?
    var tags: [String]?
    var flags: [String: Bool]?
    var meta: Meta?
}

struct FuzzStrictArticle: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: FuzzPerson
    var comments: [FuzzComment]
}

struct FuzzImage: Resource, Equatable {
    static let resourceType = "images"
    var id: String
    var url: URL?
    var width: Int?
}

enum FuzzAttachment: PolymorphicResource, Equatable {
    case image(FuzzImage)
    case person(FuzzPerson)

    init(from decoder: any Decoder) throws {
        switch try decoder.resourceType() {
        case FuzzImage.resourceType: self = .image(try FuzzImage(from: decoder))
        case FuzzPerson.resourceType: self = .person(try FuzzPerson(from: decoder))
        case let other:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "type \(other)"))
        }
    }

    var resource: any Resource {
        switch self {
        case .image(let image): image
        case .person(let person): person
        }
    }
}

/// Stops the fuzzer with a message: what a target does when an invariant breaks (a crash is what libFuzzer reports).
func fuzzFailure(_ message: String, _ input: UnsafeBufferPointer<UInt8>) -> Never {
    FileHandle.standardError.write(Data("fuzz invariant broken: \(message)\ninput: \(String(decoding: input, as: UTF8.self))\n".utf8))
    abort()
}
