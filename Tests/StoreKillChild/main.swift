// The child of the store's kill test (Tests/ClientTests/StoreKillTests.swift, scripts/kill-test.sh): saves in a
// loop and prints what it saved once each save has returned, until its parent kills it.
//
//     store-kill-child DIRECTORY FIRST
//
// Save `n` (from FIRST on) fetches `items/n` through a session whose store is kept in DIRECTORY — a stored response,
// fresh for a day, and its record `items` `n` with `n` and a check value in its attributes — then `flush()`es, then
// prints `saved n`. A line it printed is a save the parent must find, whole, after killing it at any instant.
// `store-kill-child queue …`, `replay …` and `enqueue …` are the write queue's children instead (QueueChild.swift),
// `store-kill-child pages …` the store's two-process test's (PagesChild.swift).
import Foundation
import JSONAPIClient
import JSONAPIClientTesting

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "queue" { try await runQueueChild(arguments) }  // QueueChild.swift
if arguments.count > 1, arguments[1] == "replay" { await runReplayChild(arguments) }  // QueueChild.swift
if arguments.count > 1, arguments[1] == "enqueue" { try await runEnqueueChild(arguments) }  // QueueChild.swift
if arguments.count > 1, arguments[1] == "pages" { try await runPagesChild(arguments) }  // PagesChild.swift
guard arguments.count == 3, let first = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: store-kill-child DIRECTORY FIRST\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)

/// The document of item `n`: padded so that a save is a few kilobytes more each time.
@Sendable func document(_ n: Int) -> String {
    let pad = String(repeating: "x", count: 200 + n % 97)
    return #"{"data":{"type":"items","id":"\#(n)","attributes":{"n":\#(n),"check":"\#(n * 7 + 3)","pad":"\#(pad)"}}}"#
}

let client = ScriptedClient { request in
    let n = Int(request.url.lastPathComponent) ?? -1
    var response = HTTPResponse.document(document(n))
    response.headerFields.append("Cache-Control", "max-age=86400")
    response.headerFields.append("ETag", "\"\(n)\"")
    return response
}
let persistence = ResourceStore.Persistence(directory: directory, delay: .milliseconds(50))
let api = Session(
    baseURL: URL(string: "https://api.example.com/v1")!, client: client,
    configuration: .init(store: .init(maxResources: 1_000_000, maxResponseBytes: 1 << 30, persistence: persistence)))
guard let store = api.store else { exit(3) }

var n = first
while n < first + childLimit {
    _ = try await api.fetch(URL(string: "items/\(n)")!).result()
    try await store.flush()
    FileHandle.standardOutput.write(Data("saved \(n)\n".utf8))  // unbuffered: one write(2) per line
    n += 1
}
await waitToBeKilled()
