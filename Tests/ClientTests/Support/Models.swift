import Foundation
import JSONAPIClient

// Models of the test server's resources. The server always sends relationship linkage, but related resources only
// when included: to-one relationships are optional models (nil when not included), to-many ones are ToMany (the
// identifiers always, the models when included).

struct Person: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
    var email: String
    var articles: ToMany<Article>?
}

struct Tag: Resource, Equatable {
    static let resourceType = "tags"
    var id: String
    var name: String
}

struct Comment: Resource, Equatable {
    static let resourceType = "comments"
    var id: String
    var body: String
    var author: Person?
    var article: ToOne<Article>?
}

struct Article: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var body: String
    var created: Date
    var author: Person?
    var tags: ToMany<Tag>?
    var comments: ToMany<Comment>?
}

/// An article under a sparse fieldset (`fields[articles]=title,author`).
struct ArticleTitle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: PersonName?
}

/// A person under a sparse fieldset (`fields[people]=name`).
struct PersonName: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
}
