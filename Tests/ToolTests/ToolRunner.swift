import Foundation
import Testing

/// Runs the built `jsonapi` executable and captures what it prints.
struct ToolRun {
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
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> ToolRun {
        try spawn(
            executable(), arguments, input: input,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new })
    }

    /// Runs `executable` in `directory` and captures what it prints. The tool's tests run where processes can be
    /// started (macOS, Linux): `Process` does not exist on iOS, tvOS, watchOS or visionOS, which throw.
    static func spawn(
        _ executable: URL, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil,
        directory: URL? = nil
    ) throws -> ToolRun {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        throw CocoaError(.featureUnsupported)
        #else
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe(), error = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        // Read before waiting so a large output cannot fill the pipe and stall the tool.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
        #endif
    }

    /// The path of a core fixture.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CoreTests/Fixtures/\(name).json").path
    }
}

