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
        #expect(try ArchitectureTests.matches(#"clears &\+= 1"#, in: "Sources/JSONAPIClient/Store") == [
            Self.facade + ":" + "\(try Self.line(of: "if effects.cleared { state.clears &+= 1 }"))"
                + ": if effects.cleared { state.clears &+= 1 }"
        ])
    }

    @Test("A live object never applies a change inside the observer's call: no MainActor.assumeIsolated but the clear's own")
    func liveObjectsApplyInATurnOfTheirOwn() throws {
        let assumed = try ArchitectureTests.matches(#"MainActor\.assumeIsolated"#, in: "Sources/JSONAPIClient/Live")
        #expect(assumed.count == 1)
        #expect(assumed.allSatisfy { $0.contains("takeAll(cleared: true)") })
    }

    /// The line number of `code` in the façade's file.
    static func line(of code: String) throws -> Int {
        let file = try String(contentsOf: ArchitectureTests.root.appendingPathComponent(facade), encoding: .utf8)
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == code } ?? -1) + 1
    }
}
