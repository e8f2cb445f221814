import Foundation
import Testing

@testable import JSONAPIClient

/// The write queue's logic as a value: events in, actions out, no session, transport or file.
@Suite("Write queue state machine")
struct WriteQueueStateMachineTests {
    typealias Machine = WriteQueue.StateMachine

    static let url = URL(string: "https://api.example.com/memos/1")!

    static func entry(_ kind: ResourceStore.PendingKind = .update, sent: Bool = false, clientID: Bool = false)
        -> WriteQueue.Entry
    {
        var entry = WriteQueue.Entry(
            method: kind == .create ? .post : kind == .delete ? .delete : .patch, url: url, type: "memos",
            resourceID: "1", body: nil, headerFields: [:], kind: kind, clientGeneratedID: clientID)
        entry.sent = sent
        return entry
    }

    static func error(_ status: Int, retryAfter: String? = nil) -> JSONAPIClientError {
        var error = JSONAPIClientError(code: .errorResponse, detail: "status \(status)")
        error.status = HTTPResponse.Status(code: status)
        if let retryAfter { error.responseHeaders = ["Retry-After": retryAfter] }
        return error
    }

    static let unreachable = JSONAPIClientError(code: .transportFailed, detail: "offline")

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func configuration(
        retries: Int = 5, maxServerErrors: Int = 5, maxAttempts: Int = 10, maxRetryAfter: Duration = .seconds(86_400)
    ) -> WriteQueue.Configuration {
        WriteQueue.Configuration(
            retriesPerReplay: retries, maxServerErrors: maxServerErrors, maxAttempts: maxAttempts,
            maxRetryAfter: maxRetryAfter, now: { now })
    }

    /// A machine holding `entry`, durable, with a replay started and the entry taken to send.
    static func sending(_ entry: WriteQueue.Entry) -> (Machine, WriteQueue.Entry) {
        var machine = Machine()
        _ = machine.enqueued(entry, layer: nil)
        machine.saved(entry.id)
        let started = machine.startReplay()
        #expect(started)
        guard case .send(let sent, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) else {
            Issue.record("nothing to send")
            return (machine, entry)
        }
        return (machine, sent)
    }

    static func outcomes(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap {
            switch $0 {
            case .emit(let event): "\(event.outcome)"
            case .reject: "reject"
            case .confirm: "confirm"
            case .discard: "discard"
            case .persist: nil
            }
        }
    }

    @Test("An entry is not sent before it is durable, nor once it could not be saved")
    func unsavedNotSent() {
        var machine = Machine()
        let entry = Self.entry()
        let snapshot = machine.enqueued(entry, layer: nil)
        #expect(snapshot.version == 1 && snapshot.changes == [.insert(entry)])
        let startedUnsaved = machine.startReplay()
        #expect(!machine.canReplay && !startedUnsaved)
        let (_, without) = machine.notSaved(entry.id)
        #expect(without.version == 2 && without.changes == [.delete(id: entry.id)] && !machine.isWaiting)
        _ = machine.enqueued(entry, layer: nil)
        machine.saved(entry.id)
        #expect(machine.canReplay)
        let first = machine.startReplay()
        let second = machine.startReplay()
        #expect(first && !machine.canReplay && !second)  // one replay at a time
    }

    @Test("The first send marks the entry sent and saves that before it goes; a later send saves nothing")
    func sentBeforeItGoes() {
        var machine = Machine()
        let entry = Self.entry()
        _ = machine.enqueued(entry, layer: nil)
        machine.saved(entry.id)
        _ = machine.startReplay()
        guard case .send(let sent, _, let persist?) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("no save"); return }
        guard case .update(let marked)? = persist.changes.first else { Issue.record("no update"); return }
        #expect(!sent.sent && persist.changes.count == 1 && marked.sent && machine.sending == entry.id)
        #expect(machine.entries.first?.sent == true)
        let (_, then) = machine.attemptFinished(sent, .failed(Self.unreachable), configuration: Self.configuration())
        #expect(then == .wait(.seconds(1)))
        guard case .send(_, _, nil) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("saved again"); return }
    }

    @Test("429 and 503 with Retry-After wait as long as it says, and are not counted as failures")
    func retryAfter() {
        let configuration = Self.configuration(maxServerErrors: 1, maxAttempts: 1)
        for (status, value, wait) in [
            (429, "1", Duration.seconds(1)), (503, "3600", .seconds(3600)), (429, "0", .zero),
            (503, " 2 ", .seconds(2)),
        ] {
            var (machine, sent) = Self.sending(Self.entry(sent: true))
            let (actions, then) = machine.attemptFinished(sent, .failed(Self.error(status, retryAfter: value)), configuration: configuration)
            #expect(then == .wait(wait), "\(status) \(value): \(then)")
            #expect(Self.outcomes(actions).first?.hasPrefix("willRetry") == true)
            #expect(machine.entries.first?.attempts == 0 && machine.entries.first?.serverErrors == 0)
            #expect(machine.entries.first?.isFailing == false)
        }
    }

    @Test("A Retry-After wait is kept in the entry: a restarted queue waits what is left of it, and sends at exactly its end")
    func retryAfterAcrossRestart() {
        let configuration = Self.configuration()
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        let (actions, then) = machine.attemptFinished(sent, .failed(Self.error(503, retryAfter: "3600")), configuration: configuration)
        #expect(then == .wait(.seconds(3600)))
        let saved = actions.compactMap { action -> Machine.Snapshot? in
            if case .persist(let snapshot) = action { return snapshot }
            return nil
        }
        #expect(saved.count == 1)  // the time is saved with the entry
        let kept = machine.entries[0]
        #expect(kept.notBefore == Self.now.addingTimeInterval(3600))

        // A new process loads the entry: 10 s after, it waits the 3,590 s left; at exactly the end, it sends.
        var restarted = Machine()
        restarted.loaded([kept], layers: [:])
        let started = restarted.startReplay()
        #expect(started)
        guard case .wait(let left) = restarted.next(now: Self.now.addingTimeInterval(10), configuration: configuration) else {
            Issue.record("sent before the time the server gave")
            return
        }
        #expect(left == .seconds(3590))
        guard case .send = restarted.next(now: Self.now.addingTimeInterval(3600), configuration: configuration) else {
            Issue.record("not sent at the time the server gave")
            return
        }
        // A clock set back a year waits no more than maxRetryAfter.
        var skewed = Machine()
        skewed.loaded([kept], layers: [:])
        _ = skewed.startReplay()
        let short = Self.configuration(maxRetryAfter: .seconds(60))
        guard case .wait(let capped) = skewed.next(now: Self.now.addingTimeInterval(-31_536_000), configuration: short) else {
            Issue.record("no wait")
            return
        }
        #expect(capped == .seconds(60))
        // Once that wait is slept, the entry goes, though the clock still says a year early.
        skewed.waitServed()
        guard case .send = skewed.next(now: Self.now.addingTimeInterval(-31_536_000), configuration: short) else {
            Issue.record("asked to wait again after the wait was served")
            return
        }
    }

    @Test("A Retry-After date reads against the configured clock")
    func retryAfterDate() {
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        let configuration = Self.configuration()
        #expect(Machine.serverWait(Self.error(429, retryAfter: "Tue, 14 Nov 2023 22:14:20 GMT"), configuration: configuration) == .seconds(60))
        #expect(Machine.serverWait(Self.error(429, retryAfter: "Tue, 14 Nov 2023 22:13:20 GMT"), configuration: configuration) == .zero)
        #expect(Machine.serverWait(Self.error(429, retryAfter: "Tue, 14 Nov 2023 22:13:00 GMT"), configuration: configuration) == .zero)
    }

    @Test("A Retry-After past maxRetryAfter waits maxRetryAfter; other statuses and unreadable values wait by backoff")
    func retryAfterLimits() {
        let configuration = Self.configuration(maxRetryAfter: .seconds(60))
        #expect(Machine.serverWait(Self.error(429, retryAfter: "59"), configuration: configuration) == .seconds(59))
        #expect(Machine.serverWait(Self.error(429, retryAfter: "60"), configuration: configuration) == .seconds(60))
        #expect(Machine.serverWait(Self.error(429, retryAfter: "61"), configuration: configuration) == .seconds(60))
        #expect(Machine.serverWait(Self.error(429, retryAfter: "99999999999999999999"), configuration: configuration) == .seconds(60))
        #expect(Machine.serverWait(Self.error(429, retryAfter: "soon"), configuration: configuration) == nil)
        #expect(Machine.serverWait(Self.error(429, retryAfter: "-1"), configuration: configuration) == nil)
        #expect(Machine.serverWait(Self.error(429), configuration: configuration) == nil)
        #expect(Machine.serverWait(Self.error(500, retryAfter: "1"), configuration: configuration) == nil)
        #expect(Machine.serverWait(Self.error(502, retryAfter: "1"), configuration: configuration) == nil)
        #expect(Machine.serverWait(Self.error(428, retryAfter: "1"), configuration: configuration) == nil)
        #expect(Machine.serverWait(Self.error(430, retryAfter: "1"), configuration: configuration) == nil)
        let none = Self.configuration(maxRetryAfter: .seconds(-5))
        #expect(Machine.serverWait(Self.error(503, retryAfter: "5"), configuration: none) == .zero)
    }

    @Test("A 429 without Retry-After backs off and counts as an attempt, not as a server error")
    func tooManyWithoutRetryAfter() {
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        let (actions, then) = machine.attemptFinished(sent, .failed(Self.error(429)), configuration: Self.configuration())
        #expect(then == .wait(.seconds(1)))
        #expect(Self.outcomes(actions) == ["willRetry(after: 1.0 seconds)"])
        #expect(machine.entries.first?.attempts == 1 && machine.entries.first?.serverErrors == 0)
    }

    @Test("A 4xx rejects and removes the entry; any other error with no status rejects it too")
    func rejected() {
        for error in [Self.error(422), Self.error(400), Self.error(499), JSONAPIClientError(code: .encodingFailed, detail: "")] {
            var (machine, sent) = Self.sending(Self.entry(sent: true))
            let (actions, then) = machine.attemptFinished(sent, .failed(error), configuration: Self.configuration())
            #expect(then == .next && Self.outcomes(actions) == ["reject"] && machine.entries.isEmpty)
        }
    }

    @Test("5xx answers count; at exactly maxServerErrors the entry is marked failing and stays")
    func serverErrorsMarkFailing() {
        let configuration = Self.configuration(maxServerErrors: 2)
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        var (actions, then) = machine.attemptFinished(sent, .failed(Self.error(500)), configuration: configuration)
        #expect(then == .wait(.seconds(1)) && machine.entries.first?.serverErrors == 1)
        #expect(machine.entries.first?.isFailing == false)
        guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("not sent again"); return }
        (actions, then) = machine.attemptFinished(again, .failed(Self.error(599)), configuration: configuration)
        #expect(then == .stop && Self.outcomes(actions).first?.hasPrefix("failing") == true)
        #expect(machine.entries.first?.isFailing == true && machine.entries.first?.attempts == 2)
        #expect(!machine.canReplay)
        machine.replayEnded()
        #expect(!machine.canReplay)
        guard case .finished = { var copy = machine; _ = copy.startReplay(); return copy.next(now: Self.now, configuration: Self.configuration()) }() else {
            Issue.record("a failing entry was sent")
            return
        }
        let retried = machine.retryFailing()
        #expect(retried != nil)
        #expect(machine.entries.first?.isFailing == false && machine.entries.first?.attempts == 0)
        #expect(machine.entries.first?.serverErrors == 0 && machine.canReplay)
        let retriedAgain = machine.retryFailing()
        #expect(retriedAgain == nil)  // nothing failing: nothing to save
    }

    @Test("Attempts without an answer: at exactly maxAttempts the entry is failing; one fewer waits")
    func maxAttempts() {
        let configuration = Self.configuration(retries: 100, maxAttempts: 3)
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        var thens: [Machine.Then] = []
        for _ in 0..<3 {
            let (_, then) = machine.attemptFinished(sent, .failed(Self.unreachable), configuration: configuration)
            thens.append(then)
            if case .send(let next, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) { sent = next }
        }
        #expect(thens == [.wait(.seconds(1)), .wait(.seconds(1)), .stop])
        #expect(machine.entries.first?.isFailing == true && machine.entries.first?.attempts == 3)
    }

    @Test("After retriesPerReplay failures in a row the replay stops, waiting; the entry is not failing")
    func retriesPerReplay() {
        let configuration = Self.configuration(retries: 1)
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        var (actions, then) = machine.attemptFinished(sent, .failed(Self.unreachable), configuration: configuration)
        #expect(then == .wait(.seconds(1)))
        guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("not sent again"); return }
        (actions, then) = machine.attemptFinished(again, .failed(Self.unreachable), configuration: configuration)
        #expect(then == .stop && Self.outcomes(actions) == ["waiting"])
        #expect(machine.entries.first?.isFailing == false)
        machine.replayEnded()
        #expect(machine.canReplay)
    }

    @Test("A 409 to a sent create with its own id, and a 404 to a delete, count as made; a 409 never sent does not")
    func madeBefore() {
        for (entry, status, made) in [
            (Self.entry(.create, sent: true, clientID: true), 409, true),
            (Self.entry(.create, sent: false, clientID: true), 409, false),
            (Self.entry(.create, sent: true, clientID: false), 409, false),
            (Self.entry(.update, sent: true, clientID: true), 409, false),
            (Self.entry(.delete, sent: false), 404, true),
            (Self.entry(.update, sent: true), 404, false),
        ] {
            var machine = Machine()
            _ = machine.enqueued(entry, layer: nil)
            machine.saved(entry.id)
            _ = machine.startReplay()
            _ = machine.next(now: Self.now, configuration: Self.configuration())
            let (actions, _) = machine.attemptFinished(entry, .failed(Self.error(status)), configuration: Self.configuration())
            #expect(Self.outcomes(actions) == (made ? ["delivered(\(status))"] : ["reject"]), "\(entry.kind) \(status)")
        }
    }

    @Test("A connection refused for its security marks the entry failing and stops: never rejected, never retried by itself")
    func securityFailed() {
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        let error = JSONAPIClientError(code: .securityFailed, detail: "the server's certificate is not trusted")
        let (actions, then) = machine.attemptFinished(sent, .failed(error), configuration: Self.configuration())
        #expect(then == .stop && Self.outcomes(actions).first?.hasPrefix("failing") == true)
        #expect(machine.entries.first?.isFailing == true && machine.entries.first?.attempts == 0)
    }

    @Test("Another account's credentials hold the entry and stop the replay")
    func held() {
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        let error = JSONAPIClientError(code: .accountChanged, detail: "")
        let (actions, then) = machine.attemptFinished(sent, .failed(error), configuration: Self.configuration())
        #expect(then == .stop && Self.outcomes(actions) == ["waiting"] && machine.entries.count == 1)
    }

    @Test("A discard leaves the entry being sent; snapshots are numbered in order")
    func discard() {
        var machine = Machine()
        let first = Self.entry()
        let second = Self.entry()
        _ = machine.enqueued(first, layer: nil)
        _ = machine.enqueued(second, layer: nil)
        machine.saved(first.id)
        machine.saved(second.id)
        _ = machine.startReplay()
        _ = machine.next(now: Self.now, configuration: Self.configuration())
        let (removed, snapshot) = machine.discard { _ in true }
        #expect(removed.map(\.0.id) == [second.id])
        #expect(snapshot?.version == 4 && snapshot?.changes == [.delete(id: second.id)])
        let none = machine.discard { _ in true }
        #expect(none.snapshot == nil && none.removed.isEmpty)
        let (_, then) = machine.attemptFinished(first, .answered(.created), configuration: Self.configuration())
        #expect(then == .next && machine.entries.isEmpty)
        guard case .finished = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("not finished"); return }
        #expect(!machine.isReplaying)
    }

    @Test("Each event saves only what it changed: an insert, the updated entry, a delete")
    func changesOnly() {
        var machine = Machine()
        let entry = Self.entry(sent: true)
        _ = machine.enqueued(entry, layer: nil)
        machine.saved(entry.id)
        _ = machine.startReplay()
        guard case .send(let sent, _, nil) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("no send"); return }
        let (failed, _) = machine.attemptFinished(sent, .failed(Self.unreachable), configuration: Self.configuration())
        let saved = failed.compactMap { action -> [WriteQueue.Change]? in
            if case .persist(let snapshot) = action { snapshot.changes } else { nil }
        }
        #expect(saved.count == 1 && saved.first?.count == 1)
        guard case .update(let counted)? = saved.first?.first else { Issue.record("no update"); return }
        #expect(counted.id == entry.id && counted.attempts == 1)
        guard case .send(let again, _, nil) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("no send"); return }
        let (delivered, _) = machine.attemptFinished(again, .answered(.ok), configuration: Self.configuration())
        let deleted = delivered.compactMap { action -> [WriteQueue.Change]? in
            if case .persist(let snapshot) = action { snapshot.changes } else { nil }
        }
        #expect(deleted == [[.delete(id: entry.id)]])
        // Retrying failing entries saves each one changed, and nothing else.
        var other = Machine()
        let failing = Self.entry()
        let fine = Self.entry()
        _ = other.enqueued(failing, layer: nil)
        _ = other.enqueued(fine, layer: nil)
        other.saved(failing.id)
        other.saved(fine.id)
        _ = other.startReplay()
        guard case .send(let first, _, _) = other.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("no send"); return }
        _ = other.attemptFinished(first, .failed(Self.unreachable), configuration: Self.configuration(maxAttempts: 1))
        other.replayEnded()
        let retried = other.retryFailing()
        #expect(retried?.changes.map(\.id) == [failing.id])
    }

    @Test("A claimed entry is sent; one held by another process waits and is taken again; a gone one is skipped")
    func claims() {
        // Claimed: sent.
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        guard case .send = machine.claimFinished(sent, .claimed, configuration: Self.configuration()) else {
            Issue.record("not sent")
            return
        }
        #expect(machine.sending == sent.id)
        // Held: no longer being sent (a discard may take it), waits, then the same entry comes again.
        (machine, sent) = Self.sending(Self.entry(sent: true))
        let configuration = WriteQueue.Configuration(firstDelay: .milliseconds(20))
        guard case .wait(let delay) = machine.claimFinished(sent, .held, configuration: configuration) else {
            Issue.record("not waiting")
            return
        }
        #expect(delay == .milliseconds(20) && machine.sending == nil && machine.entries.count == 1)
        guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("not again"); return }
        #expect(again.id == sent.id)
        // The wait is at most a second, whatever the backoff's first delay.
        guard case .wait(.seconds(1)) = machine.claimFinished(again, .held, configuration: .init(firstDelay: .seconds(30)))
        else {
            Issue.record("waits too long")
            return
        }
        // Gone: leaves the queue with its layer dropped and a discarded event, nothing saved; the replay goes on.
        var gone = Machine()
        let first = Self.entry(sent: true)
        let second = Self.entry(sent: true)
        _ = gone.enqueued(first, layer: nil)
        _ = gone.enqueued(second, layer: nil)
        gone.saved(first.id)
        gone.saved(second.id)
        _ = gone.startReplay()
        guard case .send(let taken, _, _) = gone.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("no send"); return }
        guard case .skip(let actions) = gone.claimFinished(taken, .gone, configuration: Self.configuration()) else {
            Issue.record("not skipped")
            return
        }
        #expect(Self.outcomes(actions) == ["discard"] && gone.entries.map(\.id) == [second.id] && gone.isReplaying)
        #expect(!actions.contains { if case .persist = $0 { true } else { false } })
        guard case .send(let next, _, _) = gone.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("no next"); return }
        #expect(next.id == second.id)
    }
}
