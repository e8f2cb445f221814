import Foundation
import JSONAPIClientCore

/// A stored response's body as the database keeps it: the body's text with each resource object (one with an `id`,
/// in `data` or `included`) cut out and named by its `(type, id)` — the records table holds the objects — so that a
/// walk of 100 pages writes its resources once, as records, not twice.
///
/// **Rebuilt from the records.** ``body(records:)`` puts each resource's object back between the text around it
/// (the document's `links`, `meta`, `jsonapi`, brackets and blanks, byte for byte as they came): the body as it
/// came when the records are as it wrote them, and with what changed since — a rename merged from another response,
/// a write's answer — when they are not (what the store shows anyway). A body whose resources are not all in the
/// store any more (trimmed past ``ResourceStore/Configuration/maxResources``) is not rebuilt: the response is fetched
/// again.
///
/// **Or kept whole.** A body that is not a JSON:API document whose resource objects the parser can place (not JSON,
/// no resource with an `id`, a resource object's text not found) has no outline: the database keeps it as it came.
///
/// The bytes (``bytes``): a version byte, the number of resources, then for each the text before it and its type
/// and id, then the text after the last — lengths and strings as ``ByteWriter`` writes them.
struct ResponseOutline: Equatable {
    /// One resource cut out: the text before it (since the previous one), and its key.
    struct Cut: Equatable {
        var before: Data
        var type: String
        var id: String
    }

    /// The resources cut out, in the body's order.
    var cuts: [Cut]
    /// The text after the last resource.
    var after: Data

    /// The version of ``bytes`` this library writes and reads.
    static let version: UInt8 = 1

    /// The outline of `body`: `nil` when it has no resource object to cut out, or when it does not parse as a
    /// JSON:API document whose objects' text can be found (then it is kept whole).
    ///
    /// - Parameters:
    ///   - body: A response body.
    ///   - decoder: The decoder that parses it (its nesting limit).
    init?(body: Data, decoder: JSONAPIDecoder = JSONAPIDecoder()) {
        guard let records = try? decoder.records(from: body), !records.resources.isEmpty else { return nil }
        let text = Array(body)
        var cuts: [Cut] = []
        cuts.reserveCapacity(records.resources.count)
        var start = 0
        for entry in records.resources {
            // The tape's bytes are the body's (the parser keeps offsets into what it was given): the range is
            // checked against the body all the same, and the objects must follow one another.
            guard let range = entry.record(in: records).textRange, range.lowerBound >= start,
                range.upperBound <= text.count, text[range.lowerBound] == UInt8(ascii: "{"),
                text[range.upperBound - 1] == UInt8(ascii: "}")
            else { return nil }
            cuts.append(Cut(before: Data(text[start..<range.lowerBound]), type: entry.type, id: entry.id))
            start = range.upperBound
        }
        self.cuts = cuts
        self.after = Data(text[start...])
    }

    /// An outline of `cuts` and `after`.
    init(cuts: [Cut], after: Data) {
        self.cuts = cuts
        self.after = after
    }

    /// The keys of the resources cut out, in the body's order.
    var keys: [ResourceStore.Key] { cuts.map { ResourceStore.Key(type: $0.type, id: $0.id) } }

    /// The body with each resource's object put back from `records`.
    ///
    /// - Parameter records: The record of a key; `nil` when the store has none.
    /// - Returns: The body; `nil` when a resource's record is missing.
    func body(records: (ResourceStore.Key) -> ResourceRecord?) -> Data? {
        body { key, body in
            guard let record = records(key) else { return false }
            record.write(into: &body)
            return true
        }
    }

    /// The body with each resource's object put back by `object`, which appends the object's JSON text of a key to
    /// the body and returns `true`, or returns `false` when there is none.
    ///
    /// - Returns: The body; `nil` when a resource's object is missing.
    func body(object: (ResourceStore.Key, inout [UInt8]) -> Bool) -> Data? {
        var body: [UInt8] = []
        body.reserveCapacity(after.count + cuts.reduce(0) { $0 + $1.before.count + 256 })
        for cut in cuts {
            body.append(contentsOf: cut.before)
            guard object(ResourceStore.Key(type: cut.type, id: cut.id), &body) else { return nil }
        }
        body.append(contentsOf: after)
        return Data(body)
    }

    /// The outline's bytes, as the database keeps them.
    var bytes: Data {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(after.count + cuts.reduce(16) { $0 + $1.before.count + $1.type.utf8.count + $1.id.utf8.count + 24 })
        writer.append(Self.version)
        writer.append(UInt64(cuts.count))
        for cut in cuts {
            writer.append(data: cut.before)
            writer.append(cut.type)
            writer.append(cut.id)
        }
        writer.append(data: after)
        return Data(writer.bytes)
    }

    /// The outline of `bytes`, as ``bytes`` wrote it.
    ///
    /// - Throws: ``RowCodec/Unreadable`` when the bytes are not one whole outline of this version (damaged, cut
    ///   short, bytes left over), naming what was being read and where.
    init(bytes: Data) throws(RowCodec.Unreadable) {
        var reader = ByteReader(data: bytes)
        let version = try reader.u8("the outline's version")
        guard version == Self.version else {
            throw RowCodec.Unreadable(reason: "the outline's version is \(version), not \(Self.version)", offset: 0)
        }
        var cuts: [Cut] = []
        // No more than the bytes left could hold at 8 bytes each (`count`): a damaged count reserves no more than that.
        let count = try reader.count("the outline's resource count")
        cuts.reserveCapacity(count)
        for _ in 0..<count {
            let before = Data(try reader.take(try reader.length("the text before a resource"), "the text before a resource"))
            cuts.append(Cut(before: before, type: try reader.string("a resource's type"), id: try reader.string("a resource's id")))
        }
        let after = Data(try reader.take(try reader.length("the text after the resources"), "the text after the resources"))
        guard reader.isAtEnd else {
            throw RowCodec.Unreadable(reason: "the outline has bytes left over", offset: reader.offset)
        }
        self.init(cuts: cuts, after: after)
    }
}
