/// The changes the store has made and not yet told its observers, in the order made, and whether a thread is telling
/// them now: a value kept under the store's lock beside the other parts.
///
/// A change is added under the same lock section as the change itself, so the order of the outbox is the order of
/// the store's state. One thread at a time takes them out and tells the observers (outside the lock); a change that
/// arises meanwhile — from any thread, or from an observer that reads the store — is added behind, and the thread
/// that tells takes it next. So observers are told one batch at a time, in order, and never from inside a store call
/// or another delivery.
struct Outbox {
    /// One batch of changes for the observers at the time it was made.
    struct Delivery {
        var observers: [ResourceStore.Observer]
        var changes: [StoreChange]
        var fetched: ResourceStore.FetchedModels?
        /// A clear (the account changed): the observers of every type are told even when no record went.
        var cleared: Bool
    }

    private var queue: [Delivery] = []
    /// The first delivery of `queue` not taken yet: the queue is emptied when all are taken, not shifted each time.
    private var head = 0
    /// Whether a thread is taking deliveries out and telling them.
    private(set) var delivering = false

    /// Whether no delivery waits.
    var isEmpty: Bool { head == queue.count }

    /// How many deliveries wait.
    var count: Int { queue.count - head }

    /// Adds a delivery behind those waiting.
    mutating func add(_ delivery: Delivery) {
        queue.append(delivery)
    }

    /// The first delivery waiting, for a thread that is not delivering yet: it is the one that delivers from now
    /// until ``next()`` gives `nil`. `nil` when nothing waits or another thread delivers (it takes them).
    mutating func claim() -> Delivery? {
        guard !delivering, !isEmpty else { return nil }
        delivering = true
        return take()
    }

    /// The next delivery waiting, for the thread that delivers; `nil` when none is left, and that thread delivers no
    /// more.
    mutating func next() -> Delivery? {
        guard !isEmpty else {
            delivering = false
            return nil
        }
        return take()
    }

    /// Forgets every delivery not taken yet (the store goes).
    mutating func removeAll() {
        queue = []
        head = 0
    }

    private mutating func take() -> Delivery {
        let delivery = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 64)
            head = 0
        }
        return delivery
    }
}
