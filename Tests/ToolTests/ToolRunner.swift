import Foundation
import TestSupport
import Testing

/// Runs the built `jsonapi` executable and captures what it prints.
struct ToolRun: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

enum Tool {
    /// The folder SwiftPM builds the products into (`.build/debug`, or wherever `--scratch-path` and `-c` put it).
    ///
    /// On macOS the tests run inside `xctest` or the Swift Testing helper, so neither `argv[0]` nor the main bundle is
    /// ours: the loaded `.xctest` bundle is, and it sits in the products folder. On Linux the test binary is itself
    /// the main bundle's executable, in that folder.
    static let productsDirectory: URL =
        Bundle.allBundles.first { $0.bundleURL.pathExtension == "xctest" }?.bundleURL.deletingLastPathComponent()
        ?? Bundle.main.bundleURL

    /// The `jsonapi` binary in the products folder.
    static func executable() throws -> URL {
        let candidate = productsDirectory.appendingPathComponent("jsonapi")
        try #require(
            FileManager.default.isExecutableFile(atPath: candidate.path),
            "jsonapi executable not found in \(productsDirectory.path): build it first (`swift build`)")
        return candidate
    }

    /// Runs the built `jsonapi` with `arguments`, `input` on its standard input, `environment` added to ours.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws
        -> ToolRun
    {
        try await spawn(
            executable(), arguments, input: input,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new })
    }

    /// Runs `executable` in `directory` and captures what it prints, waiting on a thread of its own (``offPool(_:)``).
    /// The tool's tests run where processes can be started (macOS, Linux): `Process` does not exist on iOS, tvOS,
    /// watchOS or visionOS, which throw.
    static func spawn(
        _ executable: URL, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil,
        directory: URL? = nil
    ) async throws -> ToolRun {
        try await offPool {
            try spawnBlocking(executable, arguments, input: input, environment: environment, directory: directory)
        }
    }

    /// ``spawn(_:_:input:environment:directory:)``, blocking the calling thread until the tool ends.
    private static func spawnBlocking(
        _ executable: URL, _ arguments: [String], input: Data?, environment: [String: String]?, directory: URL?
    ) throws -> ToolRun {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        throw CocoaError(.featureUnsupported)
        #else
        // Files, not pipes: a process started meanwhile by another test (the test server, spawned by the first test
        // that needs it) inherits whatever descriptors are open at that moment, and a long-lived one holding a
        // pipe's write end would keep `readDataToEndOfFile` from ever seeing its end (it hung the tool's tests
        // once they ran side by side).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputFile = folder.appendingPathComponent("in")
        let outputFile = folder.appendingPathComponent("out")
        let errorFile = folder.appendingPathComponent("err")
        try (input ?? Data()).write(to: inputFile)
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
        #endif
    }

    /// The path of a core fixture.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CoreTests/Fixtures/\(name).json").path
    }
}

