/// Which capture a kept ``ResourceEncodingContainer`` writes into, apart from its key type: what
/// ``EncodingContainerPool`` moves to point a container at another model's capture.
class EncodingCursor {
    let context: ResourceEncodingContext
    // Exclusivity: written only by `EncodingContainerPool`, when nothing but itself holds the container, so no
    // write through the container can be under way. Checked, it costs `encode-document` 0.8 M instructions (1 %).
    @exclusivity(unchecked) final var capture: ResourceCapture

    init(context: ResourceEncodingContext, capture: ResourceCapture) {
        self.context = context
        self.capture = capture
    }
}

/// Keyed encoding containers for models, handed out again once nothing holds them: one per key type, as
/// ``DecodingContainerPool`` does for decoding (the same ~1,000 instructions a model: a box, two metadata lookups, an
/// allocation).
///
/// A kept container must not keep its model's capture: the context reuses a capture only when nothing else holds
/// it. So when a model's `encode(to:)` returns, ``release(_:)`` points the containers nothing else holds that still
/// write into that capture at an empty one. A model that keeps its container holds the box, so its container keeps
/// its capture, which is then not reused, as before.
///
/// The same single-reference layout of `KeyedEncodingContainer` is checked before any container is kept. The
/// containers hold the context that holds this table: ``removeAll()`` breaks the cycle when the encode ends.
struct EncodingContainerPool {
    private struct Spare {
        let key: ObjectIdentifier
        var box: AnyObject
        let cursor: EncodingCursor
    }

    private var spares: [Spare] = []
    /// Off once the encode has ended: a container made later (through an encoder a model kept) is not kept.
    private var isEnabled: Bool

    /// A pool; `isEnabled: false` keeps no container (the plain path).
    init(isEnabled: Bool = true) {
        self.isEnabled = isEnabled
    }

    // The slot is searched for inline, not in a non-mutating helper: that borrowed a copy of `spares`, so the array
    // was shared when a box was checked, and no box was ever uniquely referenced.

    /// A container writing into `capture`.
    mutating func container<Key: CodingKey>(
        keyedBy type: Key.Type, capture: ResourceCapture, context: ResourceEncodingContext
    ) -> KeyedEncodingContainer<Key> {
        let key = ObjectIdentifier(Key.self)
        var slot = 0
        while slot < spares.count, spares[slot].key != key { slot &+= 1 }
        if slot < spares.count, isKnownUniquelyReferenced(&spares[slot].box) {
            spares[slot].cursor.capture = capture
            return pooledContainer(spares[slot].box, as: KeyedEncodingContainer<Key>.self)
        }
        let cursor = ResourceEncodingContainer<Key>(context: context, capture: capture)
        let container = KeyedEncodingContainer(cursor)
        if isEnabled, isOneReference(KeyedEncodingContainer<Key>.self) {
            let spare = Spare(key: key, box: pooledBox(of: container), cursor: cursor)
            if slot < spares.count { spares[slot] = spare } else { spares.append(spare) }
        }
        return container
    }

    /// Points every container nothing else holds that writes into `capture` at `empty`: its model is done.
    mutating func release(_ capture: ResourceCapture, pointingAt empty: ResourceCapture) {
        var slot = 0
        while slot < spares.count {
            if spares[slot].cursor.capture === capture, isKnownUniquelyReferenced(&spares[slot].box) {
                spares[slot].cursor.capture = empty
            }
            slot &+= 1
        }
    }

    /// Lets go of every container, and keeps no more.
    mutating func removeAll() {
        isEnabled = false
        spares = []
    }
}
