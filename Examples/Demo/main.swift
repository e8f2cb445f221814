// jsonapi-demo: a tour of JSONAPIClient against a JSON:API server (the test server in Tests/Server by default;
// scripts/demo.sh starts it and passes its URL).
import Foundation
import JSONAPIClient

// README: quick start begin
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
    var author: Person?              // resolved from `included` when the server includes it
}

struct Article: Resource {
    static let resourceType = "articles"
    var id: String?                  // nil for an article the server has not created yet
    var title: String
    var body: String
    var created: Date
    var author: Person?
    var comments: ToMany<Comment>?   // the linkage always; the comments when included
}

func quickStart(baseURL: URL) async throws {
    // One session per server (one connection pool, one configuration); a data source per resource type.
    let api = Session(baseURL: baseURL)
    let articles = api.source(Article.self, .path("articles/<id>"))
    let people = api.source(Person.self, .path("people/<id>"))

    // A page of articles with their authors.
    let page = try await articles.fetch().include(["author"]).paginate(.pageBased(1, 10))
    for article in page.data ?? [] {
        print(article.title, "by", article.author?.name ?? "?")
    }

    // The next page, following the server's link exactly.
    if let next = try await page.next() {
        print("page 2 starts with", next.data?.first?.title ?? "nothing")
    }

    // Every article, one page in memory at a time.
    var count = 0
    for try await _ in articles.fetch().page(.pageBased(1, 50)).resources() { count += 1 }
    print(count, "articles in all")

    // Another type, on the same connection.
    let person = try await people.fetch(id: "1").result()
    print("person 1 is", person.data?.name ?? "?")
}
// README: quick start end

/// Prints a heading.
func section(_ title: String) {
    print("\n== \(title)")
}

func tour(baseURL: URL) async throws {
    section("Quick start: a page with includes, the next page, a stream of every article")
    try await quickStart(baseURL: baseURL)

    let api = Session(baseURL: baseURL)
    let articles = api.source(Article.self, .path("articles/<id>"))

    section("One article with its author and the comments' authors; filter and sort")
    let one = try await articles.fetch(id: "7").include(["author", "comments.author"]).result()
    if let article = one.data {
        print("\(article.title) by \(article.author?.name ?? "?") — \(article.created)")
        for comment in article.comments?.resources ?? [] {
            print("  comment \(comment.id) by \(comment.author?.name ?? "?"): \(comment.body)")
        }
    }
    let filtered = try await articles.fetch()
        .filter("title.icontains", "05")
        .sort("-created")
        .include(["author"])
        .paginate(.pageBased(1, 5))
    print("titles containing 05, newest first:", (filtered.data ?? []).map(\.title))
    print("request URL:", try articles.fetch().filter("author.in", ["1", "2"]).sort("-created").page(.pageBased(2, 5)).prepare().url)

    section("Paging: offset, cursor profile, appendNext")
    let offsetSource = api.source(Article.self, .path("offset/articles/<id>"))
    let offsetPage = try await offsetSource.fetch().paginate(.offsetBased(190, 10))
    print("offset 190:", (offsetPage.data ?? []).compactMap(\.id), "next:", offsetPage.links?.next?.href ?? "none")
    let cursorSource = api.source(Article.self, .path("cursor-profile/articles/<id>"))
    var merged = try await cursorSource.fetch().paginate(.cursorBased(size: 40))
    while try await merged.appendNext().hasMore {}
    print("cursor profile, appendNext to the end:", merged.data?.count ?? 0, "articles in one document")

    section("Create, update, relationships, delete")
    let draft = Article(title: "Hello from JSONAPIClient", body: "Written by the demo.", created: Date())
    let created = try await articles.create(draft)
    guard let id = created.data?.id else {
        print("the server created nothing")
        return
    }
    print("created \(id): status \(created.status.code), Location \(created.location?.absoluteString ?? "none")")
    var change = ResourceUpdate<Article>(id: id)
    change.set("title", to: "Hello again")
    let updated = try await articles.update(change)
    print("updated title:", updated.data?.title ?? "?")
    try await articles.relationship("tags", of: id).add([ResourceIdentifier(type: "tags", id: "3")])
    try await articles.relationship("author", of: id).replace(with: ResourceIdentifier(type: "people", id: "2"))
    let author = try await articles.fetch(id: id).include(["author"]).result()
    let tags = try await articles.relationship("tags", of: id).fetchToMany().result()
    print("author now:", author.data?.author?.name ?? "?", "— tag linkage:", (tags.data ?? []).map(\.description))
    let deleted = try await articles.delete(id: id)
    print("deleted \(id): status \(deleted.status.code)")

    section("Errors carry the request, the status and the server's error objects")
    do {
        _ = try await articles.fetch(id: "999999").result()
    } catch let error as JSONAPIClientError {
        print(error)
    }
    do {
        _ = try await articles.create(Article(title: String(repeating: "x", count: 300), body: "", created: Date()))
    } catch let error as JSONAPIClientError {
        print("status \(error.status?.code ?? 0):", error.errors.map { "\($0.detail ?? "") at \($0.source?.pointer ?? "?")" })
    }

    section("A custom transport step: a bearer token for /me")
    let me = DataSource<Person>(
        baseURL: baseURL, router: .path("me"),
        configuration: .init(middlewares: [BearerTokenMiddleware { "secret-token" }]))
    let person = try await me.fetch(as: Person.self).result()
    print("signed in as", person.data?.name ?? "?")
}

guard let argument = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["JSONAPI_SERVER_URL"],
    let baseURL = URL(string: argument)
else {
    FileHandle.standardError.write(Data("usage: jsonapi-demo BASE_URL (scripts/demo.sh starts a server and runs this)\n".utf8))
    exit(2)
}
do {
    try await tour(baseURL: baseURL)
} catch {
    FileHandle.standardError.write(Data("demo failed: \(error)\n".utf8))
    exit(1)
}
