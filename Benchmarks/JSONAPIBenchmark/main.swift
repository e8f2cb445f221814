import Foundation
import JSONAPIClient

// jsonapi-bench: times the library against JSONDecoder/JSONEncoder on a generated compound document.
//
//   jsonapi-bench [--sizes 1000,10000] [--rounds 9] [--cases a,b,…] [--no-rss] [--queue-count 10000] [--queue-runs 3]
//   jsonapi-bench --profile CASE [--size 1000] [--iterations 10]   (one case in a loop, for callgrind)
//   jsonapi-bench --emit N > doc.json                               (the generated document)
//
// Prints one line per case and size: `CASE SIZE median_ms=X min_ms=Y mb_per_s=Z ratio=R`, where R is the case's
// time over its floor's time, paired round by round, median (for a case that does its floor's work and more,
// such as `store-merge`, R is what it adds: (case − floor) / floor, and `added_ms=A` its median); then
// `peak_rss_mb=M` for a separate process that only decodes the largest document.

struct Options {
    var sizes = [1_000, 10_000]
    var rounds = 9
    var cases = Cases.all
    var measuresRSS = true
    var profile: String?
    var profileSize = 1_000
    var iterations = 10
    /// How many offline writes `queue-append` queues.
    var queueCount = 10_000
    /// How many times `queue-append` and the persisted store's cases (`persist-walk`, `persist-edit`, `cold-start`) run.
    var queueRuns = 3

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchmarkFailure(description: "\(flag) needs a value") }
            return value
        }
        func integer(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else {
                throw BenchmarkFailure(description: "\(flag): \(text) is not a positive number")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--sizes":
                sizes = try value(argument).split(separator: ",").map { text in
                    guard let size = Int(text), size > 0 else {
                        throw BenchmarkFailure(description: "--sizes: \(text) is not a positive number")
                    }
                    return size
                }
            case "--rounds": rounds = try integer(argument)
            case "--cases": cases = try value(argument).split(separator: ",").map(String.init)
            case "--no-rss": measuresRSS = false
            case "--profile": profile = try value(argument)
            case "--size": profileSize = try integer(argument)
            case "--iterations": iterations = try integer(argument)
            case "--queue-count": queueCount = try integer(argument)
            case "--queue-runs": queueRuns = try integer(argument)
            case "-h", "--help":
                print(
                    """
                    usage: jsonapi-bench [--sizes 1000,10000] [--rounds 9] [--cases \(Cases.all.joined(separator: ","))] [--no-rss] [--queue-count 10000] [--queue-runs 3]
                           jsonapi-bench --profile CASE [--size 1000] [--iterations 10]
                    """)
                exit(0)
            default: throw BenchmarkFailure(description: "unknown argument \(argument)")
            }
        }
        if let unknown = cases.first(where: { !Cases.all.contains($0) }) {
            throw BenchmarkFailure(description: "unknown case \(unknown); cases: \(Cases.all.joined(separator: ", "))")
        }
    }
}

/// Keeps results alive so the optimiser cannot drop the work.
nonisolated(unsafe) var sink = 0

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

/// Runs the cases round-robin: a warm-up round (which also picks how many runs make one sample, so that a sample
/// lasts at least ~20 ms), then `rounds` rounds; prints the medians.
func measure(_ cases: [BenchmarkCase], label: String, rounds: Int) throws {
    var repetitions: [Int] = []
    for benchmark in cases {
        let start = now()
        sink &+= try benchmark.run()
        let elapsed = max(Double(now() - start), 1)
        repetitions.append(max(1, Int((20_000_000 / elapsed).rounded(.up))))
    }
    var times = Array(repeating: [Double](), count: cases.count)
    for _ in 0..<rounds {
        for (position, benchmark) in cases.enumerated() {
            let start = now()
            for _ in 0..<repetitions[position] { sink &+= try benchmark.run() }
            times[position].append(Double(now() - start) / 1e6 / Double(repetitions[position]))
        }
    }
    for (position, benchmark) in cases.enumerated() {
        let medianTime = median(times[position])
        let minTime = times[position].min() ?? .nan
        var line = "\(benchmark.name) \(label) median_ms=\(format(medianTime)) min_ms=\(format(minTime))"
        line += " mb_per_s=\(format(Double(benchmark.bytes) / 1e6 / (medianTime / 1e3), 1))"
        if let floor = benchmark.floor, let floorPosition = cases.firstIndex(where: { $0.name == floor }) {
            if benchmark.addsToFloor {
                let added = zip(times[position], times[floorPosition]).map { $0 - $1 }
                line += " added_ms=\(format(median(added)))"
                let ratios = zip(times[position], times[floorPosition]).map { ($0 - $1) / $1 }
                line += " ratio=\(format(median(ratios), 3))"
            } else {
                let ratios = zip(times[position], times[floorPosition]).map { $0 / $1 }
                line += " ratio=\(format(median(ratios), 3))"
            }
        } else if benchmark.floor == nil {
            line += " ratio=1.000"
        }
        if let resources = benchmark.resources {
            line += " resources_per_s=\(Int((Double(resources) / (medianTime / 1e3)).rounded()))"
            // The pipeline hops threads, which a loaded machine delays now and then: the fastest rounds say more.
            if let floor = benchmark.floor, let floorPosition = cases.firstIndex(where: { $0.name == floor }),
                let fastest = times[position].min(), let floorFastest = times[floorPosition].min()
            {
                line += " ratio_of_min=\(format(fastest / floorFastest, 3))"
            }
        }
        print(line)
    }
}

/// Runs one case in a loop and nothing else (after generating its input), for callgrind:
/// `valgrind --tool=callgrind --toggle-collect='*profileLoop*' jsonapi-bench --profile decode-typed`.
@inline(never)
func profileLoop(_ benchmark: BenchmarkCase, iterations: Int) throws {
    for _ in 0..<iterations { sink &+= try benchmark.run() }
}

func main() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--decode-only" {
        exit(DecodeOnly.run(Array(arguments.dropFirst())))
    }
    if arguments.first == "--emit" {
        // Writes the generated document to stdout, e.g. to try other libraries on the same input.
        let size = arguments.count > 1 ? Int(arguments[1]) ?? 1_000 : 1_000
        FileHandle.standardOutput.write(Data(GeneratedDocument(articles: size).bytes))
        return
    }
    let options = try Options(arguments)

    if let profile = options.profile {
        let document = GeneratedDocument(articles: options.profileSize)
        let candidates =
            profile == "pipeline" || profile == "pages-decode"
            ? try Pipeline.cases()
            : profile == StoreHit.name
            ? try StoreHit.cases()
            : ObservedWalk.names.contains(profile)
                ? try ObservedWalk.cases(liveApply: profile == "live-apply")
                : try Cases.make(for: document, selected: [profile])
        guard let benchmark = candidates.first(where: { $0.name == profile })
        else { throw BenchmarkFailure(description: "no case \(profile) to profile") }
        if let problem = try benchmark.check() { throw BenchmarkFailure(description: "\(profile): \(problem)") }
        try profileLoop(benchmark, iterations: options.iterations)
        print("\(profile) \(options.profileSize) iterations=\(options.iterations) done")
        return
    }

    let selected = Set(options.cases)
    print("# jsonapi-bench: \(options.rounds) rounds (pipeline \(max(options.rounds, 21))), cases round-robin after a warm-up, medians")
    for size in options.sizes where !selected.subtracting(["pipeline", QueueAppend.name, StoreHit.name] + Walk.names + ObservedWalk.names + Persist.names).isEmpty {
        let document = GeneratedDocument(articles: size)
        print("# N=\(size): \(document.bytes.count) bytes, \(document.peopleCount) people, \(document.commentCount) comments")
        let cases = try Cases.make(for: document, selected: selected)
        for benchmark in cases {
            if let problem = try benchmark.check() {
                throw BenchmarkFailure(description: "\(benchmark.name) \(size): wrong output: \(problem)")
            }
        }
        try measure(cases, label: String(size), rounds: options.rounds)
    }
    if selected.contains("pipeline") {
        let cases = try Pipeline.cases()
        print("# \(Pipeline.label): \(Pipeline.pageCount) pages of \(Pipeline.pageSize) articles with includes, \(cases[0].bytes) bytes")
        for benchmark in cases {
            if let problem = try benchmark.check() {
                throw BenchmarkFailure(description: "\(benchmark.name): wrong output: \(problem)")
            }
        }
        try measure(cases, label: Pipeline.label, rounds: max(options.rounds, 21))
    }
    if selected.contains(StoreHit.name) {
        let cases = try StoreHit.cases()
        print("# \(StoreHit.name): \(StoreHit.requests) cacheFirst reads of one fresh stored resource a run (a read is a run / \(StoreHit.requests))")
        for benchmark in cases {
            if let problem = try benchmark.check() {
                throw BenchmarkFailure(description: "\(benchmark.name): wrong output: \(problem)")
            }
        }
        try measure(cases, label: StoreHit.label, rounds: options.rounds)
    }
    let walks = Walk.names.filter(selected.contains)
    if !walks.isEmpty {
        // The sequential walk is every walk's floor: it runs whenever one is asked for.
        let cases = try Walk.cases().filter { walks.contains($0.name) || $0.name == "walk-sequential" }
        print("# \(Walk.label): \(Walk.pageCount) pages of \(Walk.pageSize) articles, \(Walk.latency) per request, \(Walk.consumerTime) of work per page")
        for benchmark in cases {
            if let problem = try benchmark.check() {
                throw BenchmarkFailure(description: "\(benchmark.name): wrong output: \(problem)")
            }
        }
        try measure(cases, label: Walk.label, rounds: options.rounds)
    }
    let observedWalks = ObservedWalk.names.filter(selected.contains)
    if !observedWalks.isEmpty {
        // The walk without a store is their floor: it runs whenever one is asked for.
        let floors = observedWalks.contains("live-apply") ? ["store-walk-bare", "store-walk"] : ["store-walk-bare"]
        let cases = try ObservedWalk.cases(liveApply: observedWalks.contains("live-apply"))
            .filter { observedWalks.contains($0.name) || floors.contains($0.name) }
        print("# \(ObservedWalk.label): \(ObservedWalk.pageCount) pages of \(ObservedWalk.pageSize) articles with includes, no latency")
        for benchmark in cases {
            if let problem = try benchmark.check() {
                throw BenchmarkFailure(description: "\(benchmark.name): wrong output: \(problem)")
            }
        }
        try measure(cases, label: ObservedWalk.label, rounds: options.rounds)
    }
    if selected.contains(QueueAppend.name) {
        print("# \(QueueAppend.name): \(options.queueCount) offline writes of a ~420-byte body, one after the other, each durable")
        try QueueAppend.run(count: options.queueCount, runs: options.queueRuns)
    }
    if !selected.isDisjoint(with: Persist.names) {
        print("# persisted store: pages of \(Persist.pageSize) articles with authors and comments, \(options.queueRuns) runs, medians")
        try Persist.run(selected: selected, runs: options.queueRuns)
    }
    if options.measuresRSS, let largest = options.sizes.max() {
        try DecodeOnly.report(size: largest)
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("jsonapi-bench: \(error)\n".utf8))
    exit(1)
}
