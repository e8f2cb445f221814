/// Which value a kept container reads, apart from its key type: what ``DecodingContainerPool`` moves to point a container
/// at another value.
class ContainerCursor {
    let context: ResourceDecodingContext
    // Written only by `move(to:)`, which `DecodingContainerPool` calls when nothing but itself holds the container.
    // Exclusivity is checked here and in `ResourceCursor.members`: unchecked, neither saved a measurable instruction.
    private(set) final var index: Int

    init(context: ResourceDecodingContext, index: Int) {
        self.context = context
        self.index = index
    }

    /// Points the container at the object at `index`.
    final func move(to index: Int) {
        self.index = index
    }
}

/// The cursor of a ``ResourceContainer``: also where the resource's own members are.
class ResourceCursor: ContainerCursor {
    private(set) final var members: ResourceMembers

    init(context: ResourceDecodingContext, index: Int, members: ResourceMembers) {
        self.members = members
        super.init(context: context, index: index)
    }

    /// Points the container at the resource object at `index`, whose members are `members`.
    final func moveResource(to index: Int, members: ResourceMembers) {
        move(to: index)
        self.members = members
    }
}

/// Keyed containers for resources and plain objects, handed out again once nothing holds them: one per key type and
/// kind.
///
/// Each model's `init(from:)` asks for a container, and so does each nested object an attribute decodes into. A new
/// one costs about 1,000 instructions before anything is read (8 % of a typed decode): the standard library boxes
/// the ``ResourceContainer`` or ``ObjectContainer`` in a class, and the runtime looks up the generic metadata of both
/// (a hash lookup each), a witness table, and allocates. When the last user of a key type is done with its
/// container — its `init(from:)` returned — that container is pointed at the next value and handed out again.
///
/// A container is only handed out again when the box is *uniquely referenced* by this table: a model that keeps
/// its container (or is still decoding with it, as when a `Comment` decodes its parent `Comment`, or a tree node
/// its children) holds the box, so a new container is made and replaces it here.
///
/// This relies on `KeyedDecodingContainer` being a single reference to that box, as it is in every standard library
/// so far; it is checked (size, alignment and a non-trivial copy) before a container is kept, and none is kept
/// otherwise. The containers hold the context that holds this table: ``removeAll()`` breaks the cycle when the decode
/// ends.
struct DecodingContainerPool {
    private struct Spare {
        let key: ObjectIdentifier
        let isResource: Bool
        var box: AnyObject
        let cursor: ContainerCursor
    }

    private var spares: [Spare] = []
    /// Off once the decode has ended: a container made later (through a decoder a model kept) is not kept, or it
    /// would keep the context alive.
    private var isEnabled: Bool

    /// A pool; `isEnabled: false` keeps no container (the plain path).
    init(isEnabled: Bool = true) {
        self.isEnabled = isEnabled
    }

    // The slot is searched for inline in each function below, not in a helper: a non-mutating helper borrowed a copy
    // of `spares`, so the array was shared when a container was checked, and no box was ever uniquely referenced.

    /// A container for the resource object at `index` (which the caller has checked is an object).
    mutating func container<Key: CodingKey>(
        keyedBy type: Key.Type, at index: Int, members: ResourceMembers, context: ResourceDecodingContext
    ) -> KeyedDecodingContainer<Key> {
        let key = ObjectIdentifier(Key.self)
        var slot = 0
        while slot < spares.count, spares[slot].key != key || !spares[slot].isResource { slot &+= 1 }
        if slot < spares.count, isKnownUniquelyReferenced(&spares[slot].box) {
            // A resource slot's cursor is a `ResourceCursor` (`keep` stores it with `isResource`).
            unsafeDowncast(spares[slot].cursor, to: ResourceCursor.self).moveResource(to: index, members: members)
            return pooledContainer(spares[slot].box, as: KeyedDecodingContainer<Key>.self)
        }
        let cursor = ResourceContainer<Key>(context: context, index: index, members: members)
        let container = KeyedDecodingContainer(cursor)
        if isEnabled, isOneReference(KeyedDecodingContainer<Key>.self) {
            keep(pooledBox(of: container), key: key, cursor: cursor, isResource: true, in: slot)
        }
        return container
    }

    /// A container for the plain object at `index` (which the caller has checked is an object).
    mutating func objectContainer<Key: CodingKey>(
        keyedBy type: Key.Type, at index: Int, context: ResourceDecodingContext
    ) -> KeyedDecodingContainer<Key> {
        let key = ObjectIdentifier(Key.self)
        var slot = 0
        while slot < spares.count, spares[slot].key != key || spares[slot].isResource { slot &+= 1 }
        if slot < spares.count, isKnownUniquelyReferenced(&spares[slot].box) {
            spares[slot].cursor.move(to: index)
            return pooledContainer(spares[slot].box, as: KeyedDecodingContainer<Key>.self)
        }
        let cursor = ObjectContainer<Key>(context: context, index: index)
        let container = KeyedDecodingContainer(cursor)
        if isEnabled, isOneReference(KeyedDecodingContainer<Key>.self) {
            keep(pooledBox(of: container), key: key, cursor: cursor, isResource: false, in: slot)
        }
        return container
    }

    /// Lets go of every container, and keeps no more.
    mutating func removeAll() {
        isEnabled = false
        spares = []
    }

    /// Keeps `box`, a container for the key type `key` whose cursor is `cursor`, in `slot`.
    private mutating func keep(
        _ box: AnyObject, key: ObjectIdentifier, cursor: ContainerCursor, isResource: Bool, in slot: Int
    ) {
        let spare = Spare(key: key, isResource: isResource, box: box, cursor: cursor)
        if slot < spares.count { spares[slot] = spare } else { spares.append(spare) }
    }
}

/// With any value under this key in a coder's `userInfo`, no keyed container is handed out again: the plain path,
/// which is also what runs when ``isOneReference(_:)`` is false. (For tests; not public.)
let plainPathKey = CodingUserInfoKey(rawValue: "JSONAPIClientCore.plainPath")!  // a valid raw value: never nil

/// The box a keyed container is: the one strong reference it holds (``isOneReference(_:)`` has said so).
@inline(__always) func pooledBox<Container>(of container: Container) -> AnyObject {
    unsafeBitCast(container, to: AnyObject.self)
}

/// The keyed container that `box` (from ``pooledBox(of:)`` on a `Container`) is: the same reference, no retain or cast.
@inline(__always) func pooledContainer<Container>(_ box: AnyObject, as type: Container.Type) -> Container {
    unsafeBitCast(box, to: Container.self)
}

/// Whether `Container` is laid out as one strong reference: the size of one, and not copied as plain bytes. A keyed
/// container is kept (``DecodingContainerPool``, ``EncodingContainerPool``) only when it is.
func isOneReference<Container>(_ type: Container.Type) -> Bool {
    MemoryLayout<Container>.size == MemoryLayout<AnyObject>.size
        && MemoryLayout<Container>.alignment == MemoryLayout<AnyObject>.alignment && !_isPOD(Container.self)
}
