// Models of every relationship shape the typed decoder resolves: to-one, to-many, optional, ToOne/ToMany, cyclic
// and polymorphic. They follow Tests/CoreTests/Support/Models.swift and the README's quick start.
import Foundation
import JSONAPIClientCore

// The spec's example models: optional to-one, plain to-many, resource links.

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

/// Every relationship kept whole: linkage, links and meta.
struct LinkedArticle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: ToOne<Person>
    var comments: ToMany<Comment>
}

// Cycles: people write articles whose author is a person; a person's best friend is a person.

struct Writer: Resource {
    static let resourceType = "people"
    var id: String
    var name: String
    var articles: [Story]?
    var bestFriend: ToOne<Writer>?
}

struct Story: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String?
    var author: Writer?
}

// The README's quick start: dates, optional ToMany, a to-one inside a to-many.

struct QuickPerson: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
    var email: String
}

struct QuickComment: Resource, Equatable {
    static let resourceType = "comments"
    var id: String
    var body: String
    var author: QuickPerson?
}

struct QuickArticle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var body: String
    var created: Date
    var author: QuickPerson?
    var comments: ToMany<QuickComment>?
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
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "type \(other)"))
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
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "type \(other)"))
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

// Attributes of every kind, for the typed round trip: numbers (Decimal is written from its own digits), dates,
// arrays, objects, meta.

struct Note: Resource, Equatable {
    static let resourceType = "notes"
    var id: String
    var text: String?
    var count: Int?
    var ratio: Double?
    var price: Decimal?
    var due: Date?
    var tags: [String]?
    var flags: [String: Bool]?
    var meta: Meta?
}

/// A required to-one: decoding fails, and must fail cleanly, when the author cannot be resolved.
struct StrictArticle: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: Person
    var comments: [Comment]
}

/// Articles that cite articles: a graph of any shape through one model (each resource decoded once).
struct CitingArticle: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String?
    var cites: [CitingArticle]?
    var related: ToMany<CitingArticle>?
    var author: Writer?
}
