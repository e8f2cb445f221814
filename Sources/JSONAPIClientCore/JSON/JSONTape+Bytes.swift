/// Reading keys and strings as bytes: what decoders use to find members without building `String`s.
extension JSONTape {
    /// Calls `body` with the UTF-8 of the string at `index`: its bytes in the input when it has no escapes,
    /// otherwise its decoded text.
    @inline(__always)
    func withStringBytes<R>(_ index: Int, _ body: (BorrowedBytes) throws -> R) rethrows -> R {
        let node = nodes[index]
        if node.flags & Self.stringHasEscapes != 0 { return try BorrowedBytes.lending(string(index), body) }
        let start = Int(node.start)
        return try bytes.withBytes(in: start..<start &+ Int(node.length), body)
    }

    /// Whether the key (a string node) at `index` is `utf8`. Compares lengths first, then bytes; a key with escapes
    /// is decoded first.
    @inline(__always)
    func keyEquals(_ index: Int, _ utf8: BorrowedBytes) -> Bool {
        let node = nodes[index]
        if node.flags & Self.stringHasEscapes != 0 { return stringEquals(index, utf8) }
        guard Int(node.length) == utf8.count else { return false }
        let start = Int(node.start)
        var i = 0
        while i < utf8.count {
            if bytes[start &+ i] != utf8[i] { return false }
            i &+= 1
        }
        return true
    }

    /// The value index of the last member named `utf8` of the object at `object` (which must be an object): a
    /// repeated key reads as its last, everywhere in the decoder, as with `JSONDecoder`.
    @inline(__always)
    func member(_ utf8: BorrowedBytes, of object: Int) -> Int? {
        var child = object &+ 1
        var remaining = count(object)
        while remaining > 0 {
            remaining &-= 1
            if keyEquals(child, utf8) {
                // The members after it may repeat it.
                var found = child &+ 1
                child = skip(found)
                while remaining > 0 {
                    remaining &-= 1
                    if keyEquals(child, utf8) { found = child &+ 1 }
                    child = skip(child &+ 1)
                }
                return found
            }
            child = skip(child &+ 1)
        }
        return nil
    }

    /// Whether the key at `index`, known to have no escapes and `literal.utf8CodeUnitCount` bytes, is `literal`.
    @inline(__always)
    func keyBytesEqual(_ index: Int, _ literal: StaticString) -> Bool {
        let start = Int(nodes[index].start)
        let expected = literal.utf8Start
        var i = 0
        while i < literal.utf8CodeUnitCount {
            if bytes[start &+ i] != expected[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Whether the key at `index` is `literal` (ASCII, no escapes needed): compared as bytes, length first.
    @inline(__always)
    func key(_ index: Int, is literal: StaticString) -> Bool {
        let node = nodes[index]
        if node.flags & Self.stringHasEscapes != 0 {
            return BorrowedBytes.lending(literal) { stringEquals(index, $0) }
        }
        return Int(node.length) == literal.utf8CodeUnitCount && keyBytesEqual(index, literal)
    }
}
