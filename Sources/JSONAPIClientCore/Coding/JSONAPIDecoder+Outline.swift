import Foundation

/// What the networking layer needs from a page besides its document, read from the same parse: how many primary
/// resources it has, and the meta of the first and last one. `package`: for JSONAPIClient, not a public API.
package struct PrimaryDataOutline: Sendable, Hashable {
    /// The number of primary resources: the length of a `data` array, 1 for one resource, 0 for none.
    package var count = 0
    /// The first primary resource's `meta`, when asked for.
    package var firstResourceMeta: Meta?
    /// The last primary resource's `meta`, when asked for.
    package var lastResourceMeta: Meta?
}

extension JSONAPIDecoder {
    /// Decodes a document as ``decode(_:from:)-(_,Data)`` does and outlines its primary data from the same tape.
    ///
    /// - Parameter resourceMeta: Whether to read the first and last primary resources' `meta`.
    package func decodeWithOutline<Primary: Decodable & Sendable>(
        _ type: Document<Primary>.Type, from data: Data, resourceMeta: Bool
    ) throws(JSONAPIDecodingError) -> (Document<Primary>, PrimaryDataOutline) {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            let document = try decode(type, tape: tape)
            return (document, try Self.outline(tape, resourceMeta: resourceMeta))
        }
    }

    static func outline(_ tape: JSONTape, resourceMeta: Bool) throws(JSONAPIDecodingError) -> PrimaryDataOutline {
        let reader = DocumentReader(tape: tape)
        var outline = PrimaryDataOutline()
        guard tape.kind(0) == .object else { return outline }
        var dataIndex: Int?
        try reader.forEachMember(0) { key, value in
            if tape.string(key) == "data" { dataIndex = value }
        }
        guard let dataIndex else { return outline }
        var resources: [Int] = []
        switch tape.kind(dataIndex) {
        case .object:
            outline.count = 1
            resources = [dataIndex]
        case .array:
            outline.count = tape.count(dataIndex)
            if outline.count > 0 {
                var last = dataIndex + 1
                for _ in 1..<outline.count { last = tape.skip(last) }
                resources = [dataIndex + 1, last]
            }
        default: break
        }
        guard resourceMeta, let first = resources.first, let last = resources.last else { return outline }
        outline.firstResourceMeta = try meta(of: first, reader)
        outline.lastResourceMeta = try meta(of: last, reader)
        return outline
    }

    private static func meta(of resource: Int, _ reader: DocumentReader) throws(JSONAPIDecodingError) -> Meta? {
        guard reader.tape.kind(resource) == .object else { return nil }
        var metaIndex: Int?
        try reader.forEachMember(resource) { key, value in
            if reader.tape.string(key) == "meta" { metaIndex = value }
        }
        guard let metaIndex, reader.tape.kind(metaIndex) == .object else { return nil }
        return try reader.meta(metaIndex)
    }
}
