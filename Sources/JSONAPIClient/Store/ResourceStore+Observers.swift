/// Observers of the store's changes, for the live objects and the streams: told after the store call that made a
/// change has returned, one batch at a time, in order (``commit(merging:_:)``).
extension ResourceStore {
    /// Calls `deliver` with each batch of changes to records of `type` (of every type when `nil`; of the record
    /// `id` alone when one is given) until ``removeObserver(_:)``: outside the store's lock, after the store call
    /// that made them has returned (on its thread, or on the thread telling the observers then), never while
    /// another batch is being told; with a batch a fetch's merge made, what the fetch decoded (``FetchedModels``).
    /// `deliver` may read the store: what that read changes is told after it returns.
    ///
    /// - Parameters:
    ///   - applyNow: A live object's: applies what waits for it at once, on the main actor, at the end of a clear
    ///     made there (``applyLiveNow()``).
    /// - Returns: The observer's number, to remove it with.
    func addObserver(
        type: String?, id: String? = nil, applyNow: (@Sendable () -> Void)? = nil,
        _ deliver: @escaping @Sendable ([StoreChange], FetchedModels?) -> Void
    ) -> UInt64 {
        withMergedState { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = Observer(type: type, id: id, deliver: deliver, applyNow: applyNow)
            return state.nextObserver
        }
    }

    /// How many times ``clear()`` has run: an ``StoreChange/Kind/evicted`` change seen after this count moved came
    /// from a clear (the account changed), not from the store making room.
    var clears: UInt64 { state.withLock { $0.clears } }

    /// The clear count, the count of switches of account, and whether one is under way (``State/switching``), read
    /// at once.
    var epoch: (clears: UInt64, switches: UInt64, switching: Bool) {
        state.withLock { ($0.clears, $0.switches, $0.switching > 0) }
    }

    /// Stops calling observer `number`.
    func removeObserver(_ number: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: number) }
    }

    /// The models of `Model`'s type with the ids `ids`, read in one walk and one decode (as ``resources(_:)``
    /// reads), by id; a record that does not make a model (a sparse fieldset left a member out) is left out, and
    /// so is an id the store has no record of.
    func resources<Model: Resource>(_ type: Model.Type, ids: [String]) -> [String: Model] {
        register(Model.self)
        let keys = ids.map { Key(type: Model.resourceType, id: $0) }
        guard let (primary, included) = call({ graph(from: keys) }) else { return [:] }
        var models: [String: Model] = [:]
        if let decoded = try? decoder.decode(Model.self, records: primary, included: included) {
            for model in decoded { if let id = model.id.resourceID { models[id] = model } }
            return models
        }
        // One record does not make a model: the others still do, one at a time.
        for id in ids { if let model = (try? resource(Model.self, id: id)) ?? nil { models[id] = model } }
        return models
    }

    /// The keys of the records each of `keys` reaches through relationship linkage in at most `depth` steps, as the
    /// store shows them (an identifier whose record the store does not hold yet included: when it arrives, a model
    /// may resolve it): what a live object's models are decoded from besides their own records.
    func linkedKeys(from keys: [Key], depth: Int) -> [Key: [Key]] {
        withMergedState { state in
            let layered = state.layeredKeys()
            var result: [Key: [Key]] = [:]
            result.reserveCapacity(keys.count)
            for key in keys {
                var seen: Set<Key> = [key]
                var frontier = [key]
                var reached: [Key] = []
                var step = 0
                while step < depth, !frontier.isEmpty {
                    step += 1
                    var next: [Key] = []
                    for from in frontier {
                        let record = layered.contains(from) ? state.visibleRecord(from) : state.records[from]?.stored
                        record?.forEachLinked { linked in
                            guard let (type, id) = linked.key else { return }
                            let to = Key(type: type, id: id)
                            if seen.insert(to).inserted { next.append(to) }
                        }
                    }
                    reached += next
                    frontier = next
                }
                result[key] = reached
            }
            return result
        }
    }
}

/// The public streams of changes.
extension ResourceStore {

    /// The changes to records of `Model`'s type, as they happen, from now until the stream is dropped.
    ///
    /// - Parameter type: The model whose records to observe.
    /// - Returns: A stream of the changes, one element per changed record.
    public func changes<Model: Resource>(of type: Model.Type) -> AsyncStream<StoreChange> {
        register(Model.self)
        // A batch of changes is added to the stream's feed at once, not yielded one by one (``ChangeFeed``).
        return ChangeFeed.stream { feed in
            let number = addObserver(type: Model.resourceType) { changes, _ in feed.add(changes) }
            return { [weak self] in self?.removeObserver(number) }
        }
    }

    /// The resource `id` of `Model`'s type now (`nil` when the store has no record of it, or the record does not
    /// make a `Model`), then again after each change to its record (`nil` once removed). A read a persisted store
    /// could not make (``JSONAPIClientError/Code/storeNotRead``) yields nothing: the record is not gone.
    ///
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - id: The resource's id.
    /// - Returns: A stream of the resource as it is now and after each change.
    public func updates<Model: Resource>(of type: Model.Type, id: String) -> AsyncStream<Model?> {
        register(Model.self)
        let stream = observe(type: Model.resourceType, id: id) { [weak self] _, continuation in
            do {
                continuation.yield(try self?.resource(Model.self, id: id))
            } catch let error as JSONAPIClientError where error.code == .storeNotRead {
                // Not read: nothing is told (it is not gone); the next change reads it again.
            } catch {
                continuation.yield(nil)
            }
        }
        return stream
    }

    /// A stream fed by `deliver`: once now, then with each batch of changes to the record `id` of `type`.
    private func observe<Element: Sendable>(
        type: String, id: String,
        _ deliver: @escaping @Sendable ([StoreChange], AsyncStream<Element>.Continuation) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let number = addObserver(type: type, id: id) { changes, _ in deliver(changes, continuation) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(number) }
        deliver([], continuation)
        return stream
    }
}
