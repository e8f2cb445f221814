import JSONAPIClient

/// Reports how far a multi-page fetch has got on standard error. On a terminal, one line updated in place (pages,
/// resources of total, rate), ended with a newline when done; elsewhere, with `--progress`, one line per page
/// without the rate, so logs read the same every run; elsewhere without it, nothing.
final class ProgressLine {
    private let command: String
    private let streams: Streams
    private let forced: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var shown = false

    /// A reporter for `command` writing to `streams`; `forced` is `--progress`.
    init(command: String, streams: Streams, forced: Bool) {
        self.command = command
        self.streams = streams
        self.forced = forced
        self.start = clock.now
    }

    /// Reports `progress`.
    func report(_ progress: PaginationProgress) {
        if streams.errorIsTerminal {
            // Carriage return, then erase to the end of the line: the new text replaces the old.
            streams.errorText("\r\u{1B}[K\(Self.line(command, progress, rate: rate(progress.resourcesFetched)))")
            shown = true
        } else if forced {
            streams.error(Self.line(command, progress, rate: nil))
        }
    }

    /// Ends the in-place line, if one was shown.
    func finish() {
        if shown { streams.errorText("\n") }
        shown = false
    }

    /// `jsonapi get: 3 pages, 120 of 200 resources`, then `, 850 resources/s` when `rate` is given.
    static func line(_ command: String, _ progress: PaginationProgress, rate: Double?) -> String {
        var line = "jsonapi \(command): \(progress)"
        if let rate { line += ", \(Int(rate.rounded())) resources/s" }
        return line
    }

    private func rate(_ resources: Int) -> Double? {
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(resources) / seconds : nil
    }
}
