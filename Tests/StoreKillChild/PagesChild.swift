// The child of the store's two-process test (Tests/ClientTests/StoreTwoProcessTests.swift):
//
//     store-kill-child pages DIRECTORY BASEURL FIRST LAST
//
// Fetches the pages FIRST through LAST of `articles` (5 a page) from the real server through a session whose store
// is kept in DIRECTORY, each followed by `flush()`, and prints `saved n` once page n's flush returned. Two of them
// at once on one directory save different pages; a third process then finds every page both reported.
import Foundation
import JSONAPIClient

func runPagesChild(_ arguments: [String]) async throws -> Never {
    guard arguments.count == 6, let base = URL(string: arguments[3]), let first = Int(arguments[4]),
        let last = Int(arguments[5]), first <= last
    else {
        FileHandle.standardError.write(Data("usage: store-kill-child pages DIRECTORY BASEURL FIRST LAST\n".utf8))
        exit(2)
    }
    let persistence = ResourceStore.Persistence(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
    let api = Session(baseURL: base, configuration: .init(store: .init(persistence: persistence)))
    guard let store = api.store else { exit(3) }
    for n in first...last {
        _ = try await api.fetch(URL(string: "articles?page%5Bnumber%5D=\(n)&page%5Bsize%5D=5")!).result()
        try await store.flush()
        FileHandle.standardOutput.write(Data("saved \(n)\n".utf8))  // unbuffered: one write(2) per line
    }
    exit(0)
}
