extension JSONValue {
    /// Parses `bytes` (strict, see ``JSONTape/init(parsing:maxDepth:)``) into a value. Numbers become the case that
    /// holds them exactly (see ``init(_:)-(JSONNumber)``); of duplicate keys the last one wins.
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
        case .number: self = Self.number(at: index, in: tape)
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
            var members = [String: JSONValue].empty(capacity: tape.count(index), from: DictionaryTemplates.members)
            var i = index + 1
            for _ in 0..<tape.count(index) {
                members[tape.string(i)] = JSONValue(tape: tape, index: i + 1)
                i = tape.skip(i + 1)
            }
            self = .object(members)
        }
    }

    /// The number at `index` of `tape`, in the case that holds it exactly.
    static func number(at index: Int, in tape: JSONTape) -> JSONValue {
        if let integer = tape.int64(index) { return .int(integer) }
        return JSONValue(numberText: tape.numberText(index))
    }
}
