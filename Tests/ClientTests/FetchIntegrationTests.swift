import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Fetching from the test server")
struct FetchIntegrationTests {
    @Test("The headline example: include + page-based pagination")
    func headline() async throws {
        let source = try Sources.articles()
        let page = try await source.fetch().include(["author"]).paginate(.pageBased(1, 10))
        let articles = try #require(page.data)
        #expect(articles.map(\.id) == (1...10).map(String.init))
        #expect(articles.first?.title == "Article 001")
        #expect(articles.map { $0.author?.name } == (1...10).map { "Person \($0)" })
        #expect(page.links?.next != nil)
        let next = try #require(try await page.next())
        #expect(next.data?.first?.id == "11")
        #expect(next.data?.first?.author?.name == "Person 11")
    }

    @Test("One resource, with nested includes resolved into the model")
    func one() async throws {
        let source = try Sources.articles()
        let document = try await source.fetch(id: "3").include(["author", "tags", "comments.author"]).result()
        let article = try #require(document.data)
        #expect(article.title == "Article 003")
        #expect(article.body == "Body of article 3.")
        #expect(article.created == Date(timeIntervalSince1970: 1_704_067_200 + 3 * 3_600))
        #expect(article.author?.email == "person3@example.com")
        #expect(article.tags?.resources.map(\.name) == ["tag-3", "tag-4"])
        #expect(article.comments?.resources.map(\.id) == ["5", "6"])
        #expect(article.comments?.resources.map { $0.author?.name } == ["Person 4", "Person 5"])
    }

    @Test("Without include, relationships keep their linkage but no models")
    func linkageOnly() async throws {
        let document = try await Sources.articles().fetch(id: "3").result()
        let article = try #require(document.data)
        #expect(article.author == nil)
        #expect(article.tags?.identifiers.map(\.id) == ["3", "4"])
        #expect(article.tags?.resources.isEmpty == true)
    }

    @Test("Sparse fieldsets: only the fields asked for come back")
    func sparseFieldsets() async throws {
        let url = try TestServer.url()
        let titles = DataSource<ArticleTitle>(baseURL: url, router: .path("articles/<id>"))
        let page = try await titles.fetch().include(["author"]).fields(["articles": ["title", "author"], "people": ["name"]])
            .paginate(.pageBased(1, 5))
        #expect(page.data?.map(\.title) == ["Article 001", "Article 002", "Article 003", "Article 004", "Article 005"])
        #expect(page.data?.map { $0.author?.name } == ["Person 1", "Person 2", "Person 3", "Person 4", "Person 5"])
        let raw = try await titles.fetch(as: PrimaryData.self).include(["author"])
            .fields(["articles": ["title", "author"], "people": ["name"]]).paginate(.pageBased(1, 5))
        let first = try #require(raw.data?.resources.first)
        #expect(first.attributes.map { Array($0.keys) } == ["title"])
        #expect(first.relationships.map { Array($0.keys) } == ["author"])
        #expect(raw.included?.allSatisfy { $0.attributes.map { Array($0.keys) } == ["name"] } == true)
    }

    @Test("Filters: plain, operator and list forms")
    func filters() async throws {
        let source = try Sources.articles()
        let exact = try await source.fetch().filter("title", "Article 042").result()
        #expect(exact.data?.map(\.id) == ["42"])
        let contains = try await source.fetch().filter("title.icontains", "ARTICLE 00").paginate(.pageBased(1, 50))
        #expect(contains.data?.map(\.id) == (1...9).map(String.init))
        let list = try await source.fetch().filter("author.in", ["1", "2"]).filter("id.in", (1...200).map(String.init))
            .paginate(.pageBased(1, 50))
        #expect(list.data?.count == 20)
        #expect(list.data?.allSatisfy { ["1", "2"].contains(String(((Int($0.id) ?? 0) - 1) % 20 + 1)) } == true)
    }

    @Test("Sort, descending and by several fields")
    func sort() async throws {
        let source = try Sources.articles()
        let page = try await source.fetch().filter("author", "3").sort("-title").paginate(.pageBased(1, 3))
        #expect(page.data?.map(\.id) == ["183", "163", "143"])
        let ascending = try await source.fetch().filter("author", "3").sort("created", "id").paginate(.pageBased(1, 3))
        #expect(ascending.data?.map(\.id) == ["3", "23", "43"])
    }

    @Test("query(_:_:) sends any other parameter; an unknown one is the server's 400")
    func otherParameters() async throws {
        let source = try Sources.articles()
        let page = try await source.fetch().query("page[size]", "3").result()
        #expect(page.data?.count == 3)
        let error = await expectThrows(JSONAPIClientError.self) { try await source.fetch().query("bogus", "1").result() }
        #expect(error?.code == .errorResponse)
        #expect(error?.status == .badRequest)
        #expect(error?.errors.first?.detail?.contains("bogus") == true)
    }

    @Test("header(_:_:), Accept and media type parameters reach the server")
    func headers() async throws {
        let echo = DataSource<Note>(
            baseURL: try TestServer.url(), router: .path("echo-headers"),
            configuration: .init(headerFields: ["X-Source": "configuration"]))
        let document = try await echo.fetch(as: PrimaryData.self).header("X-Custom", "builder")
            .mediaType(JSONAPIMediaType(profile: ["https://example.com/profile"])).query("q", "a b").result()
        let headers = try #require(document.meta?["headers"])
        #expect(headers["x-custom"] == "builder")
        #expect(headers["x-source"] == "configuration")
        #expect(headers["accept"] == #"application/vnd.api+json; profile="https://example.com/profile""#)
        #expect(document.meta?["method"] == "GET")
        #expect(document.meta?["query"] == "q=a+b")
    }

    @Test("A related resource through links.related, and through the router")
    func related() async throws {
        let source = try Sources.articles()
        let raw = try await source.fetch(id: "7").decoding(as: PrimaryData.self).result()
        let relationship = try #require(raw.data?.resources.first?.relationships?["author"])
        let link = try #require(relationship.links?.related)
        let author = try await source.fetch(link: link, as: Person.self).result()
        #expect(author.data?.name == "Person 7")
        let comments = try await source.fetchRelated("comments", of: "7", as: [TestSupport.Comment].self).result()
        #expect(comments.data?.map(\.id) == ["13", "14"])
    }

    @Test("A singleton behind a bearer token: the auth middleware's header reaches the server")
    func singletonWithAuth() async throws {
        let url = try TestServer.url()
        let me = DataSource<Person>(
            baseURL: url, router: .path("me"),
            configuration: .init(middlewares: [BearerTokenMiddleware { "secret-token" }]))
        let document = try await me.fetch(as: Person.self).result()
        #expect(document.data?.name == "Person 1")
        #expect(document.meta?["authorization"] == "Bearer")
        let anonymous = DataSource<Person>(baseURL: url, router: .path("me"))
        let error = await expectThrows(JSONAPIClientError.self) { try await anonymous.fetch(as: Person.self).result() }
        #expect(error?.status == .unauthorized)
        #expect(error?.errors.first?.code == "unauthorized")
        let wrong = DataSource<Person>(
            baseURL: url, router: .path("me"), configuration: .init(middlewares: [BearerTokenMiddleware { "wrong" }]))
        await #expect(throws: JSONAPIClientError.self) { try await wrong.fetch(as: Person.self).result() }
    }

    @Test("reload() repeats the request")
    func reload() async throws {
        let document = try await Sources.articles().fetch(id: "9").include("author").result()
        let again = try await document.reload()
        #expect(again.data == document.data)
    }
}
