import Foundation

/// What a session remembers of the local ids (`lid`) of the resources it created: the server's id for each, so that
/// a later write that still names a resource by its local id is sent with the id (``replacing(in:decoder:clears:)``,
/// applied where every request body is encoded).
///
/// - **Bounded.** At most ``limit`` local ids; past it the oldest are forgotten, and a write naming one is sent as
///   it was written (the server then says it does not know the local id).
/// - **Per user.** The map is emptied once the session's store has been cleared (``ResourceStore/clear()``, what an
///   app does when the account changes), so that one user's local id never becomes another user's resource.
final class LocalIDs: Sendable {
    /// A resource named by its local id.
    struct Key: Hashable, Sendable {
        var type: String
        var lid: String
    }

    private struct State {
        var ids: [Key: (id: String, tick: UInt64)] = [:]
        var order = UseOrder<Key>()
        var tick: UInt64 = 0
        /// The store's ``ResourceStore/clears`` when the ids were learned.
        var clears: UInt64 = 0

        /// Forgets every id when the store was cleared since they were learned.
        mutating func check(clears: UInt64) {
            guard clears != self.clears else { return }
            ids.removeAll()
            order.removeAll()
            self.clears = clears
        }
    }

    /// The most local ids remembered.
    let limit: Int
    private let state = LockedValue(State())

    /// Creates an empty map that remembers at most `limit` local ids.
    init(limit: Int = 10_000) { self.limit = limit }

    /// The server's id of the resource of `type` created with local id `lid`, or `nil`.
    func id(type: String, lid: String, clears: UInt64) -> String? {
        state.withLock { state in
            state.check(clears: clears)
            return state.ids[Key(type: type, lid: lid)]?.id
        }
    }

    /// Remembers the server's ids of resources created with local ids, the oldest going past ``limit``.
    func record(_ ids: [Key: String], clears: UInt64) {
        guard !ids.isEmpty else { return }
        state.withLock { state in
            state.check(clears: clears)
            for (key, id) in ids {
                state.tick += 1
                state.ids[key] = (id, state.tick)
                state.order.use(key, at: state.tick)
            }
            while state.ids.count > max(limit, 0) {
                let ids = state.ids
                guard let oldest = state.order.popOldest(isCurrent: { ids[$0]?.tick == $1 }) else { break }
                state.ids[oldest] = nil
            }
            let current = state.ids
            state.order.compact(live: current.count) { current[$0]?.tick == $1 }
        }
    }

    /// Forgets `keys`: a graph about to create new resources under local ids that named others before.
    func forget(_ keys: some Sequence<Key>) {
        state.withLock { state in
            for key in keys { state.ids[key] = nil }
        }
    }

    /// `body` with the server's id in place of every local id it remembers (see ``LocalIDReplacement``); `body`
    /// itself when it names none, which costs a byte search when the map is not empty and nothing when it is.
    ///
    /// - Parameters:
    ///   - body: An encoded request body.
    ///   - decoder: Reads the body.
    ///   - clears: The session's store's ``ResourceStore/clears`` (0 without a store).
    /// - Returns: The body to send.
    func replacing(in body: Data, decoder: JSONAPIDecoder, clears: @autoclosure () -> UInt64) -> Data {
        guard !state.withLock({ $0.ids.isEmpty }), body.range(of: Data(#""lid""#.utf8)) != nil else { return body }
        let clears = clears()
        let known = state.withLock { state -> [Key: (id: String, tick: UInt64)] in
            state.check(clears: clears)
            return state.ids
        }
        return LocalIDReplacement.replacing(in: body, decoder: decoder) { known[Key(type: $0, lid: $1)]?.id } ?? body
    }
}
