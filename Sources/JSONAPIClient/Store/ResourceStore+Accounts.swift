import Foundation

/// One store, one account at a time: ``Session/signIn(account:)`` and ``Session/signOut(removingData:)`` switch the
/// store to another account's partition (``switchAccount(to:)``). What the store showed is parked — its state as it
/// was, its database open — and the other account's shown: its parked state when it was signed in before in this
/// process, else its database (read as asked, as at launch), else nothing. Observers stay, are told that every
/// record they saw went (``StoreChange/Kind/evicted``), and the clear count moves, so live objects load again as the
/// new account and an answer to a request sent before the switch is not merged after it.
extension ResourceStore {
    /// What the store keeps of one account partition besides its state: the database's writer and key, the
    /// account's digest under that key, and the credentials' lineage kept in that database.
    struct Backing: Sendable {
        /// The partition's name (``PartitionDatabase/partition(forAccount:)``), and the account it is of.
        var partition: String
        var account: String?
        var writer: StoreWriter?
        var digestKey: DigestKey
        var accountDigest: CredentialDigest?
        var lineage: CredentialLineage
    }

    /// Opens `account`'s partition: its database when the store is persisted (made when missing; `nil` writer when
    /// it cannot be opened: logged, the store stays in memory for it), its key, lineage and records' owner.
    ///
    /// - Returns: The backing, the stored responses the database holds (`nil` in memory), and the records' owner.
    static func open(
        account: String?, configuration: Configuration, failed: (SQLiteError) -> Void = { _ in }
    ) -> (Backing, RowCodec.Contents?, CredentialDigest?) {
        let partition = PartitionDatabase.partition(forAccount: account)
        let opened = configuration.persistence.flatMap {
            StoreWriter.open(
                $0, partition: partition, maxRecords: configuration.maxResources, failed: failed)
        }
        let key = opened?.key ?? .process
        let writer = opened?.writer
        let accountDigest = account.map { CredentialDigest(account: $0, key: key) }
        let renewals = writer?.meta(CredentialLineage.metaRow)?.blob.map(CredentialLineage.aliases(from:)) ?? []
        var keep: (@Sendable ([CredentialLineage.Alias]) -> Void)?
        if let writer {
            keep = { aliases in writer.setMeta(CredentialLineage.metaRow, .blob(CredentialLineage.bytes(of: aliases))) }
        }
        let backing = Backing(
            partition: partition, account: account, writer: writer, digestKey: key, accountDigest: accountDigest,
            lineage: CredentialLineage(key: key, aliases: renewals, keep: keep))
        let owner = accountDigest ?? writer?.meta(ownerRow)?.text.flatMap(CredentialDigest.init)
        return (backing, opened?.contents, owner)
    }

    /// The state of a partition just opened: its stored responses (`contents`; `nil` in memory) and its records'
    /// owner. The records on disk are read as asked — when `waitsForOwner` (a session's partition of no account)
    /// and they have an owner, only once a request shows the owner's credentials (``admit(_:)``): until then
    /// nobody is known to be signed in, and the last user's records are not shown to whoever it is.
    static func opened(
        _ contents: RowCodec.Contents?, backing: Backing, owner: CredentialDigest?, waitsForOwner: Bool, limit: Int
    ) -> State {
        var state = State(backing: backing)
        state.owner = owner
        guard let contents else { return state }
        state.ownerUnconfirmed = waitsForOwner && owner != nil
        load(contents, into: &state, limit: limit)
        return state
    }

    /// The partition the store shows now.
    var partition: String { state.withLock { $0.backing.partition } }

    /// Shows `account`'s data (`nil`: the partition of a session that names no account) in place of the current
    /// account's, which is parked: its changes are saved first (with persistence), and it is shown again as it was
    /// when switched back to. Nothing when `account` is shown already.
    ///
    /// Opening another account's database is done off the caller's thread.
    ///
    /// - Parameter account: The account to show.
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when the current account's changes could not be saved:
    ///   nothing is switched.
    func switchAccount(to account: String?) async throws(JSONAPIClientError) {
        let partition = PartitionDatabase.partition(forAccount: account)
        guard partition != self.partition else { return }
        try await flush()
        let target: State
        if let parked = parked.withLock({ $0.removeValue(forKey: partition) }) {
            target = parked
        } else {
            let configuration = configuration
            // Handed over through a lock, not as the continuation's value: what the queue made (the lineage's
            // storage, the writer's connections) is then published by a lock the thread sanitizer sees.
            let opened = LockedValue<(Backing, RowCodec.Contents?, CredentialDigest?)?>(nil)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    let made = Self.open(account: account, configuration: configuration)
                    opened.withLock { $0 = made }
                    continuation.resume()
                }
            }
            guard let (backing, contents, owner) = opened.withLock({ $0 }) else {
                // Not reached: the queue sets it before it resumes. Nothing is switched.
                throw JSONAPIClientError(code: .storeNotSaved, detail: "the account's partition was not opened")
            }
            target = Self.opened(
                contents, backing: backing, owner: owner, waitsForOwner: account == nil,
                limit: configuration.maxResponseBytes)
            backing.writer?.follow(self)
        }
        let (left, unsaved) = commit(merging: false) { state, effects -> (Backing, Unsaved) in
            var old = state
            let unsaved = old.takeUnsaved()
            effects.changes += state.dropRecords()  // what the observers saw go
            effects.cleared = true  // counts the clear
            old.switching = 0
            var shown = target
            shown.switching = state.switching
            shown.observers = state.observers
            shown.nextObserver = state.nextObserver
            shown.clears = state.clears
            shown.switches = state.switches &+ 1
            shown.recordsUsed = shown.recordsUsed || state.recordsUsed
            old.observers = [:]
            old.outbox.removeAll()
            shown.outbox = state.outbox
            state = shown
            parked.withLock { $0[old.backing.partition] = old }
            return (old.backing, unsaved)
        }
        left.writer?.saveRemaining(unsaved)  // what changed between the flush and the switch
        saveLeftOut()
    }

    /// Notes that a switch of account begins (``Session/signIn(account:)``, ``Session/signOut(removingData:)``, at
    /// their call, before anything suspends): until its ``endSwitch()``, a request answered reads, keeps and merges
    /// nothing of the store — the app may hold the new account's credentials already while the old account is
    /// shown, or the old ones once the new account is. (A request sent before is not merged after the switch
    /// either: the switch moves the clear count.)
    func beginSwitch() {
        commit(merging: false) { state, _ in state.switching += 1 }
    }

    /// Notes that a switch of account begun by ``beginSwitch()`` is over (done, failed or not needed).
    func endSwitch() {
        commit(merging: false) { state, _ in state.switching = max(state.switching - 1, 0) }
    }

    /// Forgets a parked account — its state, and its database's connections once nothing else holds them — so that
    /// its files can be removed.
    ///
    /// - Parameter account: The account.
    /// - Returns: Its writer, to wait for what it still writes; `nil` when it was not parked or kept in memory.
    @discardableResult
    func forgetParked(account: String?) -> StoreWriter? {
        parked.withLock { $0.removeValue(forKey: PartitionDatabase.partition(forAccount: account)) }?.backing.writer
    }
}
