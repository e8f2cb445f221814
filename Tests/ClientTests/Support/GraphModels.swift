import Foundation
import JSONAPIClient

// New resources of the test server's types, named by local id until the server gives them ids: what a
// ResourceGraph is made of. Relationships to other new models encode as `{type, lid}`.

struct NewPerson: Resource, Equatable {
    static let resourceType = "people"
    var id: String?
    var lid: String?
    var name: String
    var email: String

    init(lid: String?, name: String, email: String? = nil) {
        self.lid = lid
        self.name = name
        self.email = email ?? "\(name.lowercased().filter(\.isLetter))@example.com"
    }
}

struct NewTag: Resource, Equatable {
    static let resourceType = "tags"
    var id: String?
    var lid: String?
    var name: String

    init(id: String? = nil, lid: String?, name: String) {
        self.id = id
        self.lid = lid
        self.name = name
    }
}

struct NewArticle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String?
    var lid: String?
    var title: String
    var body: String
    var author: NewPerson?
    var tags: [NewTag]

    init(lid: String?, title: String, body: String = "", author: NewPerson? = nil, tags: [NewTag] = []) {
        self.lid = lid
        self.title = title
        self.body = body
        self.author = author
        self.tags = tags
    }
}

struct NewComment: Resource, Equatable {
    static let resourceType = "comments"
    var id: String?
    var lid: String?
    var body: String
    var article: NewArticle?
}
