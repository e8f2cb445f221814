import Foundation

/// Whose data the store and the queue hold. A session that names its account (``Session/Configuration/account``)
/// owns every write and record by that account: credentials are only credentials, and a refreshed token sends what
/// an older one queued. A session that names none notes the credentials of every request its transport is given
/// for its own origin (as a keyed digest, never the values), mapped to the first credentials of their line
/// (``CredentialLineage``: a refresh made by a middleware keeps the line): a write queued offline belongs to the
/// credentials that made it and is never sent with another's, and the store's records go when other credentials
/// come (``ResourceStore/admit(_:)``).
extension Session {
    /// The credentials of the last request given to the transport, and the store's clear count then.
    struct SeenCredentials: Sendable {
        var digest: CredentialDigest
        var clears: UInt64
    }

    /// The key of the digests: the store's (its own when persisted, so that a queue read back after a restart
    /// compares with the same key), else the process's.
    var digestKey: DigestKey { lineage.key }

    /// Which credentials are one user's when no account is named: the store's record of them (kept in the
    /// account partition's database), else the session's own.
    var lineage: CredentialLineage { store?.lineage ?? ownLineage }

    /// The digest of the account signed in (under the store's key), when the app names one: the owner of every
    /// write, whatever credentials are sent.
    var accountDigest: CredentialDigest? { accounts.withLock { $0.digest } }

    /// Notes `request`'s credentials (their root under `lineage`, the session's when `nil`) as the account now
    /// signed in; without a named account, the store's records follow them (one event of the store's, which
    /// tells its clear count too).
    func noteCredentials(of request: HTTPRequest, lineage: CredentialLineage? = nil) {
        let root = (lineage ?? self.lineage).root(ofCredentialsIn: request.headerFields)
        let clears = accountDigest == nil ? store?.admit(root) : store?.clears
        let seen = SeenCredentials(digest: root, clears: clears ?? 0)
        lastCredentials.withLock { $0 = seen }
    }

    /// The account of the last request sent, unless the store was cleared since (the account changed, and who is
    /// signed in now is not known until the next request); `nil` before any request.
    var currentAccount: CredentialDigest? {
        if let account = accountDigest { return account }
        let clears = store?.clears ?? 0
        return lastCredentials.withLock { $0 }.flatMap { $0.clears == clears ? $0.digest : nil }
    }

    /// The transport, for `write`: sends the request only when it is sent as the account that made the write
    /// (`owner`; any when `nil`) — this session's named account, or else credentials of the same line.
    ///
    /// - Throws: ``JSONAPIClientError/Code/accountChanged`` when the request is another account's.
    func transport(for owner: CredentialDigest?, lineage: CredentialLineage? = nil)
        -> @Sendable (HTTPRequest) async throws -> HTTPResponse
    {
        { [client, lineage = lineage ?? self.lineage, accountDigest] request in
            let sender = accountDigest ?? lineage.root(ofCredentialsIn: request.headerFields)
            if let owner, owner != sender {
                throw JSONAPIClientError(
                    code: .accountChanged,
                    detail: "the write was queued by another account than the one signed in now; it stays queued",
                    method: request.method, url: request.url)
            }
            return try await client.send(request)
        }
    }
}
