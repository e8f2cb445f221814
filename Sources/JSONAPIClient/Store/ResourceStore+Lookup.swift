import Foundation

/// A `GET`'s way through the store, in as few lock sections as it can: the store's epoch and partition read once as
/// the request is made (``made()``), then — once the middleware has added its credentials — one event that notes
/// them and finds the stored response (``lookUp(_:made:owner:)``), then one for the answer
/// (``responseArrived(_:for:key:requestTime:responseTime:epoch:listing:awaitsDecode:made:)``). A store hit takes
/// the first two; a response from the network all three. A persisted store reads the database between them when
/// it must (a response another process saved, a body not read since the store opened), in sections of its own.
extension ResourceStore {
    /// The store as a request is made, before the middleware adds its credentials: its clear count, its count of
    /// switches of account, whether one is under way, and the partition shown (whose key, account and lineage the
    /// request's key is made with; valid while the switch count stays).
    struct Made: Sendable {
        var clears: UInt64
        var switches: UInt64
        var switching: Bool
        var backing: Backing
    }

    /// The store as a request is made: one lock section.
    func made() -> Made {
        state.withLock { Made(clears: $0.clears, switches: $0.switches, switching: $0.switching > 0, backing: $0.backing) }
    }

    /// What the store has for a request.
    enum Lookup {
        /// The request may be another account's (a switch was under way, or happened, since it was made; or, in a
        /// session that names its account, a clear): nothing of the store answers it, keeps or merges its answer.
        /// With the clear count then.
        case bypass(clears: UInt64)
        /// The request's key, the clear count its answer is kept under, and the stored response that may answer or
        /// validate it, when there is one.
        case through(key: ResponseKey, epoch: UInt64, stored: StoredResponse?)

        /// The store's clear count in the lookup's section, once the credentials were noted.
        var clears: UInt64 {
            switch self {
            case .bypass(let clears): clears
            case .through(_, let epoch, _): epoch
            }
        }
    }

    /// One event for a request about to be answered: notes its credentials' root as the records' owner (`owner`,
    /// in a session that names no account: ``admit(_:)``), tells whether the store may be used for it (see
    /// ``Lookup/bypass``), and finds the stored response it may be answered or validated with, marking it used —
    /// fetched with the same credentials, URL and `Accept`, and with the same values of the header fields its
    /// `Vary` names.
    ///
    /// A persisted store then reads the database, outside the lock, when the response is not held (another
    /// connection may have saved it) or its body was not read yet: ``storedResponse(for:key:epoch:)``.
    func lookUp(_ request: HTTPRequest, made: Made, owner: CredentialDigest?) -> Lookup {
        let backing = made.backing
        let key = responseKey(for: request, in: backing)
        let named = backing.accountDigest != nil
        let (lookup, noted) = commit(merging: false) { state, effects -> (Lookup, OwnerNoted) in
            let noted = owner.map { admit($0, in: &state, effects: &effects) } ?? OwnerNoted()
            // The count as this commit leaves it: another owner's credentials clear the records (counted at the
            // commit's end).
            let clears = state.clears &+ (effects.cleared ? 1 : 0)
            guard !made.switching, state.switching == 0, state.switches == made.switches,
                !named || clears == made.clears
            else { return (.bypass(clears: clears), noted) }
            let epoch = clears
            guard let stored = state.responses[key],
                stored.varyNames.isEmpty
                    || CredentialDigest(of: request.headerFields, names: stored.varyNames, key: backing.digestKey)
                        == stored.varyDigest
            else { return (.through(key: key, epoch: epoch, stored: nil), noted) }
            return (.through(key: key, epoch: epoch, stored: state.responses.use(key, at: state.tick())), noted)
        }
        noted.save()
        guard backing.writer != nil, case .through(let key, let epoch, let stored) = lookup,
            stored.map({ $0.unreadBody != nil }) ?? true
        else { return lookup }
        return .through(key: key, epoch: epoch, stored: storedResponse(for: request, key: key, epoch: epoch))
    }
}
