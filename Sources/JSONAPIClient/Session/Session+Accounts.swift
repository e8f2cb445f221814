import Foundation

/// Whose writes the queue holds: the session notes the credentials of every request its transport is given (as a
/// keyed digest, never the values), so that a write queued offline belongs to the account that made it and is never
/// sent with another account's credentials.
extension Session {
    /// The credentials of the last request given to the transport, and the store's clear count then.
    struct SeenCredentials: Sendable {
        var digest: CredentialDigest
        var clears: UInt64
    }

    /// The key of the digests: the store's (its own when persisted, so that a queue read back after a restart
    /// compares with the same key), else the process's.
    var digestKey: DigestKey { store?.digestKey ?? .process }

    /// Notes `request`'s credentials as the account now signed in.
    func noteCredentials(of request: HTTPRequest) {
        let seen = SeenCredentials(
            digest: CredentialDigest(credentialsOf: request.headerFields, key: digestKey), clears: store?.clears ?? 0)
        lastCredentials.withLock { $0 = seen }
    }

    /// The account of the last request sent, unless the store was cleared since (the account changed, and who is
    /// signed in now is not known until the next request); `nil` before any request.
    var currentAccount: CredentialDigest? {
        let clears = store?.clears ?? 0
        return lastCredentials.withLock { $0 }.flatMap { $0.clears == clears ? $0.digest : nil }
    }

    /// The transport, for `write`: sends the request only when its credentials are the account's that made the write
    /// (`owner`; any when `nil`).
    ///
    /// - Throws: ``JSONAPIClientError/Code/accountChanged`` when another account's credentials are on the request.
    func transport(for owner: CredentialDigest?) -> @Sendable (HTTPRequest) async throws -> HTTPResponse {
        { [client, digestKey] request in
            if let owner, owner != CredentialDigest(credentialsOf: request.headerFields, key: digestKey) {
                throw JSONAPIClientError(
                    code: .accountChanged,
                    detail: "the write was queued by another account than the one signed in now; it stays queued",
                    method: request.method, url: request.url)
            }
            return try await client.send(request)
        }
    }
}
