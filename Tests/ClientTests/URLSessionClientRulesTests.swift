import Foundation
import Testing

@testable import JSONAPIClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules `URLSessionClient` keeps whatever configuration it is given: the store stays the only cache, the app
/// answers authentication challenges, and a response cut short says so.
@Suite("URLSessionClient: cache, challenges, cut-short responses")
struct URLSessionClientRulesTests {
    /// A configuration with a URL cache of its own, as `URLSessionConfiguration.default` has `URLCache.shared`.
    static func cachingConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .useProtocolCachePolicy
        return configuration
    }

    static func cacheableServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            .response(
                status: 200,
                headers: [
                    .init(name: "Cache-Control", value: "max-age=3600"), .init(name: "ETag", value: #""v1""#),
                    .init(name: "Content-Type", value: "application/vnd.api+json"),
                ],
                body: #"{"data": []}"#)
        }
    }

    @Test("A caller's configuration with a URL cache: every GET still reaches the server, without validators")
    func urlCacheBypassed() async throws {
        let server = try Self.cacheableServer()
        let client = URLSessionClient(sessionConfiguration: Self.cachingConfiguration())
        for _ in 0..<3 {
            let response = try await client.send(HTTPRequest(method: .get, url: server.url("/articles")))
            #expect(response.status == .ok)
            #expect(response.headerFields[.eTag] == #""v1""#)
        }
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.headers["if-none-match"] == nil })
    }

    @Test("The URLSession the client makes has no URL cache and ignores local cache data, unless opted in")
    func urlCacheConfiguration() {
        let bypassing = URLSessionClient(sessionConfiguration: Self.cachingConfiguration())
        #expect(bypassing.session.configuration.urlCache == nil)
        #expect(bypassing.session.configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        let keeping = URLSessionClient(
            configuration: .init(usesURLCache: true), sessionConfiguration: Self.cachingConfiguration())
        #expect(keeping.session.configuration.urlCache != nil)
        #expect(keeping.session.configuration.requestCachePolicy == .useProtocolCachePolicy)
    }

    /// (Without a handler the 401 should come back as a response; FoundationNetworking before Swift 6.4 leaves such a
    /// task suspended instead, swift-corelibs-foundation issue 5456, so that half is not asserted here.)
    @Test("An HTTP Basic challenge is answered by the app's handler, once, with the user's credential")
    func basicChallenge() async throws {
        let server = try LoopbackHTTPServer { request in
            // "user:secret" in Base64.
            request.headers["authorization"] == "Basic dXNlcjpzZWNyZXQ="
                ? .response(status: 200, body: "welcome")
                : .response(status: 401, headers: [.init(name: "WWW-Authenticate", value: #"Basic realm="api""#)])
        }
        let asked = Challenges()
        let client = URLSessionClient(configuration: .init(timeout: .seconds(10)), challengeHandler: { challenge in
            asked.add(challenge.protectionSpace.authenticationMethod)
            guard challenge.previousFailureCount == 0 else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(user: "user", password: "secret", persistence: .forSession))
        })
        let response = try await client.send(HTTPRequest(method: .get, url: server.url("/private")))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == "welcome")
        #expect(asked.methods == [NSURLAuthenticationMethodHTTPBasic])
    }

    @Test("A connection reset after the headers and half the body says the response was cut short")
    func cutShort() async throws {
        let server = try LoopbackHTTPServer { _ in .truncated(status: 200, contentLength: 100, body: "half") }
        let client = URLSessionClient(configuration: .init(timeout: .seconds(30)))
        let error = await expectThrows(JSONAPIClientError.self) {
            try await client.send(HTTPRequest(method: .get, url: server.url("/cut")))
        }
        #expect(error?.code == .transportFailed)
        #expect(error?.detail.contains("in the middle of the response (HTTP 200)") == true, "\(String(describing: error))")
        #expect(error?.detail.contains("of 100 body bytes") == true, "\(String(describing: error))")
        #expect(error?.detail.contains("before answering") == false)
    }

    final class Challenges: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []
        var methods: [String] { lock.withLock { recorded } }
        func add(_ method: String) { lock.withLock { recorded.append(method) } }
    }
}

@Suite("Transport failures that say why")
struct TransportFailureDetailTests {
    @Test("A request App Transport Security blocked says so, and how to allow it")
    func appTransportSecurity() {
        let detail = URLSessionClient.securityDetail(for: .appTransportSecurityRequiresSecureConnection) ?? ""
        #expect(detail.hasPrefix("App Transport Security blocked this http:// request"))
        #expect(detail.contains("NSAppTransportSecurity"))
    }

    @Test("A dropped connection says whether the request was sent again")
    func droppedConnection() {
        #expect(
            URLSessionClient.failureDetail(URLError(.networkConnectionLost), method: .post, resent: false)
                == "the server closed the connection before answering; a POST is not idempotent, so it was not sent again")
        #expect(
            URLSessionClient.failureDetail(URLError(.networkConnectionLost), method: .get, resent: true)
                == "the server closed the connection before answering, on a fresh connection too")
    }
}
