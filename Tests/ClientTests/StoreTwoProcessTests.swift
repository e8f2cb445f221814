import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// Two processes saving one store directory at once, as an app and its extension in one app-group container: each
/// saves different pages of the real test server's articles (children `store-kill-child pages …`,
/// Tests/StoreKillChild), and a third process finds every page both reported saved — no save of one overwrites the
/// other's.
@Suite("Store shared by two processes")
struct StoreTwoProcessTests {
    /// Starts a child saving pages `pages` on `directory`.
    static func start(_ directory: URL, server: URL, pages: ClosedRange<Int>) throws -> (Process, ChildOutput) {
        try WriteQueueTwoProcessTests.start(
            ["pages", directory.path, server.absoluteString, "\(pages.lowerBound)", "\(pages.upperBound)"])
    }

    @Test("Two processes saving different pages at once: a third finds every page both reported saved")
    func savesTogether() async throws {
        let server = try TestServer.url()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-twoproc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, firstOutput) = try Self.start(directory, server: server, pages: 1...8)
        let (second, secondOutput) = try Self.start(directory, server: server, pages: 9...16)
        let reports = [
            await WriteQueueTwoProcessTests.finish(first, firstOutput),
            await WriteQueueTwoProcessTests.finish(second, secondOutput),
        ]
        let saved = reports.flatMap { report in
            report.split(separator: "\n").compactMap { line in line.hasPrefix("saved ") ? Int(line.dropFirst(6)) : nil }
        }
        #expect(saved.sorted() == Array(1...16), "\(reports)")

        // A third process (a session of its own, offline): every page answers from the store, and its records are there.
        let log = StorePersistenceTests.Log()
        let offline = ScriptedClient { _ in throw URLError(.notConnectedToInternet) }
        let api = Session(
            baseURL: server, client: offline,
            configuration: .init(store: .init(persistence: .init(directory: directory, log: { log.write($0) }))))
        #expect(log.messages.isEmpty, "\(log.messages)")
        let store = try #require(api.store)
        for n in saved {
            let page = try await api.fetch(URL(string: "articles?page%5Bnumber%5D=\(n)&page%5Bsize%5D=5")!)
                .cachePolicy(.cacheOnly).result()
            #expect(page.source == .cache, "page \(n)")
            guard case .resources(let articles) = page.document.data else {
                Issue.record("page \(n) is not a list")
                continue
            }
            #expect(articles.count == 5, "page \(n)")
            for article in articles {
                #expect(store.record(type: "articles", id: article.id ?? "") != nil, "page \(n): article \(article.id ?? "")")
            }
        }
        #expect(store.count >= 16 * 5)
    }
}
