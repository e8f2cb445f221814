import Foundation
import Testing

/// Checks of the module map (Docs/Architecture.md) that the compiler does not make: read from the sources.
@Suite("Architecture")
struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Swift files under `folder` (one of ``scanned``, or a folder in one), as (path, lines of code without comments).
    static func sources(_ folder: String) throws -> [(path: String, code: [String])] {
        struct NotScanned: Error { let folder: String }
        guard scanned.contains(where: { folder == $0 || folder.hasPrefix($0 + "/") }) else {
            throw NotScanned(folder: folder)
        }
        let prefix = folder + "/"
        return try everySource.get().filter { $0.path.hasPrefix(prefix) }
    }

    /// The folders whose Swift files the checks read.
    static let scanned = ["Sources", "Tests", "Benchmarks", "Examples"]

    /// Every Swift file of ``scanned``, read once for all the suite's tests. Each test used to read them again, all
    /// at once, walking `Tests/Server/.venv` too: CPU that held both threads of the pool for seconds at the start of
    /// a full run (and the main actor's work with them, on Linux).
    private static let everySource = Result { try read(scanned) }

    /// The Swift files under `folders` (hidden folders skipped: the test server's virtual environment, `.build`),
    /// sorted by path.
    private static func read(_ folders: [String]) throws -> [(path: String, code: [String])] {
        var files: [(path: String, code: [String])] = []
        for folder in folders {
            let directory = root.appendingPathComponent(folder)
            guard
                let walker = FileManager.default.enumerator(
                    at: directory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    return trimmed.hasPrefix("//") ? "" : trimmed
                }
                files.append((String(url.path.dropFirst(root.path.count + 1)), code))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func matches(_ pattern: String, in folder: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return try sources(folder).flatMap { file in
            file.code.enumerated().compactMap { number, line in
                let range = NSRange(line.startIndex..., in: line)
                return regex.firstMatch(in: line, range: range) == nil ? nil : "\(file.path):\(number + 1): \(line)"
            }
        }
    }

    @Test("No type in JSONAPIClientCore stores a closure: no property, enum case or type alias of a function type")
    func coreStoresNoClosure() throws {
        #expect(try Self.sources("Sources/JSONAPIClientCore").count > 20)
        let stored = try Self.matches(#"^(?:[@\w()]+\s+)*(?:let|var)\s+\w+\s*:[^={]*(?:->|@Sendable|@escaping)"#, in: "Sources/JSONAPIClientCore")
        let cases = try Self.matches(#"^(?:indirect\s+)?case\s+\w+\(.*(?:->|@Sendable|@escaping)"#, in: "Sources/JSONAPIClientCore")
        let aliases = try Self.matches(#"typealias\s+\w+\s*=.*->"#, in: "Sources/JSONAPIClientCore")
        #expect(stored == [])
        #expect(cases == [])
        #expect(aliases == [])
    }

    @Test("JSONAPIClientCore knows nothing of transport: no URLSession, HTTP types, async work or client module")
    func coreHasNoTransport() throws {
        let found = try Self.matches(
            #"\b(?:URLSession\w*|URLRequest|URLResponse|HTTPURLResponse|FoundationNetworking|HTTPRequest|HTTPResponse|async|await|JSONAPIClient\b)"#,
            in: "Sources/JSONAPIClientCore")
        #expect(found == [])
    }

    @Test("No public declaration serves pagination internals: no page helpers on Array or PrimaryData")
    func noPublicPaginationHelpers() throws {
        let helpers = try Self.matches(
            #"\b(?:public|open)\b.*\b(?:pageElements|appendPageElements|pageIdentity|pageElementCount|PageablePrimary|PageList)\b"#,
            in: "Sources")
        #expect(helpers == [])
        let publicOnArray = try Self.sources("Sources").flatMap { file -> [String] in
            var inside = false, depth = 0, found: [String] = []
            for line in file.code {
                if line.hasPrefix("extension Array") || line.hasPrefix("extension PrimaryData") {
                    inside = true
                    depth = 0
                }
                if inside {
                    if depth > 0, line.hasPrefix("public") { found.append("\(file.path): \(line)") }
                    depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
                    if depth <= 0, line.contains("}") { inside = false }
                }
            }
            return found
        }
        #expect(publicOnArray == [])
    }

    @Test("The jsonapi tool is written on the public API: no fake model, no @testable import, only the library's products")
    func toolUsesPublicAPI() throws {
        let tool = "Sources/JSONAPITool"
        #expect(try Self.sources(tool).count >= 3)
        #expect(try Self.matches(#":\s*(?:[\w.]+\s*,\s*)*Resource\b|resourceType|\.path\(\"\"\)|@testable|@_spi"#, in: tool) == [])
        let imports = Set(try Self.matches(#"^import\s+\w+"#, in: tool).map { $0.split(separator: " ").last.map(String.init) ?? "" })
        #expect(imports.isSubset(of: ["Foundation", "JSONAPIClient", "JSONAPIClientCore", "Glibc", "Musl", "Darwin"]))
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".executableTarget(name: "jsonapi", dependencies: ["JSONAPIClient"], path: "Sources/JSONAPITool")"#))
    }

    @Test("Only what an app links is a product: the executables stay out of Xcode's Add Package list")
    func onlyLibrariesAreProducts() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = try #require(manifest.range(of: "products: [")).upperBound
        let end = try #require(manifest.range(of: "],", range: products..<manifest.endIndex)).lowerBound
        let declared = manifest[products..<end].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix(".") }
        #expect(declared.count == 3)
        #expect(declared.allSatisfy { $0.hasPrefix(".library(") }, "\(declared)")
    }

    @Test("Every file that imports Glibc also imports Musl, so the static Linux SDK (musl) builds it")
    func muslBesideGlibc() throws {
        var checked = 0
        for folder in ["Sources", "Tests", "Benchmarks", "Examples"] {
            for file in try Self.sources(folder) where file.code.contains("import Glibc") {
                checked += 1
                #expect(file.code.contains("#elseif canImport(Musl)"), "\(file.path) imports Glibc without a Musl branch")
                #expect(file.code.contains("import Musl"), "\(file.path) imports Glibc without importing Musl")
            }
        }
        #expect(checked >= 2)
    }

    @Test("SQLite's C API is called from one file: only Persistence/SQLiteDatabase.swift imports SQLite3 or CSQLite")
    func sqliteInOneFile() throws {
        var importers: [String] = []
        for folder in ["Sources", "Benchmarks", "Examples"] {
            for file in try Self.sources(folder)
            where file.code.contains(where: { $0.hasPrefix("import SQLite3") || $0.hasPrefix("import CSQLite") }) {
                importers.append(file.path)
            }
        }
        #expect(importers == ["Sources/JSONAPIClient/Persistence/SQLiteDatabase.swift"])
    }

    @Test("Code that needs a newer compiler than the manifest declares sits behind a compiler check")
    func newerAPIsGuarded() throws {
        var checked = 0
        for file in try Self.sources("Sources") where file.code.contains(where: { $0.contains("Task.immediate(") }) {
            checked += 1
            #expect(
                file.code.contains { $0.trimmingCharacters(in: .whitespaces) == "#if compiler(>=6.2)" },
                "\(file.path) uses Task.immediate without #if compiler(>=6.2)")
        }
        #expect(checked == 1)
    }
}
