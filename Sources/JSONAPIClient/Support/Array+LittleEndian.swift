extension [UInt8] {
    /// Appends `value`'s bytes, least significant first: the files' and digests' byte order, written the same on
    /// every platform without taking the integer's address.
    ///
    /// - Parameter value: The integer to append.
    mutating func appendLittleEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        for shift in stride(from: 0, to: Integer.bitWidth, by: 8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
