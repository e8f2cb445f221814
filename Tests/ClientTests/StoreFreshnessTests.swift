import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// When a stored response may be used without asking the server (RFC 9111 §4.2, a private cache), by an injected
/// clock: freshness from `Cache-Control`, `Expires`, `Age` and `Date`, the policies that read it, and the offline
/// policy.
@Suite("Resource store: freshness")
struct StoreFreshnessTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// The freshness of a response with `fields`, asked for and received at `start`.
    func freshness(_ fields: HTTPFields, requestTime: Date = start) -> Freshness {
        Freshness(of: HTTPResponse(status: .ok, headerFields: fields), requestTime: requestTime, responseTime: Self.start)
    }

    func at(_ seconds: Double) -> Date { Self.start.addingTimeInterval(seconds) }

    // MARK: Freshness, clock-free

    @Test("max-age: fresh below it, stale at exactly it; max-age=0 is stale at once")
    func maxAge() {
        let sixty = freshness(["Cache-Control": "max-age=60"])
        #expect(sixty.isFresh(at: at(0)))
        #expect(sixty.isFresh(at: at(59)))
        #expect(sixty.isFresh(at: at(59.999)))
        #expect(!sixty.isFresh(at: at(60)))
        #expect(!sixty.isFresh(at: at(61)))
        #expect(!freshness(["Cache-Control": "max-age=0"]).isFresh(at: at(0)))
        #expect(!freshness([:]).isFresh(at: at(0)))  // no explicit freshness: no heuristic, stale
    }

    @Test("Directives: case-insensitive, quoted, in several fields; the first max-age counts; invalid is stale")
    func directives() {
        #expect(freshness(["Cache-Control": "public, MAX-AGE=\"60\""]).lifetime == 60)
        #expect(freshness(["Cache-Control": "max-age=60, max-age=10"]).lifetime == 60)
        var two = HTTPFields()
        two.append("Cache-Control", "private")
        two.append("Cache-Control", "max-age=30, must-revalidate")
        let both = freshness(two)
        #expect(both.lifetime == 30)
        #expect(both.mustRevalidate)
        for invalid in ["max-age=abc", "max-age=-1", "max-age=", "max-age", "max-age=1.5"] {
            #expect(freshness(["Cache-Control": invalid]).lifetime == 0, "\(invalid)")
        }
        #expect(freshness(["Cache-Control": "max-age=99999999999999999999"]).lifetime == 2_147_483_648)
        let control = CacheControl(["Cache-Control": #"no-cache="Set-Cookie, X-A", no-store"#])
        #expect(control.noCache)
        #expect(control.noStore)
    }

    @Test("Expires − Date; Expires in the past, unparsable or 0 is stale; max-age wins over Expires")
    func expires() {
        let date = Self.httpDate(at(0))
        let inSixty = freshness([.date: date, .expires: Self.httpDate(at(60))])
        #expect(inSixty.lifetime == 60)
        #expect(inSixty.isFresh(at: at(59)))
        #expect(!inSixty.isFresh(at: at(60)))
        #expect(!freshness([.date: date, .expires: Self.httpDate(at(-1))]).isFresh(at: at(0)))
        #expect(!freshness([.date: date, .expires: "tomorrow"]).isFresh(at: at(0)))
        #expect(!freshness([.date: date, .expires: "0"]).isFresh(at: at(0)))
        #expect(freshness([.date: date, .expires: Self.httpDate(at(60)), "Cache-Control": "max-age=5"]).lifetime == 5)
        // Without Date, the time it was received stands for it.
        #expect(freshness([.expires: Self.httpDate(at(60))]).lifetime == 60)
    }

    @Test("Age and Date make a response older on arrival; missing Date is the time it arrived")
    func age() {
        let aged = freshness(["Cache-Control": "max-age=60", .age: "30"])
        #expect(aged.isFresh(at: at(29)))
        #expect(!aged.isFresh(at: at(30)))
        // Generated 100 s ago by the server's Date: stale on arrival for max-age=60.
        let old = freshness(["Cache-Control": "max-age=60", .date: Self.httpDate(at(-100))])
        #expect(old.initialAge == 100)
        #expect(!old.isFresh(at: at(0)))
        // The time the request took counts as age too (corrected_age_value).
        let slow = freshness(["Cache-Control": "max-age=60", .age: "10"], requestTime: at(-5))
        #expect(slow.initialAge == 15)
        // A Date in the future makes no negative age; no Date is age zero.
        #expect(freshness(["Cache-Control": "max-age=60", .date: Self.httpDate(at(100))]).initialAge == 0)
        #expect(freshness(["Cache-Control": "max-age=60"]).initialAge == 0)
        #expect(freshness(["Cache-Control": "max-age=60", .age: "x"]).initialAge == 0)
    }

    @Test("maxStale: accepted up to exactly maxStale past freshness; never for no-cache or must-revalidate")
    func maxStale() {
        let sixty = freshness(["Cache-Control": "max-age=60"])
        #expect(!sixty.isUsable(at: at(60), maxStale: nil))
        #expect(sixty.isUsable(at: at(60), maxStale: .zero))
        #expect(!sixty.isUsable(at: at(60.5), maxStale: .zero))
        #expect(sixty.isUsable(at: at(90), maxStale: .seconds(30)))
        #expect(!sixty.isUsable(at: at(91), maxStale: .seconds(30)))
        let strict = freshness(["Cache-Control": "max-age=60, must-revalidate"])
        #expect(strict.isUsable(at: at(59), maxStale: nil))
        #expect(!strict.isUsable(at: at(60), maxStale: .seconds(3600)))
        let noCache = freshness(["Cache-Control": "no-cache, max-age=60"])
        #expect(!noCache.isFresh(at: at(0)))
        #expect(!noCache.isUsable(at: at(0), maxStale: .seconds(3600)))
        #expect(!noCache.mayServeStale)
        #expect(CachePolicy.cacheFirst(maxStale: .seconds(-5)) == .cacheFirst(maxStale: .zero))
        #expect(CachePolicy.cacheFirst(maxStale: .zero) != .cacheFirst)
    }

    @Test("HTTP dates in the three forms a recipient must read; anything else is nil")
    func dates() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(Freshness.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(Freshness.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(Freshness.httpDate("Sun Nov  6 08:49:37 1994") == expected)
        #expect(Freshness.httpDate("0") == nil)
        #expect(Freshness.httpDate("") == nil)
        // The fixdate parser without a formatter agrees with one, leap days and the turn of the century included.
        for seconds in stride(from: -2_208_988_800.0, through: 4_102_444_800, by: 86_399 * 37 + 0.0) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(Freshness.imfFixdate(StoreFreshnessTests.httpDate(date)) == date)
        }
        #expect(Freshness.imfFixdate(StoreFreshnessTests.httpDate(Date(timeIntervalSince1970: 951_782_400))) != nil)
        #expect(Freshness.imfFixdate("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
        #expect(Freshness.imfFixdate("Sun, 06 Xyz 1994 08:49:37 GMT") == nil)
        #expect(Freshness.imfFixdate("Sun, 6 Nov 1994 08:49:37 GMT") == nil)
        #expect(Freshness.imfFixdate("Sun, 06 Nov 1994 24:49:37 GMT") == nil)
        #expect(Freshness.imfFixdate("Sun, 0a Nov 1994 08:49:37 GMT") == nil)
    }

    /// RFC 9110 §5.6.7: `time-of-day = hour ":" minute ":" second ; 00:00:00 - 23:59:60 (leap second)`, and `day`
    /// is two digits of a day of the month. A leap second is accepted as the grammar says (a `Date` has none: it
    /// reads as the next minute's first second); anything past an edge is no date.
    @Test("The IMF-fixdate parser's edges: hour 23/24, minute 59/60, second 59/60/61, day 0/1/31/32")
    func fixdateEdges() {
        let midnight = Date(timeIntervalSince1970: 788_918_400)  // Sun, 01 Jan 1995 00:00:00 GMT
        func date(day: String = "01", time: String) -> Date? { Freshness.imfFixdate("Sun, \(day) Jan 1995 \(time) GMT") }
        #expect(date(time: "00:00:00") == midnight)
        #expect(date(time: "23:00:00") == midnight + 23 * 3600)
        #expect(date(time: "24:00:00") == nil)
        #expect(date(time: "00:59:00") == midnight + 59 * 60)
        #expect(date(time: "00:60:00") == nil)
        #expect(date(time: "00:00:59") == midnight + 59)
        #expect(date(time: "23:59:60") == midnight + 86_400)  // the leap second: the next day's first second
        #expect(date(time: "00:00:61") == nil)
        #expect(date(day: "00", time: "00:00:00") == nil)
        #expect(date(day: "31", time: "00:00:00") == midnight + 30 * 86_400)
        #expect(date(day: "32", time: "00:00:00") == nil)
        #expect(Freshness.imfFixdate("Sun, 01 Jan 0000 00:00:00 GMT") == nil)
        #expect(Freshness.imfFixdate("Mon, 01 Jan 0001 00:00:00 GMT") == Date(timeIntervalSince1970: -62_135_596_800))
        // The same edges through the public path (the formatter forms are not reached by a fixdate's text).
        #expect(Freshness.httpDate("Sun, 01 Jan 1995 00:60:00 GMT") == nil)
        #expect(Freshness.httpDate("Sun, 01 Jan 1995 24:00:00 GMT") == nil)
    }

    // MARK: Policies, with an injected clock

    /// A clock the test moves by hand.
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = StoreFreshnessTests.start
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: Double) { lock.withLock { current += seconds } }
    }

    /// A server with `ETag: "v<version>"`, the given `Cache-Control`, and 304 for a matching `If-None-Match`; it
    /// fails at the transport while `offline`, and answers 500 while `broken`.
    final class Server: @unchecked Sendable {
        struct Down: Error {}
        private let lock = NSLock()
        var version = 1
        var offline = false
        var broken = false
        var cacheControl: String?
        private var log: [String?] = []

        init(cacheControl: String?) { self.cacheControl = cacheControl }

        var validators: [String?] { lock.withLock { log } }
        func set(_ change: (Server) -> Void) { lock.withLock { change(self) } }

        func respond(_ request: HTTPRequest) throws -> HTTPResponse {
            try lock.withLock {
                if offline { throw Down() }
                log.append(request.headerFields[.ifNoneMatch])
                if broken { return .document(#"{"errors":[{"status":"500"}]}"#, status: 500) }
                var headers: HTTPFields = [.eTag: "\"v\(version)\""]
                if let cacheControl { headers.append("Cache-Control", cacheControl) }
                if request.headerFields[.ifNoneMatch] == "\"v\(version)\"" {
                    return HTTPResponse(status: .notModified, headerFields: headers)
                }
                var response = HTTPResponse.document(
                    #"{"data":[{"type":"labels","id":"1","attributes":{"name":"v\#(version)"}}]}"#)
                for field in headers { response.headerFields.append(field) }
                return response
            }
        }
    }

    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    func session(_ server: Server, clock: TestClock) -> DataSource<Label> {
        let api = Session(
            baseURL: exampleBase, client: ScriptedClient { try server.respond($0) },
            configuration: .init(store: .init(now: { clock.now })))
        return api.source(Label.self, .path("labels/<id>"))
    }

    @Test("cacheFirst answers while fresh; at exactly max-age it revalidates, and a 304 makes it fresh again")
    func cacheFirstExpiry() async throws {
        let server = Server(cacheControl: "max-age=60")
        let clock = TestClock()
        let labels = session(server, clock: clock)
        _ = try await labels.fetch().result()
        clock.advance(59)
        #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .cache)
        clock.advance(1)
        let revalidated = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(revalidated.source == .revalidated)
        clock.advance(59)
        #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .cache)
        clock.advance(1)
        server.set { $0.version = 2 }
        let changed = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(changed.source == .network)
        #expect(changed.data?.first?.name == "v2")
        #expect(server.validators == [nil, "\"v1\"", "\"v1\""])
    }

    @Test("cacheFirst with max-age=0, no freshness, or no-cache always asks; maxStale takes a stale one")
    func cacheFirstStale() async throws {
        for control in ["max-age=0", nil, "no-cache"] as [String?] {
            let server = Server(cacheControl: control)
            let labels = session(server, clock: TestClock())
            _ = try await labels.fetch().result()
            #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .revalidated)
        }
        let server = Server(cacheControl: "max-age=60")
        let clock = TestClock()
        let labels = session(server, clock: clock)
        _ = try await labels.fetch().result()
        clock.advance(90)
        #expect(try await labels.fetch().cachePolicy(.cacheFirst(maxStale: .seconds(30))).result().source == .cache)
        clock.advance(1)
        #expect(
            try await labels.fetch().cachePolicy(.cacheFirst(maxStale: .seconds(30))).result().source == .revalidated)
        #expect(server.validators.count == 2)
    }

    @Test("staleWhileRevalidate: a fresh response answers alone; a stale one answers and is refreshed", .timeLimit(.minutes(1)))
    func staleWhileRevalidate() async throws {
        let server = Server(cacheControl: "max-age=60")
        let clock = TestClock()
        let labels = session(server, clock: clock)
        _ = try await labels.fetch().result()
        #expect(try await labels.fetch().cachePolicy(.staleWhileRevalidate).result().source == .cache)
        #expect(server.validators.count == 1)
        clock.advance(60)
        server.set { $0.version = 2 }
        let stale = try await labels.fetch().cachePolicy(.staleWhileRevalidate).result()
        #expect(stale.source == .cache)
        #expect(stale.data?.first?.name == "v1")
        while server.validators.count < 2 { await Task.yield() }
        var refreshed: String?
        while refreshed != "v2" {
            refreshed = try await labels.fetch().cachePolicy(.cacheOnly).result().data?.first?.name
            await Task.yield()
        }
        // must-revalidate: a stale one is not used, the request waits for the server.
        let strict = Server(cacheControl: "max-age=60, must-revalidate")
        let strictClock = TestClock()
        let strictLabels = session(strict, clock: strictClock)
        _ = try await strictLabels.fetch().result()
        strictClock.advance(60)
        #expect(try await strictLabels.fetch().cachePolicy(.staleWhileRevalidate).result().source == .revalidated)
    }

    @Test("cacheOnly answers stale, but not what must be revalidated")
    func cacheOnly() async throws {
        let server = Server(cacheControl: "max-age=60")
        let clock = TestClock()
        let labels = session(server, clock: clock)
        _ = try await labels.fetch().result()
        clock.advance(3600)
        #expect(try await labels.fetch().cachePolicy(.cacheOnly).result().source == .cache)
        let strict = Server(cacheControl: "no-cache")
        let strictLabels = session(strict, clock: clock)
        _ = try await strictLabels.fetch().result()
        let error = await expectThrows(JSONAPIClientError.self) {
            try await strictLabels.fetch().cachePolicy(.cacheOnly).result()
        }
        #expect(error?.code == .notCached)
    }

    @Test("networkFirst: a transport failure answers from the store, marked offline; an error status does not")
    func networkFirst() async throws {
        let server = Server(cacheControl: "max-age=60")
        let clock = TestClock()
        let labels = session(server, clock: clock)
        // Nothing stored yet: the transport's error.
        server.set { $0.offline = true }
        let nothing = await expectThrows(JSONAPIClientError.self) {
            try await labels.fetch().cachePolicy(.networkFirst).result()
        }
        #expect(nothing?.code == .transportFailed)
        server.set { $0.offline = false }
        let online = try await labels.fetch().cachePolicy(.networkFirst).result()
        #expect(online.source == .network)
        clock.advance(3600)  // stale, long ago: still better than nothing when offline
        server.set { $0.offline = true }
        let offline = try await labels.fetch().cachePolicy(.networkFirst).result()
        #expect(offline.source == .offline)
        #expect(offline.data?.first?.name == "v1")
        // The server answering with an error is an answer: no fallback.
        server.set {
            $0.offline = false
            $0.broken = true
        }
        let broken = await expectThrows(JSONAPIClientError.self) {
            try await labels.fetch().cachePolicy(.networkFirst).result()
        }
        #expect(broken?.status?.code == 500)
        // Another user's stored response never answers.
        server.set {
            $0.broken = false
            $0.offline = true
        }
        await #expect(throws: JSONAPIClientError.self) {
            try await labels.fetch().header(.authorization, "Bearer other").cachePolicy(.networkFirst).result()
        }
    }

    @Test("networkFirst answers from the store only once the retry middleware has given up")
    func networkFirstAfterRetries() async throws {
        let server = Server(cacheControl: "max-age=60")
        let counting = CountingClient(ScriptedClient { try server.respond($0) })
        let retry = RetryMiddleware(configuration: .init(maxAttempts: 3), sleep: { _ in }, now: { Self.start })
        let api = Session(baseURL: exampleBase, client: counting, configuration: .init(middlewares: [retry]))
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        server.set { $0.offline = true }
        let offline = try await labels.fetch().cachePolicy(.networkFirst).result()
        #expect(offline.source == .offline)
        #expect(counting.count == 4)
    }

    @Test("networkFirst does not answer offline with a response its server said must be revalidated")
    func networkFirstMustRevalidate() async throws {
        for control in ["max-age=60, must-revalidate", "no-cache"] {
            let server = Server(cacheControl: control)
            let clock = TestClock()
            let labels = session(server, clock: clock)
            _ = try await labels.fetch().result()
            clock.advance(60)
            server.set { $0.offline = true }
            await #expect(throws: JSONAPIClientError.self) {
                try await labels.fetch().cachePolicy(.networkFirst).result()
            }
        }
    }
}
