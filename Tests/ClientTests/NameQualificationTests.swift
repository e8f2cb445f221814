import Foundation
import JSONAPIClient
import Testing

// Stand-ins for SwiftUI's `Link`, SwiftData's `Relationship` (a macro there) and swift-http-types' `HTTPRequest`,
// `HTTPResponse` and `HTTPFields`: with them in scope, as in an app that imports those modules, the unqualified names
// mean these, and the library's types are spelled with the module name — which must keep compiling (README, "Name
// collisions").
private struct Link {}
private struct Relationship {}
private struct HTTPRequest {}
private struct HTTPResponse {}
private struct HTTPFields {}

@Suite("Name collisions")
struct NameQualificationTests {
    @Test("The library's Link, HTTPRequest, HTTPResponse and HTTPFields are reachable as JSONAPIClient.Name")
    func qualifiedNames() async throws {
        _ = (Link(), HTTPRequest(), HTTPResponse(), HTTPFields())
        let link: JSONAPIClient.Link = "https://api.example.com/articles?page=2"
        let links = JSONAPIClient.Links(["next": link])
        #expect(links.next?.href == link.href)
        // Core's types are re-exported: both module names work.
        let same: JSONAPIClientCore.Link = link
        #expect(same == link)
        _ = Relationship()
        let author = JSONAPIClient.Relationship(data: .toOne(ResourceIdentifier(type: "people", id: "9")))
        let alsoAuthor: JSONAPIClientCore.Relationship = author
        #expect(alsoAuthor == author)

        let fields: JSONAPIClient.HTTPFields = [.accept: "application/vnd.api+json"]
        let url = try #require(URL(string: "https://api.example.com/articles"))
        let request = JSONAPIClient.HTTPRequest(method: .get, url: url, headerFields: fields)
        let response = JSONAPIClient.HTTPResponse(status: 200, headerFields: fields)
        let client = FixedClient(response: response)
        let answer = try await client.send(request)
        #expect(answer.status.code == 200)
        #expect(answer.headerFields[.accept] == "application/vnd.api+json")
    }

    /// A transport written as an app with the colliding modules would write it.
    struct FixedClient: Client {
        var response: JSONAPIClient.HTTPResponse
        func send(_ request: JSONAPIClient.HTTPRequest) async throws -> JSONAPIClient.HTTPResponse { response }
    }
}
