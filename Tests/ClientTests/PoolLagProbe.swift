import Foundation
import Testing

/// Measures, while the rest of a run goes on, how long a job waits for the cooperative pool and for the main actor:
/// every 50 ms a task hops to each and the wait is noted. Off unless `JSONAPI_POOL_PROBE` gives a number of seconds
/// (`JSONAPI_POOL_PROBE=120 scripts/test.sh`); it prints the waits' maximum and 99th percentile. On a 2-core
/// machine the pool has two threads, and on Linux the main actor's jobs wait for the same threads: what blocks one
/// of them (a synchronous SQLite open, an `fsync`, a `waitUntilExit`) shows here.
@Suite("Pool lag probe")
struct PoolLagProbe {
    @Test("The cooperative pool's and the main actor's waits, measured while the run goes on")
    func probe() async throws {
        guard let seconds = ProcessInfo.processInfo.environment["JSONAPI_POOL_PROBE"].flatMap(Double.init) else { return }
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(Int(seconds * 1000))
        var pool: [Duration] = []
        var main: [Duration] = []
        while clock.now < end {
            try await Task.sleep(for: .milliseconds(50))
            let asked = clock.now
            await Task.detached { () async -> Void in }.value
            pool.append(clock.now - asked)
            let mainAsked = clock.now
            await MainActor.run {}
            main.append(clock.now - mainAsked)
        }
        func summary(_ waits: [Duration]) -> String {
            let sorted = waits.sorted()
            guard let last = sorted.last else { return "none" }
            let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            let over = sorted.filter { $0 > .seconds(1) }.count
            return "max \(last.formatted(.units(allowed: [.milliseconds]))), p99 \(p99.formatted(.units(allowed: [.milliseconds]))), over 1 s: \(over) of \(sorted.count)"
        }
        print("pool-probe: pool \(summary(pool)); main actor \(summary(main))")
    }
}
