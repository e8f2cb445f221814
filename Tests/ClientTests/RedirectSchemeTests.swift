import Foundation
@testable import JSONAPIClient
import Testing
import TestSupport

/// A redirect whose `Location` names a scheme other than the request's own or http(s) is refused before anything is
/// sent, on every platform (FoundationNetworking makes `file:///etc/passwd` a same-origin `GET /etc/passwd`).
@Suite("Redirects to another scheme")
struct RedirectSchemeTests {
    @Test(
        "A redirect to another scheme is refused with redirectRefused naming the scheme, nothing sent after it",
        arguments: ["file:///etc/passwd", "FILE:///etc/passwd", "ftp://127.0.0.1/x", "javascript:alert(1)", "data:,x"])
    func otherScheme(_ location: String) async throws {
        let server = try KeepAliveServer(status: "302 Found", headers: ["Location: \(location)"])
        defer { server.stop() }
        let error = await expectThrows(JSONAPIClientError.self) {
            try await Session(baseURL: server.url).source(Article.self, .path("articles/<id>")).fetch().result()
        }
        #expect(error?.code == .redirectRefused, "\(String(describing: error))")
        #expect(error?.status?.code == 302)
        let scheme = String(location.prefix { $0 != ":" }).lowercased()
        #expect(error?.detail.contains("a `\(scheme):` URL was refused") == true, "\(String(describing: error))")
        #expect(error?.detail.contains("passwd") == false)
        #expect(server.requests == 1)
    }

    @Test("A Location's scheme is read as RFC 3986 writes it; a relative reference names none")
    func schemes() {
        let read = URLSessionClient.SessionDelegate.scheme(ofReference:)
        #expect(read("file:///etc/passwd") == "file")
        #expect(read(" HTTPS://example.com") == "https")
        #expect(read("svn+ssh://host/x") == "svn+ssh")
        #expect(read("/a:b") == nil)
        #expect(read("a b:c") == nil)
        #expect(read("1a:b") == nil)
        #expect(read(":x") == nil)
        #expect(read("elsewhere") == nil)
        let source = URL(string: "http://127.0.0.1:8000/articles")
        let same = URL(string: "http://127.0.0.1:8000/etc/passwd")
        #expect(URLSessionClient.SessionDelegate.allowsRedirect(from: source, to: same, locationScheme: "http"))
        #expect(URLSessionClient.SessionDelegate.allowsRedirect(from: source, to: same, locationScheme: nil))
        #expect(!URLSessionClient.SessionDelegate.allowsRedirect(from: source, to: same, locationScheme: "file"))
        #expect(URLSessionClient.SessionDelegate.allowsScheme("https", from: source))
        #expect(!URLSessionClient.SessionDelegate.allowsScheme("ws", from: source))
        #expect(URLSessionClient.SessionDelegate.allowsScheme("ws", from: URL(string: "ws://127.0.0.1/")))
    }
}
