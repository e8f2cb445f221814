import Foundation
import Testing

@testable import JSONAPIClient

/// The write queue's logic as a value: events in, actions out, no session, transport or file.
@Suite("Write queue state machine")
struct WriteQueueStateMachineTests {
    typealias Machine = WriteQueue.StateMachine

    static let url = URL(string: "https://api.example.com/memos/1")!

    static func entry(
        _ kind: ResourceStore.PendingKind = .update, sent: Bool = false, clientID: Bool = false, id: String = "1",
        url: URL? = nil, body: String? = nil
    ) -> WriteQueue.Entry {
        var entry = WriteQueue.Entry(
            method: kind == .create ? .post : kind == .delete ? .delete : .patch,
            url: url ?? (kind == .create ? URL(string: "https://api.example.com/memos")! : Self.url(id)),
            type: "memos", resourceID: id, body: body.map { Data($0.utf8) }, headerFields: [:], kind: kind,
            clientGeneratedID: clientID)
        entry.sent = sent
        return entry
    }

    static func url(_ id: String) -> URL { URL(string: "https://api.example.com/memos/\(id)")! }

    static func error(_ status: Int, retryAfter: String? = nil) -> JSONAPIClientError {
        var error = JSONAPIClientError(code: .errorResponse, detail: "status \(status)")
        error.status = HTTPResponse.Status(code: status)
        if let retryAfter { error.responseHeaders = ["Retry-After": retryAfter] }
        return error
    }

    static let unreachable = JSONAPIClientError(code: .transportFailed, detail: "offline")

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func configuration(maxAttempts: Int = 10, maxRetryAfter: Duration = .seconds(86_400))
        -> WriteQueue.Configuration
    {
        WriteQueue.Configuration(maxAttempts: maxAttempts, maxRetryAfter: maxRetryAfter, now: { now })
    }

    /// A machine holding `entries`, durable, told the network is back, with a replay started.
    static func replaying(_ entries: [WriteQueue.Entry]) -> Machine {
        var machine = Machine()
        machine.networkBack()
        for entry in entries {
            _ = machine.enqueued(entry, layer: nil)
            machine.saved(entry.id)
        }
        _ = machine.startReplay()
        return machine
    }

    /// The resource id of the entry `machine` sends next; `nil` when it finished.
    static func nextSent(_ machine: inout Machine) -> String? {
        guard case .send(let entry, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) else {
            return nil
        }
        return entry.resourceID
    }

    /// The changes `actions` save.
    static func saved(_ actions: [Machine.Action]) -> [[WriteQueue.Change]] {
        actions.compactMap { if case .persist(let snapshot) = $0 { snapshot.changes } else { nil } }
    }

    /// Whether `actions` save anything.
    static func saves(_ actions: [Machine.Action]) -> Bool {
        actions.contains { if case .persist = $0 { true } else { false } }
    }

    /// A machine holding `entry`, durable, told the network is back, with a replay started and the entry taken to
    /// send.
    static func sending(_ entry: WriteQueue.Entry) -> (Machine, WriteQueue.Entry) {
        var machine = Machine()
        machine.networkBack()
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

    @Test("A backlog replays oldest first, each delivery removing its entry alone; an id read twice leaves with both rows")
    func backlogRemoval() {
        let entries = (0..<300).map { Self.entry(id: "\($0)") }
        var machine = Self.replaying(entries)
        var sent: [String] = []
        while case .send(let entry, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) {
            sent.append(entry.resourceID)
            _ = machine.attemptFinished(entry, .answered(.ok), configuration: Self.configuration())
            #expect(machine.entries.map(\.resourceID) == (sent.count..<300).map { "\($0)" })
        }
        #expect(sent == (0..<300).map { "\($0)" })

        // The same row read twice (nothing writes it so; a damaged read might): delivered once, both copies go.
        let twice = Self.entry(id: "7")
        var loaded = Machine()
        loaded.loaded([twice, Self.entry(id: "8"), twice, Self.entry(id: "9")], layers: [:])
        _ = loaded.attemptFinished(twice, .answered(.ok), configuration: Self.configuration())
        #expect(loaded.entries.map(\.resourceID) == ["8", "9"])
        _ = loaded.claimFinished(loaded.entries[1], .gone, configuration: Self.configuration())
        #expect(loaded.entries.map(\.resourceID) == ["8"])
        #expect(loaded.notSaved(loaded.entries[0].id).layer == nil)
        #expect(loaded.entries.isEmpty)
        // Gone from the database and from the queue already (discarded meanwhile): nothing more to discard.
        guard case .skip(let actions) = loaded.claimFinished(twice, .gone, configuration: Self.configuration()) else {
            Issue.record("a gone entry was not skipped")
            return
        }
        #expect(actions.isEmpty)
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
        machine.networkBack()
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

    @Test("429 and 503 with Retry-After wait as long as it says, and count as an attempt each")
    func retryAfter() {
        let configuration = Self.configuration(maxAttempts: 2)
        for (status, value, wait) in [
            (429, "1", Duration.seconds(1)), (503, "3600", .seconds(3600)), (429, "0", .zero),
            (503, " 2 ", .seconds(2)),
        ] {
            var (machine, sent) = Self.sending(Self.entry(sent: true))
            let (actions, then) = machine.attemptFinished(sent, .failed(Self.error(status, retryAfter: value)), configuration: configuration)
            #expect(then == .wait(wait), "\(status) \(value): \(then)")
            #expect(Self.outcomes(actions).first?.hasPrefix("willRetry") == true)
            #expect(machine.entries.first?.attempts == 1 && machine.entries.first?.isFailing == false)
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

    @Test("A 429 without Retry-After backs off and counts as an attempt")
    func tooManyWithoutRetryAfter() {
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        let (actions, then) = machine.attemptFinished(sent, .failed(Self.error(429)), configuration: Self.configuration())
        #expect(then == .wait(.seconds(1)))
        #expect(Self.outcomes(actions) == ["willRetry(after: 1.0 seconds)"])
        #expect(machine.entries.first?.attempts == 1)
    }

    @Test("A 4xx rejects and removes the entry; any other error with no status rejects it too")
    func rejected() {
        for error in [Self.error(422), Self.error(400), Self.error(499), JSONAPIClientError(code: .encodingFailed, detail: "")] {
            var (machine, sent) = Self.sending(Self.entry(sent: true))
            let (actions, then) = machine.attemptFinished(sent, .failed(error), configuration: Self.configuration())
            #expect(then == .next && Self.outcomes(actions) == ["reject"] && machine.entries.isEmpty)
        }
    }

    @Test("5xx answers count; at exactly maxAttempts the entry is marked failing, stays, and the replay goes on")
    func serverErrorsMarkFailing() {
        let configuration = Self.configuration(maxAttempts: 2)
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        var (actions, then) = machine.attemptFinished(sent, .failed(Self.error(500)), configuration: configuration)
        #expect(then == .wait(.seconds(1)) && machine.entries.first?.attempts == 1)
        #expect(machine.entries.first?.isFailing == false)
        guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: Self.configuration()) else { Issue.record("not sent again"); return }
        (actions, then) = machine.attemptFinished(again, .failed(Self.error(599)), configuration: configuration)
        #expect(then == .next && Self.outcomes(actions).first?.hasPrefix("failing") == true)
        #expect(Self.saves(actions))
        #expect(machine.entries.first?.isFailing == true && machine.entries.first?.attempts == 2)
        #expect(machine.isReplaying && !machine.canReplay)
        guard case .finished = machine.next(now: Self.now, configuration: Self.configuration()) else {
            Issue.record("a failing entry was sent")
            return
        }
        #expect(!machine.isReplaying && !machine.canReplay)
        let retried = machine.retryFailing()
        #expect(retried != nil)
        #expect(machine.entries.first?.isFailing == false && machine.entries.first?.attempts == 0)
        #expect(machine.canReplay)
        let retriedAgain = machine.retryFailing()
        #expect(retriedAgain == nil)  // nothing failing: nothing to save
    }

    @Test("A transport failure while the network is thought up is an attempt, tried again after the backoff; the next, still offline, costs nothing and stops")
    func offlineCostsNothing() {
        let configuration = Self.configuration(maxAttempts: 3)
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        #expect(machine.isOnline)
        var (actions, then) = machine.attemptFinished(sent, .failed(Self.unreachable), configuration: configuration)
        #expect(then == .wait(.seconds(1)) && Self.outcomes(actions) == ["willRetry(after: 1.0 seconds)"])
        #expect(machine.entries.first?.attempts == 1 && !machine.isOnline && Self.saves(actions))
        // Still offline: nothing counted, nothing saved, the replay stops (and may start again: nothing is failing).
        for _ in 0..<20 {
            guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: configuration) else {
                Issue.record("not sent")
                return
            }
            (actions, then) = machine.attemptFinished(again, .failed(Self.unreachable), configuration: configuration)
            #expect(then == .stop && Self.outcomes(actions) == ["waiting"])
            // Saved unchanged, which ends the claim: another process may send it at once.
            #expect(Self.saved(actions) == [[.update(machine.entries[0])]])
            machine.replayEnded()
            #expect(machine.canReplay)
            _ = machine.startReplay()
        }
        #expect(machine.entries.first?.attempts == 1 && machine.entries.first?.isFailing == false)
        // Told the network is back, the next failure counts again, and the backoff goes on; at the bound the entry
        // is failing.
        machine.networkBack()
        guard case .send(let third, _, _) = machine.next(now: Self.now, configuration: configuration) else { Issue.record("not sent"); return }
        (actions, then) = machine.attemptFinished(third, .failed(Self.unreachable), configuration: configuration)
        #expect(then == .wait(.seconds(2)) && machine.entries.first?.attempts == 2)
        machine.networkBack()
        guard case .send(let fourth, _, _) = machine.next(now: Self.now, configuration: configuration) else { Issue.record("not sent"); return }
        (actions, then) = machine.attemptFinished(fourth, .failed(Self.unreachable), configuration: configuration)
        #expect(then == .next && Self.outcomes(actions).first?.hasPrefix("failing") == true)
        #expect(machine.entries.first?.attempts == 3 && machine.entries.first?.isFailing == true)
    }

    @Test("Any answer says the network is up: a transport failure after it counts; a success or a refusal does too")
    func answersCount() {
        let configuration = Self.configuration()
        for answer in [Self.error(500), Self.error(502), Self.error(429), Self.error(503, retryAfter: "1"), Self.error(429, retryAfter: "2")] {
            var (machine, sent) = Self.sending(Self.entry(sent: true))
            _ = machine.attemptFinished(sent, .failed(Self.unreachable), configuration: configuration)
            #expect(!machine.isOnline)
            guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: configuration) else { Issue.record("not sent"); return }
            let (actions, _) = machine.attemptFinished(again, .failed(answer), configuration: configuration)
            #expect(machine.isOnline && machine.entries.first?.attempts == 2, "\(answer)")
            #expect(Self.outcomes(actions).first?.hasPrefix("willRetry") == true)
            machine.waitServed()
            guard case .send(let third, _, _) = machine.next(now: Self.now, configuration: configuration) else { Issue.record("not sent"); return }
            _ = machine.attemptFinished(third, .failed(Self.unreachable), configuration: configuration)
            #expect(machine.entries.first?.attempts == 3 && !machine.isOnline)
        }
        for answer in [Machine.Attempt.answered(.ok), .failed(Self.error(422))] {
            var machine = Self.replaying([Self.entry(sent: true, id: "1"), Self.entry(sent: true, id: "2")])
            guard case .send(let first, _, _) = machine.next(now: Self.now, configuration: configuration) else { Issue.record("not sent"); return }
            _ = machine.attemptFinished(first, .failed(Self.unreachable), configuration: configuration)
            guard case .send(let again, _, _) = machine.next(now: Self.now, configuration: configuration) else { Issue.record("not sent"); return }
            _ = machine.attemptFinished(again, answer, configuration: configuration)
            #expect(machine.isOnline && machine.entries.map(\.resourceID) == ["2"])
        }
    }

    @Test("A write that failed before it was queued made an attempt only while the network was thought up")
    func sendFailed() {
        var machine = Machine()
        #expect(!machine.isOnline)  // at launch, until told
        let atLaunch = machine.sendFailed(Self.entry(), configuration: Self.configuration())
        #expect(atLaunch.attempts == 0 && atLaunch.sent)
        machine.networkBack()
        let first = machine.sendFailed(Self.entry(), configuration: Self.configuration())
        #expect(first.attempts == 1 && first.sent && !first.isFailing && !machine.isOnline)
        let second = machine.sendFailed(Self.entry(), configuration: Self.configuration())
        #expect(second.attempts == 0 && second.sent && !machine.isOnline)
        machine.networkBack()
        let bound = machine.sendFailed(Self.entry(), configuration: Self.configuration(maxAttempts: 1))
        #expect(bound.attempts == 1 && bound.isFailing)
        // A count read from a file at Int.max stays there: no overflow.
        var most = Machine()
        most.networkBack()
        let entry = WriteQueue.Entry(
            method: .patch, url: Self.url, type: "memos", resourceID: "1", body: nil, headerFields: [:], kind: .update,
            clientGeneratedID: false, attempts: .max)
        #expect(most.sendFailed(entry, configuration: Self.configuration()).attempts == .max)
    }

    @Test("503 with Retry-After for ever reaches maxAttempts: failing, kept, and the replay waits the server's time, then goes on")
    func retryAfterForever() {
        let configuration = Self.configuration(maxAttempts: 3)
        let other = Self.entry(sent: true, id: "2")
        var machine = Self.replaying([Self.entry(sent: true), other])
        var outcomes: [String] = []
        var thens: [Machine.Then] = []
        for _ in 0..<3 {
            guard case .send(let sent, _, _) = machine.next(now: Self.now, configuration: configuration) else {
                Issue.record("not sent")
                return
            }
            #expect(sent.resourceID == "1")
            let (actions, then) = machine.attemptFinished(sent, .failed(Self.error(503, retryAfter: "1")), configuration: configuration)
            outcomes += Self.outcomes(actions)
            thens.append(then)
            machine.waitServed()
        }
        #expect(thens == [.wait(.seconds(1)), .wait(.seconds(1)), .wait(.seconds(1))])
        #expect(outcomes.map { $0.prefix(7) } == ["willRet", "willRet", "failing"])
        #expect(machine.entries.map(\.resourceID) == ["1", "2"] && machine.entries[0].isFailing && machine.entries[0].attempts == 3)
        #expect(Self.nextSent(&machine) == "2")
    }

    @Test("A failing entry does not hold the entries behind it that do not depend on it")
    func failingDoesNotBlock() {
        var failing = Self.entry(sent: true, id: "1")
        failing.isFailing = true
        var machine = Machine()
        machine.loaded([failing, Self.entry(id: "2"), Self.entry(id: "3")], layers: [:])
        #expect(!machine.isOnline)  // a replay starts all the same (a queued write's try: it costs nothing)
        #expect(machine.canReplay)
        _ = machine.startReplay()
        #expect(Self.nextSent(&machine) == "2")
        _ = machine.attemptFinished(machine.entries[1], .answered(.ok), configuration: Self.configuration())
        #expect(Self.nextSent(&machine) == "3")
        _ = machine.attemptFinished(machine.entries[1], .answered(.ok), configuration: Self.configuration())
        #expect(Self.nextSent(&machine) == nil && !machine.isReplaying && !machine.canReplay)
        #expect(machine.entries.map(\.resourceID) == ["1"])
        // An entry marked failing while it is the one sent lets the next go in the same replay.
        var (second, sent) = Self.sending(Self.entry(sent: true, id: "1"))
        _ = second.enqueued(Self.entry(id: "2"), layer: nil)
        second.saved(second.entries[1].id)
        let (_, then) = second.attemptFinished(sent, .failed(Self.error(500)), configuration: Self.configuration(maxAttempts: 1))
        #expect(then == .next && Self.nextSent(&second) == "2")
        // One not durable yet stops the replay there, behind a failing entry too.
        var unsaved = Machine()
        unsaved.loaded([failing], layers: [:])
        _ = unsaved.enqueued(Self.entry(id: "2"), layer: nil)
        #expect(!unsaved.canReplay)
    }

    @Test("Behind a failing entry, those that depend on it wait, through each other; the others go")
    func dependentsWait() {
        var failing = Self.entry(.create, sent: true, id: "local-1")
        failing.isFailing = true
        let entries = [
            failing,
            Self.entry(.update, id: "local-1"),  // the same record
            Self.entry(.create, id: "2", body: #"{"data":{"type":"memos","relationships":{"parent":{"data":{"type":"memos","lid":"local-1"}}}}}"#),  // names it
            Self.entry(.update, id: "9", body: #"{"data":{"type":"memos","id":"9","relationships":{"child":{"data":{"type":"memos","id":"2"}}}}}"#),  // names one that waits
            Self.entry(.create, id: "3"),  // another create posted to the same collection
            Self.entry(.update, id: "4", url: URL(string: "https://api.example.com/memos/local-1/relationships/tags")!),  // at its URL
            Self.entry(.update, id: "5"),
        ]
        var machine = Machine()
        machine.loaded(entries, layers: [:])
        _ = machine.startReplay()
        var sent: [String] = []
        while let id = Self.nextSent(&machine) {
            sent.append(id)
            let entry = machine.entries.first { $0.id == machine.sending }
            if let entry { _ = machine.attemptFinished(entry, .answered(.ok), configuration: Self.configuration()) }
        }
        #expect(sent == ["3", "5"])
        #expect(machine.entries.map(\.resourceID) == ["local-1", "local-1", "2", "9", "4"])
    }

    @Test("What depends on what: the same record, the same URL but two creates, a created resource named by its id")
    func depends() {
        let create = Self.entry(.create, id: "L")
        let update = Self.entry(.update, id: "1")
        let cases: [(WriteQueue.Entry, WriteQueue.Entry, Bool)] = [
            (Self.entry(.delete, id: "1"), update, true),
            (Self.entry(.update, id: "2"), update, false),
            (Self.entry(.update, id: "2", url: Self.url("1")), update, true),
            (Self.entry(.create, id: "2"), create, false),
            (Self.entry(.update, id: "2", url: URL(string: "https://api.example.com/memos")!), create, true),
            (Self.entry(.create, id: "2", url: URL(string: "https://api.example.com/memos")!), Self.entry(.update, id: "1", url: URL(string: "https://api.example.com/memos")!), true),
            (Self.entry(.update, id: "2", body: #"{"id":"L"}"#), create, true),
            (Self.entry(.update, id: "2", body: #"{"id":"LL"}"#), create, false),
            (Self.entry(.update, id: "2", body: #"{"id":"L"}"#), update, false),  // names a record another write updates
            (Self.entry(.update, id: "2", url: URL(string: "https://api.example.com/memos/L/relationships/x")!), create, true),
            (Self.entry(.update, id: "2", url: URL(string: "https://api.example.com/memos/L2/relationships/x")!), create, false),
            (Self.entry(.update, id: "2", body: #"{"id":""}"#), Self.entry(.create, id: ""), false),
            (WriteQueue.Entry(method: .patch, url: Self.url("1"), type: "notes", resourceID: "1", body: nil, headerFields: [:], kind: .update, clientGeneratedID: false), Self.entry(.update, id: "1", url: Self.url("x")), false),
        ]
        for (index, (later, earlier, expected)) in cases.enumerated() {
            #expect(Machine.depends(later, on: earlier) == expected, "case \(index)")
        }
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
        #expect(then == .next && Self.outcomes(actions).first?.hasPrefix("failing") == true)
        #expect(machine.entries.first?.isFailing == true && machine.entries.first?.attempts == 0)
    }

    @Test("Another account's credentials hold the entry and stop the replay")
    func held() {
        var (machine, sent) = Self.sending(Self.entry(sent: true))
        let error = JSONAPIClientError(code: .accountChanged, detail: "")
        let (actions, then) = machine.attemptFinished(sent, .failed(error), configuration: Self.configuration())
        #expect(then == .stop && Self.outcomes(actions) == ["waiting"] && machine.entries.count == 1)
        #expect(Self.saved(actions) == [[.update(machine.entries[0])]])  // its claim ended
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
        machine.networkBack()
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
        other.networkBack()
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
