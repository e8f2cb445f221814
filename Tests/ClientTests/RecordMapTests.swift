import Foundation
import Testing
import TestSupport

@testable import JSONAPIClient

/// The identity map's storage (`ResourceStore.RecordMap`): keys and records side by side, found through an index
/// of their positions, against a `Dictionary` doing the same, with keys whose hashes collide.
@Suite("Record map")
struct RecordMapTests {
    typealias Key = ResourceStore.Key
    typealias Record = ResourceStore.Record

    /// A record told apart by its `lastUse`.
    static func record(_ mark: UInt64) throws -> Record {
        var record = try #require(Record(object: ResourceObject(type: "tags", id: "1"), lastUse: 0))
        record.lastUse = mark
        return record
    }

    /// The same keys and marks as `model`, each found, nothing else.
    static func expectSame(_ map: ResourceStore.RecordMap, _ model: [Key: UInt64]) {
        #expect(map.count == model.count)
        #expect(map.keys.count == map.records.count)
        #expect(Set(map.keys) == Set(model.keys))
        for (key, mark) in model { #expect(map[key]?.lastUse == mark) }
        for (position, key) in map.keys.enumerated() { #expect(map.position(of: key) == position) }
    }

    @Test("Empty: nothing found, nothing removed")
    func empty() throws {
        var map = ResourceStore.RecordMap()
        let key = Key(type: "tags", id: "1")
        #expect(map[key] == nil && map.position(of: key) == nil && map.count == 0)
        #expect(map.removeValue(forKey: key) == nil)
        map.removeAll()
        #expect(map.count == 0)
    }

    @Test("Placing, replacing and removing: the last record takes the place of one removed")
    func placeReplaceRemove() throws {
        var map = ResourceStore.RecordMap()
        let keys = (0..<3).map { Key(type: "tags", id: "\($0)") }
        for (mark, key) in keys.enumerated() { #expect(map.updateValue(try Self.record(UInt64(mark)), forKey: key) == nil) }
        #expect(map.updateValue(try Self.record(10), forKey: keys[1])?.lastUse == 1)
        #expect(map.keys == keys && map.records.map(\.lastUse) == [0, 10, 2])
        #expect(map.removeValue(forKey: keys[0])?.lastUse == 0)
        #expect(map.keys == [keys[2], keys[1]])  // the last moved into the first place
        Self.expectSame(map, [keys[1]: 10, keys[2]: 2])
        #expect(map.removeValue(forKey: keys[1])?.lastUse == 10)  // now the last: nothing moves
        #expect(map.removeValue(forKey: keys[1]) == nil)
        Self.expectSame(map, [keys[2]: 2])
        let position = try #require(map.position(of: keys[2]))
        map.modify(at: position) { $0.lastUse = 20 }
        Self.expectSame(map, [keys[2]: 20])
        map.removeAll()
        Self.expectSame(map, [:])
        map.updateValue(try Self.record(5), forKey: keys[0])
        Self.expectSame(map, [keys[0]: 5])
    }

    /// Keys that share a hash (so a home slot and a tag), that share a home slot with other tags, and whose home is
    /// the index's last slot (their runs wrap round to its first).
    static func crowdedKeys() -> [Key] {
        var keys: [Key] = []
        for id in 0..<12 { keys.append(Key(type: "same", id: "\(id)", hash: 7)) }
        for id in 0..<12 { keys.append(Key(type: "home", id: "\(id)", hash: id << 32 | 7)) }
        for id in 0..<12 { keys.append(Key(type: "wrap", id: "\(id)", hash: 15 | id << 40)) }
        for id in 0..<60 { keys.append(Key(type: "plain", id: "\(id)")) }
        return keys
    }

    @Test("Through the index's growth, one record at a time, up to and past each three-quarters mark")
    func growth() throws {
        var map = ResourceStore.RecordMap()
        var model: [Key: UInt64] = [:]
        for (mark, key) in Self.crowdedKeys().enumerated() {
            map.updateValue(try Self.record(UInt64(mark)), forKey: key)
            model[key] = UInt64(mark)
            Self.expectSame(map, model)
        }
    }

    @Test("The index grows once a record would pass three quarters of it, not before")
    func growsAtThreeQuarters() throws {
        var map = ResourceStore.RecordMap()
        let record = try Self.record(0)
        for id in 0..<13 {
            map.updateValue(record, forKey: Key(type: "tags", id: "\(id)"))
            // 6 of 8 slots, 12 of 16: full enough; one more doubles it.
            #expect(map.indexSize == (map.count <= 6 ? 8 : map.count <= 12 ? 16 : 32))
        }
        map.updateValue(try Self.record(1), forKey: Key(type: "tags", id: "0"))  // a replacement adds nothing
        #expect(map.count == 13 && map.indexSize == 32)
        for (adding, size) in [(0, 8), (6, 8), (7, 16), (12, 16), (13, 32)] {
            var empty = ResourceStore.RecordMap()
            empty.reserve(adding: adding)
            #expect(empty.indexSize == size, "room for \(adding)")
        }
    }

    @Test("Room made ahead keeps every record found", arguments: [0, 1, 5, 6, 7, 100])
    func reserve(adding: Int) throws {
        var map = ResourceStore.RecordMap()
        var model: [Key: UInt64] = [:]
        for (mark, key) in Self.crowdedKeys().prefix(20).enumerated() {
            map.updateValue(try Self.record(UInt64(mark)), forKey: key)
            model[key] = UInt64(mark)
        }
        map.reserve(adding: adding)
        Self.expectSame(map, model)
    }

    @Test("Random places, replacements and removals agree with a Dictionary, colliding hashes included")
    func againstDictionary() throws {
        var generator = SplitMix(seed: 0x5EED)
        let keys = Self.crowdedKeys()
        let records = try (0..<16).map { try Self.record(UInt64($0)) }
        var map = ResourceStore.RecordMap()
        var model: [Key: UInt64] = [:]
        for step in 0..<4_000 {
            let key = keys[Int(generator.next() % UInt64(keys.count))]
            switch generator.next() % 10 {
            case 0..<5:
                let mark = generator.next() % 16
                #expect(map.updateValue(records[Int(mark)], forKey: key)?.lastUse == model.updateValue(mark, forKey: key))
            case 5..<9:
                #expect(map.removeValue(forKey: key)?.lastUse == model.removeValue(forKey: key))
            default:
                if generator.next() % 50 == 0 {
                    map.removeAll()
                    model.removeAll()
                } else {
                    map.reserve(adding: Int(generator.next() % 40))
                }
            }
            #expect(map[key]?.lastUse == model[key])
            if step % 97 == 0 { Self.expectSame(map, model) }
        }
        Self.expectSame(map, model)
    }

}
