import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The persisted store killed at random instants: a child process (`store-kill-child`, Tests/StoreKillChild) saves
/// in a loop and prints each save once `flush()` has returned; the test kills it with `SIGKILL` after a random
/// number of saves and a random pause, opens the directory, and checks that every save the child reported is
/// there, whole — its record and its stored response — and that no file was discarded. The instants are random;
/// nothing is timed. `STORE_KILL_COUNT` sets the number of kills (`scripts/kill-test.sh N`); 12 by default.
@Suite("Resource store killed while saving")
struct StoreKillTests {
    /// The child's binary, beside the test bundle (see Tests/ToolTests/ToolRunner.swift).
    static func child() throws -> URL {
        let products = Bundle.allBundles.first { $0.bundleURL.pathExtension == "xctest" }?.bundleURL
            .deletingLastPathComponent() ?? Bundle.main.bundleURL
        let candidate = products.appendingPathComponent("store-kill-child")
        try #require(FileManager.default.isExecutableFile(atPath: candidate.path), "build store-kill-child first")
        return candidate
    }

    /// A child's environment: this process's, with LeakSanitizer off under `--sanitize=address`. A child ends by
    /// `exit` or `SIGKILL` with its session alive, by design, so what it holds then is not a leak; the test
    /// process's own leak check stays on.
    static var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        return environment
    }

    /// Waits for a killed child to end, on a thread of its own (``offPool(_:)``: `waitUntilExit` blocks), then for
    /// what it printed last to be read.
    static func reap(_ process: Process, into output: ChildOutput) async throws {
        try await offPool { process.waitUntilExit() }
        await output.finish()
    }

    /// Runs a child from save `first` on, kills it after `after` reported saves and `pause` more, and returns the
    /// saves it reported.
    static func runChild(_ executable: URL, directory: URL, first: Int, after: Int, pause: Duration) async throws -> [Int] {
        let process = Process()
        process.executableURL = executable
        process.arguments = [directory.path, String(first)]
        process.environment = childEnvironment
        let output = ChildOutput(of: process)
        try process.run()
        output.kill(process, after: after, of: "saved", pause: pause)
        try await reap(process, into: output)
        #expect(process.terminationReason == .uncaughtSignal, "the child ended on its own: \(process.terminationStatus)")
        return output.saves
    }

    /// The document the child serves for item `n` (Tests/StoreKillChild/main.swift).
    static func document(_ n: Int) -> Data {
        let pad = String(repeating: "x", count: 200 + n % 97)
        return Data(#"{"data":{"type":"items","id":"\#(n)","attributes":{"n":\#(n),"check":"\#(n * 7 + 3)","pad":"\#(pad)"}}}"#.utf8)
    }

    struct Report: CustomStringConvertible {
        var kills = 0
        var saves = 0
        var checked = 0
        var lost = 0
        var discarded = 0
        var description: String {
            "kill-test: kills=\(kills) saves_reported=\(saves) saves_checked=\(checked) lost=\(lost) discarded_files=\(discarded)"
        }
    }

    @Test("Every save a killed child reported is there, whole, when the directory is opened again")
    func killedWhileSaving() async throws {
        let kills = ProcessInfo.processInfo.environment["STORE_KILL_COUNT"].flatMap(Int.init) ?? 12
        let executable = try Self.child()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var report = Report()
        var reported: [Int] = []
        var next = 0
        for _ in 0..<kills {
            let after = Int.random(in: 0...4)
            let pause = Duration.microseconds(Int.random(in: 0...20_000))
            let saves = try await Self.runChild(executable, directory: directory, first: next, after: after, pause: pause)
            report.kills += 1
            #expect(saves == Array(saves.indices.map { next + $0 }), "saves out of order: \(saves)")
            reported += saves
            next = (saves.last ?? next - 1) + 1

            let log = StorePersistenceTests.Log()
            let failing = ScriptedClient { _ in throw URLError(.notConnectedToInternet) }
            let persistence = ResourceStore.Persistence(directory: directory, log: { log.write($0) })
            let api = Session(
                baseURL: URL(string: "https://api.example.com/v1")!, client: failing,
                configuration: .init(store: .init(maxResources: 1_000_000, maxResponseBytes: 1 << 30, persistence: persistence)))
            report.discarded += log.messages.count
            #expect(log.messages.isEmpty, "\(log.messages)")
            let store = try #require(api.store)
            for n in reported {
                // The fetch first: a session that names no account shows the records on disk once a request says
                // whose they are (the same credentials as the child's: none).
                let response = try? await api.fetch(URL(string: "items/\(n)")!).cachePolicy(.cacheOnly).result()
                let record = store.record(type: "items", id: "\(n)")
                let expected = try JSONAPIDecoder().decode(RawDocument.self, from: Self.document(n)).data
                let whole = record.map { PrimaryData.resource($0) } == expected && response?.source == .cache
                    && response?.document.data == expected
                if !whole { report.lost += 1 }
                report.checked += 1
            }
        }
        report.saves = reported.count
        print(report)
        #expect(report.lost == 0)
        #expect(report.discarded == 0)
        #expect(report.saves > 0)
    }
}
