// What the killed children share (main.swift, QueueChild.swift): a file of its own, so that its globals are
// made when first used, not in main.swift's order.

/// How many saves or writes a killing child makes at most, then waits to be killed. Its parent kills it after a
/// few (0 to 4 saves, or 1 to 3 writes, and a pause), from the thread that reads its output
/// (`ChildOutput.kill(_:after:of:pause:)`): a bound should that ever lag. An unbounded child, killed from a
/// test's task kept from the cooperative pool for seconds under a full run's load, queued 8,752 writes, and
/// replaying them made the queue's kill test most of the run (167 s in CI).
let childLimit = 400

/// Waits until the parent's `SIGKILL`: a child that exited on its own would fail the kill tests.
func waitToBeKilled() async -> Never {
    while true { try? await Task.sleep(for: .seconds(3600)) }
}
