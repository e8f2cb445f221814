import Foundation
import Testing

/// The store's one way in (Docs/Architecture.md, "The store's parts"): only `ResourceStore.commit(merging:_:)`, in
/// `ResourceStore+Delivery.swift`, tells the observers, schedules a save and moves the clear count.
@Suite("Architecture: the store's effects")
struct StoreEffectsTests {
    static let facade = "Sources/JSONAPIClient/Store/ResourceStore+Delivery.swift"

    /// The lines of `Sources` outside the façade's file that match `pattern`.
    static func outsideTheFacade(_ pattern: String) throws -> [String] {
        try ArchitectureTests.matches(pattern, in: "Sources").filter { !$0.hasPrefix(facade + ":") }
    }

    @Test("Only the façade tells observers: no observer's deliver is called elsewhere, and no notify exists")
    func onlyTheFacadeTellsObservers() throws {
        #expect(try Self.outsideTheFacade(#"observer\.deliver\("#) == [])
        #expect(try Self.outsideTheFacade(#"\bnotify\("#) == [])
        #expect(try ArchitectureTests.matches(#"observer\.deliver\("#, in: "Sources/JSONAPIClient/Store").count == 2)
    }

    @Test("Only the façade schedules a save and moves the clear count")
    func onlyTheFacadeSchedulesAndCounts() throws {
        #expect(try Self.outsideTheFacade(#"\.schedule\(self\)"#) == [])
        #expect(try Self.outsideTheFacade(#"clears\s*(\+|&\+)="#) == [])
        #expect(try ArchitectureTests.matches(#"clears\s*(\+|&\+)="#, in: "Sources").count == 1)
    }

    @Test("A live object never applies a change inside the observer's call: no MainActor.assumeIsolated but the clear's own")
    func liveObjectsApplyInATurnOfTheirOwn() throws {
        let assumed = try ArchitectureTests.matches(#"MainActor\.assumeIsolated"#, in: "Sources/JSONAPIClient/Live")
        #expect(assumed.count == 1)
        #expect(assumed.allSatisfy { $0.hasPrefix("Sources/JSONAPIClient/Live/LiveFollowing.swift:") })
        let follows = try ArchitectureTests.matches(#"applyNow: @Sendable"#, in: "Sources/JSONAPIClient/Live")
        #expect(follows.count == 1)
    }

    @Test("An event adds to the changes a commit noted, never replaces them (the bodies merged first are told too)")
    func changesAreAddedTo() throws {
        #expect(try ArchitectureTests.matches(#"effects\.changes\s*=[^=]"#, in: "Sources") == [])
    }
}
