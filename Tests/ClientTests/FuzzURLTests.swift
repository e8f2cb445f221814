import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// URL inputs `scripts/fuzz.sh` found (the URLs target), kept as tests of the property each one broke.
@Suite("Fuzz findings: URLs")
struct FuzzURLTests {
    @Test("A template with a query or a fragment makes no URL; one that only contains \"://\" is not taken as absolute")
    func templateWithQueryOrFragment() throws {
        let base = try #require(URL(string: "https://api.example.com/v1"))
        for template in ["?esi.m://pi.example.com@:442/x", "articles/<id>?locale=en", "articles#top", "a?b://c/<id>"] {
            let source = DataSource<Article>(baseURL: base, router: .path(template))
            let error = expectThrows(JSONAPIClientError.self, "\(template)") { try source.fetch().filter("", "").url }
            #expect(error?.code == .invalidRequest)
            #expect(error?.detail.contains("a path template is a path") == true, "\(String(describing: error))")
            #expect(throws: JSONAPIClientError.self) { try source.fetch(id: "1").url }
        }
        // An absolute template still works, and an empty filter name reads back as given.
        let absolute = DataSource<Article>(baseURL: base, router: .path("https://other.example.com/<type>/<id>"))
        #expect(try absolute.fetch(id: "1").url.absoluteString == "https://other.example.com/articles/1")
        let source = DataSource<Article>(baseURL: base, router: .path("articles/<id>"))
        #expect(try source.fetch().filter("", "").url.absoluteString == "https://api.example.com/v1/articles?filter%5B%5D=")
    }
}
