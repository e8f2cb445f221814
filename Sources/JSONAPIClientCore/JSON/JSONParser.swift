/// Why a JSON text could not be parsed, and where.
///
/// `offset` is the byte offset of the first byte at which the input stops being valid JSON (`bytes.count` when the
/// input ends too early), with two exceptions that point at the culprit instead: a bad escape sequence (including a
/// `\u` escape that forms a lone surrogate) points at its backslash, and a trailing comma points at the comma.
struct JSONParseError: Error, Sendable, Equatable {
    /// Byte offset of the offending byte in the input.
    var offset: Int
    /// What is wrong, e.g. "unterminated string", "trailing comma in object".
    var reason: String
}

extension JSONTape {
    /// Parses `bytes` (RFC 8259, strict) into a tape.
    ///
    /// Rejects invalid UTF-8 (anywhere), unescaped control characters in strings, invalid escapes and lone
    /// surrogates, non-RFC numbers, trailing commas, anything but whitespace after the root value, a byte order mark,
    /// containers nested deeper than `maxDepth`, inputs larger than 4 GiB, documents of more than `maxNodes` values
    /// (``JSONTape/maxNodes``, about 268 million) and strings or numbers longer than `maxLength` bytes
    /// (``JSONTape/maxLength``, about 268 MB). Duplicate keys are kept.
    init(
        parsing bytes: [UInt8], maxDepth: Int = 512, maxNodes: Int = JSONTape.maxNodes,
        maxLength: Int = JSONTape.maxLength
    ) throws(JSONParseError) {
        try self.init(bytes: TapeBytes(copying: bytes), maxDepth: maxDepth, maxNodes: maxNodes, maxLength: maxLength)
    }

    /// Parses bytes the caller lends for as long as the tape is used: no copy. The tape must not outlive `buffer`.
    init(borrowing buffer: BorrowedBytes, maxDepth: Int = 512) throws(JSONParseError) {
        try self.init(bytes: TapeBytes(borrowing: buffer), maxDepth: maxDepth)
    }

    private init(
        bytes: TapeBytes, maxDepth: Int, maxNodes: Int = JSONTape.maxNodes, maxLength: Int = JSONTape.maxLength
    ) throws(JSONParseError) {
        guard UInt64(bytes.count) <= UInt64(UInt32.max) else {
            throw JSONParseError(offset: Int(exactly: UInt64(UInt32.max) + 1) ?? Int.max, reason: "input larger than 4 GiB")
        }
        let nodes = try bytes.withBytes { (input) throws(JSONParseError) -> [Node] in
            try JSONTapeParser.parse(input, maxDepth: maxDepth, maxNodes: maxNodes, maxLength: maxLength)
        }
        self.init(bytes: bytes, nodes: nodes)
    }

    /// Decodes the JSON string body `bytes[range]` (without quotes), which contains escapes.
    ///
    /// Lenient: the parser has validated the text already. A malformed escape is copied as written, a lone surrogate
    /// becomes U+FFFD, invalid UTF-8 is repaired with U+FFFD, and a range outside `bytes` is clamped.
    static func unescape(_ bytes: TapeBytes, _ range: Range<Int>) -> String {
        let range = range.clamped(to: bytes.indices)
        if range.isEmpty { return "" }
        return bytes.withBytes { input in
            // Escapes never decode to more bytes than they are written with, so `range.count` is enough.
            String(unsafeUninitializedCapacity: range.count) { output in
                unescape(input, range, into: output)
            }
        }
    }

    /// Decodes `input[range]` into `output` (at least `range.count` bytes); returns the number of bytes written.
    private static func unescape(
        _ input: BorrowedBytes, _ range: Range<Int>, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        var i = range.lowerBound, o = 0
        let end = range.upperBound
        @inline(__always) func put(_ byte: UInt8) {
            output[o] = byte
            o &+= 1
        }
        while i < end {
            let c = input[i]
            if c != UInt8(ascii: "\\") || i &+ 1 >= end {
                put(c)
                i &+= 1
                continue
            }
            let e = input[i &+ 1]
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(e)
            case UInt8(ascii: "b"): put(0x08)
            case UInt8(ascii: "f"): put(0x0C)
            case UInt8(ascii: "n"): put(0x0A)
            case UInt8(ascii: "r"): put(0x0D)
            case UInt8(ascii: "t"): put(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hex4(input, i &+ 2, end) else {
                    put(c)
                    i &+= 1
                    continue
                }
                var scalar = UInt32(0xFFFD)
                var consumed = 6
                if unit & 0xFC00 == 0xD800 {
                    if i &+ 12 <= end, input[i &+ 6] == UInt8(ascii: "\\"), input[i &+ 7] == UInt8(ascii: "u"),
                        let low = hex4(input, i &+ 8, end), low & 0xFC00 == 0xDC00
                    {
                        scalar = 0x10000 &+ ((UInt32(unit) &- 0xD800) << 10) &+ (UInt32(low) &- 0xDC00)
                        consumed = 12
                    }
                } else if unit & 0xFC00 != 0xDC00 {
                    scalar = UInt32(unit)
                }
                // Encode `scalar` (never a surrogate, at most U+10FFFF) as UTF-8: at most 4 bytes for 12 input
                // bytes, at most 3 for 6.
                if scalar < 0x80 {
                    put(UInt8(truncatingIfNeeded: scalar))
                } else if scalar < 0x800 {
                    put(0xC0 | UInt8(truncatingIfNeeded: scalar >> 6))
                    put(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
                } else if scalar < 0x10000 {
                    put(0xE0 | UInt8(truncatingIfNeeded: scalar >> 12))
                    put(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
                    put(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
                } else {
                    put(0xF0 | UInt8(truncatingIfNeeded: scalar >> 18))
                    put(0x80 | UInt8(truncatingIfNeeded: (scalar >> 12) & 0x3F))
                    put(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
                    put(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
                }
                i &+= consumed
                continue
            default:
                // Not an escape: keep the backslash and go on with the next byte.
                put(c)
                i &+= 1
                continue
            }
            i &+= 2
        }
        return o
    }

    /// The value of the four hex digits at `input[i..<i+4]` (all before `end`), or `nil`.
    @inline(__always)
    fileprivate static func hex4(_ input: BorrowedBytes, _ i: Int, _ end: Int) -> UInt16? {
        guard i &+ 4 <= end else { return nil }
        var value: UInt16 = 0
        for k in 0..<4 {
            guard let digit = hexValue(input[i &+ k]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    @inline(__always)
    fileprivate static func hexValue(_ c: UInt8) -> UInt8? {
        if c &- UInt8(ascii: "0") < 10 { return c &- UInt8(ascii: "0") }
        let lower = c | 0x20
        if lower &- UInt8(ascii: "a") < 6 { return lower &- UInt8(ascii: "a") &+ 10 }
        return nil
    }
}

// MARK: - The parser

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")
private let comma = UInt8(ascii: ",")
private let colon = UInt8(ascii: ":")
private let openBracket = UInt8(ascii: "[")
private let closeBracket = UInt8(ascii: "]")
private let openBrace = UInt8(ascii: "{")
private let closeBrace = UInt8(ascii: "}")

/// The high bit of each byte of `w` that is a `"`, a `\`, a control character or non-ASCII (>= 0x80); other bits 0.
///
/// A byte's high bit is set when it is 0 after the xor (quote, backslash), below 0x20 (the subtraction borrows), or
/// >= 0x80. A byte above a match may be flagged too (borrows run upwards), but the lowest flagged byte is always a
/// real match.
@inline(__always) private func specialBytes(_ w: UInt64) -> UInt64 {
    let q = w ^ 0x2222_2222_2222_2222
    let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
    return ((q &- 0x0101_0101_0101_0101) | (b &- 0x0101_0101_0101_0101) | (w &- 0x2020_2020_2020_2020) | w)
        & 0x8080_8080_8080_8080
}

@inline(__always) private func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }

/// A single-pass, validating parser writing tape nodes into caller-provided memory.
///
/// It keeps its position and the stack of open containers between calls to ``run(_:capacity:count:)``, so when the
/// node buffer fills up the caller moves the nodes into a bigger one and resumes: the tape is built directly in the
/// final array, without a copy unless the first capacity estimate was too small.
private struct JSONTapeParser: ~Copyable {
    typealias Node = JSONTape.Node

    /// The input.
    let p: BorrowedBytes
    var n: Int { p.count }
    let maxDepth: Int
    let maxLength: Int

    /// Where the next value starts (the parser is always about to read a value when it returns).
    var pos = 0
    /// The number of open containers.
    var depth = 0
    /// The innermost open container: its node index, its comma count and whether it is an object.
    var topIndex = 0
    var topCommas = 0
    var topIsObject = false
    /// The enclosing open containers (all but the innermost), packed by ``pack(_:_:_:)``.
    var stack: UnsafeMutablePointer<UInt64>
    var stackCapacity: Int

    init(_ p: BorrowedBytes, maxDepth: Int, maxLength: Int) {
        self.p = p
        self.maxDepth = maxDepth
        self.maxLength = maxLength
        stackCapacity = 64
        stack = .allocate(capacity: stackCapacity)
    }

    deinit { stack.deallocate() }

    /// Parses `input` into at most `maxNodes` nodes, each string or number at most `maxLength` bytes (parameters so
    /// that tests can reach the limits).
    static func parse(
        _ input: BorrowedBytes, maxDepth: Int, maxNodes: Int = JSONTape.maxNodes,
        maxLength: Int = JSONTape.maxLength
    ) throws(JSONParseError) -> [Node] {
        guard input.count > 0 else { throw JSONParseError(offset: 0, reason: "empty input") }
        var parser = JSONTapeParser(input, maxDepth: maxDepth, maxLength: maxLength)
        var failure: JSONParseError?
        var finished = false
        // Room for two nodes past the limit: `run` stops when fewer than two slots are left, so a document of exactly
        // `maxNodes` values still fits, and one of more is caught below (its ends may be cut short: it is thrown away).
        let cap = maxNodes + 2
        func tooMany(at offset: Int) -> JSONParseError {
            JSONParseError(offset: offset, reason: "more than \(maxNodes) values: the document is too large to index")
        }
        // Most documents have fewer than one node per 8 bytes; a denser one grows the buffer below.
        var capacity = min(input.count / 8 + 16, cap)
        var nodes = [Node](unsafeUninitializedCapacity: capacity) { buffer, count in
            guard let out = buffer.baseAddress else {
                failure = JSONParseError(offset: 0, reason: "could not allocate the tape")
                return
            }
            do throws(JSONParseError) {
                finished = try parser.run(out, capacity: buffer.count, count: &count)
            } catch { failure = error }
        }
        while failure == nil && !finished {
            guard capacity < cap else {
                failure = tooMany(at: parser.pos)
                break
            }
            // Extrapolate from the density so far, at least one and a half times as much, but no more than the
            // input can need: every node starts at a byte of its own.
            let soFar = nodes.count
            let density = Double(soFar) / Double(max(parser.pos, 1))
            let estimate = Int(density * Double(input.count) * 1.1)
            let atLeast = capacity + capacity / 2
            capacity = min(max(estimate, atLeast), input.count + 16, cap)
            let previous = nodes
            nodes = [Node](unsafeUninitializedCapacity: capacity) { buffer, count in
                guard let out = buffer.baseAddress else {
                    failure = JSONParseError(offset: 0, reason: "could not allocate the tape")
                    return
                }
                // Only when the first estimate was short, so a plain loop.
                for (position, node) in previous.enumerated() { (out + position).initialize(to: node) }
                count = previous.count
                do throws(JSONParseError) {
                finished = try parser.run(out, capacity: buffer.count, count: &count)
            } catch { failure = error }
            }
        }
        if let failure { throw failure }
        guard nodes.count <= maxNodes else { throw tooMany(at: input.count) }
        return nodes
    }

    // MARK: Main loop

    /// Parses until the input is done (returns `true`) or fewer than two node slots are left (returns `false`; call
    /// again with the nodes moved to a bigger buffer).
    mutating func run(
        _ out: UnsafeMutablePointer<Node>, capacity: Int, count nodeCount: inout Int
    ) throws(JSONParseError) -> Bool {
        let p = self.p, n = self.n
        let s = JSONScanner(p: p, maxLength: maxLength)
        var pos = self.pos
        var depth = self.depth
        var topIndex = self.topIndex, topCommas = self.topCommas, topIsObject = self.topIsObject
        var count = nodeCount
        defer { nodeCount = count }

        value: while true {
            // Every path from here to the next `continue value` writes at most two nodes.
            if count &+ 2 > capacity {
                self.pos = pos
                self.depth = depth
                self.topIndex = topIndex
                self.topCommas = topCommas
                self.topIsObject = topIsObject
                return false
            }
            s.skipWhitespace(&pos)
            guard pos < n else { throw s.endOfInput(depth: depth, topIndex: topIndex, topIsObject: topIsObject, out) }
            let c = p[pos]
            switch c {
            case quote:
                let (end, flags) = try s.scanString(pos &+ 1)
                guard end &- pos &- 1 <= s.maxLength else { throw s.tooLong(pos, "string") }
                Self.emit(out, &count, .string, flags, pos &+ 1, end &- pos &- 1)
                pos = end &+ 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                let (end, integer) = try s.scanNumber(pos)
                guard end &- pos <= s.maxLength else { throw s.tooLong(pos, "number") }
                Self.emit(out, &count, .number, integer ? JSONTape.numberIsInteger : 0, pos, end &- pos)
                pos = end
            case openBrace, openBracket:
                guard depth < maxDepth else {
                    throw JSONParseError(offset: pos, reason: "nesting deeper than the maximum depth of \(maxDepth)")
                }
                let isObject = c == openBrace
                if depth > 0 {
                    if depth &- 1 >= stackCapacity { growStack() }
                    stack[depth &- 1] = Self.pack(topIndex, topCommas, topIsObject)
                }
                depth &+= 1
                topIndex = count
                topCommas = 0
                topIsObject = isObject
                Self.emit(out, &count, isObject ? .object : .array, 0, pos, 0)
                pos &+= 1
                s.skipWhitespace(&pos)
                guard pos < n else { throw s.endOfInput(depth: depth, topIndex: topIndex, topIsObject: topIsObject, out) }
                if p[pos] == (isObject ? closeBrace : closeBracket) {
                    out[topIndex].count = 0
                    out[topIndex].end = UInt32(truncatingIfNeeded: count)
                    pos &+= 1
                    depth &-= 1
                    if depth > 0 { (topIndex, topCommas, topIsObject) = Self.unpack(stack[depth &- 1]) }
                } else if isObject {
                    try s.scanKey(&pos, afterComma: false, out, &count)
                    continue value
                } else {
                    continue value
                }
            case UInt8(ascii: "t"):
                guard s.matches(pos, "true") else { throw s.invalidLiteral(pos, "true") }
                Self.emit(out, &count, .true, 0, pos, 0)
                pos &+= 4
            case UInt8(ascii: "f"):
                guard s.matches(pos, "fals"), pos &+ 4 < n, p[pos &+ 4] == UInt8(ascii: "e") else {
                    throw s.invalidLiteral(pos, "false")
                }
                Self.emit(out, &count, .false, 0, pos, 0)
                pos &+= 5
            case UInt8(ascii: "n"):
                guard s.matches(pos, "null") else { throw s.invalidLiteral(pos, "null") }
                Self.emit(out, &count, .null, 0, pos, 0)
                pos &+= 4
            default:
                throw s.unexpectedInValue(pos, depth: depth, topIsObject: topIsObject)
            }

            // After a value: a comma, the end of the innermost container, or the end of the input.
            while depth > 0 {
                s.skipWhitespace(&pos)
                guard pos < n else {
                    throw s.endOfInput(depth: depth, topIndex: topIndex, topIsObject: topIsObject, out)
                }
                let c = p[pos]
                if c == comma {
                    topCommas &+= 1
                    pos &+= 1
                    if topIsObject { try s.scanKey(&pos, afterComma: true, out, &count) }
                    continue value
                }
                guard c == (topIsObject ? closeBrace : closeBracket) else {
                    throw s.unexpectedAfterValue(pos, topIsObject: topIsObject)
                }
                out[topIndex].count = UInt32(truncatingIfNeeded: topCommas &+ 1)
                out[topIndex].end = UInt32(truncatingIfNeeded: count)
                pos &+= 1
                depth &-= 1
                if depth > 0 { (topIndex, topCommas, topIsObject) = Self.unpack(stack[depth &- 1]) }
            }
            break value
        }

        s.skipWhitespace(&pos)
        if pos < n {
            throw JSONParseError(offset: pos, reason: s.junkAfterToken(pos) ?? "unexpected data after the root value")
        }
        self.pos = pos
        return true
    }

    @inline(__always)
    static func emit(
        _ out: UnsafeMutablePointer<Node>, _ count: inout Int, _ kind: JSONTape.Kind, _ flags: UInt8, _ start: Int,
        _ length: Int
    ) {
        (out + count).initialize(
            to: Node(kind: kind, flags: flags, start: UInt32(truncatingIfNeeded: start),
                     length: UInt32(truncatingIfNeeded: length), end: 0))
        count &+= 1
    }

    @inline(__always) static func pack(_ index: Int, _ commas: Int, _ isObject: Bool) -> UInt64 {
        // The input has fewer than 2^32 bytes: there are fewer nodes than that, and fewer than 2^31 commas.
        UInt64(truncatingIfNeeded: index) | UInt64(truncatingIfNeeded: commas) << 32 | (isObject ? 1 << 63 : 0)
    }

    @inline(__always) static func unpack(_ packed: UInt64) -> (Int, Int, Bool) {
        (Int(truncatingIfNeeded: packed & 0xFFFF_FFFF), Int(truncatingIfNeeded: (packed >> 32) & 0x7FFF_FFFF),
         packed >> 63 != 0)
    }

    @inline(never) mutating func growStack() {
        let bigger = UnsafeMutablePointer<UInt64>.allocate(capacity: stackCapacity * 2)
        bigger.initialize(from: stack, count: stackCapacity)
        stack.deallocate()
        stack = bigger
        stackCapacity *= 2
    }
}

/// The input and the scanning of single tokens: a struct of three words, passed in registers, so the parser's
/// hot loop calls it without spilling the parser's own state (which it copied to the stack for every string).
private struct JSONScanner {
    typealias Node = JSONTape.Node

    /// The input.
    let p: BorrowedBytes
    var n: Int { p.count }
    /// The longest string or number a node records.
    let maxLength: Int

    // MARK: Tokens

    @inline(__always) func skipWhitespace(_ pos: inout Int) {
        while pos < n {
            let c = p[pos]
            guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            pos &+= 1
        }
    }

    /// Whether the four bytes at `pos` are `word`'s.
    @inline(__always) func matches(_ pos: Int, _ word: StaticString) -> Bool {
        guard pos &+ 4 <= n else { return false }
        let w = word.utf8Start
        return p[pos] == w[0] && p[pos &+ 1] == w[1] && p[pos &+ 2] == w[2] && p[pos &+ 3] == w[3]
    }

    /// Reads an object key (after `{` or `,`), then whitespace and the colon; `pos` ends after the colon.
    @inline(__always) func scanKey(
        _ pos: inout Int, afterComma: Bool, _ out: UnsafeMutablePointer<Node>, _ count: inout Int
    ) throws(JSONParseError) {
        skipWhitespace(&pos)
        guard pos < n, p[pos] == quote else { throw badKey(pos, afterComma: afterComma) }
        let (end, flags) = try scanString(pos &+ 1)
        guard end &- pos &- 1 <= maxLength else { throw tooLong(pos, "key") }
        JSONTapeParser.emit(out, &count, .string, flags, pos &+ 1, end &- pos &- 1)
        pos = end &+ 1
        if pos < n, p[pos] == colon {
            pos &+= 1
            return
        }
        skipWhitespace(&pos)
        guard pos < n, p[pos] == colon else {
            throw JSONParseError(offset: pos, reason: pos < n ? "expected ':' after object key" : "unterminated object")
        }
        pos &+= 1
    }

    /// Scans a string body starting at `start` (just after the opening quote); returns the index of the closing
    /// quote and the string's flags.
    @inline(__always) func scanString(_ start: Int) throws(JSONParseError) -> (Int, UInt8) {
        var i = start
        var flags: UInt8 = 0
        while true {
            // Find the first `"`, `\`, control character or non-ASCII byte, sixteen then eight bytes at a time.
            scan: do {
                while i &+ 16 <= n {
                    let m1 = specialBytes(p.word(at: i)), m2 = specialBytes(p.word(at: i &+ 8))
                    if m1 | m2 != 0 {
                        i &+= m1 != 0 ? m1.trailingZeroBitCount >> 3 : 8 &+ m2.trailingZeroBitCount >> 3
                        break scan
                    }
                    i &+= 16
                }
                if i &+ 8 <= n {
                    let m = specialBytes(p.word(at: i))
                    if m != 0 {
                        i &+= m.trailingZeroBitCount >> 3
                        break scan
                    }
                    i &+= 8
                }
            }
            guard i < n else { throw unterminatedString(start) }
            let c = p[i]
            if c == quote { return (i, flags) }
            if c == backslash {
                flags = JSONTape.stringHasEscapes
                i = try scanEscape(i, start)
            } else if c < 0x20 {
                throw JSONParseError(offset: i, reason: "unescaped control character 0x\(hex(c)) in string")
            } else if c >= 0x80 {
                i = try scanUTF8(i)
            } else {
                i &+= 1
            }
        }
    }

    /// Validates the escape sequence at `i` (a backslash); returns the index after it.
    func scanEscape(_ i: Int, _ stringStart: Int) throws(JSONParseError) -> Int {
        guard i &+ 1 < n else { throw unterminatedString(stringStart) }
        switch p[i &+ 1] {
        case quote, backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i &+ 2
        case UInt8(ascii: "u"):
            guard let unit = JSONTape.hex4(p, i &+ 2, n) else {
                if endsInsideHexDigits(i &+ 2) { throw unterminatedString(stringStart) }
                throw JSONParseError(offset: i, reason: "invalid \\u escape: expected four hex digits")
            }
            switch unit & 0xFC00 {
            case 0xD800:
                guard i &+ 12 <= n, p[i &+ 6] == backslash, p[i &+ 7] == UInt8(ascii: "u"),
                    let low = JSONTape.hex4(p, i &+ 8, n), low & 0xFC00 == 0xDC00
                else {
                    if endsInsideLowSurrogateEscape(i &+ 6) { throw unterminatedString(stringStart) }
                    throw JSONParseError(
                        offset: i, reason: "lone high surrogate \\u\(hex(unit)) not followed by a low surrogate escape")
                }
                return i &+ 12
            case 0xDC00:
                throw JSONParseError(offset: i, reason: "lone low surrogate \\u\(hex(unit))")
            default:
                return i &+ 6
            }
        default:
            let e = p[i &+ 1]
            let shown = e >= 0x20 && e < 0x7F ? "'\\\(Character(Unicode.Scalar(e)))'" : "'\\' + byte 0x\(hex(e))"
            throw JSONParseError(offset: i, reason: "invalid escape sequence \(shown)")
        }
    }

    /// Whether the input ends within what could still become four hex digits at `i`.
    func endsInsideHexDigits(_ i: Int) -> Bool {
        var k = i
        while k < n, k < i &+ 4, JSONTape.hexValue(p[k]) != nil { k &+= 1 }
        return k == n && k < i &+ 4
    }

    /// Whether the input ends within what could still become a `\uXXXX` escape at `i`.
    func endsInsideLowSurrogateEscape(_ i: Int) -> Bool {
        if i >= n { return true }
        if p[i] != backslash { return false }
        if i &+ 1 >= n { return true }
        return p[i &+ 1] == UInt8(ascii: "u") && endsInsideHexDigits(i &+ 2)
    }

    /// Validates the UTF-8 sequence starting at `i` (a byte >= 0x80); returns the index after it.
    func scanUTF8(_ i: Int) throws(JSONParseError) -> Int {
        let c0 = p[i]
        @inline(__always) func continuation(_ k: Int, _ lower: UInt8 = 0x80, _ upper: UInt8 = 0xBF, _ reason: String = "")
            throws(JSONParseError)
        {
            let at = i &+ k
            guard at < n else { throw JSONParseError(offset: at, reason: "truncated UTF-8 sequence") }
            let c = p[at]
            guard c & 0xC0 == 0x80 else { throw JSONParseError(offset: at, reason: "truncated UTF-8 sequence") }
            guard c >= lower, c <= upper else { throw JSONParseError(offset: at, reason: reason) }
        }
        switch c0 {
        case 0x80...0xBF:
            throw JSONParseError(offset: i, reason: "invalid UTF-8: unexpected continuation byte 0x\(hex(c0))")
        case 0xC0, 0xC1:
            throw JSONParseError(offset: i, reason: "invalid UTF-8: overlong encoding")
        case 0xC2...0xDF:
            try continuation(1)
            return i &+ 2
        case 0xE0:
            try continuation(1, 0xA0, 0xBF, "invalid UTF-8: overlong encoding")
            try continuation(2)
            return i &+ 3
        case 0xED:
            try continuation(1, 0x80, 0x9F, "invalid UTF-8: encoded surrogate")
            try continuation(2)
            return i &+ 3
        case 0xE1...0xEF:
            try continuation(1)
            try continuation(2)
            return i &+ 3
        case 0xF0:
            try continuation(1, 0x90, 0xBF, "invalid UTF-8: overlong encoding")
            try continuation(2)
            try continuation(3)
            return i &+ 4
        case 0xF1...0xF3:
            try continuation(1)
            try continuation(2)
            try continuation(3)
            return i &+ 4
        case 0xF4:
            try continuation(1, 0x80, 0x8F, "invalid UTF-8: code point above U+10FFFF")
            try continuation(2)
            try continuation(3)
            return i &+ 4
        case 0xF5...0xF7:
            throw JSONParseError(offset: i, reason: "invalid UTF-8: code point above U+10FFFF")
        default:
            throw JSONParseError(offset: i, reason: "invalid UTF-8: byte 0x\(hex(c0))")
        }
    }

    /// Scans a number starting at `start` (`-` or a digit); returns the index after it and whether it is an integer.
    @inline(__always) func scanNumber(_ start: Int) throws(JSONParseError) -> (Int, Bool) {
        var i = start
        if p[i] == UInt8(ascii: "-") {
            i &+= 1
            guard i < n, isDigit(p[i]) else { throw JSONParseError(offset: i, reason: "expected a digit after '-'") }
        }
        if p[i] == UInt8(ascii: "0") {
            i &+= 1
            if i < n, isDigit(p[i]) {
                throw JSONParseError(offset: i, reason: "leading zeros are not allowed in numbers")
            }
        } else {
            i &+= 1
            while i < n, isDigit(p[i]) { i &+= 1 }
        }
        guard i < n else { return (i, true) }
        var integer = true
        if p[i] == UInt8(ascii: ".") {
            integer = false
            i &+= 1
            guard i < n, isDigit(p[i]) else {
                throw JSONParseError(offset: i, reason: "expected a digit after the decimal point")
            }
            i &+= 1
            while i < n, isDigit(p[i]) { i &+= 1 }
            guard i < n else { return (i, false) }
        }
        if p[i] | 0x20 == UInt8(ascii: "e") {
            integer = false
            i &+= 1
            if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i &+= 1 }
            guard i < n, isDigit(p[i]) else { throw JSONParseError(offset: i, reason: "expected a digit in the exponent") }
            i &+= 1
            while i < n, isDigit(p[i]) { i &+= 1 }
        }
        return (i, integer)
    }

    // MARK: Errors (cold)

    func hex<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count % 2 == 1 ? "0" + digits : digits
    }

    func unterminatedString(_ start: Int) -> JSONParseError {
        JSONParseError(offset: n, reason: "unterminated string starting at offset \(start &- 1)")
    }

    /// Where the literal at `pos` stops matching `word`.
    func invalidLiteral(_ pos: Int, _ word: StaticString) -> JSONParseError {
        var i = pos
        var k = 0
        while k < word.utf8CodeUnitCount, i < n, p[i] == word.utf8Start[k] {
            i &+= 1
            k &+= 1
        }
        return JSONParseError(offset: i, reason: "invalid literal (expected \(word))")
    }

    /// A string or number longer than a node records.
    func tooLong(_ pos: Int, _ what: String) -> JSONParseError {
        JSONParseError(offset: pos, reason: "\(what) longer than \(maxLength) bytes: too large to index")
    }

    func endOfInput(depth: Int, topIndex: Int, topIsObject: Bool, _ out: UnsafeMutablePointer<Node>) -> JSONParseError {
        if depth == 0 { return JSONParseError(offset: n, reason: "empty input") }
        let kind = topIsObject ? "object" : "array"
        return JSONParseError(offset: n, reason: "unterminated \(kind) starting at offset \(out[topIndex].start)")
    }

    /// Why the value about to be read at `pos` is not one.
    func unexpectedInValue(_ pos: Int, depth: Int, topIsObject: Bool) -> JSONParseError {
        let c = p[pos]
        if depth > 0, !topIsObject, c == closeBracket {
            // Only reached after a comma: `[` followed by `]` is an empty array.
            var at = pos &- 1
            while at > 0, p[at] != comma { at &-= 1 }
            return JSONParseError(offset: at, reason: "trailing comma in array")
        }
        if pos == 0, c == 0xEF, n >= 3, p[1] == 0xBB, p[2] == 0xBF {
            return JSONParseError(offset: 0, reason: "byte order mark is not allowed")
        }
        let reason: String
        switch c {
        case UInt8(ascii: "."), UInt8(ascii: "+"):
            reason = "invalid number: must start with a digit or '-'"
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            reason = "invalid literal (expected true, false or null)"
        case 0x80...0xFF:
            reason = "expected a value, found byte 0x\(hex(c))"
        case 0x20..<0x7F:
            reason = "expected a value, found '\(Character(Unicode.Scalar(c)))'"
        default:
            reason = "expected a value, found control character 0x\(hex(c))"
        }
        return JSONParseError(offset: pos, reason: reason)
    }

    /// Why a key was expected at `pos` and not found.
    func badKey(_ pos: Int, afterComma: Bool) -> JSONParseError {
        guard pos < n else { return JSONParseError(offset: n, reason: "unterminated object") }
        if afterComma, p[pos] == closeBrace {
            var at = pos &- 1
            while at > 0, p[at] != comma { at &-= 1 }
            return JSONParseError(offset: at, reason: "trailing comma in object")
        }
        return JSONParseError(
            offset: pos, reason: afterComma ? "expected a string key in object" : "expected a string key or '}' in object")
    }

    func unexpectedAfterValue(_ pos: Int, topIsObject: Bool) -> JSONParseError {
        if let reason = junkAfterToken(pos) { return JSONParseError(offset: pos, reason: reason) }
        return JSONParseError(
            offset: pos,
            reason: topIsObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
    }

    /// When the byte at `pos` glues onto a number or literal just before it: why that token is invalid.
    func junkAfterToken(_ pos: Int) -> String? {
        guard pos > 0 else { return nil }
        let c = p[pos], previous = p[pos &- 1]
        let letterOrDigit = isDigit(c) || (c | 0x20) &- UInt8(ascii: "a") < 26
        if isDigit(previous), letterOrDigit || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
            return "invalid number"
        }
        if previous == UInt8(ascii: "e") || previous == UInt8(ascii: "l"), letterOrDigit { return "invalid literal" }
        return nil
    }
}
