import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A connection refused for its security (TLS, certificate trust, App Transport Security, a cancelled challenge) is
/// its own failure, `securityFailed`: never retried, never queued, never taken for being offline.
@Suite("Security failures")
struct SecurityFailureTests {
    static let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/articles?token=t0p")!)

    /// Every URLError code that means the connection was refused for its security, with a word its detail must say.
    static let securityCodes: [(URLError.Code, String)] = [
        (.appTransportSecurityRequiresSecureConnection, "App Transport Security"),
        (.secureConnectionFailed, "TLS"),
        (.serverCertificateHasBadDate, "expired"),
        (.serverCertificateUntrusted, "not trusted"),
        (.serverCertificateHasUnknownRoot, "unknown root"),
        (.serverCertificateNotYetValid, "not valid yet"),
        (.clientCertificateRejected, "rejected the client certificate"),
        (.clientCertificateRequired, "requires a client certificate"),
        (.userCancelledAuthentication, "authentication challenge was cancelled"),
    ]

    /// Codes of a network that is not there (or not yet), which stay transport failures.
    static let offlineCodes: [URLError.Code] = [
        .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
        .internationalRoamingOff, .dataNotAllowed, .badServerResponse,
    ]

    static func mapped(_ code: URLError.Code, stop: URLSessionClient.Stop = .none) -> (any Error) {
        URLSessionClient.failure(URLError(code), of: request, stop: stop, resent: false, timeout: .seconds(60))
    }

    @Test("Each TLS, trust, client-certificate, ATS and authentication code becomes securityFailed, saying which")
    func securityCodesMapped() throws {
        for (code, words) in Self.securityCodes {
            let error = try #require(Self.mapped(code) as? JSONAPIClientError, "\(code)")
            #expect(error.code == .securityFailed, "\(code)")
            #expect(error.detail.contains(words), "\(code): \(error.detail)")
            #expect(error.url == Self.request.url && error.method == .get)
            #expect((error.underlyingError as? URLError)?.code == code)
            if code != .appTransportSecurityRequiresSecureConnection {
                #expect(error.detail.hasSuffix("(URLError \(code.rawValue))"), "\(error.detail)")
            }
            #expect(!error.detail.contains("t0p"), "the detail names no part of the URL: \(error.detail)")
            #expect(URLSessionClient.isSecurityFailure(URLError(code)), "\(code)")
            #expect(URLSessionClient.isSecurityFailure(error))
        }
    }

    @Test("A network that is not there stays a transport failure, which offline writes queue and retries retry")
    func offlineCodesStay() throws {
        for code in Self.offlineCodes {
            let error = try #require(Self.mapped(code) as? JSONAPIClientError, "\(code)")
            #expect(error.code == .transportFailed, "\(code)")
            #expect(URLSessionClient.securityDetail(for: code) == nil, "\(code)")
            #expect(!URLSessionClient.isSecurityFailure(URLError(code)), "\(code)")
            #expect(!URLSessionClient.isSecurityFailure(error))
        }
        #expect(!URLSessionClient.isSecurityFailure(CancellationError()))
    }

    @Test("cancelled: the caller's is CancellationError, the timeout's timedOut, any other an authentication refused")
    func cancelledBy() throws {
        #expect(Self.mapped(.cancelled, stop: .cancelled) is CancellationError)
        #expect((Self.mapped(.cancelled, stop: .timedOut) as? JSONAPIClientError)?.code == .timedOut)
        #expect((Self.mapped(.timedOut) as? JSONAPIClientError)?.code == .timedOut)
        #expect((Self.mapped(.timedOut, stop: .cancelled) as? JSONAPIClientError)?.code == .timedOut)
        // A security code stays one whatever the client did, but the caller's cancellation wins over it.
        #expect((Self.mapped(.serverCertificateUntrusted, stop: .cancelled) as? JSONAPIClientError)?.code == .securityFailed)
        let refused = try #require(Self.mapped(.cancelled) as? JSONAPIClientError)
        #expect(refused.code == .securityFailed)
        #expect(refused.detail.contains("not the caller"), "\(refused.detail)")
        // A raw `cancelled` from a transport of the app's own cannot be told from its caller's: not classified.
        #expect(!URLSessionClient.isSecurityFailure(URLError(.cancelled)))
    }

    @Test("A challenge the handler cancelled names its kind and host, never the realm or a credential")
    func cancelledChallengeDetail() throws {
        let kinds: [(String, String)] = [
            // The values of NSURLAuthenticationMethodServerTrust and …ClientCertificate (unavailable on Linux).
            ("NSURLAuthenticationMethodServerTrust", "refused the server's certificate"),
            ("NSURLAuthenticationMethodClientCertificate", "client certificate"),
            (NSURLAuthenticationMethodHTTPBasic, "HTTP Basic"),
            (NSURLAuthenticationMethodHTTPDigest, "HTTP Digest"),
            ("NSURLAuthenticationMethodNTLM", "cancelled an authentication challenge"),
        ]
        for (method, words) in kinds {
            let challenge = URLSessionClient.CancelledChallenge(
                authenticationMethod: method, host: "api.example.com:443", underlying: URLError(.cancelled))
            let error = try #require(
                URLSessionClient.failure(
                    URLError(.cancelled), of: Self.request, stop: .none, resent: false, timeout: .seconds(1),
                    challenge: challenge) as? JSONAPIClientError)
            #expect(error.code == .securityFailed)
            #expect(error.detail.contains(words), "\(method): \(error.detail)")
            #expect(error.detail.contains("of api.example.com:443 (URLError -999)"), "\(error.detail)")
            // The caller's own cancellation still wins.
            #expect(
                URLSessionClient.failure(
                    URLError(.cancelled), of: Self.request, stop: .cancelled, resent: false, timeout: .seconds(1),
                    challenge: challenge) is CancellationError)
        }
    }

    @Test("RetryMiddleware never retries a security failure, raw or mapped; it still retries a transport failure")
    func notRetried() {
        let retry = RetryMiddleware(configuration: .init(), sleep: { _ in }, now: { Date() })
        for (code, _) in Self.securityCodes {
            #expect(!retry.isRetried(URLError(code), method: .get), "\(code)")
            let mapped = Self.mapped(code)
            #expect(!retry.isRetried(mapped, method: .get), "\(code)")
        }
        #expect(retry.isRetried(URLError(.notConnectedToInternet), method: .get))
        #expect(retry.isRetried(Self.mapped(.notConnectedToInternet), method: .get))
    }

    @Test("A transport of the app's own that throws a URLError of certificate trust: securityFailed, not offline")
    func ownTransport() async throws {
        let client = ScriptedClient { _ in throw URLError(.serverCertificateUntrusted) }
        let api = Session(baseURL: URL(string: "https://api.example.com")!, client: client)
        let error = await expectThrows(JSONAPIClientError.self) {
            _ = try await api.fetch(URL(string: "https://api.example.com/memos")!).result()
        }
        #expect(error?.code == .securityFailed)
        #expect(error?.detail.contains("not trusted") == true)
    }

    // MARK: - Through URLSession, on the loopback

    /// A server that asks for HTTP Basic credentials until `open`, then answers memo 1.
    final class Guarded: Sendable {
        let server: LoopbackHTTPServer
        private let state: Box

        init() throws {
            let state = Box()
            server = try LoopbackHTTPServer { request in
                guard state.isOpen else {
                    return .response(status: 401, headers: [.init(name: "WWW-Authenticate", value: #"Basic realm="api""#)])
                }
                let body = request.method == "GET" ? Memo.document(id: "1", title: "Kept") : ""
                return .response(
                    status: request.method == "GET" ? 200 : 204,
                    headers: [
                        .init(name: "Content-Type", value: "application/vnd.api+json"),
                        .init(name: "Cache-Control", value: "max-age=0"),
                    ], body: body)
            }
            self.state = state
        }

        func open(_ open: Bool) { state.isOpen = open }

        final class Box: @unchecked Sendable {
            private let lock = NSLock()
            private var value = false
            var isOpen: Bool {
                get { lock.withLock { value } }
                set { lock.withLock { value = newValue } }
            }
        }
    }

    /// A client whose challenge handler gives up at once, as one that pins would on a certificate it refuses.
    static func refusingClient(_ asked: URLSessionClientRulesTests.Challenges) -> URLSessionClient {
        // Ten minutes: a bound, never a speed target. A minute was reached under ThreadSanitizer on two cores (the
        // request then timed out before its challenge was answered, and was retried as a timeout).
        URLSessionClient(configuration: .init(timeout: .seconds(600)), challengeHandler: { challenge in
            asked.add(challenge.protectionSpace.authenticationMethod)
            return (.cancelAuthenticationChallenge, nil)
        })
    }

    @Test("A challenge the handler cancels arrives as securityFailed, naming the challenge and its host")
    func challengeCancelled() async throws {
        let guarded = try Guarded()
        let asked = URLSessionClientRulesTests.Challenges()
        let client = Self.refusingClient(asked)
        let error = await expectThrows(JSONAPIClientError.self) {
            try await client.send(HTTPRequest(method: .get, url: guarded.server.url("/memos/1")))
        }
        #expect(error?.code == .securityFailed, "\(String(describing: error))")
        #expect(error?.detail.contains("gave up on the HTTP Basic challenge of 127.0.0.1:\(guarded.server.port)") == true,
            "\(String(describing: error))")
        #expect(asked.methods == [NSURLAuthenticationMethodHTTPBasic])
    }

    @Test("Refused by the challenge handler: RetryMiddleware sends it once")
    func challengeNotRetried() async throws {
        let guarded = try Guarded()
        let asked = URLSessionClientRulesTests.Challenges()
        let retry = RetryMiddleware(configuration: .init(maxAttempts: 3), sleep: { _ in }, now: { Date() })
        let api = Session(
            baseURL: guarded.server.url("/"), client: Self.refusingClient(asked),
            configuration: .init(middlewares: [retry]))
        let error = await expectThrows(JSONAPIClientError.self) {
            _ = try await api.fetch(guarded.server.url("/memos/1")).result()
        }
        #expect(error?.code == .securityFailed)
        #expect(guarded.server.requests.count == 1)
        #expect(asked.methods.count == 1)
    }

    @Test("Refused by the challenge handler: an offline write is not queued, and its optimistic change rolls back")
    func challengeNotQueued() async throws {
        let guarded = try Guarded()
        let asked = URLSessionClientRulesTests.Challenges()
        let api = Session(
            baseURL: guarded.server.url("/"), client: Self.refusingClient(asked),
            configuration: .init(store: .init(), writes: .offline))
        let store = try #require(api.store)
        store.merge(try JSONAPIDecoder().decode(RawDocument.self, from: Data(Memo.document(id: "1", title: "Draft").utf8)))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let error = await expectThrows(JSONAPIClientError.self) {
            _ = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Changed" }
        }
        #expect(error?.code == .securityFailed)
        #expect(error?.rolledBack != nil)
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try store.resource(Memo.self, id: "1")?.title == "Draft")
    }

    @Test("Refused by the challenge handler: networkFirst does not answer from the store as if offline")
    func challengeNotOffline() async throws {
        let guarded = try Guarded()
        guarded.open(true)
        let asked = URLSessionClientRulesTests.Challenges()
        let api = Session(
            baseURL: guarded.server.url("/"), client: Self.refusingClient(asked),
            configuration: .init(store: .init(), cachePolicy: .networkFirst))
        let url = guarded.server.url("/memos/1")
        _ = try await api.fetch(url).result()  // stored
        guarded.open(false)
        let error = await expectThrows(JSONAPIClientError.self) { _ = try await api.fetch(url).result() }
        #expect(error?.code == .securityFailed)
        #expect(guarded.server.requests.count == 2)
    }
}
