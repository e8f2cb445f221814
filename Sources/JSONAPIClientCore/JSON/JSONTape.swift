/// A parsed JSON text: the input bytes and a flat structural index with one node per value.
///
/// Values appear in document order. An object node is followed by its members, each a key (a string node) then the
/// member's value; an array node is followed by its elements. Containers record the index just past their last
/// descendant, so a reader skips any value in O(1). Strings and numbers are only located, never converted, until a
/// reader asks for them: decoding only what a model needs is the point.
struct JSONTape {
    /// What a node holds.
    enum Kind: UInt8, Sendable {
        case null, `true`, `false`, number, string, array, object
    }

    /// One value in 8 bytes (two 32-bit words), so the tape of a large document takes less memory than its input
    /// and more of it stays in the caches.
    ///
    /// A string or number needs its byte offset and length; an array or object its count and where it ends. A
    /// container's own byte offset is not kept: only a parse error for an unterminated container needs it, and the
    /// parser writes the count over it when the container closes.
    struct Node: Sendable {
        /// Strings and numbers: the byte offset (for strings the first byte after the opening quote). Arrays and
        /// objects: the element / member count (the byte offset of `[` or `{` until the parser closes them).
        private var word: UInt32
        /// `(length or end) << 4 | flags << 3 | kind`.
        private var packed: UInt32

        /// The largest `end` a node holds: a tape has fewer nodes than this (``JSONTape/maxNodes``).
        static let maxEnd = UInt32.max >> 4
        /// The longest string or number a node holds, in bytes (about 268 MB).
        static let maxLength = maxEnd

        /// A node; `length` is a string's or number's, `end` a container's (a container's `start` is its byte
        /// offset, kept until its count replaces it).
        init(kind: Kind, flags: UInt8, start: UInt32, length: UInt32 = 0, end: UInt32 = 0) {
            word = start
            packed = (length | end) << 4 | UInt32(flags & 1) << 3 | UInt32(kind.rawValue)
        }

        @inline(__always) var kind: Kind {
            // Only the parser writes kinds, each a valid raw value; `.null` cannot be reached.
            Kind(rawValue: UInt8(truncatingIfNeeded: packed & 7)) ?? .null
        }

        /// For strings: `stringHasEscapes`; for numbers: `numberIsInteger`.
        var flags: UInt8 { UInt8(truncatingIfNeeded: packed >> 3) & 1 }

        /// Strings and numbers: the byte offset where the text starts. (Arrays and objects the parser has not closed:
        /// the offset of their opening bracket.)
        @inline(__always) var start: UInt32 { word }

        /// Strings and numbers: the byte length (strings without quotes).
        @inline(__always) var length: UInt32 { packed >> 4 }

        /// Arrays and objects: the element / member count.
        @inline(__always) var count: UInt32 {
            get { word }
            set { word = newValue }
        }

        /// The node copied `nodes` places along into another tape whose bytes put its text `bytes` bytes along: a
        /// container's `end` follows the first, a string's, number's or literal's `start` the second. The caller
        /// keeps both within the tape's limits (``JSONTape/maxNodes``, 4 GiB).
        @inline(__always) func moved(nodes: Int, bytes: Int) -> Node {
            var node = self
            switch kind {
            case .array, .object: node.end = UInt32(truncatingIfNeeded: Int(end) &+ nodes)
            default: node.word = UInt32(truncatingIfNeeded: Int(word) &+ bytes)
            }
            return node
        }

        /// Arrays and objects: the index of the node just past the container.
        var end: UInt32 {
            @inline(__always) get { packed >> 4 }
            set { packed = newValue << 4 | packed & 0xF }
        }
    }

    /// The most values a tape holds (each container records where it ends in 28 bits): about 268 million, which
    /// only a document of several hundred megabytes reaches.
    static let maxNodes = Int(Node.maxEnd)

    /// The longest string or number a tape holds, in bytes (lengths are 28 bits): about 268 MB.
    static let maxLength = Int(Node.maxLength)

    static let stringHasEscapes: UInt8 = 1
    static let numberIsInteger: UInt8 = 1

    /// The input.
    let bytes: TapeBytes
    /// The index; `nodes[0]` is the root value.
    let nodes: [Node]

    @inline(__always) func kind(_ index: Int) -> Kind { nodes[index].kind }

    /// The index of the value after the one at `index` (skipping its descendants).
    @inline(__always) func skip(_ index: Int) -> Int {
        let node = nodes[index]
        switch node.kind {
        case .array, .object: return Int(node.end)
        default: return index + 1
        }
    }

    /// The number of elements of an array, or members of an object.
    @inline(__always) func count(_ index: Int) -> Int { Int(nodes[index].count) }

    /// The decoded text of the string at `index`.
    func string(_ index: Int) -> String {
        let node = nodes[index]
        let start = Int(node.start), end = start + Int(node.length)
        if node.flags & Self.stringHasEscapes == 0 {
            return bytes.withBytes(in: start..<end) { $0.string }
        }
        return Self.unescape(bytes, start..<end)
    }

    /// Whether the string at `index` equals `utf8`, compared as bytes without building a `String`.
    func stringEquals(_ index: Int, _ utf8: BorrowedBytes) -> Bool {
        let node = nodes[index]
        if node.flags & Self.stringHasEscapes != 0 { return utf8.elementsEqual(string(index).utf8) }
        guard Int(node.length) == utf8.count else { return false }
        let start = Int(node.start)
        var i = 0
        while i < utf8.count {
            if bytes[start &+ i] != utf8[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Whether the string at `index` equals `text`.
    func stringEquals(_ index: Int, _ text: String) -> Bool {
        BorrowedBytes.lending(text) { stringEquals(index, $0) }
    }

    /// Whether the number at `index` is written as an integer (no fraction, no exponent).
    @inline(__always) func isInteger(_ index: Int) -> Bool { nodes[index].flags & Self.numberIsInteger != 0 }

    /// The source text of the number at `index`.
    func numberText(_ index: Int) -> String {
        let node = nodes[index]
        let start = Int(node.start)
        return bytes.withBytes(in: start..<start + Int(node.length)) { $0.string }
    }

    /// The number at `index` as an `Int64`, or `nil` when it is not an integer or does not fit.
    func int64(_ index: Int) -> Int64? {
        let node = nodes[index]
        guard node.flags & Self.numberIsInteger != 0 else { return nil }
        let start = Int(node.start), end = start + Int(node.length)
        var i = start
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var value: Int64 = 0
        while i < end {
            let digit = Int64(bytes[i] &- UInt8(ascii: "0"))
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = next
            i += 1
        }
        return value
    }

    /// The number at `index` as a `Double` (the nearest one; large magnitudes become infinity).
    func double(_ index: Int) -> Double {
        if let integer = int64(index), integer.magnitude < (1 << 53) { return Double(integer) }
        return Double(numberText(index)) ?? .nan
    }
}
