import Foundation

/// What another connection saved since the store opened — another process (an app extension), or another store on
/// the same directory — read when the store first needs it: a stored response the store does not hold is looked up
/// on disk once the database changed since the store read its responses (`PRAGMA data_version`, which costs no
/// page read), and a record read before without a row is read again (``forgetReadsIfChanged(_:)``). A record the
/// store holds follows another process's save within about a second (``recordsSavedElsewhere(_:by:)``).
extension ResourceStore {
    /// Records another process saved (``StoreWriter/poolFileChangedElsewhere(_:)``, about a second after its
    /// commit): each one the store holds, with no change of its own waiting to be saved, is merged as a response's
    /// resources are, and the observers are told — so live objects follow an app extension's saves. Nothing is
    /// saved for them (they are on disk). Nothing for a key with a change waiting (this store's next save writes it,
    /// and the later commit wins on disk, as between any two processes), for one the store does not hold (read when
    /// asked), nor once the store shows another partition than `writer`'s or reads no rows (cleared, its owner not
    /// confirmed yet).
    ///
    /// - Parameters:
    ///   - records: The rows saved since the last look, as records.
    ///   - writer: The writer that read them.
    func recordsSavedElsewhere(_ records: ResourceRecords, by writer: StoreWriter) {
        call {
            commit { state, effects in
                guard state.backing.writer === writer, state.records.readsDisk else { return }
                let unsaved = state.records.unsaved.keys ?? []
                var taken: [Key] = []
                var objects: [ResourceObject] = []
                for entry in records.resources {
                    let key = Key(type: entry.type, id: entry.id)
                    guard state.records.byKey[key] != nil, !unsaved.contains(key) else { continue }
                    taken.append(key)
                    objects.append(entry.record(in: records).resourceObject())
                }
                guard !taken.isEmpty else { return }
                effects.changes += merge(objects, into: &state)
                // Not saved back: the row is the other process's save (what the store kept beside it, members the
                // row lacks, is written with the record's next change).
                for key in taken { state.records.unsaved.remove(key) }
            }
        }
    }

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
