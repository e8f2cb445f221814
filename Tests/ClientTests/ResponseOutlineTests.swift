import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient
@testable import JSONAPIClientCore

/// A stored response's body kept as its outline: cut around its resources, put back from the records, byte for
/// byte; kept whole when it has none; never a crash on damaged bytes; and, on disk, rebuilt after a restart with
/// what the records hold then.
@Suite("Response outlines")
struct ResponseOutlineTests {
    static let page = """
        {"data":[{"type":"articles","id":"1","attributes":{"title":"One"},"relationships":{"author":{"data":{"type":"people","id":"9"}}}},
         {"type":"articles","id":"2","attributes":{"title":"Two \\"quoted\\" ü"}}],
         "included":[ {"type":"people","id":"9","attributes":{"name":"Dan"}} ],
         "links":{"next":"https://api.example.com/v1/articles?page%5Bnumber%5D=2"},"meta":{"total":2}}
        """

    /// `body`'s outline put back from `body`'s own records.
    static func roundTrip(_ body: String) throws -> Data? {
        let data = Data(body.utf8)
        let outline = try #require(ResponseOutline(body: data))
        let records = try JSONAPIDecoder().records(from: data)
        var byKey: [ResourceStore.Key: ResourceRecord] = [:]
        for entry in records.resources { byKey[ResourceStore.Key(type: entry.type, id: entry.id)] = entry.record(in: records) }
        return outline.body(records: { byKey[$0] })
    }

    @Test("A body put back from its own records is the body, byte for byte (blanks, escapes, links and meta kept)")
    func roundTrips() throws {
        for body in [
            Self.page,
            #"{"data":{"type":"labels","id":"3","attributes":{"name":"swift"}}}"#,
            #"  {"included":[{"type":"people","id":"1","attributes":{}}],"data":[{"type":"a","id":"1","links":{"self":"x"}}]}  "#,
            #"{"data":[{"type":"a","id":"1","attributes":{"n":1}},{"type":"a","lid":"l","attributes":{"n":2}}]}"#,
        ] {
            #expect(try Self.roundTrip(body) == Data(body.utf8), "\(body)")
        }
    }

    @Test("The outline names the resources in the body's order and keeps the text around them")
    func cuts() throws {
        let outline = try #require(ResponseOutline(body: Data(Self.page.utf8)))
        #expect(outline.keys.map(\.id) == ["1", "2", "9"])
        #expect(outline.keys.map(\.type) == ["articles", "articles", "people"])
        #expect(outline.cuts.first?.before == Data(#"{"data":["#.utf8))
        #expect(String(decoding: outline.after, as: UTF8.self).contains(#""meta":{"total":2}}"#))
        // A resource with a `lid` alone is not a record: it stays in the text.
        let lid = try #require(ResponseOutline(body: Data(#"{"data":[{"type":"a","id":"1"},{"type":"a","lid":"l","attributes":{}}]}"#.utf8)))
        #expect(lid.keys.count == 1)
        #expect(String(decoding: lid.after, as: UTF8.self).contains(#""lid":"l""#))
    }

    @Test("A body with no resource object to cut out has no outline: it is kept whole")
    func noOutline() {
        for body in ["", "not json", "[]", #"{"data":null}"#, #"{"data":[]}"#, #"{"meta":{"n":1}}"#,
            #"{"data":{"type":"a","id":"1"}}"#, #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"1"}]}"#]
        {
            #expect(ResponseOutline(body: Data(body.utf8)) == nil, "\(body)")
        }
    }

    @Test("A resource the store no longer holds: the body is not put back")
    func missingRecord() throws {
        let data = Data(Self.page.utf8)
        let outline = try #require(ResponseOutline(body: data))
        let records = try JSONAPIDecoder().records(from: data)
        let first = try #require(records.resources.first).record(in: records)
        #expect(outline.body(records: { $0.id == "9" ? nil : first }) == nil)
        #expect(outline.body(records: { _ in first }) != nil)
    }

    @Test("The bytes read back as the outline: empty text, no resources, non-ASCII keys")
    func bytesRoundTrip() throws {
        let outlines = [
            ResponseOutline(cuts: [], after: Data()),
            ResponseOutline(cuts: [], after: Data(#"{"data":[]}"#.utf8)),
            ResponseOutline(
                cuts: [.init(before: Data(), type: "ärticles", id: "é1"), .init(before: Data(",".utf8), type: "a", id: "")],
                after: Data("]}".utf8)),
            try #require(ResponseOutline(body: Data(Self.page.utf8))),
        ]
        for outline in outlines { #expect(try ResponseOutline(bytes: outline.bytes) == outline) }
        #expect(ResponseOutline(cuts: [], after: Data("x".utf8)).body(records: { _ in nil }) == Data("x".utf8))
    }

    @Test("Damaged bytes are a typed error, never a crash: every cut-short length, another version, bytes left over, a count too large")
    func damaged() throws {
        let bytes = try #require(ResponseOutline(body: Data(Self.page.utf8))).bytes
        for length in 0..<bytes.count {
            #expect(throws: RowCodec.Unreadable.self) { try ResponseOutline(bytes: bytes.prefix(length)) }
        }
        var version = bytes
        version[version.startIndex] = ResponseOutline.version + 1
        #expect(throws: RowCodec.Unreadable.self) { try ResponseOutline(bytes: version) }
        #expect(throws: RowCodec.Unreadable.self) { try ResponseOutline(bytes: bytes + Data([0])) }
        var count = ByteWriter()
        count.append(ResponseOutline.version)
        count.append(UInt64.max)
        #expect(throws: RowCodec.Unreadable.self) { try ResponseOutline(bytes: Data(count.bytes)) }
        #expect(throws: RowCodec.Unreadable.self) { try ResponseOutline(bytes: Data()) }
    }

    // MARK: On disk

    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
    }

    /// A session on `directory` answering `body` for every request, counting them.
    static func session(_ directory: URL, body: String = page, delay: Duration = .seconds(1)) -> (Session, CountingClient) {
        let client = CountingClient(ScriptedClient { _ in
            var response = HTTPResponse.document(body)
            response.headerFields.append("Cache-Control", "max-age=3600")
            return response
        })
        let persistence = ResourceStore.Persistence(directory: directory, delay: delay)
        return (Session(baseURL: exampleBase, client: client, configuration: .init(store: .init(persistence: persistence))), client)
    }

    /// The stored responses' bodies: each one's size in the database, and its response's `whole_size`.
    static func bodyRows(_ directory: URL) throws -> [(size: Int64, whole: Int64?)] {
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        defer { database.close() }
        return try database.rows(
            "SELECT length(b.body), r.whole_size FROM responses r JOIN response_bodies b ON b.id = r.body_id ORDER BY b.id"
        ).map {
            ($0.first?.integer ?? -1, $0.last?.integer)
        }
    }

    @Test("A page is written as its outline and its records, and a restarted session answers it from them as it came")
    func restart() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, _) = Self.session(directory)
        let url = URL(string: "articles?include=author")!
        let fetched = try await first.fetch(url, as: [Article].self).result()
        try await first.store?.flush()
        let rows = try Self.bodyRows(directory)
        #expect(rows.count == 1)
        #expect(rows.first?.whole == Int64(Self.page.utf8.count))
        #expect((rows.first?.size ?? .max) < Int64(Self.page.utf8.count))

        let (second, client) = Self.session(directory)
        let cached = try await second.fetch(url, as: [Article].self).cachePolicy(.cacheOnly).result()
        #expect(cached.source == .cache)
        #expect(cached.data == fetched.data)
        #expect(cached.links?.next == fetched.links?.next)
        #expect(cached.meta == fetched.meta)
        #expect(client.count == 0)
        // Rebuilt byte for byte: the bytes counted are the page's.
        #expect(second.store?.usage.responseBytes == Self.page.utf8.count)
    }

    @Test("A record changed after the page was stored shows in the page answered after a restart")
    func rebuiltWithNewerRecords() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "articles")!
        let (first, _) = Self.session(directory)
        _ = try await first.fetch(url, as: [Article].self).result()
        let renamed = #"{"data":{"type":"articles","id":"2","attributes":{"title":"Renamed"}}}"#
        first.store?.merge(try JSONAPIDecoder().decode(RawDocument.self, from: Data(renamed.utf8)))
        try await first.store?.flush()

        let (second, client) = Self.session(directory)
        let cached = try await second.fetch(url, as: [Article].self).cachePolicy(.cacheOnly).result()
        #expect(cached.data?.map(\.title) == ["One", "Renamed"])
        #expect(client.count == 0)
    }

    @Test("A page whose record went is not answered after a restart: cacheOnly finds nothing, cacheFirst fetches it again")
    func recordGone() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "articles")!
        let (first, _) = Self.session(directory)
        _ = try await first.fetch(url, as: [Article].self).result()
        first.store?.remove(type: "people", id: "9")
        try await first.store?.flush()

        let (second, client) = Self.session(directory)
        await #expect(throws: JSONAPIClientError.self) {
            try await second.fetch(url, as: [Article].self).cachePolicy(.cacheOnly).result()
        }
        let again = try await second.fetch(url, as: [Article].self).cachePolicy(.cacheFirst).result()
        #expect(again.source == .network)
        #expect(again.data?.count == 2)
        #expect(client.count == 1)
    }

    @Test("A body without resources is kept whole and answers after a restart")
    func wholeBody() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = #"{"meta":{"count":3},"links":{"self":"https://api.example.com/v1/stats"}}"#
        let (first, _) = Self.session(directory, body: body)
        _ = try await first.fetch(URL(string: "stats")!).result()
        try await first.store?.flush()
        #expect(try Self.bodyRows(directory).map(\.whole) == [nil])
        #expect(try Self.bodyRows(directory).map(\.size) == [Int64(body.utf8.count)])

        let (second, client) = Self.session(directory, body: body)
        let cached = try await second.fetch(URL(string: "stats")!).cachePolicy(.cacheOnly).result()
        #expect(cached.meta?["count"] == 3)
        #expect(client.count == 0)
    }

    @Test("The same page fetched again writes no body row: the outline is the one stored")
    func samePageKeepsRow() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "articles")!
        let (api, _) = Self.session(directory)
        _ = try await api.fetch(url, as: [Article].self).result()
        // A second body after it: a body written again would take a new row id, not the first one's back.
        _ = try await api.fetch(URL(string: "articles?page=2")!, as: [Article].self).result()
        try await api.store?.flush()
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        defer { database.close() }
        let before = try database.rows("SELECT id FROM response_bodies ORDER BY id")
        #expect(before.count == 2)
        _ = try await api.fetch(url, as: [Article].self).cachePolicy(.networkOnly).result()
        try await api.store?.flush()
        #expect(try database.rows("SELECT id FROM response_bodies ORDER BY id") == before)
    }

    /// A session on `directory` with `token`, no account named, answering `stats` with a body without resources and
    /// anything else with ``page``.
    static func session(_ directory: URL, token: String) -> (Session, CountingClient) {
        let client = CountingClient(ScriptedClient { request in
            var response = HTTPResponse.document(request.url.path.hasSuffix("stats") ? #"{"meta":{}}"# : Self.page)
            response.headerFields.append("Cache-Control", "max-age=3600")
            return response
        })
        let configuration = Session.Configuration(
            headerFields: [.authorization: "Bearer \(token)"], store: .init(persistence: .init(directory: directory)))
        return (Session(baseURL: exampleBase, client: client, configuration: configuration), client)
    }

    @Test("Another owner's first request writes the bodies kept as outlines whole; one whose record went stays an outline, not a body missing it")
    func ownerChangeKeepsResponses() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (alice, _) = Self.session(directory, token: "alice")
        _ = try await alice.fetch(URL(string: "articles")!, as: [Article].self).result()
        try await alice.store?.flush()
        alice.store?.remove(type: "people", id: "9")
        try await alice.store?.flush()

        let (bob, _) = Self.session(directory, token: "bob")
        _ = try await bob.fetch(URL(string: "stats")!).result()  // another owner: the records go
        try await bob.store?.flush()
        // Alice's page stays an outline (person 9 is gone: it cannot be put back), bob's body is whole.
        #expect(try Self.bodyRows(directory).map { $0.whole != nil } == [true, false])

        let (aliceAgain, client) = Self.session(directory, token: "alice")
        await #expect(throws: JSONAPIClientError.self) {
            try await aliceAgain.fetch(URL(string: "articles")!, as: [Article].self).cachePolicy(.cacheOnly).result()
        }
        #expect(client.count == 0)
    }

    @Test("Another owner's first request writes a rebuildable outline whole: the first owner's page still answers after it")
    func ownerChangeWritesWhole() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (alice, _) = Self.session(directory, token: "alice")
        _ = try await alice.fetch(URL(string: "articles")!, as: [Article].self).result()
        try await alice.store?.flush()
        let (bob, _) = Self.session(directory, token: "bob")
        _ = try await bob.fetch(URL(string: "stats")!).result()
        try await bob.store?.flush()
        #expect(try Self.bodyRows(directory).map(\.whole) == [nil, nil])
        #expect(try Self.bodyRows(directory).first?.size == Int64(Self.page.utf8.count))

        let (aliceAgain, client) = Self.session(directory, token: "alice")
        let cached = try await aliceAgain.fetch(URL(string: "articles")!, as: [Article].self).cachePolicy(.cacheOnly).result()
        #expect(cached.data?.map(\.title) == ["One", "Two \"quoted\" ü"])
        #expect(client.count == 0)
    }
}
