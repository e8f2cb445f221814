import Foundation
import JSONAPIClient
import JSONAPIClientTesting

/// A scripted server of `memos` whose every request waits until the test answers it: the test sees each request
/// arrive (numbered from 0) and settles it with a response or a transport failure, in any order. ``finish()`` fails
/// every request still waiting, so that no test leaves a task hanging.
final class HeldWrites: @unchecked Sendable {
    static let baseURL = URL(string: "https://api.example.com")!

    private let lock = NSLock()
    private var waiting: [Int: CheckedContinuation<HTTPResponse, any Error>] = [:]
    private var early: [Int: Result<HTTPResponse, any Error>] = [:]
    private var count = 0
    /// Each request as it arrives: its number, method and path.
    let arrivals = Events<(number: Int, method: HTTPMethod, path: String)>()
    private(set) var client: ScriptedClient!

    init() {
        client = ScriptedClient { [weak self] request in
            guard let self else { throw CancellationError() }
            let number = lock.withLock { () -> Int in
                defer { count += 1 }
                return count
            }
            arrivals.send((number, request.method, request.url.path))
            return try await withCheckedThrowingContinuation { continuation in
                let ready = self.lock.withLock { () -> Result<HTTPResponse, any Error>? in
                    if let result = self.early.removeValue(forKey: number) { return result }
                    self.waiting[number] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }

    /// Settles request `number` (now, or when it arrives).
    func settle(_ number: Int, _ result: Result<HTTPResponse, any Error>) {
        let continuation = lock.withLock { () -> CheckedContinuation<HTTPResponse, any Error>? in
            guard let continuation = waiting.removeValue(forKey: number) else {
                early[number] = result
                return nil
            }
            return continuation
        }
        continuation?.resume(with: result)
    }

    /// Answers request `number` with a memo document.
    func confirm(_ number: Int, id: String, title: String, status: Int = 200) {
        settle(number, .success(.document(Memo.document(id: id, title: title), status: status)))
    }

    /// Answers request `number` with an error status.
    func refuse(_ number: Int, status: Int = 422) {
        settle(number, .success(.document(#"{"errors":[{"status":"\#(status)","title":"Refused"}]}"#, status: status)))
    }

    /// Fails request `number` in the transport.
    func cutOff(_ number: Int) { settle(number, .failure(URLError(.notConnectedToInternet))) }

    /// Fails every request still waiting.
    func finish() {
        let all = lock.withLock { () -> [CheckedContinuation<HTTPResponse, any Error>] in
            defer { waiting.removeAll() }
            return Array(waiting.values)
        }
        for continuation in all { continuation.resume(throwing: URLError(.cancelled)) }
    }
}

/// The model of the optimistic write tests.
struct Memo: Resource, Equatable {
    static let resourceType = "memos"
    var id: String
    var title: String

    static func document(id: String, title: String) -> String {
        #"{"data":{"type":"memos","id":"\#(id)","attributes":{"title":"\#(title)"}}}"#
    }
}
