/// How a ``JSONValue`` prints: as the JSON text it stands for, so that `print(value)`, `"\(value)"`, a ``Meta``
/// dictionary and the debugger show `{"total":200}` rather than a nest of enum cases.
extension JSONValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value as compact JSON text, object members in key order: `{"a":[1,2.5,"x",null]}`.
    public var description: String {
        var writer = JSONWriter(capacity: 64)
        writer.write(self, sortedKeys: true)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The same as ``description``: JSON text is already unambiguous (a string is quoted, `1` is not `1.0`).
    public var debugDescription: String { description }
}
