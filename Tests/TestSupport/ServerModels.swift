import Foundation
import JSONAPIClient

// The test server's resources (Tests/Server), one declaration for every test target. The server always sends
// relationship linkage, but related resources only when included: to-one relationships are optional models (nil when
// not included), to-many ones are ToMany (the identifiers always, the models when included). Each has the memberwise
// initializer the tests build them with (public, as a struct's own would not be).

public struct Person: Resource, Equatable {
    public static let resourceType = "people"
    public var id: String
    public var name: String
    public var email: String
    public var articles: ToMany<Article>?

    public init(id: String, name: String, email: String, articles: ToMany<Article>? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.articles = articles
    }
}

public struct ArticleTag: Resource, Equatable {
    public static let resourceType = "tags"
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

extension ArticleTag {
    /// Every tag on the test server at `server` whose name contains `fragment`, all pages: what a test made there.
    ///
    /// - Parameters:
    ///   - fragment: A part of the names (`name.icontains`).
    ///   - server: The test server's base URL.
    /// - Returns: The tags, in the server's order.
    /// - Throws: What the fetch throws.
    public static func all(containing fragment: String, on server: URL) async throws -> [ArticleTag] {
        var made: [ArticleTag] = []
        let request = DataSource<ArticleTag>(baseURL: server, router: .path("tags/<id>")).fetch()
            .filter("name.icontains", fragment).page(.pageBased(1, 100))
        for try await tag in request.resources() { made.append(tag) }
        return made
    }
}

public struct Comment: Resource, Equatable {
    public static let resourceType = "comments"
    public var id: String
    public var body: String
    public var author: Person?
    public var article: ToOne<Article>?

    public init(id: String, body: String, author: Person? = nil, article: ToOne<Article>? = nil) {
        self.id = id
        self.body = body
        self.author = author
        self.article = article
    }
}

public struct Article: Resource, Equatable {
    public static let resourceType = "articles"
    public var id: String
    public var title: String
    public var body: String
    public var created: Date
    public var author: Person?
    public var tags: ToMany<ArticleTag>?
    public var comments: ToMany<Comment>?

    public init(id: String, title: String, body: String, created: Date, author: Person? = nil, tags: ToMany<ArticleTag>? = nil, comments: ToMany<Comment>? = nil) {
        self.id = id
        self.title = title
        self.body = body
        self.created = created
        self.author = author
        self.tags = tags
        self.comments = comments
    }
}

/// An article under a sparse fieldset (`fields[articles]=title,author`).
public struct ArticleTitle: Resource, Equatable {
    public static let resourceType = "articles"
    public var id: String
    public var title: String
    public var author: PersonName?

    public init(id: String, title: String, author: PersonName? = nil) {
        self.id = id
        self.title = title
        self.author = author
    }
}

/// A person under a sparse fieldset (`fields[people]=name`).
public struct PersonName: Resource, Equatable {
    public static let resourceType = "people"
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
