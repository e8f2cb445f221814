// The write queue's kill test child (Tests/ClientTests/WriteQueueKillTests.swift, scripts/queue-kill-test.sh):
//
//     store-kill-child queue DIRECTORY BASEURL RUN FIRSTID FIRST
//
// Offline (every request fails in the transport), it creates tag `n` (id FIRSTID - n, name `kill-RUN-n`) from FIRST
// on with `WriteOptions.offline`, in a session whose store (and so write queue) is kept in DIRECTORY, and prints
// `queued n` once the write returned (its entry is on disk then), until its parent kills it. The parent then
// replays the queue against the real server and checks that each tag was made exactly once.
//
//     store-kill-child replay DIRECTORY BASEURL
//
// Online, replays the write queue kept in DIRECTORY once, then prints `delivered N discarded M` (its events) and
// exits: two of them at once on one directory are the two-process test (WriteQueueTwoProcessTests), which checks
// that each queued write was made exactly once.
import Foundation
import JSONAPIClient

struct KillTag: Resource {
    static let resourceType = "tags"
    var id: String
    var name: String
}

/// Fails every request in the transport, as a phone without a network does.
struct Offline: Middleware {
    func intercept(
        _ request: HTTPRequest, context: MiddlewareContext, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        throw URLError(.notConnectedToInternet)
    }
}

func runQueueChild(_ arguments: [String]) async throws -> Never {
    guard arguments.count == 7, let base = URL(string: arguments[3]), let firstID = Int(arguments[5]),
        let first = Int(arguments[6])
    else {
        FileHandle.standardError.write(Data("usage: store-kill-child queue DIRECTORY BASEURL RUN FIRSTID FIRST\n".utf8))
        exit(2)
    }
    let run = arguments[4]
    let persistence = ResourceStore.Persistence(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
    let api = Session(
        baseURL: base,
        configuration: .init(middlewares: [Offline()], store: .init(persistence: persistence), writes: .offline))
    let tags = api.source(KillTag.self, .path("tags/<id>"))
    var n = first
    while n < first + childLimit {
        // Ids go down from FIRSTID: the server gives a create without an id the one after the largest, which, were
        // these ids going up, is the id of the next write here (another test's create then took it, and this write
        // was refused with a 409 — 19 of 8,791 in one CI run).
        let response = try await tags.create(KillTag(id: String(firstID - n), name: "kill-\(run)-\(n)"))
        guard response.queued != nil else { exit(4) }
        FileHandle.standardOutput.write(Data("queued \(n)\n".utf8))  // unbuffered: one write(2) per line
        n += 1
    }
    await waitToBeKilled()
}

func runReplayChild(_ arguments: [String]) async -> Never {
    guard arguments.count == 4, let base = URL(string: arguments[3]) else {
        FileHandle.standardError.write(Data("usage: store-kill-child replay DIRECTORY BASEURL\n".utf8))
        exit(2)
    }
    let persistence = ResourceStore.Persistence(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
    let api = Session(
        baseURL: base,
        configuration: .init(
            store: .init(persistence: persistence),
            writeQueue: .init(firstDelay: .milliseconds(10), maxDelay: .milliseconds(50))))
    let events = api.writeQueue.events()
    let counting = Task {
        var delivered = 0
        var discarded = 0
        for await event in events {
            switch event.outcome {
            case .delivered: delivered += 1
            case .discarded: discarded += 1
            default: FileHandle.standardError.write(Data("event: \(event)\n".utf8))
            }
        }
        return (delivered, discarded)
    }
    await api.writeQueue.replay()
    // The delivered entries' rows are deleted in the background: given time to be, before the process ends.
    try? await Task.sleep(for: .seconds(1))
    let left = api.writeQueue.entries.count
    counting.cancel()
    let (delivered, discarded) = await counting.value
    FileHandle.standardOutput.write(Data("delivered \(delivered) discarded \(discarded) left \(left)\n".utf8))
    exit(0)
}

//     store-kill-child enqueue DIRECTORY BASEURL NAME COUNT
//
// Offline, creates COUNT tags named `NAME-n` without ids (the server makes them: a write sent twice makes two) in a
// session whose write queue is kept in DIRECTORY, prints `queued COUNT` and exits: an app extension that queued
// writes while the app stays up (WriteQueueTwoProcessTests).
func runEnqueueChild(_ arguments: [String]) async throws -> Never {
    guard arguments.count == 6, let base = URL(string: arguments[3]), let count = Int(arguments[5]) else {
        FileHandle.standardError.write(Data("usage: store-kill-child enqueue DIRECTORY BASEURL NAME COUNT\n".utf8))
        exit(2)
    }
    let persistence = ResourceStore.Persistence(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
    let api = Session(
        baseURL: base,
        configuration: .init(middlewares: [Offline()], store: .init(persistence: persistence), writes: .offline))
    let tags = api.source(KillTag.self, .path("tags/<id>"))
    for n in 0..<count {
        let response = try await tags.create(KillTag(id: "", name: "\(arguments[4])-\(n)"))
        guard response.queued != nil else { exit(4) }
    }
    FileHandle.standardOutput.write(Data("queued \(count)\n".utf8))
    exit(0)
}
