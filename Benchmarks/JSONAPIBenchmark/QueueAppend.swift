import Foundation
import JSONAPIClient

/// `queue-append`: what an offline write costs as the write queue grows, through the public API — a session with
/// persistence, every request failing in the transport, `create(_:options: .offline)` of a ~400-byte note, one
/// after the other, each returning once its entry is durable.
///
/// Reports, at the `count`th write (10,000 by default, `--queue-count`): the bytes written to storage per write over
/// the last 100 and over the last 1,000 (`/proc/self/io` `write_bytes` on Linux: the WAL, its checkpoints and the
/// store's own files included; `n/a` elsewhere) — a checkpoint every few hundred writes copies the WAL's pages
/// into the database, so 100 writes hold one or none, and 1,000 hold them in proportion — and the time of the last
/// 100 writes ÷ the first 100, as sums (`ratio`) and as medians of one write (`ratio_of_medians`, which a
/// preempted write or a checkpoint in either window does not move), and as CPU time (`cpu_ratio`: the work itself,
/// which a busy machine's other processes do not lengthen). Each run is a new directory; `--queue-runs`
/// runs (3 by default), then their medians. Targets (issue 31): ≤ 8 KB and ≤ 1.3.
enum QueueAppend {
    static let name = "queue-append"

    struct Note: Resource {
        static let resourceType = "notes"
        var id: String
        var text: String
    }

    /// Fails every request in the transport, as a phone without a network does.
    struct Offline: Middleware {
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            throw URLError(.notConnectedToInternet)
        }
    }

    /// The bytes this process has caused to be written to storage (`write_bytes` of `/proc/self/io`), or `nil`
    /// where there is no such file.
    static func writtenBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
            return Int64(line.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// One run's figures.
    struct Figures {
        /// The time of the first and of the last `window` writes, in milliseconds.
        var first: Double
        var last: Double
        /// The median time of one write among the first and among the last `window`, in milliseconds.
        var firstMedian: Double
        var lastMedian: Double
        /// The CPU time (user and system, every thread of the process) spent over the first and over the last
        /// `window` writes, in milliseconds: what the writes cost, whatever else the machine runs meanwhile.
        var firstCPU: Double
        var lastCPU: Double
        /// Bytes written per write over the last `window` writes, and over the last `wideWindow` (which holds the
        /// WAL's checkpoints in their proportion); `nil` without `/proc/self/io`.
        var bytes: Int64?
        var bytesWide: Int64?
    }

    static let window = 100

    /// The process's CPU time so far, user and system, in milliseconds.
    static func cpuMilliseconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)  // an enum in glibc's header, an Int32 parameter
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e3 + Double(time.tv_usec) / 1e3 }
        return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
    }
    static let wideWindow = 1_000

    /// Runs `runs` times (each in a new directory) and prints each run and the medians.
    static func run(count: Int, runs: Int) throws {
        guard count >= 2 * wideWindow else {
            throw BenchmarkFailure(description: "--queue-count must be at least \(2 * wideWindow)")
        }
        var all: [Figures] = []
        for _ in 0..<runs {
            let figures = try runOnce(count: count)
            all.append(figures)
            print(line("run", figures, count: count))
        }
        let summary = Figures(
            first: median(all.map(\.first)), last: median(all.map(\.last)),
            firstMedian: median(all.map(\.firstMedian)), lastMedian: median(all.map(\.lastMedian)),
            firstCPU: median(all.map(\.firstCPU)), lastCPU: median(all.map(\.lastCPU)),
            bytes: all.compactMap(\.bytes).sorted().dropFirst(all.count / 2).first,
            bytesWide: all.compactMap(\.bytesWide).sorted().dropFirst(all.count / 2).first)
        print(line("median of \(runs)", summary, count: count) + " (targets: ratio ≤ 1.3, bytes_per_write ≤ 8192)")
    }

    static func line(_ label: String, _ figures: Figures, count: Int) -> String {
        "\(name) \(count) \(label): first\(window)_ms=\(format(figures.first)) last\(window)_ms=\(format(figures.last))"
            + " ratio=\(format(figures.last / figures.first, 3))"
            + " ratio_of_medians=\(format(figures.lastMedian / figures.firstMedian, 3))"
            + " cpu_first\(window)_ms=\(format(figures.firstCPU)) cpu_last\(window)_ms=\(format(figures.lastCPU))"
            + " cpu_ratio=\(format(figures.lastCPU / figures.firstCPU, 3))"
            + " bytes_per_write_last\(window)=\(figures.bytes.map { "\($0)" } ?? "n/a")"
            + " bytes_per_write_last\(wideWindow)=\(figures.bytesWide.map { "\($0)" } ?? "n/a")"
    }

    static func runOnce(count: Int) throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-append-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = String(repeating: "offline note ", count: 26)  // ~340 bytes of text; ~420 bytes of body
        return try Pipeline.runBlocking { () async throws -> Figures in
            let api = Session(
                baseURL: URL(string: "https://api.example.com/v1")!,
                configuration: .init(
                    middlewares: [Offline()], store: .init(persistence: .init(directory: directory)), writes: .offline))
            let notes = api.source(Note.self, .path("notes/<id>"))
            var times: [Double] = []
            times.reserveCapacity(count)
            var bytesBeforeWide: Int64?
            var bytesBefore: Int64?
            var firstCPU = 0.0
            var lastCPU = 0.0
            var cpuStart = cpuMilliseconds()
            for n in 0..<count {
                if n == count - wideWindow { bytesBeforeWide = writtenBytes() }
                if n == count - window {
                    bytesBefore = writtenBytes()
                    cpuStart = cpuMilliseconds()
                }
                if n == window { firstCPU = cpuMilliseconds() - cpuStart }
                let start = DispatchTime.now().uptimeNanoseconds
                let response = try await notes.create(Note(id: "note-\(n)", text: text))
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                guard response.queued != nil else { throw BenchmarkFailure(description: "write \(n) was not queued") }
            }
            lastCPU = cpuMilliseconds() - cpuStart
            let bytesAfter = writtenBytes()
            guard api.writeQueue.entries.count == count else {
                throw BenchmarkFailure(description: "\(api.writeQueue.entries.count) entries queued, not \(count)")
            }
            let first = times.prefix(window)
            let last = times.suffix(window)
            return Figures(
                first: first.reduce(0, +), last: last.reduce(0, +), firstMedian: median(Array(first)),
                lastMedian: median(Array(last)), firstCPU: firstCPU, lastCPU: lastCPU,
                bytes: bytesBefore.flatMap { before in bytesAfter.map { ($0 - before) / Int64(window) } },
                bytesWide: bytesBeforeWide.flatMap { before in bytesAfter.map { ($0 - before) / Int64(wideWindow) } })
        }
    }
}
