import Foundation
import Testing

@testable import JSONAPIClient

/// A record's key (`ResourceStore.Key`) hashes once, when made: equality must still be the strings', whatever the
/// hashes.
@Suite("Store keys")
struct StoreKeyTests {
    typealias Key = ResourceStore.Key

    @Test("Keys of the same type and id are equal and hash alike; another type or id is another key")
    func equality() {
        let key = Key(type: "articles", id: "1")
        #expect(key == Key(type: "articles", id: "1"))
        #expect(key.hashValue == Key(type: "articles", id: "1").hashValue)
        #expect(key != Key(type: "articles", id: "2"))
        #expect(key != Key(type: "people", id: "1"))
        // The boundary between type and id is part of the key.
        #expect(Key(type: "ab", id: "c") != Key(type: "a", id: "bc"))
        #expect(Set([Key(type: "ab", id: "c"), Key(type: "a", id: "bc")]).count == 2)
    }

    @Test("Empty types and ids are keys like any other")
    func empty() {
        #expect(Key(type: "", id: "") == Key(type: "", id: ""))
        #expect(Key(type: "", id: "") != Key(type: "", id: "x"))
        #expect(Key(type: "", id: "x") != Key(type: "x", id: ""))
        #expect(Set([Key(type: "", id: ""), Key(type: "", id: "x"), Key(type: "x", id: "")]).count == 3)
    }

    @Test("Keys with the same hash and other strings are not equal; with the same strings they are")
    func collidingHashes() {
        let one = Key(type: "articles", id: "1", hash: 42)
        let two = Key(type: "articles", id: "2", hash: 42)
        let other = Key(type: "people", id: "1", hash: 42)
        #expect(one != two && one != other && two != other)
        #expect(one == Key(type: "articles", id: "1", hash: 42))
        var table: [Key: Int] = [one: 1, two: 2, other: 3]
        #expect(table.count == 3)
        #expect(table[one] == 1 && table[two] == 2 && table[other] == 3)
        table[Key(type: "articles", id: "2", hash: 42)] = 20
        #expect(table.count == 3 && table[two] == 20)
    }

    @Test("Non-ASCII ids: equal as Swift strings (canonically equivalent) is one key; other text is another")
    func nonASCII() {
        let composed = Key(type: "people", id: "Jos\u{E9}")
        let decomposed = Key(type: "people", id: "Jose\u{301}")
        #expect(composed == decomposed)
        #expect(composed.hashValue == decomposed.hashValue)
        #expect(Set([composed, decomposed]).count == 1)
        #expect(Key(type: "people", id: "日本") == Key(type: "people", id: "日本"))
        #expect(Key(type: "people", id: "日本") != Key(type: "people", id: "日本語"))
        #expect(Key(type: "people", id: "🧑‍💻") != Key(type: "people", id: "🧑"))
        // Long enough not to be a small string.
        let long = String(repeating: "ü", count: 40)
        #expect(Key(type: "people", id: long) == Key(type: "people", id: String(repeating: "u\u{308}", count: 40)))
    }

    @Test("A table's hash of a key: equal keys alike under every seed; one key differently under each seed")
    func seededHash() {
        let composed = Key(type: "people", id: "Jos\u{E9}")
        let decomposed = Key(type: "people", id: "Jose\u{301}")
        let spread: [Int] = (2..<200).map { $0 &* 0x9E37_79B9 }
        let seeds: [Int] = [0, 1, -1, 42, Int.max, Int.min] + spread
        for seed in seeds {
            #expect(composed._rawHashValue(seed: seed) == decomposed._rawHashValue(seed: seed))
            #expect(Key(type: "a", id: "1")._rawHashValue(seed: seed) == Key(type: "a", id: "1")._rawHashValue(seed: seed))
        }
        // The mix is a bijection of `hash ^ seed`: distinct seeds never give one key the same table hash.
        #expect(Set(seeds.map { composed._rawHashValue(seed: $0) }).count == seeds.count)
        // Keys with one hash and other strings hash alike (their table tells them apart by `==`).
        #expect(Key(type: "a", id: "1", hash: 7)._rawHashValue(seed: 3) == Key(type: "b", id: "2", hash: 7)._rawHashValue(seed: 3))
    }

    @Test("A table of many keys finds each by a key made again, through its growth")
    func manyKeys() {
        var table: [Key: Int] = [:]
        for number in 0..<5_000 { table[Key(type: number.isMultiple(of: 2) ? "a" : "b", id: String(number))] = number }
        #expect(table.count == 5_000)
        for number in 0..<5_000 {
            #expect(table[Key(type: number.isMultiple(of: 2) ? "a" : "b", id: String(number))] == number)
        }
        #expect(table[Key(type: "b", id: "0")] == nil)
    }
}
