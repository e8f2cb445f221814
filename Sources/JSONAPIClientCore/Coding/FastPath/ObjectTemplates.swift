/// Dictionaries for the objects of a document that repeat their keys in the same order — every article's
/// `attributes`, every comment's `relationships` — copied from one built before and filled in by position.
///
/// Building a `[String: JSONValue]` key by key hashes every key (SipHash, ~145 instructions) and probes for its
/// bucket. The first object of a shape is built that way; a template of it (the same keys, placeholder values) is
/// kept with where each key went. An object whose keys are the same texts in the same order then gets a copy of the
/// template with its values written into those buckets: no key is hashed, and none becomes a `String`.
///
/// A shape is only kept for an object of 1 to 16 distinct keys of up to 15 bytes without escapes, compared as their
/// packed bytes (``ShortStringTable/pack(_:_:_:)``), so equal words are equal keys. An object with a repeated key never
/// matches a shape (its keys cannot equal a shape's distinct keys position by position) and goes the usual way, in
/// which the last of the repeated keys wins.
final class ObjectTemplates<Value> {
    private struct Shape {
        /// The keys' packed bytes, in the document's order.
        var keys: [(UInt64, UInt64)]
        /// The keys with `placeholder` values.
        var template: [String: Value]
        /// Where each key is in `template`, in the order of `keys`.
        var slots: [Dictionary<String, Value>.Index]
    }

    /// At most this many shapes are kept per document: a document of many shapes still pays only a short search.
    private static var limit: Int { 16 }

    private var shapes: [Shape] = []
    private let placeholder: Value

    init(placeholder: Value) {
        self.placeholder = placeholder
    }

    /// The members of the object at `object`, each value read by `value` from its tape index, when the object has
    /// the shape of one seen before; `nil` otherwise.
    @inline(__always)
    func members<Failure: Error>(
        of object: Int, in tape: JSONTape, _ value: (Int) throws(Failure) -> Value
    ) throws(Failure) -> [String: Value]? {
        let count = tape.count(object)
        guard let shape = find(object, count: count, in: tape) else { return nil }
        var members = shapes[shape].template
        var child = object &+ 1
        for position in 0..<count {
            members.values[shapes[shape].slots[position]] = try value(child &+ 1)
            child = tape.skip(child &+ 1)
        }
        return members
    }

    /// Keeps the shape of the object at `object`, whose members are `members` (built key by key, with `key` giving
    /// each key's `String`), when it can be kept.
    func record(_ object: Int, members: [String: Value], in tape: JSONTape, key: (Int) -> String) {
        let count = tape.count(object)
        guard shapes.count < Self.limit, count > 0, count <= 16, members.count == count else { return }
        var keys: [(UInt64, UInt64)] = []
        keys.reserveCapacity(count)
        var child = object &+ 1
        for _ in 0..<count {
            guard let packed = Self.packed(child, in: tape) else { return }
            keys.append(packed)
            child = tape.skip(child &+ 1)
        }
        var template = members
        for slot in template.indices { template.values[slot] = placeholder }
        var slots: [Dictionary<String, Value>.Index] = []
        slots.reserveCapacity(count)
        child = object &+ 1
        for _ in 0..<count {
            guard let slot = template.index(forKey: key(child)) else { return }
            slots.append(slot)
            child = tape.skip(child &+ 1)
        }
        shapes.append(Shape(keys: keys, template: template, slots: slots))
    }

    /// The shape whose keys are the object's keys, in order.
    @inline(__always)
    private func find(_ object: Int, count: Int, in tape: JSONTape) -> Int? {
        candidates: for shape in shapes.indices where shapes[shape].keys.count == count {
            var child = object &+ 1
            for position in 0..<count {
                guard let packed = Self.packed(child, in: tape), packed == shapes[shape].keys[position] else {
                    continue candidates
                }
                child = tape.skip(child &+ 1)
            }
            return shape
        }
        return nil
    }

    /// The key at `index` packed into two words, when it has up to 15 bytes and no escapes.
    @inline(__always)
    private static func packed(_ index: Int, in tape: JSONTape) -> (UInt64, UInt64)? {
        let node = tape.nodes[index]
        let length = Int(node.length)
        guard length <= 15, node.flags & JSONTape.stringHasEscapes == 0 else { return nil }
        return tape.bytes.packed(at: Int(node.start), length: length)
    }
}
