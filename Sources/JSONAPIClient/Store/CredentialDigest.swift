import Foundation

/// A keyed digest of the header values that tell two callers apart (credentials, the values a response varies on),
/// so that the store and the coalescing of requests can key by them without keeping them.
///
/// It is two 64-bit SipHash-1-3 values (Swift's `Hasher`, itself seeded at random per process) of the values, each
/// preceded by 128 random bits of its own drawn once per process, so the digest stays keyed even where
/// `SWIFT_DETERMINISTIC_HASHING` fixes `Hasher`'s seed. That is enough here because the digest never leaves the
/// process (the store is in memory) and is only ever compared with another digest of this process: two different
/// credentials collide with a chance of about 2⁻¹²⁸, nobody outside the process knows the key to aim for a
/// collision, and a digest alone cannot be checked against guessed credentials without the key (read from the same
/// memory dump, it can: a keyed hash hides a low-entropy secret only as well as the key is hidden). A store kept
/// across launches would need a key kept with it, or a real MAC.
struct CredentialDigest: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt64
    private let low: UInt64

    /// The fields whose values say who is asking: never sent to another origin (Session+Sending.swift), and the
    /// partition of every stored response.
    static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    private static let keys: (UInt64, UInt64, UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next(), generator.next(), generator.next())
    }()

    /// The digest of the values of `names` in `fields`, name by name, in the order given (the values of a repeated
    /// name in their order). A field that is absent and one that is present but empty digest differently.
    init(of fields: HTTPFields, names: [HTTPField.Name]) {
        let keys = Self.keys
        var high = Hasher()
        var low = Hasher()
        high.combine(keys.0)
        high.combine(keys.1)
        low.combine(keys.2)
        low.combine(keys.3)
        func feed(_ hasher: inout Hasher, _ name: HTTPField.Name, _ values: [String]) {
            hasher.combine(name.canonicalName)
            hasher.combine(values.count)
            for value in values { hasher.combine(value) }
        }
        for name in names {
            let values = fields.values(for: name)
            feed(&high, name, values)
            feed(&low, name, values)
        }
        self.high = UInt64(bitPattern: Int64(high.finalize()))
        self.low = UInt64(bitPattern: Int64(low.finalize()))
    }

    /// The digest of the credentials `fields` carry (`Authorization`, `Proxy-Authorization`, `Cookie`).
    init(credentialsOf fields: HTTPFields) {
        self.init(of: fields, names: Self.credentialFields)
    }

    /// The two halves in hexadecimal, for keys and debugging (never the credentials).
    var description: String { String(high, radix: 16) + ":" + String(low, radix: 16) }
}
