import Foundation

/// Who is signed in: the token a session's `BearerTokenMiddleware` sends, changed by the test to sign out and in.
final class Account: @unchecked Sendable {
    private let lock = NSLock()
    private var current: String?

    init(_ token: String? = nil) { current = token }

    var token: String? {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
