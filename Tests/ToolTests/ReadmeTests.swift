import Foundation
import Testing

@Suite("README")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("The README's quick start is the demo's code, which compiles and runs in scripts/demo.sh")
    func quickStartMatchesDemo() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let demo = try String(contentsOf: Self.root.appendingPathComponent("Examples/Demo/main.swift"), encoding: .utf8)
        let begin = try #require(demo.range(of: "// README: quick start begin\n"))
        let end = try #require(demo.range(of: "// README: quick start end"))
        let quickStart = String(demo[begin.upperBound..<end.lowerBound])
        #expect(quickStart.contains("Session(baseURL: baseURL)"))
        #expect(readme.contains("import JSONAPIClient\n\n" + quickStart + "```"))
    }

    @Test("The README names the demo and test commands, and .ci/run runs the test command")
    func commands() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("scripts/demo.sh"))
        #expect(readme.contains("scripts/test.sh"))
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("exec scripts/test.sh"))
    }

    @Test("Every other Swift block of the README stands in ClientTests/ReadmeSnippets.swift, which compiles")
    func snippetsCompile() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/ClientTests/ReadmeSnippets.swift"), encoding: .utf8)
        let compiled = Set(snippets.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let checked = blocks.filter { !$0.contains(".package(") && !$0.contains("README: quick start") && !$0.hasPrefix("import") }
        #expect(checked.count >= 4)
        for block in checked {
            for line in block.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                #expect(compiled.contains(code), "README line not in ReadmeSnippets.swift: \(code)")
            }
        }
    }

    @Test("Installation: both package forms, and the platform minimums Package.swift declares")
    func installation() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(readme.contains(#".package(url: "#) && readme.contains(#"from: "0.1.0")"#))
        #expect(readme.contains(#".package(path: "../JSONAPIClient")"#))
        #expect(manifest.contains("platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)]"))
        #expect(readme.contains("macOS 13, iOS 16, tvOS 16, watchOS 9"))
        // The toolchain the README names is the one the manifest declares (and the code builds with, guarded).
        #expect(manifest.hasPrefix("// swift-tools-version: 6.0\n"))
        #expect(readme.contains("Swift 6.0 or later (Xcode 16 or later; `swift-tools-version: 6.0`)"))
    }
}
