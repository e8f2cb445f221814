import Foundation
import JSONAPIClientCore

/// The last typed decode of a body the store answered with, per primary data type: a read the store answers again
/// with the same body gets the same document without parsing and decoding it again (`store-hit`: a `cacheFirst`
/// read of a stored resource spent a third of its instructions decoding the stored body each time).
///
/// A decode is taken again only for the very body it was made from — the same bytes in the same storage, which the
/// entry holds, so no other body can take its place (``ResourceStore/same(_:_:)``) — with the same reading of
/// resource meta, and while the store has not been cleared or changed owner since (its ``ResourceStore/clears``):
/// another account's document is never given, and is let go at the next decode remembered. The session's decoder
/// never changes, so the same body decodes to the same document. At most one entry per primary data type is kept.
final class StoredDecodes: Sendable {
    private struct Entry: @unchecked Sendable {
        // Unchecked: `document` is a `Document<Primary>`, which is `Sendable` (its `Primary` is): kept as `Any` so
        // that one table holds every type's.
        var body: Data
        var resourceMeta: Bool
        var clears: UInt64
        var document: Any
        var outline: PrimaryDataOutline
    }

    private let entries = LockedValue<[ObjectIdentifier: Entry]>([:])

    /// The document and outline decoded from `body` as `Primary` before, when it may be given again.
    func decoded<Primary: Decodable & Sendable>(
        _ type: Primary.Type, from body: Data, resourceMeta: Bool, clears: UInt64
    ) -> (Document<Primary>, PrimaryDataOutline)? {
        guard let entry = entries.withLock({ $0[ObjectIdentifier(Primary.self)] }), entry.clears == clears,
            entry.resourceMeta == resourceMeta, ResourceStore.same(entry.body, body),
            let document = entry.document as? Document<Primary>
        else { return nil }
        return (document, entry.outline)
    }

    /// Remembers what `body` decoded to as `Primary`, in place of the type's last; forgets the entries of another
    /// `clears`.
    func remember<Primary: Decodable & Sendable>(
        _ document: Document<Primary>, outline: PrimaryDataOutline, from body: Data, resourceMeta: Bool,
        clears: UInt64
    ) {
        let entry = Entry(body: body, resourceMeta: resourceMeta, clears: clears, document: document, outline: outline)
        entries.withLock { entries in
            entries = entries.filter { $0.value.clears == clears }
            entries[ObjectIdentifier(Primary.self)] = entry
        }
    }
}
