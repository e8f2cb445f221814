import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

/// A write queued offline belongs to the account that made it: it is never sent with another account's credentials.
@Suite("Write queue: one account's writes")
struct WriteQueueAccountTests {
    static func session(_ server: FlakyMemos, _ account: Account) throws -> (Session, DataSource<Memo>) {
        let api = Session(
            baseURL: HeldWrites.baseURL, client: server.client,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { account.token }], writes: .offline,
                writeQueue: .init(sleep: { _ in })))
        return (api, api.source(Memo.self, .path("memos/<id>")))
    }

    @Test("Writes queued by one account wait while another is signed in, and go when theirs is back")
    func heldForTheirAccount() async throws {
        let server = FlakyMemos()
        let account = Account("A")
        let (api, memos) = try Self.session(server, account)
        let draft = Memo(id: "1", title: "Draft")
        #expect(try await memos.update(draft) { $0.title = "First" }.queued != nil)  // tried, then queued
        #expect(try await memos.update(draft) { $0.title = "Second" }.queued != nil)  // queued behind it
        #expect(api.writeQueue.entries.count == 2)

        account.token = "B"
        server.go(online: true)
        await api.writeQueue.replay()
        _ = try await memos.fetch(id: "2").result()  // B's successful request starts a replay too
        await api.writeQueue.replay()
        #expect(server.served == ["GET /memos/2"])
        #expect(api.writeQueue.entries.count == 2)

        account.token = "A"
        await api.writeQueue.replay()
        #expect(server.served == ["GET /memos/2", #"PATCH /memos/1 "First""#, #"PATCH /memos/1 "Second""#])
        #expect(api.writeQueue.entries.isEmpty)
    }

    @Test("The replay that meets another account says the entry waits, and sends nothing after it")
    func heldEvent() async throws {
        let server = FlakyMemos()
        let account = Account("A")
        let (api, memos) = try Self.session(server, account)
        let entry = try #require(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Mine" }.queued)
        let (events, following) = Events.following(api.writeQueue.events())
        defer { following.cancel() }
        account.token = "B"
        server.go(online: true)
        await api.writeQueue.replay()
        let event = await events.next("the replay's event")
        #expect(event?.entry.id == entry.id)
        guard case .waiting? = event?.outcome else {
            Issue.record("expected waiting, got \(String(describing: event))")
            return
        }
        #expect(server.served.isEmpty)
    }

    @Test("A digest reads back from its text; other text does not make one")
    func digestText() {
        let digest = CredentialDigest(high: 0xdead_beef, low: .max)
        #expect(CredentialDigest(digest.description) == digest)
        #expect(CredentialDigest("") == nil)
        #expect(CredentialDigest("12") == nil)
        #expect(CredentialDigest("1:2:3") == nil)
        #expect(CredentialDigest("x:1") == nil)
        #expect(CredentialDigest("1:") == nil)
    }
}
