extension JSONValue {
    /// Parses `bytes` (strict, see ``JSONTape/init(parsing:maxDepth:)``) into a value. Integers that fit in `Int64`
    /// become ``int(_:)``, other numbers ``double(_:)``; of duplicate keys the last one wins.
    init(parsing bytes: [UInt8]) throws(JSONParseError) {
        let tape = try JSONTape(parsing: bytes)
        self.init(tape: tape, index: 0)
    }

    /// The value at `index` of `tape`.
    init(tape: JSONTape, index: Int) {
        switch tape.kind(index) {
        case .null: self = .null
        case .true: self = .bool(true)
        case .false: self = .bool(false)
        case .number:
            if let integer = tape.int64(index) { self = .int(integer) } else { self = .double(tape.double(index)) }
        case .string: self = .string(tape.string(index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(tape.count(index))
            var i = index + 1
            for _ in 0..<tape.count(index) {
                elements.append(JSONValue(tape: tape, index: i))
                i = tape.skip(i)
            }
            self = .array(elements)
        case .object:
            var members: [String: JSONValue] = Dictionary(minimumCapacity: tape.count(index))
            var i = index + 1
            for _ in 0..<tape.count(index) {
                members[tape.string(i)] = JSONValue(tape: tape, index: i + 1)
                i = tape.skip(i + 1)
            }
            self = .object(members)
        }
    }
}
