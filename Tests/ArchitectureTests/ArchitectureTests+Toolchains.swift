import Foundation
import Testing

/// The tests build on every toolchain the package declares (Swift 6.0 / Xcode 16, macOS 13): Swift Testing API of a
/// newer toolchain sits behind `#if compiler(>=…)`, and Observation-only API behind `@available`.
extension ArchitectureTests {
    /// The Swift files of the test targets (not this one, whose checks name what they look for).
    static func testSources() throws -> [(path: String, code: [String])] {
        try sources("Tests").filter { !$0.path.hasPrefix("Tests/ArchitectureTests/") }
    }

    /// For each line of `code`, the compiler versions that its enclosing `#if compiler(>=x)` branches require
    /// (the highest), or 0 outside any.
    static func compilerGuards(_ code: [String]) -> [Double] {
        var stack: [Double] = []
        var result: [Double] = []
        let pattern = try? NSRegularExpression(pattern: #"^#if\s+compiler\(>=\s*([0-9]+(?:\.[0-9]+)?)\)"#)
        for line in code {
            if line.hasPrefix("#if") {
                let range = NSRange(line.startIndex..., in: line)
                let version = pattern?.firstMatch(in: line, range: range).flatMap { match in
                    Range(match.range(at: 1), in: line).flatMap { Double(line[$0]) }
                }
                stack.append(version ?? 0)
            } else if line.hasPrefix("#else") || line.hasPrefix("#elseif") {
                if !stack.isEmpty { stack[stack.count - 1] = 0 }
            } else if line.hasPrefix("#endif") {
                _ = stack.popLast()
            }
            result.append(stack.max() ?? 0)
        }
        return result
    }

    @Test("No unguarded Issue.record(_:severity:) in a test (Swift 6.3): it sits behind #if compiler(>=6.3)")
    func severityGuarded() throws {
        var found: [String] = []
        for file in try Self.testSources() {
            let guards = Self.compilerGuards(file.code)
            for (number, line) in file.code.enumerated() where line.contains("severity:") && guards[number] < 6.3 {
                found.append("\(file.path):\(number + 1): \(line)")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Where the result of `#expect(throws:)` or `#require(throws:)` is used — assigned, returned, passed on — on
    /// lines of `code`: Swift 6.1 and later return the error; 6.0 returns nothing.
    static func usedThrowsExpectations(_ code: [String]) -> [Int] {
        let guards = compilerGuards(code)
        var found: [Int] = []
        var previous = ""
        for (number, line) in code.enumerated() {
            defer { if !line.isEmpty { previous = line } }
            guard let mark = line.range(of: "#expect(throws:") ?? line.range(of: "#require(throws:"),
                guards[number] < 6.1
            else { continue }
            let before = line[..<mark.lowerBound].replacingOccurrences(of: "try", with: "")
                .replacingOccurrences(of: "await", with: "").trimmingCharacters(in: .whitespaces)
            let trimmed = previous.trimmingCharacters(in: .whitespaces)
            let continues = ["(", "=", ","].contains { trimmed.hasSuffix($0) } || trimmed.hasSuffix("return")
            if !before.isEmpty || continues { found.append(number) }
        }
        return found
    }

    @Test("No result of #expect(throws:) used in a test (Swift 6.1): expectThrows(_:_:) returns the error on 6.0")
    func throwsExpectationsUnused() throws {
        var found: [String] = []
        for file in try Self.testSources() {
            for number in Self.usedThrowsExpectations(file.code) {
                found.append("\(file.path):\(number + 1): \(file.code[number])")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("The reading of #expect(throws:) uses: assigned, returned, passed on; a statement alone is not one")
    func throwsExpectationShapes() {
        func used(_ lines: String...) -> [Int] { Self.usedThrowsExpectations(lines) }
        #expect(used("let error = #expect(throws: E.self) { try f() }") == [0])
        #expect(used("let error = await #expect(throws: E.self) {") == [0])
        #expect(used("let error = try #require(", "await #expect(throws: E.self) {") == [1])
        #expect(used("return await #expect(throws: E.self) {") == [0])
        #expect(used("let e = try #require(throws: E.self) { try f() }") == [0])
        #expect(used("#expect(throws: E.self) { try f() }", "await #expect(throws: E.self) {") == [])
        #expect(used("}", "try #require(throws: E.self) { try f() }") == [])
        #expect(used("#if compiler(>=6.1)", "let error = #expect(throws: E.self) { try f() }", "#endif") == [])
        #expect(used("#if compiler(>=6.1)", "#else", "let error = #expect(throws: E.self) { try f() }", "#endif") == [2])
    }

    /// Observation-only API: the library's live objects and the tests' helper that observes them.
    static let observationOnly = try? NSRegularExpression(
        pattern: #"\bLiveList\b|\bLiveResource\b|\bliveList\(|\.live\(|\bliveResource\(|\bObserved\b"#)

    /// The lines of `code` that use Observation-only API outside a declaration marked
    /// `@available(macOS 14, …)` (or later): each `{` opens a scope that is available when its declaration (the
    /// lines above it, up to the previous statement) says so, or its enclosing scope is.
    static func unavailableObservation(_ code: [String]) -> [Int] {
        var scopes: [Bool] = []
        var found: [Int] = []
        var header: [String] = []
        var inMultilineString = false
        for (number, line) in code.enumerated() {
            if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString.toggle() }
            guard !inMultilineString else { continue }
            header.append(line)
            let marked = header.contains { $0.range(of: #"@available\(macOS 1[4-9]"#, options: .regularExpression) != nil }
            let available = (scopes.last ?? false) || marked
            // Names and braces in string literals are neither uses nor scopes.
            let bare = line.replacingOccurrences(of: #""(?:[^"\\]|\\.)*""#, with: "", options: .regularExpression)
            let range = NSRange(bare.startIndex..., in: bare)
            if !available, observationOnly?.firstMatch(in: bare, range: range) != nil { found.append(number) }
            for character in bare {
                if character == "{" { scopes.append(available) } else if character == "}" { _ = scopes.popLast() }
            }
            if line.isEmpty || bare.contains("{") || bare.contains("}") { header = [] }
        }
        return found
    }

    @Test("No Observation-only API (LiveList, LiveResource, liveList(), live(), Observed) in a test without @available")
    func observationAvailability() throws {
        var found: [String] = []
        for file in try Self.testSources() {
            for number in Self.unavailableObservation(file.code) {
                found.append("\(file.path):\(number + 1): \(file.code[number])")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("The reading of availability: a marked function, a marked type, an unmarked one beside them")
    func observationShapes() {
        func found(_ lines: String...) -> [Int] { Self.unavailableObservation(lines) }
        #expect(found("@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)", "@Test", "func a() {", "let l = f().liveList()", "}") == [])
        #expect(found("@available(macOS 14, *)", "struct S {", "func a() {", "_ = Observed.until()", "}", "}") == [])
        #expect(found("@MainActor", "@Test", "func a() {", "let l = f().liveList()", "}") == [3])
        #expect(found("@available(macOS 14, *)", "func a() {", "}", "", "func b() {", "let r = s.live(id: \"1\")", "}") == [5])
        #expect(found("func a() {", "let s = \"{\"", "}", "func b() {", "let l: LiveList<A>", "}") == [4])
        #expect(found("@available(macOS 13, *)", "func a() {", "_ = Observed.values()", "}") == [2])
        #expect(found("@Test(\"Observed, a fetch\")", "func a() {", "let p = Person(name: \"Observed\")", "}") == [])
    }
}
