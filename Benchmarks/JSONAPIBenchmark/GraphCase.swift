import Foundation
import JSONAPIClientCore

/// `decode-graph`: a citation graph in which every paper cites the next eight (wrapping around), all in one
/// compound document. Decoding it typed resolves every citation to the paper itself, so each paper is reached by
/// many paths; the time stays linear in the document because each resource is decoded once. Its floor,
/// `floor-graph`, is `JSONDecoder` reading the same bytes into wire-format structs.
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
        struct Document: Decodable {
            var data: [Resource]
            var included: [Resource]
        }
        struct Resource: Decodable {
            var type: String
            var id: String
            var attributes: Attributes
            var relationships: Relationships
        }
        struct Attributes: Decodable {
            var title: String
            var year: Int
        }
        struct Relationships: Decodable {
            var cites: Linkage
        }
        struct Linkage: Decodable {
            var data: [Identifier]
        }
        struct Identifier: Decodable {
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

    static func cases(size: Int, selected: Set<String>) -> [BenchmarkCase] {
        let bytes = document(papers: size)
        let data = Data(bytes)
        let primary = max(1, size / 10)
        let jsonDecoder = JSONDecoder()
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
        return cases
    }
}
