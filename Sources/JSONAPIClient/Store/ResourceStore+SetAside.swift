import Foundation

/// Damage met after opening: a page of the database that does not read (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) on a
/// read or a save. Its writer sets the file aside whole, logged, and opens a new one (``StoreWriter/setAsideIfDamaged(for:)``);
/// the store then goes on empty, as a store that opened a damaged file does, and saves into the new file.
extension ResourceStore {
    /// Empties the store once `writer` set its damaged file aside — unless the store shows another partition now
    /// (switched away from it): what it held was read from, or saved to, the file set aside, and the new file holds
    /// none of it. Observers are told ``StoreChange/Kind/evicted`` and the clear count moves, as at ``clear()``, so
    /// live objects load again; nothing is left to save, and the new file's rows are read as asked.
    ///
    /// - Parameter writer: The writer that set its file aside.
    /// - Returns: Whether changes not saved yet were dropped with it (the next save says so).
    @discardableResult
    func startEmpty(after writer: StoreWriter) -> Bool {
        return commit(merging: false) { state, effects -> Bool in
            guard state.backing.writer === writer else { return false }
            let unsaved = state.records.unsaved.keys?.isEmpty == false || state.responses.unsaved.keys?.isEmpty == false
                || !state.waiting.bodies.isEmpty
            effects.changes += state.dropRecords()
            effects.cleared = true
            if state.backing.accountDigest == nil { state.owner = nil }
            state.responses.removeAll()
            if !state.ownerUnconfirmed { state.records.readDisk() }
            return unsaved
        }
    }
}
