import Foundation

/// A keyed digest of the header values that tell two callers apart (credentials, the values a response varies on),
/// so that the store and the coalescing of requests can key by them without keeping them.
///
/// It is two SipHash-2-4 values (a pseudorandom function, usable as a MAC: Aumasson and Bernstein, 2012) of the
/// values, under the two 128-bit halves of a 256-bit ``DigestKey``. Two different credentials collide with a chance
/// of about 2⁻¹²⁸; without the key nobody can aim for a collision, nor check a digest against guessed credentials.
/// An in-memory store uses a key drawn at random once per process (``DigestKey/process``); a store kept on disk
/// keeps a key of its own in a file of its directory that only the app can read (`StoreDirectory`), so that its
/// partitions read back after a restart. The digest is written to disk; the credentials never are.
struct CredentialDigest: Hashable, Sendable, CustomStringConvertible {
    let high: UInt64
    let low: UInt64

    /// The fields whose values say who is asking: never sent to another origin (Session+Sending.swift), and the
    /// partition of every stored response.
    static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    /// A digest from its two halves (as read back from a store file).
    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The digest of the values of `names` in `fields`, name by name, in the order given (the values of a repeated
    /// name in their order), under `key`. A field that is absent and one that is present but empty digest
    /// differently: every name and value is preceded by its length.
    init(of fields: HTTPFields, names: [HTTPField.Name], key: DigestKey = .process) {
        var message: [UInt8] = []
        message.reserveCapacity(names.count * 48)  // the credentials' names and counts without growing
        func append(_ value: Int) {
            message.appendLittleEndian(UInt64(truncatingIfNeeded: value))
        }
        for name in names {
            let values = fields.values(for: name)
            let canonical = name.canonicalName.utf8
            append(canonical.count)
            message.append(contentsOf: canonical)
            append(values.count)
            for value in values {
                append(value.utf8.count)
                message.append(contentsOf: value.utf8)
            }
        }
        high = SipHash.hash(message, k0: key.k0, k1: key.k1)
        low = SipHash.hash(message, k0: key.k2, k1: key.k3)
    }

    /// The digest of the credentials `fields` carry (`Authorization`, `Proxy-Authorization`, `Cookie`).
    init(credentialsOf fields: HTTPFields, key: DigestKey = .process) {
        self.init(of: fields, names: Self.credentialFields, key: key)
    }

    /// The digest of the credentials `fields` carry and of credential query items (named by
    /// ``ResourceStore/Configuration/credentialQueryItems``), in their order. With no items, the digest of the
    /// fields alone; a prefix of its own keeps the items apart from any header field.
    init(credentialsOf fields: HTTPFields, queryItems: [(name: String, value: String?)], key: DigestKey = .process) {
        guard !queryItems.isEmpty else {
            self.init(credentialsOf: fields, key: key)
            return
        }
        let headers = CredentialDigest(credentialsOf: fields, key: key)
        var message = Array("JSONAPIClient query credentials".utf8)
        message.appendLittleEndian(headers.high)
        message.appendLittleEndian(headers.low)
        for (name, value) in queryItems {
            message.appendLittleEndian(UInt64(truncatingIfNeeded: name.utf8.count))
            message.append(contentsOf: name.utf8)
            // An item without `=` and one with an empty value differ.
            message.appendLittleEndian(value.map { UInt64(truncatingIfNeeded: $0.utf8.count) } ?? .max)
            message.append(contentsOf: (value ?? "").utf8)
        }
        self.init(high: SipHash.hash(message, k0: key.k0, k1: key.k1), low: SipHash.hash(message, k0: key.k2, k1: key.k3))
    }

    /// The digest of an account's identifier (``Session/Configuration/account``), under `key`: what a session that
    /// names its account partitions its stored responses and queued writes by, whatever credentials it sends. A
    /// prefix of its own keeps it apart from every digest of header fields.
    init(account: String, key: DigestKey) {
        var message = Array("JSONAPIClient account".utf8)
        message.appendLittleEndian(UInt64(truncatingIfNeeded: account.utf8.count))
        message.append(contentsOf: account.utf8)
        high = SipHash.hash(message, k0: key.k0, k1: key.k1)
        low = SipHash.hash(message, k0: key.k2, k1: key.k3)
    }

    /// The two halves in hexadecimal, for keys and debugging (never the credentials).
    var description: String { String(high, radix: 16) + ":" + String(low, radix: 16) }

    /// The digest ``description`` wrote; `nil` for any other text.
    init?(_ text: String) {
        let halves = text.split(separator: ":", omittingEmptySubsequences: false)
        guard halves.count == 2, let high = UInt64(halves[0], radix: 16), let low = UInt64(halves[1], radix: 16) else {
            return nil
        }
        self.init(high: high, low: low)
    }
}

/// The 256-bit key of ``CredentialDigest``: four 64-bit words, two per half of the digest.
struct DigestKey: Hashable, Sendable {
    var k0: UInt64
    var k1: UInt64
    var k2: UInt64
    var k3: UInt64

    /// The key of the stores this process keeps in memory only: drawn at random once per process.
    static let process = random()

    /// A key drawn from the system's random number generator.
    static func random() -> DigestKey {
        var generator = SystemRandomNumberGenerator()
        return DigestKey(k0: generator.next(), k1: generator.next(), k2: generator.next(), k3: generator.next())
    }

    /// The key as 32 bytes, little-endian words in order (the key file's content).
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        for word in [k0, k1, k2, k3] { bytes.appendLittleEndian(word) }
        return bytes
    }

    /// The key `bytes` hold, or `nil` unless they are exactly 32.
    init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        func word(_ index: Int) -> UInt64 {
            bytes[index * 8..<index * 8 + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        self.init(k0: word(0), k1: word(1), k2: word(2), k3: word(3))
    }

    init(k0: UInt64, k1: UInt64, k2: UInt64, k3: UInt64) {
        self.k0 = k0
        self.k1 = k1
        self.k2 = k2
        self.k3 = k3
    }

    /// A value that tells whether a store file was written under this key, without revealing the key: the
    /// digest of nothing.
    var check: CredentialDigest { CredentialDigest(of: HTTPFields(), names: [], key: self) }
}

/// SipHash-2-4 with a 64-bit output (the reference algorithm; checked against its published test vectors).
enum SipHash {
    /// The SipHash-2-4 of `message` under the 128-bit key `k0`, `k1` (little-endian words, as the reference reads
    /// its 16 key bytes).
    static func hash(_ message: [UInt8], k0: UInt64, k1: UInt64) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        func round() {
            v0 &+= v1
            v1 = v1 << 13 | v1 >> 51
            v1 ^= v0
            v0 = v0 << 32 | v0 >> 32
            v2 &+= v3
            v3 = v3 << 16 | v3 >> 48
            v3 ^= v2
            v0 &+= v3
            v3 = v3 << 21 | v3 >> 43
            v3 ^= v0
            v2 &+= v1
            v1 = v1 << 17 | v1 >> 47
            v1 ^= v2
            v2 = v2 << 32 | v2 >> 32
        }
        let whole = message.count - message.count % 8
        var index = 0
        while index < whole {
            var word: UInt64 = 0
            for offset in 0..<8 { word |= UInt64(message[index + offset]) << (8 * offset) }
            v3 ^= word
            round()
            round()
            v0 ^= word
            index += 8
        }
        var last = UInt64(truncatingIfNeeded: message.count) << 56
        for offset in 0..<(message.count - whole) { last |= UInt64(message[whole + offset]) << (8 * offset) }
        v3 ^= last
        round()
        round()
        v0 ^= last
        v2 ^= 0xff
        for _ in 0..<4 { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }
}
