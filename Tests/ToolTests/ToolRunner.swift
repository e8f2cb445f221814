import Foundation
import Testing

/// Runs the built `jsonapi` executable and captures what it prints.
struct ToolRun {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

enum Tool {
    /// The `jsonapi` binary beside the test bundle (SwiftPM builds both into the same products folder).
    static func executable() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("jsonapi")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("jsonapi")
        try #require(FileManager.default.isExecutableFile(atPath: fallback.path), "jsonapi executable not found")
        return fallback
    }

    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> ToolRun {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
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
    }

    /// The path of a core fixture.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CoreTests/Fixtures/\(name).json").path
    }
}
