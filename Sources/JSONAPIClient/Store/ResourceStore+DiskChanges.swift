import Foundation

/// What another connection saved since the store opened — another process (an app extension), or another store on
/// the same directory — read when the store first needs it: a stored response the store does not hold is looked up
/// on disk once the database changed since the store read its responses (`PRAGMA data_version`, which costs no
/// page read), and a record read before without a row is read again (``forgetReadsIfChanged(_:)``).
extension ResourceStore {
    /// Places the stored response under `key` from the database when the store holds none and another connection
    /// committed since the store opened: its row, its body left unread as at open. Nothing in memory only, after
    /// ``clear()`` or before the records' owner is known (the store reads nothing of the database then), for a key
    /// whose response the store removed and has not saved yet, or while a save is being written (its deletions are
    /// not committed yet); a row read while a save was written is not placed.
    ///
    /// - Parameter key: The key of the response asked for.
    func placeResponseFromDisk(_ key: ResponseKey) {
        guard let writer else { return }
        let asked = state.withLock { state -> (epoch: UInt64, saves: UInt64)? in
            guard state.records.readsDisk, state.responses[key] == nil,
                state.responses.unsaved.keys?.contains(key) != true
            else { return nil }
            let saves = writer.saves
            return saves.writing ? nil : (state.clears, saves.written)
        }
        guard let asked else { return }
        let response: StoredResponse?
        do throws(SQLiteError) {
            response = try writer.storedResponse(for: key)
        } catch {
            writer.persistence.log("JSONAPIClient store: could not read a stored response (\(error)); it is fetched")
            writer.setAsideIfDamaged(for: self)
            return
        }
        guard let response else { return }
        let limit = configuration.maxResponseBytes
        commit(merging: false) { state, _ in
            let saves = writer.saves
            guard state.clears == asked.epoch, !saves.writing, saves.written == asked.saves, state.responses[key] == nil,
                state.responses.unsaved.keys?.contains(key) != true
            else { return }
            state.clock = state.responses.load([(key, response)], from: state.tick(), limit: limit) - 1
        }
    }
}
