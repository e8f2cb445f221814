import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// Query items that are credentials (issue 43, item 15): an API key in each request's URL is digested into the
/// stored responses' partition, as `Authorization` is, and never written to disk.
@Suite("Store credential query items")
struct StoreCredentialQueryTests {
    static func session(_ directory: URL, names: Set<String> = ["api_key"]) -> (Session, CountingClient) {
        let client = CountingClient(ScriptedClient { _ in
            var response = HTTPResponse.document(StorePersistenceTests.label3)
            response.headerFields.append("Cache-Control", "max-age=3600")
            response.headerFields.append("ETag", "\"v1\"")
            return response
        })
        let persistence = ResourceStore.Persistence(directory: directory, log: { _ in })
        let store = ResourceStore.Configuration(persistence: persistence, credentialQueryItems: names)
        return (Session(baseURL: exampleBase, client: client, configuration: .init(store: store)), client)
    }

    /// Every byte of the database's files (`.sqlite`, `-wal`, `-shm`, whichever exist).
    static func bytesOnDisk(_ directory: URL) throws -> [String: Data] {
        let path = PartitionDatabase.file(in: directory).path
        var files: [String: Data] = [:]
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            files[file] = try Data(contentsOf: URL(fileURLWithPath: file))
        }
        return files
    }

    @Test("A request with ?api_key=SECRET: no byte of the .sqlite, -wal or -shm holds SECRET, and the response is still answered from the store for the same key (not for another)")
    func secretNeverWritten() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, client) = Self.session(directory)
        let url = URL(string: "labels/3?page=2&api_key=SECRET-8d1f&sort=name")!
        _ = try await api.fetch(url).result()
        try await api.store?.flush()
        let files = try Self.bytesOnDisk(directory)
        #expect(files.keys.contains { $0.hasSuffix("-wal") }, "\(files.keys)")  // the save is in the WAL, open
        for (file, bytes) in files {
            #expect(bytes.range(of: Data("SECRET-8d1f".utf8)) == nil, "\(file) holds the key")
        }
        // The rest of the URL is kept.
        #expect(files.values.contains { $0.range(of: Data("page=2&sort=name".utf8)) != nil })
        // Answered from the store, in this process and after a restart, for the same key only.
        #expect(try await api.fetch(url).cachePolicy(.cacheOnly).result().source == .cache)
        let (again, againClient) = Self.session(directory)
        #expect(try await again.fetch(url).cachePolicy(.cacheOnly).result().source == .cache)
        for other in ["labels/3?page=2&api_key=OTHER&sort=name", "labels/3?page=2&sort=name"] {
            await #expect(throws: JSONAPIClientError.self) {
                try await again.fetch(URL(string: other)!).cachePolicy(.cacheOnly).result()
            }
        }
        #expect(client.count == 1 && againClient.count == 0)
    }

    @Test("Without credential query items named, the key is part of the URL kept, as before")
    func notNamed() async throws {
        let directory = StorePersistenceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (api, _) = Self.session(directory, names: [])
        _ = try await api.fetch(URL(string: "labels/3?api_key=VISIBLE-1")!).result()
        try await api.store?.flush()
        #expect(try Self.bytesOnDisk(directory).values.contains { $0.range(of: Data("VISIBLE-1".utf8)) != nil })
    }

    @Test("A URL's credential items are split off in order, percent-encoding kept; a URL without them is kept byte for byte, its partition the headers' alone")
    func split() throws {
        let names: Set<String> = ["api_key", "token"]
        let url = try #require(URL(string: "https://x.example/a?b=%20c&api%5Fkey=k1&token&d=e"))
        let (stripped, items) = try #require(ResponseKey.split(url, names))
        #expect(stripped == "https://x.example/a?b=%20c&d=e")
        #expect(items.map(\.name) == ["api%5Fkey", "token"] && items.map(\.value) == ["k1", nil])
        let plainURL = try #require(URL(string: "https://x.example/a?b=1"))
        #expect(ResponseKey.split(plainURL, names) == nil)
        let plain = HTTPRequest(method: .get, url: plainURL)
        #expect(ResponseKey(plain, credentialQueryItems: names) == ResponseKey(plain))
        let tokenOnly = try #require(URL(string: "https://x.example/a?token=t"))
        let only = try #require(ResponseKey.split(tokenOnly, names))
        #expect(only.url == "https://x.example/a")
        #expect(CredentialDigest(credentialsOf: [:], queryItems: [("token", nil)])
            != CredentialDigest(credentialsOf: [:], queryItems: [("token", "")]))
    }
}
