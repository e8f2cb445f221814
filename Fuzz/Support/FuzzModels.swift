// The fuzzers' models beside Tests/CoreTests/Support/Models.swift (compiled in too: the spec's examples, cycles,
// polymorphic relationships): the README's quick start, attributes of every kind, a required to-one, a citation
// graph.
import Foundation
import JSONAPIClientCore

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

// Attributes of every kind, for the typed round trip: numbers (Decimal is written from its own digits), dates,
// arrays (those of strings, integers, doubles and Booleans are read by specialized code), objects, meta.

struct Note: Resource, Equatable {
    static let resourceType = "notes"
    var id: String
    var text: String?
    var count: Int?
    var ratio: Double?
    var price: Decimal?
    var due: Date?
    var tags: [String]?
    var counts: [Int]?
    var scores: [Double]?
    var checks: [Bool]?
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

/// Plain nested objects in attributes, one of them recursive: keyed containers for plain objects, handed out again
/// while others of the same key type are still in use.
struct Shelf: Resource {
    struct Position: Codable { var lat: Double; var lng: Double? }
    struct Address: Codable { var street: String; var position: Position? }
    struct Tag: Codable { var label: String; var weight: Int? }
    struct Node: Codable { var name: String?; var children: [Node]? }

    static let resourceType = "shelves"
    var id: String
    var address: Address?
    var tags: [Tag]?
    var tree: Node?
}
