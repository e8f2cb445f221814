import Foundation

#if canImport(os)
import os
#endif

/// Where the library's own lines go when the app gives no log of its own (``ResourceStore/Persistence/log``): the
/// unified log on Apple platforms — subsystem `JSONAPIClient`, at the error level, marked public since the lines
/// hold no secret (paths and reasons) — where Console and `log stream` show a shipped app's lines; standard error
/// elsewhere.
enum LibraryLog {
    /// The subsystem of the library's lines in the unified log.
    static let subsystem = "JSONAPIClient"

    /// Writes `line` under `category` (`persistence`: the store's and the write queue's files).
    static func write(_ line: String, category: String) {
        #if canImport(os)
        Logger(subsystem: subsystem, category: category).error("\(line, privacy: .public)")
        #else
        FileHandle.standardError.write(Data((line + "\n").utf8))
        #endif
    }
}
