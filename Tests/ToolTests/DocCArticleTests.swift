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
