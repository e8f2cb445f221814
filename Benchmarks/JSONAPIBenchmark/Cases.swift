import Foundation
import JSONAPIClient

/// One thing to time: `run` does the work once and returns a number that depends on all of it (so it cannot be
/// optimised away); `check` verifies the output once, before timing.
struct BenchmarkCase {
    let name: String
    /// The case whose time this one is compared with, round by round; `nil` for a floor.
    let floor: String?
    /// Bytes read or written by one run, for the throughput figure.
    let bytes: Int
    /// Resources delivered by one run, when resources per second are reported.
    let resources: Int?
    /// Whether one run does its floor's work and more: then the ratio is what it adds, (case − floor) / floor.
    let addsToFloor: Bool
    let run: () throws -> Int
    let check: () throws -> String?

    init(
        name: String, floor: String?, bytes: Int, resources: Int? = nil, addsToFloor: Bool = false,
        run: @escaping () throws -> Int, check: @escaping () throws -> String?
    ) {
        self.name = name
        self.floor = floor
        self.addsToFloor = addsToFloor
        self.bytes = bytes
        self.resources = resources
        self.run = run
        self.check = check
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// Builds the cases for one generated document.
enum Cases {
    static let all = [
        "floor-decode", "decode-document", "decode-typed", "floor-encode", "encode-document", "floor-graph",
        "decode-graph", "floor-encode-graph", "encode-graph", "floor-nested", "decode-nested", "pipeline", "walk-sequential", "walk-prefetch",
        "walk-concurrent4", "store-merge", "store-read", "store-read-pending", "store-save", "sqlite-floor-select", "store-load",
        "store-save-cold", "store-hit", "store-walk-bare", "store-walk", "store-walk-observed", "store-walk-observer-program",
        "live-apply", "queue-append",
        "persist-walk", "persist-edit", "cold-start",
    ]

    static func make(for document: GeneratedDocument, selected: Set<String>) throws -> [BenchmarkCase] {
        let bytes = document.bytes
        let data = Data(bytes)
        var cases: [BenchmarkCase] = []

        let jsonDecoder = JSONDecoder()
        jsonDecoder.dateDecodingStrategy = .iso8601
        let jsonEncoder = JSONEncoder()
        jsonEncoder.dateEncodingStrategy = .iso8601
        let decoder = JSONAPIDecoder()
        let encoder = JSONAPIEncoder()

        if selected.contains("floor-decode") {
            cases.append(
                BenchmarkCase(
                    name: "floor-decode", floor: nil, bytes: bytes.count,
                    run: { try jsonDecoder.decode(Wire.Document.self, from: data).data.count },
                    check: { document.check(try jsonDecoder.decode(Wire.Document.self, from: data)) }))
        }
        if selected.contains("decode-document") {
            cases.append(
                BenchmarkCase(
                    name: "decode-document", floor: "floor-decode", bytes: bytes.count,
                    run: { try decoder.decode(RawDocument.self, from: data).included?.count ?? 0 },
                    check: { document.check(try decoder.decode(RawDocument.self, from: data)) }))
        }
        if selected.contains("decode-typed") {
            cases.append(
                BenchmarkCase(
                    name: "decode-typed", floor: "floor-decode", bytes: bytes.count,
                    run: { try decoder.decode(Document<[Article]>.self, from: data).data?.count ?? 0 },
                    check: { document.check(try decoder.decode(Document<[Article]>.self, from: data).data ?? []) }))
        }

        // The encoders write what the decoders read, so the outputs can be checked by decoding them again.
        if selected.contains("floor-encode") {
            let wire = try jsonDecoder.decode(Wire.Document.self, from: data)
            let size = try jsonEncoder.encode(wire).count
            cases.append(
                BenchmarkCase(
                    name: "floor-encode", floor: nil, bytes: size,
                    run: { try jsonEncoder.encode(wire).count },
                    check: { document.check(try jsonDecoder.decode(Wire.Document.self, from: jsonEncoder.encode(wire))) }
                ))
        }
        if selected.contains("encode-document") {
            let articles = try decoder.decode(Document<[Article]>.self, from: data).data ?? []
            let typed = Document(data: articles)
            let size = try encoder.encode(typed).count
            cases.append(
                BenchmarkCase(
                    name: "encode-document", floor: "floor-encode", bytes: size,
                    run: { try encoder.encode(typed).count },
                    check: {
                        let output = try encoder.encode(typed)
                        let raw = try decoder.decode(RawDocument.self, from: output)
                        let expected = document.referencedPeopleCount + document.commentCount
                        guard raw.included?.count == expected else {
                            return "expected \(expected) included resources, got \(raw.included?.count ?? 0)"
                        }
                        return document.check(try decoder.decode(Document<[Article]>.self, from: output).data ?? [])
                    }))
        }
        return cases + (try GraphCase.cases(size: document.articleCount, selected: selected))
            + NestedCase.cases(size: document.articleCount, selected: selected)
            + (try StoreCase.cases(for: document, selected: selected))
    }
}
