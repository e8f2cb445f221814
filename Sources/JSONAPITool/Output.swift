import Foundation
import JSONAPIClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to the standard streams, and the exit codes.
enum Output {
    static func standardOutput(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether standard error is a terminal.
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// `document` as the tool prints it: pretty JSON with sorted keys and a final newline.
    static func text(of document: RawDocument) throws -> Data {
        var data = try JSONAPIEncoder(outputFormatting: .prettyPrinted).encode(document)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Exit codes shared by the commands.
    enum ExitCode {
        static let success: Int32 = 0
        /// The document (or the response) is not what it should be.
        static let failure: Int32 = 1
        /// Bad arguments or unreadable input.
        static let usage: Int32 = 2
    }
}
