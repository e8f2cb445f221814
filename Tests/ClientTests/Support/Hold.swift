/// A place a test holds a request until it lets it go: the holder waits there (``pass()``), the test learns that it
/// arrived (``waitForArrival()``) and releases it (``letGo()``).
final class Hold: Sendable {
    private let arrived = AsyncStream<Void>.makeStream()
    private let release = AsyncStream<Void>.makeStream()

    /// Returns once a request arrived at the hold.
    func waitForArrival() async { for await _ in arrived.stream { return } }

    /// Lets the request held go on.
    func letGo() { release.continuation.yield() }

    /// Tells that a request arrived, and waits until it is let go.
    func pass() async {
        arrived.continuation.yield()
        for await _ in release.stream { break }
    }
}
