/// The models a typed decode keeps, by resource (its tape index) and model type: what a resource that relationships
/// reach more than once decoded to, or the error its decoding threw.
///
/// A document's people may be named by thousands of relationships, so finding a kept model is on the hot path: an
/// open-addressing table with an integer hash, and each model in a box of its own type, which is read back with no
/// dynamic cast. (A `[key: Any]` dictionary cost ~1,100 instructions a hit: SipHash of the key, a dynamic cast, and
/// the metadata of `Optional<T>`, which the runtime looks up in a hash map.)
struct SharedModelTable {
    /// What the table holds for a resource and a model type. (Not generic: a generic enum or optional of the model
    /// type would cost a metadata lookup on every call.)
    enum Kept {
        case none
        /// Not retained (``owners`` holds it): a shared person is read thousands of times, and retaining its box
        /// each time writes to memory scattered over the heap (4.3 % of a typed decode at N = 100,000 in a sampling
        /// profile; 0.2 M instructions at N = 1,000, where only 100 people are shared).
        case model(Unmanaged<AnyObject>)
        case failure(any Error)
    }

    private struct Entry {
        /// The resource's tape index; `-1` for an empty slot.
        var index: Int
        var type: ObjectIdentifier
        var kept: Kept
    }

    /// A model of type `T`; only ever stored under `T`'s identifier, which is what lets ``model(_:as:)`` downcast
    /// unchecked.
    private final class Box<T> {
        let value: T
        init(_ value: T) { self.value = value }
    }

    private var entries: [Entry] = []
    private var count = 0
    /// The boxes the entries point to.
    private var owners: [AnyObject] = []

    /// What is kept for the resource at `index` as a `T`: ``Kept/model(_:)`` (read it with ``model(_:as:)``), the
    /// error decoding it threw, or ``Kept/none``.
    func kept<T>(_ type: T.Type, at index: Int) -> Kept {
        guard let slot = find(index, ObjectIdentifier(T.self)) else { return .none }
        return entries[slot].kept
    }

    /// The model in `object`, which ``kept(_:at:)`` returned for the same `T`.
    ///
    /// Read unretained (a guaranteed reference; `owners` keeps the box alive): retaining it on every read cost
    /// 0.2 M instructions at N = 1,000 and 4.3 % of the time at N = 100,000 (README, invariant 6).
    static func model<T>(_ object: Unmanaged<AnyObject>, as type: T.Type) -> T {
        object._withUnsafeGuaranteedRef { unsafeDowncast($0, to: Box<T>.self).value }
    }

    /// Keeps `model` as what the resource at `index` decodes to as a `T`.
    mutating func keep<T>(_ model: T, at index: Int) {
        let box = Box(model)
        owners.append(box)
        insert(index, ObjectIdentifier(T.self), .model(Unmanaged.passUnretained(box)))
    }

    /// Keeps `error` as what decoding the resource at `index` as a `T` throws.
    mutating func keepFailure<T>(_ error: any Error, as type: T.Type, at index: Int) {
        insert(index, ObjectIdentifier(T.self), .failure(error))
    }

    /// The slot of `(index, type)`, or `nil` when the table does not hold it.
    private func find(_ index: Int, _ type: ObjectIdentifier) -> Int? {
        guard !entries.isEmpty else { return nil }
        let mask = entries.count &- 1
        var slot = Self.hash(index) & mask
        while true {
            let entry = entries[slot]
            if entry.index == index, entry.type == type { return slot }
            if entry.index < 0 { return nil }
            slot = (slot &+ 1) & mask
        }
    }

    private mutating func insert(_ index: Int, _ type: ObjectIdentifier, _ kept: Kept) {
        // At most half full, so that a probe soon ends at an empty slot.
        if (count &+ 1) &* 2 > entries.count { grow() }
        let mask = entries.count &- 1
        var slot = Self.hash(index) & mask
        while entries[slot].index >= 0, entries[slot].index != index || entries[slot].type != type {
            slot = (slot &+ 1) & mask
        }
        if entries[slot].index < 0 { count &+= 1 }
        entries[slot] = Entry(index: index, type: type, kept: kept)
    }

    private mutating func grow() {
        let old = entries
        let empty = Entry(index: -1, type: ObjectIdentifier(Kept.self), kept: .none)
        entries = Array(repeating: empty, count: Swift.max(16, old.count &* 2))
        count = 0
        for entry in old where entry.index >= 0 { insert(entry.index, entry.type, entry.kept) }
    }

    /// Fibonacci hashing: the tape indices of neighbouring resources differ in their low bits only.
    private static func hash(_ index: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }
}
