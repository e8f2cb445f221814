import Foundation
import Testing

/// The DocC articles' code stays true: every Swift block of every article stands in ClientTests/DocCSnippets.swift,
/// which compiles (and runs its one test), and an excerpt of the library's own API (a block opening with `public`)
/// stands in the library's sources. A SwiftUI view (a block opening with `import SwiftUI`, as the README's blocks
/// opening with `import` are skipped) cannot compile on Linux and is not checked: an article keeps the code it calls
/// in a block of its own.
@Suite("DocC articles")
struct DocCArticleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func lines(of text: String) -> Set<String> {
        Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// The articles of both catalogs, as (name, Swift blocks).
    static func articles() throws -> [(name: String, blocks: [String])] {
        var articles: [(String, [String])] = []
        for catalog in ["Sources/JSONAPIClient/JSONAPIClient.docc", "Sources/JSONAPIClientCore/JSONAPIClientCore.docc"] {
            let folder = root.appendingPathComponent(catalog)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".md") {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                let blocks = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
                articles.append((name, Array(blocks)))
            }
        }
        return articles
    }

    @Test("Every line of every Swift block of the articles stands in DocCSnippets.swift or, for API excerpts, in Sources (SwiftUI views aside)")
    func snippetsCompile() throws {
        let snippets = Self.lines(
            of: try String(contentsOf: Self.root.appendingPathComponent("Tests/ClientTests/DocCSnippets.swift"), encoding: .utf8))
        var sources = Set<String>()
        let walker = FileManager.default.enumerator(at: Self.root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "swift" { sources.formUnion(Self.lines(of: try String(contentsOf: url, encoding: .utf8))) }
        }
        let articles = try Self.articles()
        #expect(articles.count >= 12)
        #expect(articles.reduce(0) { $0 + $1.blocks.count } >= 12)
        for (name, blocks) in articles {
            for block in blocks where !block.hasPrefix("import SwiftUI\n") {
                let isExcerpt = block.hasPrefix("public ")
                for line in block.split(separator: "\n") {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    let found = (isExcerpt ? sources : snippets).contains(code)
                    #expect(found, "\(name): \(code)")
                }
            }
        }
    }

    /// Each `URL(string: …)!` in `text`, as written: the call's closing parenthesis is found by counting
    /// parentheses outside string literals, so `URL(string: "a(b)")!` and `URL(string: s, relativeTo: base)!` count.
    static func forceUnwrappedURLs(in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let start = rest.range(of: "URL(string:") {
            var depth = 0
            var inString = false
            var escaped = false
            var index = rest.index(start.lowerBound, offsetBy: 3)  // the opening parenthesis
            var end: Substring.Index?
            while index < rest.endIndex {
                let character = rest[index]
                if inString {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                } else if character == "\"" {
                    inString = true
                } else if character == "(" {
                    depth += 1
                } else if character == ")" {
                    depth -= 1
                    if depth == 0 {
                        end = index
                        break
                    }
                }
                index = rest.index(after: index)
            }
            guard let end else { break }
            let after = rest.index(after: end)
            if after < rest.endIndex, rest[after] == "!" { found.append(String(rest[start.lowerBound...after])) }
            rest = rest[after...]
        }
        return found
    }

    @Test("The force-unwrapped URL scanner finds `URL(string: …)!` however the call is written, and nothing else")
    func scanner() {
        #expect(Self.forceUnwrappedURLs(in: #"let u = URL(string: "articles?page[size]=5")!"#) == [#"URL(string: "articles?page[size]=5")!"#])
        #expect(Self.forceUnwrappedURLs(in: #"f(URL(string: "a(b)", relativeTo: base)!.path)"#).count == 1)
        #expect(Self.forceUnwrappedURLs(in: #"URL(string: "a\")")! and URL(string: x)!"#).count == 2)
        #expect(Self.forceUnwrappedURLs(in: #"try #require(URL(string: "https://api.example.com"))"#).isEmpty)
        #expect(Self.forceUnwrappedURLs(in: #"URL(string: "a") != nil; URL(percentEncoding: "b")!"#).isEmpty)
    }

    /// `URL(string:)` is `nil` on macOS 13, iOS 16, tvOS 16 and watchOS 9 for a URL with raw brackets (JSON:API's
    /// `page[size]`), so a force unwrap in the documentation crashes there: samples use `URL(percentEncoding:)`, a
    /// `guard`, or `#require`.
    @Test("No article, README or Docs page force-unwraps `URL(string:)`")
    func noForceUnwrappedURLs() throws {
        var pages: [(name: String, text: String)] = []
        for catalog in ["Sources/JSONAPIClient/JSONAPIClient.docc", "Sources/JSONAPIClientCore/JSONAPIClientCore.docc", "Docs"] {
            let folder = Self.root.appendingPathComponent(catalog)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".md") {
                pages.append(("\(catalog)/\(name)", try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)))
            }
        }
        pages.append(("README.md", try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)))
        #expect(pages.count >= 16)
        for page in pages {
            for call in Self.forceUnwrappedURLs(in: page.text) { Issue.record("\(page.name): \(call)") }
        }
    }

    @Test("The landing page lists every article")
    func articlesListed() throws {
        let landing = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/JSONAPIClient/JSONAPIClient.docc/JSONAPIClient.md"),
            encoding: .utf8)
        for (name, _) in try Self.articles() where name != "JSONAPIClient.md" && name != "JSONAPIClientCore.md" {
            let article = String(name.dropLast(".md".count))
            #expect(landing.contains("<doc:\(article)>"), "\(article) is not in the landing page's topics")
        }
    }
}
