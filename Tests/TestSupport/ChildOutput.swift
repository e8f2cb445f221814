import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child process prints on its standard output, gathered as it comes by a loop of `poll` and `read` on a
/// thread of its own.
///
/// Never `FileHandle.readabilityHandler`: on Linux each handler is a libdispatch read source, and sources set up and
/// torn down at once by several tests (the kill and two-process tests run children side by side) leave a freed epoll
/// note that libdispatch's manager thread then reads. The whole test process died of it with signal 11 in
/// `_dispatch_event_loop_drain` (seen twice in full runs on the 2-core machine; swift-corelibs-libdispatch#949,
/// swift-corelibs-foundation#3276). A loop of its own registers nothing with libdispatch.
///
/// The loop stops at the end of the pipe, or once ``finish()`` was called and nothing more is waiting: a child
/// started meanwhile by another test may hold the pipe's write end, so its end may never come.
public final class ChildOutput: @unchecked Sendable {
    // @unchecked Sendable: `data` and `stopping` are touched only under `lock`; `pipe` is set once, in `init`.
    private let lock = NSLock()
    private var data = Data()
    private var stopping = false
    /// When to kill the child (``kill(_:after:of:pause:)``), and the lines counted for it so far.
    private var trigger: (pid: pid_t, word: String, count: Int, pause: Duration)?
    private var counted = 0
    private var countedUpTo = 0
    /// Whether the trigger killed the child.
    private var fired = false
    private let ended = DispatchSemaphore(value: 0)
    private let pipe = Pipe()

    /// Starts reading what `process` will print: its standard output is set to this object's pipe (before
    /// `process.run()`).
    public init(of process: Process) {
        process.standardOutput = pipe
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            gather(handle)
            ended.signal()
        }.start()
    }

    /// The reading loop: a `read` whenever `poll` says bytes wait, until the end of the pipe, an error, or a
    /// ``finish()`` with nothing waiting.
    private func gather(_ handle: FileHandle) {
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let ready = poll(&descriptor, 1, 20)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 {
                if lock.withLock({ stopping }) { return }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                let kill = lock.withLock { () -> (pid: pid_t, pause: Duration)? in
                    data.append(contentsOf: buffer[0..<count])
                    return dueKill()
                }
                if let kill { Self.signalKill(kill.pid, after: kill.pause) }
            } else if count == 0 || errno != EINTR {
                return  // the end of the pipe, or an error
            }
        }
    }

    /// Kills the child `process` with `SIGKILL` once it printed `count` complete lines that start with `word` and a
    /// space, `pause` after the last of them — from the reading thread, as the line arrives: a test's own task,
    /// waiting for the cooperative pool under a full run's load, let a child go on for hundreds of saves past the
    /// one it was to be killed after.
    public func kill(_ process: Process, after count: Int, of word: String, pause: Duration) {
        let due = lock.withLock { () -> (pid: pid_t, pause: Duration)? in
            trigger = (process.processIdentifier, word, count, pause)
            return dueKill()
        }
        if let due { Thread { Self.signalKill(due.pid, after: due.pause) }.start() }
    }

    /// Whether the trigger of ``kill(_:after:of:pause:)`` killed the child.
    public var killed: Bool { lock.withLock { fired } }

    /// The kill that is due now, once: the lines read since the last count counted. With `lock` held.
    private func dueKill() -> (pid: pid_t, pause: Duration)? {
        guard let trigger, !fired else { return nil }
        if let end = data.lastIndex(of: UInt8(ascii: "\n")), end >= countedUpTo {
            let prefix = Array((trigger.word + " ").utf8)
            for line in data[countedUpTo...end].split(separator: UInt8(ascii: "\n")) where line.starts(with: prefix) {
                counted += 1
            }
            countedUpTo = end + 1
        }
        guard counted >= trigger.count else { return nil }
        fired = true
        return (trigger.pid, trigger.pause)
    }

    /// `SIGKILL` to `pid`, `pause` from now.
    private static func signalKill(_ pid: pid_t, after pause: Duration) {
        let (seconds, attoseconds) = pause.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        sigkill(pid)
    }

    /// Stops reading once nothing more waits, and returns when the loop has ended, waiting on a thread of its own
    /// (``offPool(_:)``): call it after the child has exited, so that everything it printed is read.
    public func finish() async {
        lock.withLock { stopping = true }
        _ = try? await offPool { self.ended.wait() }
    }

    /// The numbers reported on complete lines that start with `word` and a space (`saved 12`, `queued 3`).
    public func numbers(after word: String) -> [Int] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // after the last newline: empty, or a line cut by a kill
        let prefix = word + " "
        return lines.compactMap { $0.hasPrefix(prefix) ? Int($0.dropFirst(prefix.count)) : nil }
    }

    /// The saves reported (`saved N` lines).
    public var saves: [Int] { numbers(after: "saved") }

    /// Everything read so far, as text.
    public var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// `kill(pid, SIGKILL)`, named apart from ``ChildOutput/kill(_:after:of:pause:)``.
private func sigkill(_ pid: pid_t) { _ = kill(pid, SIGKILL) }
