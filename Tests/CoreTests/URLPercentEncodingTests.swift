import Foundation
import Testing

@testable import JSONAPIClientCore

/// `URL(percentEncoding:)`: the one conversion of a server's or a user's string into a URL. Its result is the same on
/// every platform because it encodes before `URL(string:)` sees the string (macOS 13, iOS 16, tvOS 16 and watchOS 9
/// return `nil` for the raw forms).
@Suite("One tolerant conversion from a written link to a URL")
struct URLPercentEncodingTests {
    @Test(
        "What RFC 3986 does not allow is percent-encoded; escapes already there are kept",
        arguments: [
            ("https://h/articles?page[number]=2&page[size]=10", "https://h/articles?page%5Bnumber%5D=2&page%5Bsize%5D=10"),
            ("https://h/articles?page%5Bnumber%5D=2", "https://h/articles?page%5Bnumber%5D=2"),
            ("https://h/articles?page%5Bnumber]=2", "https://h/articles?page%5Bnumber%5D=2"),
            ("https://h/my articles/a b?q=a b#x y", "https://h/my%20articles/a%20b?q=a%20b#x%20y"),
            ("https://h/café?name=José", "https://h/caf%C3%A9?name=Jos%C3%A9"),
            ("https://h/caf%C3%A9", "https://h/caf%C3%A9"),
            ("https://h/100%?a=50%25", "https://h/100%25?a=50%25"),
            ("https://h/a%2", "https://h/a%252"),
            ("https://h/a?b#c#d", "https://h/a?b#c%23d"),
            ("https://h/a\"b<c>d{e}f|g\\h^i`j", "https://h/a%22b%3Cc%3Ed%7Be%7Df%7Cg%5Ch%5Ei%60j"),
            ("http://[::1]:8000/x?f[a]=1", "http://[::1]:8000/x?f%5Ba%5D=1"),
            ("https://user@h:8443/p;x=1/~a-b_c.d!$&'()*+,=:@/?q=/?", "https://user@h:8443/p;x=1/~a-b_c.d!$&'()*+,=:@/?q=/?"),
            ("/articles?page[cursor]=a b", "/articles?page%5Bcursor%5D=a%20b"),
            ("?page[number]=3", "?page%5Bnumber%5D=3"),
            ("articles/ü", "articles/%C3%BC"),
        ])
    func encodes(_ written: String, _ expected: String) throws {
        let url = try #require(URL(percentEncoding: written))
        #expect(url.absoluteString == expected)
        #expect(URLEncoding.encoded(written) == expected)
    }

    @Test("A string that needs nothing is passed on as it is (the same String, no copy to compare)")
    func untouched() {
        let plain = "https://api.example.com/v1/articles?include=author&page%5Bsize%5D=10"
        #expect(URLEncoding.encoded(plain) == plain)
        #expect(URLEncoding.encoded("") == "")
    }

    @Test("A relative reference resolves against the base after encoding")
    func relative() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/articles"))
        let url = try #require(URL(percentEncoding: "?page[number]=2", relativeTo: base))
        #expect(url.absoluteURL.absoluteString == "https://api.example.com/v1/articles?page%5Bnumber%5D=2")
        let path = try #require(URL(percentEncoding: "/v1/people/José", relativeTo: base))
        #expect(path.absoluteURL.absoluteString == "https://api.example.com/v1/people/Jos%C3%A9")
    }

    @Test("What is still not a URL after encoding is nil, never a crash")
    func stillInvalid() {
        #expect(URL(percentEncoding: "") == nil)
    }

    struct Site: Resource {
        static let resourceType = "sites"
        var id: String
        var homepage: URL
    }

    @Test("A URL-typed attribute with raw brackets, spaces and non-ASCII decodes to the encoded URL")
    func urlAttribute() throws {
        let body = #"{"data": {"type": "sites", "id": "1", "attributes": {"homepage": "https://h/a b?f[x]=ü"}}}"#
        let site = try JSONAPIDecoder().decode(Document<Site>.self, from: Data(body.utf8)).data
        #expect(site?.homepage.absoluteString == "https://h/a%20b?f%5Bx%5D=%C3%BC")
    }
}
