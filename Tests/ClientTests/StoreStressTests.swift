import Foundation
import JSONAPIClientTesting
import Observation
import Testing
import TestSupport

@testable import JSONAPIClient

/// A model-based stress test of the store and the live objects (issue 42): seeded random sequences of what an app
/// does — page fetches and refreshes through several data sources, typed and untyped reads from the main actor and
/// from tasks, optimistic writes accepted and refused, deletes, `clear()`, sign-in and sign-out, live lists and live
/// resources opened, paged and dropped — from several tasks and the main actor at once, checked at each quiet
/// point against a plain model: no trap, nothing of another account shown (live objects and store), no refused write
/// shown, nothing the server never sent, no write left pending, no change left untold.
///
/// `JSONAPI_STRESS_SEEDS` (comma-separated) and `JSONAPI_STRESS_STEPS` choose the runs (`scripts/stress.sh` runs
/// many seeds under load); by default one seed of 10,000 steps. A failure names its seed.
/// Each quiet point checks that every live object equals a fresh read (``converges``), and the runs sign in and
/// out between quiet points (``switches``); `JSONAPI_STRESS_CONVERGE=0` and `JSONAPI_STRESS_SWITCHES=0` leave them
/// out, `JSONAPI_STRESS_PERSIST=1` persists the store.
@Suite("Store and live objects under random use")
@MainActor
struct StoreStressTests {
    static let seeds: [UInt64] = {
        let text = ProcessInfo.processInfo.environment["JSONAPI_STRESS_SEEDS"] ?? "42"
        return text.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
    }()
    static let steps = Int(ProcessInfo.processInfo.environment["JSONAPI_STRESS_STEPS"] ?? "") ?? 10_000
    /// Whether each quiet point also requires every live object to equal a fresh read of the store: on unless
    /// `JSONAPI_STRESS_CONVERGE=0`.
    static let converges = ProcessInfo.processInfo.environment["JSONAPI_STRESS_CONVERGE"] != "0"
    /// Whether the runs sign in and out between quiet points: on unless `JSONAPI_STRESS_SWITCHES=0`.
    static let switches = ProcessInfo.processInfo.environment["JSONAPI_STRESS_SWITCHES"] != "0"
    /// Whether the store is persisted (`JSONAPI_STRESS_PERSIST=1`), in a directory of the run's own: reads then
    /// fault rows in while other tasks merge, and a switch of account opens another database.
    static let persists = ProcessInfo.processInfo.environment["JSONAPI_STRESS_PERSIST"] == "1"

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Random use from tasks and the main actor never traps, and every quiet point agrees with the model")
    func randomUse() async throws {
        for seed in Self.seeds {
            var run = StressRun(seed: seed)
            await run.go(steps: Self.steps)
        }
    }
}

/// An article with its author, as the stress server serves it.
struct StressArticle: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var author: StressPerson?
}

/// An article's author.
struct StressPerson: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
}

/// The server: each user (the bearer token; `anon` without one) has articles 1…30, each by one of five people, all
/// named and titled `<user> …`; `PATCH` refuses a title with `refuse` in it (422), `DELETE` removes; another client
/// changes titles and names and puts deleted articles back (``changeElsewhere(_:)``). It keeps every title and name it
/// ever sent each user: the store may show nothing else.
final class StressServer: @unchecked Sendable {
    static let count = 30
    private let lock = NSLock()
    private var versions: [String: [Int]] = [:]  // user → version of article i and person i
    private var deleted: [String: Set<Int>] = [:]
    private var titles: [String: [Int: String]] = [:]  // user → written titles
    private var sent: [String: Set<String>] = [:]  // user → every title and name sent
    private(set) var client: ScriptedClient!

    init() {
        client = ScriptedClient { [weak self] request in
            guard let self else { throw CancellationError() }
            return self.respond(request)
        }
    }

    /// Whether the server ever sent `text` to `user`.
    func sent(_ text: String, to user: String) -> Bool { lock.withLock { sent[user]?.contains(text) ?? false } }

    /// Another client changes a few titles and names of `user`'s, and puts back what was deleted.
    func changeElsewhere(_ user: String, using generator: inout SplitMix) {
        let picks = (0..<3).map { _ in Int.random(in: 0..<(Self.count + 5), using: &generator) }
        lock.withLock {
            var version = versions[user] ?? Array(repeating: 0, count: Self.count + 5)
            for pick in picks {
                version[pick] += 1
                if pick < Self.count { titles[user]?[pick + 1] = nil }
            }
            versions[user] = version
            deleted[user] = []
        }
    }

    private func article(_ number: Int, user: String) -> String {
        let version = versions[user]?[number - 1] ?? 0
        let title = titles[user]?[number] ?? "\(user) article \(number) v\(version)"
        let person = number % 5
        sent[user, default: []].insert(title)
        return #"{"type": "articles", "id": "\#(number)", "attributes": {"title": "\#(title)"}, "#
            + #""relationships": {"author": {"data": {"type": "people", "id": "\#(person)"}}}}"#
    }

    private func person(_ number: Int, user: String) -> String {
        let name = "\(user) person \(number) v\(versions[user]?[Self.count + number] ?? 0)"
        sent[user, default: []].insert(name)
        return #"{"type": "people", "id": "\#(number)", "attributes": {"name": "\#(name)"}}"#
    }

    private func respond(_ request: HTTPRequest) -> HTTPResponse {
        let user = request.headerFields[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? "anon"
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let segments = (components?.path ?? "").split(separator: "/").map(String.init)
        return lock.withLock { () -> HTTPResponse in
            let gone = deleted[user] ?? []
            switch (request.method, segments.count) {
            case (.get, 1):
                let query = Dictionary(
                    (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
                let number = max(Int(query["page[number]"] ?? "1") ?? 1, 1)
                let size = 10
                let numbers = ((number - 1) * size + 1...min(number * size, Self.count)).filter { !gone.contains($0) }
                let people = Set(numbers.map { $0 % 5 }).sorted()
                let next = number * size < Self.count
                    ? "\"https://api.example.com/articles?page%5Bnumber%5D=\(number + 1)&page%5Bsize%5D=10\"" : "null"
                return .document(
                    #"{"data": [\#(numbers.map { article($0, user: user) }.joined(separator: ","))], "#
                        + #""included": [\#(people.map { person($0, user: user) }.joined(separator: ","))], "#
                        + #""links": {"next": \#(next)}}"#)
            case (.get, 2):
                guard let number = Int(segments[1]), (1...Self.count).contains(number), !gone.contains(number) else {
                    return .document(#"{"errors": [{"status": "404"}]}"#, status: 404)
                }
                return .document(
                    #"{"data": \#(article(number, user: user)), "included": [\#(person(number % 5, user: user))]}"#)
            case (.patch, 2):
                guard let number = Int(segments[1]), (1...Self.count).contains(number), !gone.contains(number) else {
                    return .document(#"{"errors": [{"status": "404"}]}"#, status: 404)
                }
                let body = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any]
                let title = ((body?["data"] as? [String: Any])?["attributes"] as? [String: Any])?["title"] as? String
                if let title, title.contains("refuse") {
                    return .document(#"{"errors": [{"status": "422", "title": "Refused"}]}"#, status: 422)
                }
                if let title { titles[user, default: [:]][number] = title }
                return .document(#"{"data": \#(article(number, user: user))}"#)
            case (.delete, 2):
                if let number = Int(segments[1]) { deleted[user, default: []].insert(number) }
                return HTTPResponse(status: .init(code: 204), headerFields: [:], body: Data())
            default:
                return .document(#"{"errors": [{"status": "404"}]}"#, status: 404)
            }
        }
    }
}

/// The session a token middleware asks for its account (set once, after the session is made).
final class Named: @unchecked Sendable {
    private let lock = NSLock()
    private weak var value: Session?
    var session: Session? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// One seeded run: the session, the live objects open, and the plain model (who is signed in, which writes were
/// refused and which articles deleted since the last fetch).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
struct StressRun {
    let seed: UInt64
    var generator: SplitMix
    let server = StressServer()
    let api: Session
    var user = "alice"
    var lists: [LiveList<StressArticle>] = []
    var resources: [LiveResource<StressArticle>] = []
    /// What the last rounds did, for a failure's message.
    var trace: [String] = []
    /// Refused titles: never shown once the write is settled.
    let refused = LockedValue<Set<String>>([])
    var done = 0

    init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix(seed: seed)
        // The token of the account the session names: what it sends changes with the account, at the end of a
        // switch (while one is under way, requests keep out of the store whatever they send).
        let named = Named()
        let directory = StoreStressTests.persists
            ? FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(seed)-\(UUID().uuidString)")
            : nil
        api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { named.session?.account ?? "anon" }],
                store: .init(persistence: directory.map { .init(directory: $0, delay: .milliseconds(5)) }),
                writes: .optimistic, account: "alice"))
        named.session = api
    }

    func source() -> DataSource<StressArticle> { api.source(StressArticle.self, .path("articles/<id>")) }

    mutating func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }

    /// Runs `steps` operations, in rounds of up to three tasks and one main-actor operation at once, each round
    /// followed by a quiet point and its checks.
    mutating func go(steps: Int) async {
        while done < steps {
            var tasks: [Task<Void, Never>] = []
            for _ in 0..<random(0..<4) { tasks.append(background()) }
            await onMain()
            for task in tasks { await task.value }
            done += tasks.count + 1
            if random(0..<50) == 0, StoreStressTests.switches {
                await switchAccount()
                trace.append("switched to \(user)")
            }
            guard await quiet() else { return }
            trace = Array(trace.suffix(40))
        }
    }

    /// An operation in a task of its own, off the main actor (`Task.detached`: a `Task` made here would inherit it,
    /// and every "background" read would run on the main actor, one at a time): a fetch, a refresh, a read, a
    /// write, a delete.
    mutating func background() -> Task<Void, Never> {
        let source = source()
        let store = api.store
        let page = random(1..<4)
        let id = String(random(1..<(StressServer.count + 1)))
        let refused = refused
        let user = user
        let kind = random(0..<8)
        trace.append("task \(kind) page \(page) id \(id)")
        switch kind {
        case 0, 1:
            return Task.detached { _ = try? await source.fetch().page(.pageBased(page, 10)).result() }
        case 2:
            server.changeElsewhere(user, using: &generator)
            return Task.detached { _ = try? await source.fetch().page(.pageBased(page, 10)).result() }
        case 3:
            return Task.detached { _ = try? store?.resources(StressArticle.self) }
        case 4:
            return Task.detached { _ = store?.record(type: "articles", id: id) }
        case 5, 6:
            let refuse = random(0..<3) == 0
            let title = "\(user) written \(random(0..<1_000_000))" + (refuse ? " refuse" : "")
            if refuse { refused.withLock { _ = $0.insert(title) } }
            return Task.detached {
                guard let model = (try? store?.resource(StressArticle.self, id: id)) ?? nil else { return }
                _ = try? await source.update(model) { $0.title = title }
            }
        default:
            return Task.detached { _ = try? await source.delete(id: id) }
        }
    }

    /// An operation on the main actor: a read, a live object opened, paged or dropped, a clear.
    mutating func onMain() async {
        let store = api.store
        let kind = random(0..<10)
        trace.append("main \(kind)")
        switch kind {
        case 0:
            _ = try? store?.resource(StressArticle.self, id: String(random(1..<31)))
        case 1:
            _ = store?.record(type: "people", id: String(random(0..<5)))
        case 2 where lists.count < 4:
            let list = source().fetch().page(.pageBased(1, 10)).liveList(prefetch: random(0..<2))
            lists.append(list)
            await list.load()
        case 3 where !lists.isEmpty:
            await lists[random(0..<lists.count)].loadMore()
        case 4 where !lists.isEmpty:
            lists.remove(at: random(0..<lists.count))
        case 5 where resources.count < 6:
            let live = source().fetch(id: String(random(1..<31))).live()
            resources.append(live)
            await live.load()
        case 6 where !resources.isEmpty:
            resources.remove(at: random(0..<resources.count))
        case 7 where random(0..<10) == 0:
            store?.clear()
        case 8 where !lists.isEmpty:
            await lists[random(0..<lists.count)].refresh()
        default:
            _ = try? store?.resources(StressArticle.self)
        }
    }

    /// Signs in as another user (or out), at a quiet point: the token and the account change together.
    mutating func switchAccount() async {
        let next = ["alice", "bob", "anon"].filter { $0 != user }[random(0..<2)]
        do {
            let previous = user
            let parkedBefore = api.store?.parked.withLock { $0.keys.sorted() } ?? []
            if next == "anon" { try await api.signOut() } else { try await api.signIn(account: next) }
            user = next
            let foreign = ((try? api.store?.resources(StressArticle.self)) ?? []).filter { !$0.title.hasPrefix(next + " ") }
            if !foreign.isEmpty {
                Issue.record("seed \(seed), step \(done): right after switching from \(previous) to \(next) the store shows \(foreign.prefix(3).map(\.title)); parked before \(parkedBefore), after \(api.store?.parked.withLock { $0.keys.sorted() } ?? []), partition \(api.store?.partition ?? "")")
            }
        } catch {
            Issue.record("seed \(seed), step \(done): switching to \(next) failed: \(error)")
        }
    }

    /// Waits until nothing is loading and every live object shows what a fresh read of the store gives, then checks
    /// the store against the model. Records an issue naming the seed and returns `false` when it does not.
    func quiet() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        var problems: [String] = []
        while true {
            problems = check()
            if problems.isEmpty { return true }
            guard ContinuousClock.now < deadline else { break }
            try? await Task.sleep(for: .milliseconds(1))
        }
        let outbox = api.store?.state.withLock { ($0.outbox.count, $0.outbox.delivering, $0.waiting.isEmpty) }
        let told = problems.prefix(5).joined(separator: "; ")
        Issue.record("seed \(seed), step \(done), signed in as \(user): \(told) (outbox: \(String(describing: outbox))); the last rounds: \(trace.suffix(30).joined(separator: " | "))")
        return false
    }

    /// What disagrees now: live objects against fresh reads, and the store against the model.
    func check() -> [String] {
        guard let store = api.store else { return ["no store"] }
        var problems: [String] = []
        let refused = refused.withLock { $0 }
        func shown(_ model: StressArticle, in what: String) {
            let fresh = (try? store.resource(StressArticle.self, id: model.id)) ?? nil
            if StoreStressTests.converges, fresh != model {
                problems.append("\(what) shows \(model), the store \(String(describing: fresh))")
            }
            if refused.contains(model.title) { problems.append("\(what) shows the refused \(model.title)") }
            for text in [model.title, model.author?.name].compactMap({ $0 }) where !text.hasPrefix(user + " ") {
                problems.append("\(what) shows \(text) to \(user)")
            }
        }
        for (index, list) in lists.enumerated() {
            if list.isLoading { problems.append("list \(index) is loading") }
            for model in list.resources { shown(model, in: "list \(index)") }
        }
        for (index, live) in resources.enumerated() {
            if live.isLoading { problems.append("resource \(index) is loading") }
            if let model = live.resource { shown(model, in: "resource \(index)") }
        }
        for model in (try? store.resources(StressArticle.self)) ?? [] {
            if refused.contains(model.title) { problems.append("the store shows the refused \(model.title)") }
            if !server.sent(model.title, to: user) {
                problems.append("the store shows \(model.title), never sent to \(user)")
            }
            if !model.title.hasPrefix(user + " ") { problems.append("the store shows \(model.title) to \(user)") }
        }
        if !store.pendingChanges().isEmpty { problems.append("writes still pending at a quiet point") }
        if store.state.withLock({ !$0.outbox.isEmpty || $0.outbox.delivering }) {
            problems.append("changes not told to the observers at a quiet point")
        }
        return problems
    }
}
