import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("URL building")
struct URLBuildingTests {
    let source = DataSource<Article>(
        baseURL: exampleBase, router: .path("articles/<id>"), client: ScriptedClient(status: 500, body: ""))

    @Test("The headline builder gives page[number] and page[size], encoded, sorted")
    func headline() throws {
        let url = try source.fetch().include(["author"]).page(.pageBased(1, 10)).url
        #expect(url.absoluteString == "https://api.example.com/v1/articles?include=author&page%5Bnumber%5D=1&page%5Bsize%5D=10")
    }

    @Test("Every option, in any order, gives the same bytes")
    func deterministic() throws {
        let a = try source.fetch()
            .include(["comments.author", "author"])
            .fields(["articles": ["title", "author"], "people": ["name"]])
            .filter("title.icontains", "swift ui")
            .filter("author.in", ["1", "2"])
            .sort("-created", "title")
            .query("custom", "x/y")
            .page(.offsetBased(20, 10))
            .url
        let b = try source.fetch()
            .page(.offsetBased(20, 10))
            .query("custom", "x/y")
            .sort(["-created"]).sort(["title", "-created"])
            .filter("author.in", ["1", "2"])
            .filter("title.icontains", "swift ui")
            .fields(["people": ["name"], "articles": ["title", "author", "title"]])
            .include(["comments.author"]).include(["author", "comments.author"])
            .url
        #expect(a == b)
        #expect(
            a.absoluteString == "https://api.example.com/v1/articles?custom=x%2Fy&fields%5Barticles%5D=title%2Cauthor"
                + "&fields%5Bpeople%5D=name&filter%5Bauthor.in%5D=1%2C2&filter%5Btitle.icontains%5D=swift+ui"
                + "&include=comments.author%2Cauthor&page%5Blimit%5D=10&page%5Boffset%5D=20&sort=-created%2Ctitle")
    }

    @Test("No duplicate include or sort items; the last filter, fields and query of a name win")
    func duplicates() throws {
        let items = try source.fetch()
            .include("author", "author", "tags").include(["tags"])
            .sort("title", "title")
            .filter("title", "a").filter("title", "b")
            .fields(["articles": ["body"]]).fields(["articles": ["title"]])
            .query("x", "1").query("x", "2")
            .prepare().url
        let pairs = URLComponents(url: items, resolvingAgainstBaseURL: false)?.queryItems?.map { "\($0.name)=\($0.value ?? "")" }
        #expect(pairs == ["fields[articles]=title", "filter[title]=b", "include=author,tags", "sort=title", "x=2"])
    }

    @Test("An empty fieldset asks for no fields")
    func emptyFieldset() throws {
        let url = try source.fetch().fields(["people": []]).url
        #expect(url.absoluteString.hasSuffix("/articles?fields%5Bpeople%5D="))
    }

    @Test("Non-ASCII and reserved characters are form-encoded")
    func formEncoding() throws {
        let url = try source.fetch().filter("title", "Ünïcode & more=+?#[]").url
        #expect(url.absoluteString.hasSuffix("filter%5Btitle%5D=%C3%9Cn%C3%AFcode+%26+more%3D%2B%3F%23%5B%5D"))
    }

    @Test("The id is percent-encoded as one path segment")
    func idEncoding() throws {
        #expect(try source.fetch(id: "1").url.absoluteString == "https://api.example.com/v1/articles/1")
        #expect(try source.fetch(id: "a/b c?d#e").url.absoluteString == "https://api.example.com/v1/articles/a%2Fb%20c%3Fd%23e")
        #expect(try source.fetch(id: "..").url.absoluteString == "https://api.example.com/v1/articles/%2E%2E")
        #expect(try source.fetch(id: "ü").url.absoluteString == "https://api.example.com/v1/articles/%C3%BC")
    }

    @Test("An empty id is an invalid request, reported when performed — nothing is sent")
    func emptyId() async throws {
        let client = ScriptedClient(status: 200, body: "{}")
        let source = DataSource<Article>(baseURL: exampleBase, router: .path("articles/<id>"), client: client)
        let error = await expectThrows(JSONAPIClientError.self) { try await source.fetch(id: "").result() }
        #expect(error?.code == .invalidRequest)
        #expect(client.requests.isEmpty)
    }

    @Test("Templates: <type>, <id>, singletons, relationship and related endpoints")
    func templates() throws {
        let typed = DataSource<Article>(baseURL: exampleBase, router: .path("<type>/<id>"), client: ScriptedClient(body: ""))
        #expect(try typed.fetch().url.absoluteString == "https://api.example.com/v1/articles")
        #expect(try typed.fetch(id: "7").url.absoluteString == "https://api.example.com/v1/articles/7")
        #expect(try typed.relationship("tags", of: "7").url.absoluteString == "https://api.example.com/v1/articles/7/relationships/tags")
        #expect(try typed.fetchRelated("author", of: "7", as: Person?.self).url.absoluteString == "https://api.example.com/v1/articles/7/author")
        let me = DataSource<Person>(baseURL: exampleBase, router: .path("me"), client: ScriptedClient(body: ""))
        #expect(try me.fetch(as: Person.self).url.absoluteString == "https://api.example.com/v1/me")
        let trailing = DataSource<Article>(
            baseURL: URL(string: "https://api.example.com/v1/") ?? exampleBase, router: .path("/custom/<type>/<id>"),
            client: ScriptedClient(body: ""))
        #expect(try trailing.fetch().url.absoluteString == "https://api.example.com/v1/custom/articles")
    }

    @Test("A router computes each kind of URL")
    func router() throws {
        struct VersionedRouter: Router {
            func collectionURL(type: String, baseURL: URL) throws -> URL {
                baseURL.appendingPathComponent("v2").appendingPathComponent(type)
            }
            func resourceURL(type: String, id: String, baseURL: URL) throws -> URL {
                try collectionURL(type: type, baseURL: baseURL).appendingPathComponent("item-" + id)
            }
        }
        let source = DataSource<Article>(baseURL: exampleBase, router: VersionedRouter(), client: ScriptedClient(body: ""))
        #expect(try source.fetch().url.absoluteString == "https://api.example.com/v1/v2/articles")
        #expect(try source.fetch(id: "3").url.absoluteString == "https://api.example.com/v1/v2/articles/item-3")
        #expect(try source.relationship("author", of: "3").url.absoluteString == "https://api.example.com/v1/v2/articles/item-3/relationships/author")
        #expect(try source.fetchRelated("author", of: "3", as: Person.self).url.absoluteString == "https://api.example.com/v1/v2/articles/item-3/author")
    }

    @Test("A link's own query is kept; options add to it: lists grow, other names are replaced")
    func linkQueryKept() throws {
        let link = Link(href: "https://api.example.com/v1/articles?filter%5Btitle%5D=a&page%5Bsize%5D=5")
        let url = try source.fetch(link: link, as: [Article].self).include("author").page(.pageBased(2, 10)).url
        #expect(url.absoluteString == "https://api.example.com/v1/articles?filter%5Btitle%5D=a&include=author&page%5Bnumber%5D=2&page%5Bsize%5D=10")
        let lists = Link(href: "https://api.example.com/v1/articles?include=author&sort=-created&fields%5Bpeople%5D=name&filter%5Bid%5D=1")
        let merged = try source.fetch(link: lists, as: [Article].self)
            .include("tags", "author").sort("title").fields(["people": ["email"]]).filter("id", "2").url
        #expect(merged.absoluteString == "https://api.example.com/v1/articles?fields%5Bpeople%5D=name%2Cemail&filter%5Bid%5D=2&include=author%2Ctags&sort=-created%2Ctitle")
    }

    @Test("A link without options is requested exactly as given")
    func linkExact() throws {
        let href = "https://api.example.com/v1/articles?z=1&a=%7E,x&page%5Bnumber%5D=2"
        #expect(try source.fetch(link: Link(href: href), as: [Article].self).url.absoluteString == href)
        #expect(try source.fetch(link: Link(href: href), as: [Article].self).decoding(as: PrimaryData.self).url.absoluteString == href)
        #expect(try source.fetch(link: Link(href: "/v1/articles/1"), as: Article.self).url.absoluteString == "https://api.example.com/v1/articles/1")
    }

    @Test("A relative link resolves under the base URL, or against the URL it came from")
    func relativeLinks() throws {
        #expect(
            try source.fetch(link: "articles/1/author", as: Person.self).url.absoluteString
                == "https://api.example.com/v1/articles/1/author")
        let document = try #require(URL(string: "https://api.example.com/v1/articles/1/"))
        #expect(
            try source.fetch(link: "author", relativeTo: document, as: Person.self).url.absoluteString
                == "https://api.example.com/v1/articles/1/author")
        #expect(
            try source.fetch(link: "../2", relativeTo: document, as: Person.self).url.absoluteString
                == "https://api.example.com/v1/articles/2")
    }

    @Test("Pagination parameter names are configurable")
    func customNames() throws {
        let url = try source.fetch().page(.pageBased(3, 25, names: .init(number: "page", size: "per_page"))).url
        #expect(url.absoluteString == "https://api.example.com/v1/articles?page=3&per_page=25")
        let cursor = try source.fetch().page(.cursorBased(size: 5, after: "abc")).url
        #expect(cursor.absoluteString == "https://api.example.com/v1/articles?page%5Bafter%5D=abc&page%5Bsize%5D=5")
        let token = try source.fetch().page(.cursorBased(cursor: "t=1", size: 5)).url
        #expect(token.absoluteString == "https://api.example.com/v1/articles?page%5Bcursor%5D=t%3D1&page%5Bsize%5D=5")
    }
}
