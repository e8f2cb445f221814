import Foundation

/// Writing to the standard streams.
enum Output {
    static func standardOutput(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
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
