import Foundation

import JSONAPIClientCore

// Also compiled into the fuzzers (scripts/fuzz.sh), so only public API here.

// The spec's example models.

struct Person: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var firstName: String
    var lastName: String
    var twitter: String?
}

struct Comment: Resource, Equatable {
    static let resourceType = "comments"
    var id: String
    var body: String
    var author: Person?
}

struct Article: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: Person?
    var comments: [Comment]
    var links: Links?
}

/// An article that keeps every relationship's linkage, links and meta.
struct LinkedArticle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: ToOne<Person>
    var comments: ToMany<Comment>
}

// Models whose relationships form cycles.

struct Writer: Resource {
    static let resourceType = "people"
    var id: String
    var name: String
    var articles: [Story]?
    // A model refers to its own type through ToOne (stored out of line).
    var bestFriend: ToOne<Writer>?
}

struct Story: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String?
    var author: Writer?
}

// Polymorphic relationships.

struct Image: Resource, Equatable {
    static let resourceType = "images"
    var id: String
    var url: URL
    var width: Int
}

struct Video: Resource, Equatable {
    static let resourceType = "videos"
    var id: String
    var url: URL
    var seconds: Double
}

struct Organization: Resource, Equatable {
    static let resourceType = "organizations"
    var id: String
    var name: String
    var website: URL?
}

struct Member: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
}

enum Attachment: PolymorphicResource, Equatable {
    case image(Image)
    case video(Video)

    init(from decoder: any Decoder) throws {
        switch try decoder.resourceType() {
        case Image.resourceType: self = .image(try Image(from: decoder))
        case Video.resourceType: self = .video(try Video(from: decoder))
        case let other:
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unexpected attachment type \(other)"))
        }
    }

    var resource: any Resource {
        switch self {
        case .image(let image): image
        case .video(let video): video
        }
    }
}

enum Owner: PolymorphicResource, Equatable {
    case person(Member)
    case organization(Organization)

    init(from decoder: any Decoder) throws {
        switch try decoder.resourceType() {
        case Member.resourceType: self = .person(try Member(from: decoder))
        case Organization.resourceType: self = .organization(try Organization(from: decoder))
        case let other:
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unexpected owner type \(other)"))
        }
    }

    var resource: any Resource {
        switch self {
        case .person(let person): person
        case .organization(let organization): organization
        }
    }
}

struct Post: Resource, Equatable {
    static let resourceType = "posts"
    var id: String
    var title: String
    var owner: Owner?
    var attachments: [Attachment]
}
