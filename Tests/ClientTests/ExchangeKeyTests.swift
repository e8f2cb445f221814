import Foundation
import Testing

@testable import JSONAPIClient

/// The key under which identical GETs in flight share one exchange.
@Suite("Coalescing key")
struct ExchangeKeyTests {
    @Test("The exchange key: method, URL, every header field in order (names folded), and whose credentials")
    func exchangeKey() throws {
        let url = try #require(URL(string: "https://api.example.com/labels"))
        let base = HTTPRequest(method: .get, url: url, headerFields: ["Accept": "application/vnd.api+json"])
        var other = base
        other.headerFields.append(HTTPField.Name("Accept-Language"), "fr")
        var folded = base
        folded.headerFields = ["ACCEPT": "application/vnd.api+json"]
        var token = base
        token.headerFields.append(.authorization, "Bearer a")
        #expect(InFlightRequests.key(for: base) != InFlightRequests.key(for: other))
        #expect(InFlightRequests.key(for: base) == InFlightRequests.key(for: folded))
        #expect(InFlightRequests.key(for: base) != InFlightRequests.key(for: token))
        #expect(!InFlightRequests.key(for: token).contains("Bearer a"))
        let head = HTTPRequest(method: .head, url: url, headerFields: base.headerFields)
        #expect(InFlightRequests.key(for: base) != InFlightRequests.key(for: head))
    }
}
