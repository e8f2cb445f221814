import Foundation
import JSONAPIClientCore

/// `decode-graph`: a citation graph in which every paper cites the next eight (wrapping around), all in one
/// compound document. Decoding it typed resolves every citation to the paper itself, so each paper is reached by
/// many paths; the time stays linear in the document because each resource is decoded once. Its floor,
/// `floor-graph`, is `JSONDecoder` reading the same bytes into wire-format structs.
///
/// `encode-graph` writes decoded papers back as a compound document. Its graph is layered, so that the decoder
/// resolves all of it (a citation chain deeper than the decoder's 32 levels of relationships is cut): 24 layers,
/// each paper citing eight of the next layer, the first layer as primary data. Every paper is reached by
/// exponentially many paths; the time stays linear because each is encoded once. Its floor,
/// `floor-encode-graph`, is `JSONEncoder` writing the same document's wire-format structs.
enum GraphCase {
    static let citationsPerPaper = 8

    struct Paper: Resource {
        static let resourceType = "papers"
        var id: String
        var title: String
        var year: Int
        var cites: [Paper]?
    }

    enum Wire {
        struct Document: Codable {
            var data: [Resource]
            var included: [Resource]
        }
        struct Resource: Codable {
            var type: String
            var id: String
            var attributes: Attributes
            var relationships: Relationships
        }
        struct Attributes: Codable {
            var title: String
            var year: Int
        }
        struct Relationships: Codable {
            var cites: Linkage
        }
        struct Linkage: Codable {
            var data: [Identifier]
        }
        struct Identifier: Codable {
            var type: String
            var id: String
        }
    }

    /// `papers` papers: the first tenth as primary data, the rest in `included`.
    static func document(papers: Int) -> [UInt8] {
        func paper(_ number: Int) -> String {
            let cited = (1...citationsPerPaper).map { #"{"type":"papers","id":"\#((number + $0) % papers + 1)"}"# }
            return #"{"type":"papers","id":"\#(number + 1)","attributes":{"title":"Paper \#(number + 1)","year":\#(1990 + number % 30)},"relationships":{"cites":{"data":[\#(cited.joined(separator: ","))]}}}"#
        }
        let primary = max(1, papers / 10)
        let data = (0..<primary).map(paper).joined(separator: ",")
        let included = (primary..<papers).map(paper).joined(separator: ",")
        return Array(#"{"data":[\#(data)],"included":[\#(included)]}"#.utf8)
    }

    static let layers = 24

    /// About `papers` papers in ``layers`` layers, each citing eight papers of the next layer (wrapping round within
    /// it); the first layer as primary data, the rest in `included`.
    static func layeredDocument(papers: Int) -> (bytes: [UInt8], papers: Int, primary: Int) {
        let width = max(citationsPerPaper, papers / layers)
        func paper(_ layer: Int, _ position: Int) -> String {
            let number = layer * width + position + 1
            let cited =
                layer + 1 == layers
                ? [] : (0..<citationsPerPaper).map { #"{"type":"papers","id":"\#((layer + 1) * width + (position + $0) % width + 1)"}"# }
            return #"{"type":"papers","id":"\#(number)","attributes":{"title":"Paper \#(number)","year":\#(1990 + number % 30)},"relationships":{"cites":{"data":[\#(cited.joined(separator: ","))]}}}"#
        }
        let data = (0..<width).map { paper(0, $0) }.joined(separator: ",")
        let included = (1..<layers).flatMap { layer in (0..<width).map { paper(layer, $0) } }.joined(separator: ",")
        return (Array(#"{"data":[\#(data)],"included":[\#(included)]}"#.utf8), width * layers, width)
    }

    static func cases(size: Int, selected: Set<String>) throws -> [BenchmarkCase] {
        let bytes = document(papers: size)
        let data = Data(bytes)
        let primary = max(1, size / 10)
        let jsonDecoder = JSONDecoder()
        let jsonEncoder = JSONEncoder()
        let decoder = JSONAPIDecoder()
        var cases: [BenchmarkCase] = []
        if selected.contains("floor-graph") {
            cases.append(
                BenchmarkCase(
                    name: "floor-graph", floor: nil, bytes: bytes.count,
                    run: { try jsonDecoder.decode(Wire.Document.self, from: data).included.count },
                    check: {
                        let wire = try jsonDecoder.decode(Wire.Document.self, from: data)
                        return wire.data.count + wire.included.count == size ? nil : "expected \(size) papers"
                    }))
        }
        if selected.contains("decode-graph") {
            cases.append(
                BenchmarkCase(
                    name: "decode-graph", floor: "floor-graph", bytes: bytes.count,
                    run: { try decoder.decode(Document<[Paper]>.self, from: data).data?.count ?? 0 },
                    check: {
                        let papers = try decoder.decode(Document<[Paper]>.self, from: data).data ?? []
                        guard papers.count == primary else { return "expected \(primary) primary papers" }
                        // Every citation of the primary data resolves to the paper itself.
                        for paper in papers {
                            guard let cited = paper.cites, cited.count == citationsPerPaper,
                                cited.allSatisfy({ $0.title.hasPrefix("Paper ") })
                            else { return "paper \(paper.id): citations not resolved" }
                        }
                        return nil
                    }))
        }
        let layered = layeredDocument(papers: size)
        let layeredData = Data(layered.bytes)
        if selected.contains("floor-encode-graph") {
            let wire = try jsonDecoder.decode(Wire.Document.self, from: layeredData)
            let written = try jsonEncoder.encode(wire).count
            cases.append(
                BenchmarkCase(
                    name: "floor-encode-graph", floor: nil, bytes: written,
                    run: { try jsonEncoder.encode(wire).count },
                    check: {
                        let written = try jsonDecoder.decode(Wire.Document.self, from: jsonEncoder.encode(wire))
                        let count = written.data.count + written.included.count
                        return count == layered.papers ? nil : "expected \(layered.papers) papers"
                    }))
        }
        if selected.contains("encode-graph") {
            let encoder = JSONAPIEncoder()
            let typed = Document(data: try decoder.decode(Document<[Paper]>.self, from: layeredData).data ?? [])
            let bytes = try encoder.encode(typed).count
            cases.append(
                BenchmarkCase(
                    name: "encode-graph", floor: "floor-encode-graph", bytes: bytes,
                    run: { try encoder.encode(typed).count },
                    check: {
                        // Every paper written once, with its citations as linkage.
                        let raw = try decoder.decode(RawDocument.self, from: encoder.encode(typed))
                        let resources = raw.data.map(\.resources) ?? []
                        let all = resources + (raw.included ?? [])
                        guard resources.count == layered.primary, Set(all.map(\.id)).count == layered.papers,
                            all.count == layered.papers
                        else { return "expected \(layered.papers) papers once each, \(layered.primary) of them primary" }
                        // All but the last layer's papers cite eight.
                        let citing = all.filter { paper in
                            guard case .toMany(let linkage)? = paper.relationships?["cites"]?.data else { return false }
                            return linkage.count == citationsPerPaper && paper.attributes?["title"] != nil
                        }
                        let cited = citing.count == layered.papers - layered.primary
                        return cited ? nil : "a paper lost its title or citations"
                    }))
        }
        return cases
    }
}
