import Foundation

/// Which credentials are one user's, for a session that names no account (``Session/Configuration/account``): a
/// credential that a middleware got by refreshing another (``MiddlewareContext/noteRenewal(from:to:)``, as
/// ``BearerTokenMiddleware`` does after a 401) is the same user's, so it maps to the digest of the first credentials
/// of that line (its *root*). The store's partitions, its records' owner and the write queue's owners are roots: a
/// refresh the library made changes nothing of what is answered or sent. Any other change of credentials is another
/// root, and so another user.
///
/// A persisted store keeps the newest ``maxAliases`` renewals in its database (`meta`), so that a relaunch with the
/// refreshed token finds what the older one stored and queued. Older ones are forgotten: a token that old is not
/// sent again.
final class CredentialLineage: Sendable {
    /// The digests' key: the store's, so that roots read back from its database compare.
    let key: DigestKey
    /// The renewals known, oldest first: each credentials' digest and its root.
    private let aliases: LockedValue<[Alias]>
    /// Told of the aliases after each renewal (the store's writer keeps them); `nil` in memory only.
    private let keep: (@Sendable ([Alias]) -> Void)?

    /// One renewal: `digest` is the same user's as `root`.
    struct Alias: Hashable, Sendable {
        var digest: CredentialDigest
        var root: CredentialDigest
    }

    /// The most renewals kept (one an hour for a day and more).
    static let maxAliases = 32

    /// A lineage with the renewals `aliases` (read back from a database), under `key`.
    ///
    /// - Parameters:
    ///   - key: The key the digests are made under.
    ///   - aliases: The renewals known, oldest first.
    ///   - keep: Told of the aliases after each renewal.
    init(key: DigestKey, aliases: [Alias] = [], keep: (@Sendable ([Alias]) -> Void)? = nil) {
        self.key = key
        self.aliases = LockedValue(Array(aliases.suffix(Self.maxAliases)))
        self.keep = keep
    }

    /// The root of `digest`: the first credentials of its line, or `digest` itself when it was never a renewal.
    func root(of digest: CredentialDigest) -> CredentialDigest {
        aliases.withLock { aliases in aliases.last { $0.digest == digest }?.root } ?? digest
    }

    /// The root of the credentials `fields` carry.
    func root(ofCredentialsIn fields: HTTPFields) -> CredentialDigest {
        root(of: CredentialDigest(credentialsOf: fields, key: key))
    }

    /// Notes that `renewed`'s credentials replace `rejected`'s for the same user. Nothing when they are the same.
    func noteRenewal(from rejected: HTTPFields, to renewed: HTTPFields) {
        let old = CredentialDigest(credentialsOf: rejected, key: key)
        let new = CredentialDigest(credentialsOf: renewed, key: key)
        guard old != new else { return }
        let kept = aliases.withLock { aliases -> [Alias]? in
            let root = aliases.last { $0.digest == old }?.root ?? old
            guard root != new else { return nil }  // back to the root's own credentials: nothing to map
            guard !aliases.contains(Alias(digest: new, root: root)) else { return nil }
            aliases.removeAll { $0.digest == new }
            aliases.append(Alias(digest: new, root: root))
            if aliases.count > Self.maxAliases { aliases.removeFirst(aliases.count - Self.maxAliases) }
            return aliases
        }
        if let kept { keep?(kept) }
    }

    /// The renewals known, oldest first.
    var known: [Alias] { aliases.withLock { $0 } }

    // MARK: Persisting

    /// The `meta` row of a persisted store's renewals.
    static let metaRow = "credential renewals"

    /// `aliases` as the `meta` row holds them: 32 bytes each, digest then root, each half big-endian.
    static func bytes(of aliases: [Alias]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(aliases.count * 32)
        for alias in aliases {
            for word in [alias.digest.high, alias.digest.low, alias.root.high, alias.root.low] {
                withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
            }
        }
        return Data(bytes)
    }

    /// The renewals ``bytes(of:)`` wrote; `[]` for bytes that are not a whole number of them.
    static func aliases(from data: Data) -> [Alias] {
        let bytes = [UInt8](data)
        guard bytes.count % 32 == 0 else { return [] }
        func word(_ at: Int) -> UInt64 { bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        return stride(from: 0, to: bytes.count, by: 32).map { at in
            Alias(
                digest: CredentialDigest(high: word(at), low: word(at + 8)),
                root: CredentialDigest(high: word(at + 16), low: word(at + 24)))
        }
    }
}
