import JSONAPIClientCore

extension ResourceStore {
    /// The optimistic writes not settled yet, as layers over the server's records (``RecordTable``), and the
    /// declared inverse relationships: what the store shows of a record is ``visibleObject(_:in:)``.
    ///
    /// A value: ``ResourceStore`` holds one under its lock and is the only one to change it; tests make their own.
    /// It never changes the records: folding a confirmed layer into them is the store's (``State/foldConfirmed(_:)``).
    struct OptimisticOverlay {
        /// The layers per record, in the order their writes were made.
        private(set) var layers: [Key: [PendingLayer]] = [:]
        private var nextLayer: UInt64 = 0
        /// The inverse relationships the store keeps in step (``ResourceStore/register(_:)``).
        var inverses = InverseTable()

        /// Whether no write is pending.
        var isEmpty: Bool { layers.isEmpty }

        /// Adds a layer for a write of `kind` setting `object` on the record of `key`.
        ///
        /// - Returns: The layer's handle.
        mutating func add(_ kind: PendingKind, object: ResourceObject, for key: Key) -> PendingWrite {
            nextLayer += 1
            layers[key, default: []].append(PendingLayer(number: nextLayer, kind: kind, object: object))
            return PendingWrite(key: key, number: nextLayer, kind: kind)
        }

        /// Marks `write`'s layer confirmed, holding `answer` when there is one.
        ///
        /// - Returns: Whether the layer was there.
        mutating func confirm(_ write: PendingWrite, answer: ResourceObject?) -> Bool {
            guard let index = layers[write.key]?.firstIndex(where: { $0.number == write.number }) else { return false }
            layers[write.key]?[index].confirmed = true
            if let answer { layers[write.key]?[index].object = answer }
            return true
        }

        /// Removes `write`'s layer.
        ///
        /// - Returns: The members it set, or `nil` when it was gone already.
        mutating func drop(_ write: PendingWrite) -> ResourceObject? {
            guard let index = layers[write.key]?.firstIndex(where: { $0.number == write.number }) else { return nil }
            let undone = layers[write.key]?.remove(at: index).object
            if layers[write.key]?.isEmpty == true { layers[write.key] = nil }
            return undone
        }

        /// Takes the confirmed layers at the bottom of `key`'s stack, up to the first still waiting for its answer.
        mutating func takeConfirmedBottom(of key: Key) -> [PendingLayer] {
            guard var stack = layers[key] else { return [] }
            let count = stack.prefix { $0.confirmed }.count
            guard count > 0 else { return [] }
            let taken = Array(stack.prefix(count))
            stack.removeFirst(count)
            layers[key] = stack.isEmpty ? nil : stack
            return taken
        }

        /// Removes every layer (the inverse relationships stay declared).
        mutating func removeAll() {
            layers.removeAll()
        }

        /// The record of `key` as the store shows it: the server's record in `records` with the pending layers
        /// applied in order, and the other ends of declared inverse relationships that other records' pending layers
        /// move (an article created optimistically with an author shows in the author's `articles` at once). A
        /// pending update of a record the store does not have shows nothing (there is nothing to change).
        func visibleObject(_ key: Key, in records: RecordTable) -> ResourceObject? {
            guard !layers.isEmpty else { return records[key]?.object }
            let own = layeredObject(key, in: records)
            guard !inverses.isEmpty, var shown = own else { return own }
            for other in layers.keys.sorted(by: { ($0.type, $0.id) < ($1.type, $1.id) }) where other != key {
                for move in inverseMoves(of: other, from: records[other]?.object, to: layeredObject(other, in: records))
                where move.target == key {
                    if let relinked = Self.relinked(shown, move) { shown = relinked }
                }
            }
            return shown
        }

        /// ``visibleObject(_:in:)`` as a record: the stored one when no write is pending, else the object shown, in
        /// a tape of its own.
        func visibleRecord(_ key: Key, in records: RecordTable) -> ResourceRecord? {
            guard !layers.isEmpty else { return records[key]?.stored }
            return visibleObject(key, in: records).flatMap { try? ResourceRecord($0) }
        }

        /// The keys whose shown record is not the stored one: those with pending layers, and the records whose
        /// inverse relationships those layers move (``visibleObject(_:in:)`` of any other key is its stored record).
        /// Empty, and free, while no write is pending.
        func layeredKeys(in records: RecordTable) -> Set<Key> {
            guard !layers.isEmpty else { return [] }
            var keys = Set(layers.keys)
            guard !inverses.isEmpty else { return keys }
            for key in layers.keys { keys.formUnion(pendingInverseTargets(of: key, in: records)) }
            return keys
        }

        /// The records whose shown inverse relationships the pending layers of `key` move.
        func pendingInverseTargets(of key: Key, in records: RecordTable) -> [Key] {
            guard layers[key] != nil else { return [] }
            return inverseMoves(of: key, from: records[key]?.object, to: layeredObject(key, in: records)).map(\.target)
        }

        /// The record of `key` with its own pending layers applied in order.
        private func layeredObject(_ key: Key, in records: RecordTable) -> ResourceObject? {
            guard let stack = layers[key] else { return records[key]?.object }
            var object = records[key]?.object
            for layer in stack {
                switch layer.kind {
                case .delete:
                    object = nil
                case .update where !layer.confirmed:
                    object = object.map { ResourceStore.merged($0, with: layer.object) }
                case .create, .update:
                    object = object.map { ResourceStore.merged($0, with: layer.object) } ?? layer.object
                }
            }
            return object
        }

        /// The keys of the records of `type` that the store shows, records and pending creates alike.
        func visibleKeys(of type: String, in records: RecordTable) -> [Key] {
            var keys = records.keys.filter { $0.type == type }
            guard !layers.isEmpty else { return keys }
            keys += layers.keys.filter { $0.type == type && records[$0] == nil }
            return keys.filter { layers[$0] == nil || visibleObject($0, in: records) != nil }
        }

        /// The pending changes of `key`, or `nil` without layers.
        func pendingChanges(_ key: Key, in records: RecordTable) -> PendingChanges? {
            guard let stack = layers[key], !stack.isEmpty else { return nil }
            let server = records[key]?.object
            let local = visibleObject(key, in: records)
            var names = Set<String>()
            let attributeNames = Set((server?.attributes ?? [:]).keys).union((local?.attributes ?? [:]).keys)
            for name in attributeNames where server?.attributes?[name] != local?.attributes?[name] {
                names.insert(name)
            }
            let relationshipNames = Set((server?.relationships ?? [:]).keys).union((local?.relationships ?? [:]).keys)
            for name in relationshipNames where server?.relationships?[name]?.data != local?.relationships?[name]?.data {
                names.insert(name)
            }
            return PendingChanges(
                type: key.type, id: key.id, server: server, local: local, changedMembers: names.sorted(),
                writes: stack.filter { !$0.confirmed }.count)
        }

        /// One change to the other end of a pair: relationship `name` of the record of `target` gains (or loses)
        /// `member`.
        struct InverseMove {
            var target: Key
            var name: String
            var member: ResourceIdentifier
            var adding: Bool
        }

        /// What the change of record `key` from `old` to `new` does to the other ends of its declared pairs, in a
        /// stable order (removals first).
        func inverseMoves(of key: Key, from old: ResourceObject?, to new: ResourceObject?) -> [InverseMove] {
            guard !inverses.isEmpty else { return [] }
            var moves: [InverseMove] = []
            let names = Set((old?.relationships ?? [:]).keys).union((new?.relationships ?? [:]).keys)
            for name in names.sorted() {
                guard let ends = inverses.inverses(of: key.type, name) else { continue }
                let before = Self.targets(old?.relationships?[name])
                let after: Set<Key>
                if let new {
                    // A relationship sent without linkage leaves the record's as it was.
                    guard let relationship = new.relationships?[name], relationship.data != nil else { continue }
                    after = Self.targets(relationship)
                } else {
                    after = []
                }
                let me = ResourceIdentifier(type: key.type, id: key.id)
                for (targets, adding) in [(before.subtracting(after), false), (after.subtracting(before), true)] {
                    for target in targets.sorted(by: { ($0.type, $0.id) < ($1.type, $1.id) }) {
                        for end in ends.sorted(by: { $0.name < $1.name }) where end.type == target.type {
                            moves.append(InverseMove(target: target, name: end.name, member: me, adding: adding))
                        }
                    }
                }
            }
            return moves
        }

        /// The records a relationship's linkage names (identifiers without an `id` name none the store holds).
        private static func targets(_ relationship: Relationship?) -> Set<Key> {
            var keys = Set<Key>()
            for identifier in relationship?.data?.identifiers ?? [] {
                if let id = identifier.id { keys.insert(Key(type: identifier.type, id: id)) }
            }
            return keys
        }

        /// `object` with `move` applied: its relationship `move.name` gains (or loses) `move.member`; `nil` when that
        /// changes nothing, or the object does not know that relationship's linkage.
        static func relinked(_ object: ResourceObject, _ move: InverseMove) -> ResourceObject? {
            guard var relationship = object.relationships?[move.name], let linkage = relationship.data else { return nil }
            let member = move.member
            let isMember = { (identifier: ResourceIdentifier) in
                identifier.type == member.type && identifier.id == member.id
            }
            let relinked: Linkage
            switch linkage {
            case .toMany(let identifiers):
                if move.adding {
                    guard !identifiers.contains(where: isMember) else { return nil }
                    relinked = .toMany(identifiers + [member])
                } else {
                    guard identifiers.contains(where: isMember) else { return nil }
                    relinked = .toMany(identifiers.filter { !isMember($0) })
                }
            case .toOne(let identifier):
                if move.adding {
                    guard identifier.map(isMember) != true else { return nil }
                    relinked = .toOne(member)
                } else {
                    guard let identifier, isMember(identifier) else { return nil }
                    relinked = .toOne(nil)
                }
            }
            relationship.data = relinked
            var result = object
            result.relationships?[move.name] = relationship
            return result
        }
    }
}
