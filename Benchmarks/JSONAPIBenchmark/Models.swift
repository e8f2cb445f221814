import Foundation
import JSONAPIClientCore

// MARK: - The library's typed models: ordinary Codable structs

struct Person: Resource {
    static let resourceType = "people"
    var id: String
    var name: String
    var email: String
}

struct Comment: Resource {
    static let resourceType = "comments"
    var id: String
    var body: String
    var author: Person?
}

struct Article: Resource {
    static let resourceType = "articles"
    var id: String
    var title: String
    var body: String
    var created: Date
    var viewCount: Int
    var tags: [String]
    var author: Person?
    var comments: [Comment]
}

// MARK: - The floor: plain Codable structs mirroring the wire format, for JSONDecoder / JSONEncoder

enum Wire {
    struct Document: Codable {
        var data: [Article]
        var included: [Included]
    }

    struct Identifier: Codable {
        var type: String
        var id: String
    }

    struct ToOne: Codable {
        var data: Identifier?
    }

    struct ToMany: Codable {
        var data: [Identifier]
    }

    struct Article: Codable {
        var type: String
        var id: String
        var attributes: Attributes
        var relationships: Relationships

        struct Attributes: Codable {
            var title: String
            var body: String
            var created: Date
            var viewCount: Int
            var tags: [String]
        }

        struct Relationships: Codable {
            var author: ToOne
            var comments: ToMany
        }
    }

    /// `included` mixes people and comments: the members either may have are optional.
    struct Included: Codable {
        var type: String
        var id: String
        var attributes: Attributes
        var relationships: Relationships?

        struct Attributes: Codable {
            var name: String?
            var email: String?
            var body: String?
        }

        struct Relationships: Codable {
            var author: ToOne?
        }
    }
}

// MARK: - Checks

extension GeneratedDocument {
    /// Checks an identifier-level decode: article and included counts, and the checksum of titles, author ids and
    /// comment ids.
    func check(articles: [(title: String, author: String?, comments: [String])], included: Int) -> String? {
        guard articles.count == articleCount else { return "expected \(articleCount) articles, got \(articles.count)" }
        guard included == peopleCount + commentCount else {
            return "expected \(peopleCount + commentCount) included resources, got \(included)"
        }
        var checksum = Checksum()
        for article in articles {
            checksum.add(article.title)
            checksum.add(article.author ?? "-")
            for comment in article.comments { checksum.add(comment) }
        }
        return checksum.value == identifierChecksum ? nil : "identifier checksum differs"
    }

    func check(_ document: Wire.Document) -> String? {
        check(
            articles: document.data.map {
                ($0.attributes.title, $0.relationships.author.data?.id, $0.relationships.comments.data.map(\.id))
            },
            included: document.included.count)
    }

    func check(_ document: RawDocument) -> String? {
        check(
            articles: document.data?.resources.map { resource in
                let title = resource.attributes?["title"]?.stringValue ?? "-"
                var author: String?
                if case .toOne(let identifier)? = resource.relationships?["author"]?.data { author = identifier?.id }
                let comments = resource.relationships?["comments"]?.data?.identifiers.compactMap(\.id) ?? []
                return (title, author, comments)
            } ?? [],
            included: document.included?.count ?? 0)
    }

    /// Checks a resolving decode: every author and every comment's author resolved, and the checksum of titles and
    /// resolved names.
    func check(_ articles: [Article]) -> String? {
        guard articles.count == articleCount else { return "expected \(articleCount) articles, got \(articles.count)" }
        var checksum = Checksum()
        var comments = 0
        for article in articles {
            checksum.add(article.title)
            checksum.add(article.author?.name ?? "-")
            for comment in article.comments {
                checksum.add(comment.author?.name ?? "-")
                comments += 1
            }
        }
        guard comments == commentCount else { return "expected \(commentCount) resolved comments, got \(comments)" }
        return checksum.value == resolvedChecksum ? nil : "resolved checksum differs"
    }
}
