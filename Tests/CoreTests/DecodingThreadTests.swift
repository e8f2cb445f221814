// Tests that a decoder or container used on another thread than its decode's throws `wrongThread`: a decode's state
// (the container pool, the shared-model table, the tape's bytes) is one thread's, so such a use would otherwise race
// it.
import Dispatch
import Foundation
import Testing

@testable import JSONAPIClientCore

/// What the other threads saw, behind a lock.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    private var errors: [any Error] = []
    /// Whether any use ran on the decode's own thread (which `concurrentPerform` may pick).
    private(set) var sameThreadCount = 0

    func record(_ result: Result<String, any Error>, onDecodingThread: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if onDecodingThread { sameThreadCount += 1 }
        switch result {
        case .success(let value): values.append(value)
        case .failure(let error): errors.append(error)
        }
    }

    var snapshot: (values: [String], errors: [any Error]) {
        lock.lock()
        defer { lock.unlock() }
        return (values, errors)
    }
}

/// Lets a non-`Sendable` value cross to another thread, as a Swift 5 mode module (or an `@unchecked` wrapper) can.
private struct Smuggled<Value>: @unchecked Sendable {
    var value: Value
}

/// How an article's `init(from:)` misuses its decoder.
private enum Misuse: Sendable {
    /// Reads its title (and author) through its keyed container on a detached thread, waiting for it.
    case containerOnThread
    /// Asks for a container through its decoder on a detached thread.
    case decoderOnThread
    /// Reads its title and author through its keyed container inside `DispatchQueue.concurrentPerform`.
    case concurrentPerform
}

private struct MisusingArticle: Resource {
    static let resourceType = "articles"
    enum CodingKeys: String, CodingKey { case id, title, author }
    var id: String
    var title: String

    init(from decoder: any Decoder) throws {
        let misuse = try #require(decoder.userInfo[MisusingArticle.misuseKey] as? Misuse)
        let outcomes = try #require(decoder.userInfo[MisusingArticle.outcomesKey] as? Outcomes)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let shared = Smuggled(value: container)
        let sharedDecoder = Smuggled(value: decoder)
        switch misuse {
        case .containerOnThread:
            Self.onDetachedThread {
                outcomes.record(
                    Result { try shared.value.decode(String.self, forKey: .title) }, onDecodingThread: false)
                outcomes.record(
                    Result { try shared.value.decode(Person.self, forKey: .author).lastName }, onDecodingThread: false)
                outcomes.record(
                    Result { try shared.value.decodeIfPresent(String.self, forKey: .title) ?? "nil" },
                    onDecodingThread: false)
            }
        case .decoderOnThread:
            Self.onDetachedThread {
                outcomes.record(
                    Result { try sharedDecoder.value.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id) },
                    onDecodingThread: false)
                outcomes.record(
                    Result { try sharedDecoder.value.singleValueContainer().decode(String.self) },
                    onDecodingThread: false)
            }
        case .concurrentPerform:
            let decodingThread = Smuggled(value: Thread.current)
            DispatchQueue.concurrentPerform(iterations: 16) { iteration in
                let here = Thread.current == decodingThread.value
                if iteration.isMultiple(of: 2) {
                    outcomes.record(Result { try shared.value.decode(String.self, forKey: .title) }, onDecodingThread: here)
                } else {
                    outcomes.record(
                        Result { try shared.value.decode(Person.self, forKey: .author).lastName }, onDecodingThread: here)
                }
            }
        }
        // The decode's own thread still reads as usual afterwards.
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
    }

    func encode(to encoder: any Encoder) throws {}

    static let misuseKey = CodingUserInfoKey(rawValue: "misuse")!
    static let outcomesKey = CodingUserInfoKey(rawValue: "outcomes")!

    /// Runs `body` on a thread of its own and waits for it.
    private static func onDetachedThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }
}

@Suite("Decoders used on another thread")
struct DecodingThreadTests {
    /// Made for each use: as a `static let`, the `Data` lived until the process exited and LeakSanitizer reported
    /// its 446 bytes under `--sanitize=address` (its storage is referenced from inside `Data`'s enum payload, where
    /// a scan for pointers need not find it).
    static var body: Data {
        Data(
        #"""
        {"data":[{"type":"articles","id":"1","attributes":{"title":"One"},
                  "relationships":{"author":{"data":{"type":"people","id":"9"}}}},
                 {"type":"articles","id":"2","attributes":{"title":"Two"},
                  "relationships":{"author":{"data":{"type":"people","id":"9"}}}}],
         "included":[{"type":"people","id":"9","attributes":{"firstName":"Dan","lastName":"Gebhardt"}}]}
        """#.utf8)
    }

    private func decode(_ misuse: Misuse) throws -> (articles: [MisusingArticle], outcomes: Outcomes) {
        let outcomes = Outcomes()
        var decoder = JSONAPIDecoder()
        decoder.userInfo = [MisusingArticle.misuseKey: misuse, MisusingArticle.outcomesKey: outcomes]
        let articles = try decoder.decode(Document<[MisusingArticle]>.self, from: Self.body).data ?? []
        return (articles, outcomes)
    }

    private func isWrongThread(_ error: any Error) -> Bool {
        guard case .dataCorrupted(let context) = error as? DecodingError,
            let underlying = context.underlyingError as? JSONAPIDecodingError
        else { return false }
        return underlying.code == .wrongThread
    }

    @Test("A keyed container read on a detached thread throws wrongThread; the decode goes on")
    func containerOnThread() throws {
        let (articles, outcomes) = try decode(.containerOnThread)
        #expect(articles.map(\.title) == ["One", "Two"])
        let (values, errors) = outcomes.snapshot
        #expect(values.isEmpty)
        #expect(errors.count == 6)
        #expect(errors.allSatisfy(isWrongThread))
    }

    @Test("A decoder asked for a container on a detached thread throws wrongThread")
    func decoderOnThread() throws {
        let (articles, outcomes) = try decode(.decoderOnThread)
        #expect(articles.map(\.id) == ["1", "2"])
        let (values, errors) = outcomes.snapshot
        #expect(values.isEmpty)
        #expect(errors.count == 4)
        #expect(errors.allSatisfy(isWrongThread))
    }

    @Test("A container handed to DispatchQueue.concurrentPerform: other threads throw, the decode's own reads")
    func concurrentPerform() throws {
        for _ in 0..<20 {
            let (articles, outcomes) = try decode(.concurrentPerform)
            #expect(articles.map(\.title) == ["One", "Two"])
            let (values, errors) = outcomes.snapshot
            #expect(values.count + errors.count == 32)
            #expect(errors.allSatisfy(isWrongThread))
            // Only iterations that ran on the decode's own thread read anything, and they read the document.
            #expect(values.count == outcomes.sameThreadCount)
            #expect(values.allSatisfy { ["One", "Two", "Gebhardt"].contains($0) })
        }
    }

    @Test("The error says what happened")
    func description() throws {
        let (_, outcomes) = try decode(.containerOnThread)
        let error = try #require(outcomes.snapshot.errors.first as? DecodingError)
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        let described = try #require(context.underlyingError as? JSONAPIDecodingError)
        #expect(described.code == .wrongThread)
        #expect(described.detail?.contains("another thread") == true)
    }
}
