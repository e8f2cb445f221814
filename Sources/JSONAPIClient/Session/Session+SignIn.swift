import Foundation

/// Switching accounts on one session. The session shows one account's data at a time — its store's records and
/// responses, its optimistic changes, its write queue, its local ids — and a switch parks the current account's and
/// shows the other's (ResourceStore+Accounts.swift): nothing crosses, and switching back finds everything where it
/// was, in memory and on disk.
extension Session {
    /// The account signed in, whose write queue is ``writeQueue``, and the queues of those signed out of.
    struct Accounts: Sendable {
        /// The account's name (``Configuration/account``, then the last ``signIn(account:)``); `nil` for none.
        var name: String?
        /// Its digest, the owner of its writes: under its database's key when persisted.
        var digest: CredentialDigest?
        var queue: WriteQueue
        /// The queues of the accounts signed out of, by partition, each still holding its writes.
        var parked: [String: WriteQueue] = [:]
    }

    /// A new write queue for `account`: kept in the account partition's database when the session's store is
    /// persisted (`persisted`), else in memory. When the database cannot be opened now the store stays in memory,
    /// but the queue tries again at each write and refuses an offline write it cannot keep (`storeNotSaved`): a
    /// write is never acknowledged as queued without being on disk.
    static func queue(for account: String?, configuration: Configuration, persisted: Bool) -> WriteQueue {
        WriteQueue(
            configuration: configuration.writeQueue, persistence: persisted ? configuration.store?.persistence : nil,
            partition: PartitionDatabase.partition(forAccount: account))
    }

    /// The account signed in now: ``Configuration/account`` until ``signIn(account:)`` or ``signOut(removingData:)``
    /// changes it; `nil` when the session names none.
    public var account: String? { accounts.withLock { $0.name } }

    /// Signs `account` in on this session, in place of the account signed in (or of none): from now on the store,
    /// the write queue and the live objects are `account`'s.
    ///
    /// What the previous account had — records, stored responses and their validators, optimistic changes, queued
    /// writes, local ids — is saved (with persistence) and set aside, and none of it is seen, answered or sent while
    /// another account is signed in; signing that account in again finds it where it was, in memory and on disk.
    /// `account`'s own data shows: what it left in this session, else what its database holds (read as asked),
    /// else nothing. Store observers are told that every record they saw went (``StoreChange/Kind/evicted``), and
    /// live objects drop what they show and load again as `account`. `account`'s write queue resumes: the writes it
    /// left waiting are sent as the network allows. A request or write sent before the switch
    /// still answers its caller, but its answer is not merged into `account`'s store.
    ///
    /// Name the account by a stable identifier such as the user's id, never a credential (see
    /// ``Configuration/account``). Switches run one at a time, in the order called. An account signed out of keeps
    /// its records in memory, as they were, until the session goes (or ``signOut(removingData:)`` removes them), so
    /// that switching back costs nothing; with persistence they are on disk too.
    ///
    /// ```swift
    /// try await api.signIn(account: user.id)      // after the user signs in, with the middleware's new token
    /// ```
    ///
    /// - Parameter account: The account signing in.
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when the previous account's changes could not be saved:
    ///   then nothing is switched.
    public func signIn(account: String) async throws(JSONAPIClientError) {
        store?.beginSwitch()
        try await switchAccount(to: account, removingData: false)
        await applyLiveNow()
    }

    /// Signs the account out: its data is saved and set aside (or removed, with `removingData`), and the session
    /// goes on with no account named, as a session made without one (its own store partition and queue).
    ///
    /// - Without `removingData`, the account's records, stored responses, optimistic changes and queued writes wait,
    ///   hidden, for its next ``signIn(account:)`` — in this session, or, with persistence, in any session of the
    ///   same directory. Its queued writes are not sent meanwhile.
    /// - With `removingData`, all of it goes: in memory, and with persistence its database and SQLite's files beside
    ///   it (``ResourceStore/Persistence/removeData(ofAccount:)``), queued writes included — they are never sent.
    ///
    /// A session that names no account cannot tell its user's data apart from the next one's: signing out empties
    /// its store (as ``ResourceStore/clear()``), and with `removingData` its write queue too
    /// (``WriteQueue/removeAll()``); without it, a queued write stays, sent only with the credentials that made it.
    ///
    /// ```swift
    /// try await api.signOut()                      // keep the data for the next sign-in
    /// try await api.signOut(removingData: true)    // "Remove this account from the device"
    /// ```
    ///
    /// - Parameter removingData: Whether to remove the account's data instead of keeping it.
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when the account's changes could not be saved (nothing
    ///   is switched), or its files could not be removed (the account is signed out all the same).
    public func signOut(removingData: Bool = false) async throws(JSONAPIClientError) {
        guard account != nil else {
            store?.clear()
            if removingData { _ = writeQueue.removeAll() }
            return
        }
        store?.beginSwitch()
        try await switchAccount(to: nil, removingData: removingData)
        await applyLiveNow()
    }

    /// Has the live objects drop what they showed of the account left before the switch returns, as a `clear()`
    /// on the main actor has them do (``ResourceStore/applyLiveNow()``): on the main actor, when any follows the
    /// store.
    private func applyLiveNow() async {
        guard let store, store.hasLiveFollowers else { return }
        await MainActor.run { store.applyLiveNow() }
    }

    /// Switches to `account` once the switches called before are done (each runs whole, whatever becomes of its
    /// caller's task); with `removingData`, then removes the data of the account switched from.
    private func switchAccount(to account: String?, removingData: Bool) async throws(JSONAPIClientError) {
        let task = switching.withLock { last -> Task<Result<Void, JSONAPIClientError>, Never> in
            let previous = last
            let task = Task { () -> Result<Void, JSONAPIClientError> in
                await previous?.value
                do throws(JSONAPIClientError) {
                    try await performSwitch(to: account, removingData: removingData)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            last = Task { _ = await task.value }
            return task
        }
        try await task.value.get()
    }

    /// The switch itself (see ``switchAccount(to:removingData:)``).
    private func performSwitch(to account: String?, removingData: Bool) async throws(JSONAPIClientError) {
        // Begun by signIn / signOut at their call; over once the session names the new account (its requests are
        // that account's again).
        defer { store?.endSwitch() }
        let left = self.account
        guard left != account else { return }
        // The account leaving: its queue's entries made durable, its store saved and parked.
        let leaving = writeQueue
        await leaving.flush()
        try await store?.switchAccount(to: account)
        let partition = PartitionDatabase.partition(forAccount: account)
        let parked = accounts.withLock { $0.parked.removeValue(forKey: partition) }
        let queue: WriteQueue
        if let parked {
            queue = parked
        } else {
            // A new queue reads its entries before it is the session's (a write enqueued on it meanwhile would be
            // replaced by the load), and off the cooperative pool: opening its database and reading its rows is
            // file work.
            let new = Self.queue(for: account, configuration: configuration, persisted: store != nil)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    new.attach(self)
                    continuation.resume()
                }
            }
            queue = new
        }
        accounts.withLock { accounts in
            accounts.parked[PartitionDatabase.partition(forAccount: left)] = accounts.queue
            accounts.name = account
            accounts.digest =
                store?.accountDigest ?? account.map { CredentialDigest(account: $0, key: .process) }
            accounts.queue = queue
        }
        lastCredentials.withLock { $0 = nil }
        if !queue.entries.isEmpty { queue.wake() }
        guard removingData else { return }
        try await removeData(of: left)
    }

    /// Removes the data of `account`, signed out of: its parked state and queue, and with persistence its files,
    /// once its store's writer and its queue have written what they were writing and closed their connections —
    /// SQLite's last connection to a file deletes its `-wal` and `-shm` by path when it closes, so one still open
    /// (the queue held by the app, a save in flight) would delete those of the database a sign-in to the same
    /// account makes next. (That sign-in waits for this switch: switches run one at a time.)
    private func removeData(of account: String?) async throws(JSONAPIClientError) {
        let partition = PartitionDatabase.partition(forAccount: account)
        let queue = accounts.withLock { $0.parked.removeValue(forKey: partition) }
        await queue?.close()
        let writer = store?.forgetParked(account: account)
        await writer?.close()
        guard let persistence = configuration.store?.persistence, store != nil else { return }
        try persistence.removeData(ofAccount: account)
    }
}
