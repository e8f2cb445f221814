import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Cancelling a walk of the test server's collections: the server's access log shows that no page request reached
/// it once `cancel()` had returned (page number and limit-offset, with the store and without). A middleware holds
/// one page until the test lets it go — before the walk's gate, or after the server answered it — so the moment of
/// the cancellation is forced, not hoped for; every wait is bounded.
@Suite("Cancelling walks of the test server's collections")
struct IntegrationWalkCancellationTests {
    enum Style: String, CaseIterable, Sendable {
        case pageNumber = "paged/articles", offset = "offset/articles"

        func strategy(size: Int) -> any PaginationStrategy {
            switch self {
            case .pageNumber: .pageBased(1, size)
            case .offset: .offsetBased(0, size)
            }
        }

        /// The page (from 1) a request of the walk asks for.
        func page(of url: URL, size: Int) -> Int {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            func value(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
            switch self {
            case .pageNumber: return value("page[number]") ?? 1
            case .offset: return (value("page[offset]") ?? 0) / size + 1
            }
        }

        /// The request line the server logs for page `page`, as the library writes its URL (parameters sorted).
        func requestLine(page: Int, size: Int) -> String {
            let fields = "fields%5Barticles%5D=title"
            return switch self {
            case .pageNumber: "GET /\(rawValue)?\(fields)&page%5Bnumber%5D=\(page)&page%5Bsize%5D=\(size)"
            case .offset: "GET /\(rawValue)?\(fields)&page%5Blimit%5D=\(size)&page%5Boffset%5D=\((page - 1) * size)"
            }
        }

        /// The request line of `url`.
        static func requestLine(of url: URL) -> String {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            return "GET \(components?.percentEncodedPath ?? "")?\(components?.percentEncodedQuery ?? "")"
        }
    }

    struct Log: Sendable {
        /// The pages that reached the middleware.
        var arrived: [Int] = []
        /// The pages the server answered (the held one included, before it is let go).
        var answered: [Int] = []
        /// How each page's way past the middleware ended: `true` when the server answered it.
        var outcomes: [Int: Bool] = [:]
        /// The request line of each page, as the middleware saw its URL.
        var lines: [Int: String] = [:]
        var inBody = false
    }

    /// Holds page `held` before the gate (`afterAnswer` false) or once the server answered it, until released.
    struct Holding: Middleware {
        let style: Style
        let size: Int
        let held: Int
        let afterAnswer: Bool
        let log: Watched<Log>
        let holds: Holds<Int>

        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            let page = style.page(of: request.url, size: size)
            log.update {
                $0.arrived.append(page)
                $0.lines[page] = Style.requestLine(of: request.url)
            }
            // Ignores its task's cancellation on purpose: what matters is what the gate does after it.
            if page == held, !afterAnswer { await holds.hold(page) }
            do {
                let response = try await next(request)
                log.update {
                    $0.answered.append(page)
                    $0.outcomes[page] = true
                }
                if page == held, afterAnswer { await holds.hold(page) }
                return response
            } catch {
                log.update { $0.outcomes[page] = false }
                throw error
            }
        }
    }

    private func request(
        _ style: Style, size: Int, store: Bool, held: Int, afterAnswer: Bool, log: Watched<Log>, holds: Holds<Int>
    ) throws -> FetchRequest<[ArticleSummary]> {
        let holding = Holding(style: style, size: size, held: held, afterAnswer: afterAnswer, log: log, holds: holds)
        let source = DataSource<ArticleSummary>(
            baseURL: try TestServer.url(), router: .path(style.rawValue),
            configuration: .init(middlewares: [holding], store: store ? .init() : nil, prefetchThreshold: .zero))
        return source.fetch().fields(["articles": ["title"]]).page(style.strategy(size: size))
    }

    /// How many times the server logged each page's request line.
    private func served(_ style: Style, size: Int, pages: ClosedRange<Int>) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: pages.map { page in
            (page, TestServer.statuses(of: style.requestLine(page: page, size: size)).count)
        })
    }

    /// How many more times than `before` the server logged each page's request line, once the pages in `answered`
    /// (which the walk is known to have received) show in the log or 3 seconds passed: the server writes a line
    /// just after it answers, and under load that can be later than the test's other waits.
    private func logged(
        _ style: Style, size: Int, pages: ClosedRange<Int>, since before: [Int: Int], answered: [Int]
    ) async -> [Int: Int] {
        for page in answered {
            _ = await TestServer.statuses(of: style.requestLine(page: page, size: size), count: (before[page] ?? 0) + 1)
        }
        let after = served(style, size: size, pages: pages)
        return Dictionary(uniqueKeysWithValues: pages.map { ($0, (after[$0] ?? 0) - (before[$0] ?? 0)) })
    }

    static let cases: [(Style, Bool)] = [(.pageNumber, false), (.pageNumber, true), (.offset, false), (.offset, true)]

    @Test("pages(concurrency: 4) cancelled inside next() while the refill's page waits before the gate: it never reaches the server",
          arguments: cases)
    func concurrentCancelledInsideNext(style: Style, store: Bool) async throws {
        // A page size of its own per case, so that no other test (or case) asks for these URLs.
        let size = store ? 7 : 8
        let before = served(style, size: size, pages: 1...12)
        let log = Watched(Log())
        let holds = Holds<Int>()
        let request = try request(style, size: size, store: store, held: 6, afterAnswer: false, log: log, holds: holds)
        let consumer = Task {
            for try await _ in request.pages(concurrency: 4) {}
        }
        // Page 6 is the refill after page 2: the second next() cannot return before it has passed the gate, so the
        // consumer is inside next() when it is cancelled.
        let arrived = await log.wait { $0.arrived.contains(6) }
        #expect(arrived, "page 6 did not set off: \(log.value)")
        consumer.cancel()
        holds.release(6)
        #expect(isCancellation(await bounded { await consumer.result }))
        #expect(await log.wait { log in (2...6).allSatisfy { log.outcomes[$0] != nil } })
        #expect(log.value.outcomes[6] == false)
        #expect(log.value.arrived.allSatisfy { (1...6).contains($0) })
        #expect(log.value.lines[1] == style.requestLine(page: 1, size: size))
        // Time for a request that should not exist to show in the log; those sent before the cancel are there.
        #expect(await log.wait(within: .milliseconds(300)) { _ in false } == false)
        let sent = await logged(style, size: size, pages: 1...12, since: before, answered: [1, 2])
        #expect(sent[1] == 1 && sent[2] == 1, "\(sent)")
        #expect((3...5).allSatisfy { sent[$0] ?? 0 <= 1 })
        #expect((6...12).allSatisfy { sent[$0] == 0 })
    }

    @Test("prefetch 2 cancelled in its loop body: the page that the next page's arrival starts never reaches the server",
          arguments: cases)
    func chainedCancelledInLoopBody(style: Style, store: Bool) async throws {
        let size = store ? 9 : 11
        let before = served(style, size: size, pages: 1...6)
        let log = Watched(Log())
        let holds = Holds<Int>()
        let request = try request(style, size: size, store: store, held: 2, afterAnswer: true, log: log, holds: holds)
        let consumer = Task {
            var pages = 0
            for try await _ in request.pages(prefetch: 2) {
                pages += 1
                if pages == 1 {
                    log.update { $0.inBody = true }
                    await holds.hold(0)
                }
            }
        }
        // The consumer works on page 1; page 2 was answered, and is held before its task completes.
        let answered = await log.wait { $0.inBody && $0.answered.contains(2) }
        #expect(answered, "the consumer is not in its loop body with page 2 answered: \(log.value)")
        consumer.cancel()
        holds.release(2)  // page 2 completes just after the cancellation, and page 3 sets off
        #expect(await log.wait { $0.arrived.contains(3) })
        // While the consumer is still in its loop body, page 3 goes no further than the gate: a request that
        // should not exist has time to reach the server (as it did before the gate, within a few milliseconds).
        #expect(await log.wait(within: .milliseconds(300)) { $0.outcomes[3] != nil } == false)
        holds.release(0)
        #expect(isCancellation(await bounded { await consumer.result }))
        #expect(await log.wait { $0.outcomes[3] != nil })
        #expect(log.value.outcomes[3] == false)
        #expect(log.value.lines[3] == style.requestLine(page: 3, size: size))
        #expect(await log.wait(within: .milliseconds(300)) { _ in false } == false)
        let sent = await logged(style, size: size, pages: 1...6, since: before, answered: [1, 2])
        #expect(sent == [1: 1, 2: 1, 3: 0, 4: 0, 5: 0, 6: 0], "\(sent)")
    }
}
