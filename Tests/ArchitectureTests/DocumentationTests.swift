import Foundation
import Testing

/// Public functions say what they take, give and throw, the way swift-openapi-runtime's do: `- Parameters:` (or
/// `- Parameter`) when they take any, `- Returns:` when they return something, `- Throws:` when they throw. Read
/// from the sources of every public module.
@Suite("Documentation")
struct DocumentationTests {
    /// The folders checked: every public module.
    static let folders = ["Sources/JSONAPIClientCore", "Sources/JSONAPIClient", "Sources/JSONAPIClientTesting"]

    /// A public function, initializer or subscript as written: what its signature has, and what its comment says.
    struct Declaration: Equatable, CustomStringConvertible {
        var location: String
        var hasParameters: Bool
        var returnsValue: Bool
        var throwsErrors: Bool
        var comment: String

        var missing: [String] {
            var missing: [String] = []
            if hasParameters, !comment.contains("- Parameter") { missing.append("- Parameters:") }
            if returnsValue, !comment.contains("- Returns:") { missing.append("- Returns:") }
            if throwsErrors, !comment.contains("- Throws:") { missing.append("- Throws:") }
            return missing
        }

        var description: String { "\(location) lacks \(missing.joined(separator: ", "))" }
    }

    /// The public functions, initializers and subscripts of `text`.
    static func declarations(in text: String, path: String) -> [Declaration] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try? NSRegularExpression(
            pattern: #"^(?:@[\w.]+(?:\([^)]*\))?\s+)*public\s+(?:(?:static|class|final|nonisolated|mutating|override|convenience|required)\s+)*(func|init|subscript)\b"#)
        var found: [Declaration] = []
        for (number, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let range = NSRange(trimmed.startIndex..., in: trimmed)
            guard let match = start?.firstMatch(in: trimmed, range: range),
                let kindRange = Range(match.range(at: 1), in: trimmed)
            else { continue }
            let kind = trimmed[kindRange]
            // The signature: from the keyword to the body's `{` (or the end of the declaration), up to 12 lines.
            let signature = lines[number..<min(number + 12, lines.count)].map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: " ")
            guard let shape = shape(of: String(signature[signature.index(signature.startIndex, offsetBy: kindRange.lowerBound.utf16Offset(in: trimmed))...]))
            else { continue }
            var comment: [String] = []
            var above = number - 1
            while above >= 0 {
                let previous = lines[above].trimmingCharacters(in: .whitespaces)
                if previous.hasPrefix("///") {
                    comment.append(previous)
                } else if !previous.hasPrefix("@") {
                    break
                }
                above -= 1
            }
            found.append(
                Declaration(
                    location: "\(path):\(number + 1)", hasParameters: shape.hasParameters,
                    returnsValue: kind != "init" && shape.returnsValue, throwsErrors: shape.throwsErrors,
                    comment: comment.reversed().joined(separator: "\n")))
        }
        return found
    }

    /// What a signature (from its keyword on) has: parameters, a result other than `Void`, `throws`. `nil` when its
    /// parameter clause does not close.
    static func shape(of signature: String) -> (hasParameters: Bool, returnsValue: Bool, throwsErrors: Bool)? {
        var characters = Array(signature)
        // Operators (`==`) and generic clauses come before the parameter clause; default values and closure types
        // inside it may hold parentheses of their own.
        guard let open = characters.firstIndex(of: "(") else { return nil }
        var depth = 0
        var close: Int?
        var inString = false
        for index in open..<characters.count {
            switch characters[index] {
            case "\"": inString.toggle()
            case "(" where !inString: depth += 1
            case ")" where !inString:
                depth -= 1
                if depth == 0 { close = index }
            default: break
            }
            if close != nil { break }
        }
        guard let close else { return nil }
        let parameters = String(characters[(open + 1)..<close]).trimmingCharacters(in: .whitespaces)
        characters = Array(characters[(close + 1)...])
        let rest = String(characters.prefix { $0 != "{" })
        let effects = rest.components(separatedBy: "->")[0]
        let throwsErrors = effects.range(of: #"\b(?:throws|rethrows)\b"#, options: .regularExpression) != nil
        var result = rest.components(separatedBy: "->").dropFirst().joined(separator: "->")
        if let whereClause = result.range(of: " where ") { result = String(result[..<whereClause.lowerBound]) }
        result = result.trimmingCharacters(in: .whitespaces)
        let returnsValue = !result.isEmpty && result != "Void" && result != "()"
        return (!parameters.isEmpty, returnsValue, throwsErrors)
    }

    @Test("Every public function in the documented folders has - Parameters:, - Returns: and - Throws: as it needs")
    func publicFunctionsDocumentTheirSignature() throws {
        var declarations: [Declaration] = []
        for folder in Self.folders {
            let directory = ArchitectureTests.root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
                Issue.record("no folder \(folder)")
                continue
            }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let path = String(url.path.dropFirst(ArchitectureTests.root.path.count + 1))
                declarations += Self.declarations(in: try String(contentsOf: url, encoding: .utf8), path: path)
            }
        }
        #expect(declarations.count > 150)  // the walk found the sources
        #expect(declarations.filter { !$0.missing.isEmpty }.map(\.description).sorted() == [])
    }

    @Test("The reading of signatures: parameters, results and throws, wherever the parentheses and arrows are")
    func signatureShapes() {
        func shape(_ text: String) -> [Bool]? {
            Self.shape(of: text).map { [$0.hasParameters, $0.returnsValue, $0.throwsErrors] }
        }
        #expect(shape("func prepare() throws(JSONAPIClientError) -> HTTPRequest {") == [false, true, true])
        #expect(shape("init(_ respond: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) { self.r = r }")
            == [true, false, false])
        #expect(shape("func send(_ request: HTTPRequest) async throws -> HTTPResponse {") == [true, true, true])
        #expect(shape("func append(_ field: HTTPField) { fields.append(field) }") == [true, false, false])
        #expect(shape("static func == (lhs: Name, rhs: Name) -> Bool { lhs == rhs }") == [true, true, false])
        #expect(shape("func pages(prefetch: Int = 1, headers: HTTPFields = HTTPFields()) -> PageSequence<Primary> {")
            == [true, true, false])
        #expect(shape("func resources<Element>(prefetch: Int = 1) -> ResourceSequence<Element> where Primary == [Element] {")
            == [true, true, false])
        #expect(shape("func run(_ body: () throws -> Void) rethrows {") == [true, false, true])
        #expect(shape("func reset() -> Void {") == [false, false, false])
        #expect(shape("init(text: String = \"(\") {") == [true, false, false])
        #expect(shape("func broken(") == nil)
    }

    @Test("A declaration's comment is the /// lines above it, past its attributes")
    func commentsAboveAttributes() {
        let text = """
            /// Replaces it.
            ///
            /// - Parameter value: The new value.
            /// - Returns: The old one.
            @discardableResult
            public func replace(_ value: Int) -> Int { 0 }

            /// Undocumented otherwise.
            public mutating func clear(_ all: Bool) throws {}
            """
        let found = Self.declarations(in: text, path: "F.swift")
        #expect(found.map(\.missing) == [[], ["- Parameters:", "- Throws:"]])
        #expect(found.map(\.location) == ["F.swift:6", "F.swift:9"])
    }
}
