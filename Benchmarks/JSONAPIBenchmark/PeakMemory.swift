import Foundation
import JSONAPIClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Peak memory of a decode, measured in a process of its own (the parent's heap would blur it).
///
/// The parent writes the document to a temporary file and runs this binary with `--decode-only FILE MODE`; the child
/// notes its resident size, reads the file, decodes it, and prints its peak resident size minus that baseline.
enum DecodeOnly {
    /// Runs the child for `size` articles and prints `peak_rss_mb=…` for each mode.
    static func report(size: Int) throws {
        let document = GeneratedDocument(articles: size)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-bench-\(getpid()).json")
        try Data(document.bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for mode in ["decode-typed", "decode-document", "decode-typed-bytes"] {
            #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            // `Process` does not exist there; the benchmark is run on a Mac or Linux.
            throw BenchmarkFailure(description: "peak memory needs a child process: run it on macOS or Linux")
            #else
            let process = Process()
            process.executableURL = executableURL()
            process.arguments = ["--decode-only", file.path, mode]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard process.terminationStatus == 0 else {
                throw BenchmarkFailure(description: "decode-only child failed (\(process.terminationStatus)): \(text)")
            }
            print(text)
            #endif
        }
    }

    /// The child: decodes `FILE` once and prints the peak resident size above the baseline. Returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let path = arguments.first else {
            FileHandle.standardError.write(Data("--decode-only needs a file\n".utf8))
            return 2
        }
        let mode = arguments.count > 1 ? arguments[1] : "decode-typed"
        let baseline = residentBytes()
        do {
            let count: Int
            let inputSize: Int
            switch mode {
            case "decode-document":
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                inputSize = data.count
                count = try JSONAPIDecoder().decode(RawDocument.self, from: data).data?.resources.count ?? 0
            case "decode-typed-bytes":
                // The input read as [UInt8] rather than Data: the decoder then has no copy to make.
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                let bytes = [UInt8](try handle.readToEnd() ?? Data())
                inputSize = bytes.count
                count = try JSONAPIDecoder().decode(Document<[Article]>.self, from: bytes).data?.count ?? 0
            default:
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                inputSize = data.count
                count = try JSONAPIDecoder().decode(Document<[Article]>.self, from: data).data?.count ?? 0
            }
            let peak = peakResidentBytes()
            let megabyte = 1e6
            let above = Double(peak - baseline) / megabyte
            let input = Double(inputSize) / megabyte
            print(
                "peak_rss_mb=\(format(above, 1)) case=\(mode) input_mb=\(format(input, 1))"
                    + " times_input=\(format(above / input, 2)) baseline_mb=\(format(Double(baseline) / megabyte, 1))"
                    + " resources=\(count)")
            return 0
        } catch {
            print("decode-only: \(error)")
            return 1
        }
    }

    private static func executableURL() -> URL {
        #if os(Linux)
            if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                return URL(fileURLWithPath: path)
            }
        #endif
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// The resident size now (Linux: `VmRSS`); elsewhere the peak so far, which is the best `getrusage` gives.
    /// (On Linux `getrusage`'s peak is no use here: it carries over from the parent across `fork` and `exec`.)
    static func residentBytes() -> Int {
        #if os(Linux)
            if let kilobytes = procStatus("VmRSS:") { return kilobytes * 1024 }
        #endif
        return maxRSS()
    }

    /// The peak resident size (Linux: `VmHWM`; elsewhere `getrusage`).
    static func peakResidentBytes() -> Int {
        #if os(Linux)
            if let kilobytes = procStatus("VmHWM:") { return kilobytes * 1024 }
        #endif
        return maxRSS()
    }

    private static func procStatus(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    private static func maxRSS() -> Int {
        var usage = rusage()
        #if canImport(Darwin)
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
            return Int(usage.ru_maxrss)  // bytes
        #else
            guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
            return Int(usage.ru_maxrss) * 1024  // kilobytes
        #endif
    }
}
