import Foundation

/// `application/x-www-form-urlencoded` as the WHATWG URL standard serialises it, which JSON:API prescribes for
/// query parameters: letters, digits and `*-._` stay, a space becomes `+`, every other byte is `%XX` (so `[`
/// and `]` are `%5B` and `%5D`, and `,` is `%2C`).
enum FormEncoding {
    static func encode(_ string: String) -> String {
        var output = ""
        output.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output.append("+")
            default:
                output.append("%")
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return output
    }

    /// Percent-encodes a path segment: everything but unreserved characters (`A-Z a-z 0-9 - . _ ~`) is `%XX`;
    /// a segment that is `.` or `..` is encoded whole so that it cannot be read as a dot segment.
    static func encodePathSegment(_ segment: String) -> String {
        if segment == "." || segment == ".." { return String(repeating: "%2E", count: segment.count) }
        var output = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output.append("%")
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return output
    }

    /// The name–value pairs of a query string, decoded (`+` is a space, `%XX` a byte).
    static func decodeQuery(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(String(parts[0]))
            let value = parts.count > 1 ? decode(String(parts[1])) : ""
            return (name, value)
        }
    }

    static func decode(_ string: String) -> String {
        let plus = string.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")
}
