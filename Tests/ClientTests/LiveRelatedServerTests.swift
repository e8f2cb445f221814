import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Live objects follow the related records their models are decoded from, against the test server: an article
/// fetched with its author shows the author's new name once the author is renamed through the people data source,
/// in a ``LiveResource`` and in a ``LiveList``, with no request for the articles.
@Suite("Live objects follow related records, against the test server")
@MainActor
struct LiveRelatedServerTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Renaming the included author through another data source shows in a live article and a live list")
    func authorRenamed() async throws {
        let api = Session(baseURL: try TestServer.url())
        let articles = api.source(Article.self, .path("articles/<id>"))
        let people = api.source(Person.self, .path("people/<id>"))
        let run = UUID().uuidString
        let author = try #require(
            try await people.create(Person(id: "", name: "Before \(run)", email: "\(run)@example.com")).data)
        var made: [String] = []
        for n in 0..<2 {
            var article = Article(id: "", title: "Live related \(run) \(n)", body: "b", created: Date(timeIntervalSince1970: 1_700_000_000))
            article.author = author
            made.append(try #require(try await articles.create(article).data).id)
        }
        let live = articles.fetch(id: made[0]).include(["author"]).live()
        await live.load()
        let list = articles.fetch().include(["author"]).filter("title.icontains", "Live related \(run)").sort("title")
            .page(.pageBased(1, 10)).liveList()
        await list.load()
        #expect(live.resource?.author?.name == "Before \(run)")
        #expect(list.resources.map(\.author?.name) == ["Before \(run)", "Before \(run)"])

        var rename = ResourceUpdate<Person>(id: author.id)
        rename.set("name", to: "After \(run)")
        try await people.update(rename)
        await Observed.until("the live article shows the new name") { live.resource?.author?.name == "After \(run)" }
        await Observed.until("the live list shows the new name") {
            list.resources.map(\.author?.name) == ["After \(run)", "After \(run)"]
        }
        #expect(list.resources.map(\.id) == made)

        for id in made { try await articles.delete(id: id) }
        try await people.delete(id: author.id)
    }
}
