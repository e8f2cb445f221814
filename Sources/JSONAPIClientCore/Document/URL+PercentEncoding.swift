import Foundation

extension URL {
    /// A URL from a string a server or a user wrote, the same on every platform: the characters RFC 3986 does not
    /// allow where they stand are percent-encoded first, and the `%XX` escapes already there are kept.
    ///
    /// JSON:API servers send links such as `/articles?page[number]=2` (the specification's own examples read so),
    /// with raw brackets, spaces or non-ASCII letters. Linux and the newer Apple releases encode those in
    /// `URL(string:)`, but macOS 13, iOS 16, tvOS 16 and watchOS 9 return `nil`, and paging would stop there. Every
    /// link, `Location`, router path and `URL`-typed attribute the library reads goes through this initializer, so
    /// `URL(percentEncoding: "/articles?page[number]=2")?.absoluteString` is `/articles?page%5Bnumber%5D=2`
    /// everywhere.
    ///
    /// Brackets stay raw only in the host, where RFC 3986 puts them (`http://[::1]:8000/`); a `%` not followed by
    /// two hexadecimal digits becomes `%25`; a second `#` becomes `%23`.
    ///
    /// - Parameters:
    ///   - string: The URL or relative reference as written.
    ///   - base: The URL a relative reference is resolved against, as in `URL(string:relativeTo:)`.
    /// - Returns: `nil` only when the encoded string is still not a URL (an empty string, a bad port).
    public init?(percentEncoding string: String, relativeTo base: URL? = nil) {
        self.init(string: URLEncoding.encoded(string), relativeTo: base)
    }
}

/// RFC 3986's character classes, applied part by part (scheme, authority, path, query, fragment).
enum URLEncoding {
    /// `string` with what its part of a URI does not allow percent-encoded; `string` itself when nothing needs it.
    static func encoded(_ string: String) -> String {
        let bytes = Array(string.utf8)
        guard bytes.contains(where: { !isAllowedAnywhere($0) }) || hasStrayPercent(bytes) else { return string }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        var part = Part.path
        var index = 0
        if let colon = schemeEnd(bytes) {
            output.append(contentsOf: bytes[...colon])
            index = colon + 1
        }
        if bytes.count >= index + 2, bytes[index] == slash, bytes[index + 1] == slash {
            output.append(contentsOf: [slash, slash])
            index += 2
            part = .authority
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch (part, byte) {
            case (.authority, slash): part = .path
            case (.authority, questionMark), (.path, questionMark): part = .query
            case (.authority, hash), (.path, hash), (.query, hash):
                part = .fragment
                output.append(byte)
                index += 1
                continue
            default: break
            }
            if byte == percent, index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            }
            if byte != percent, isAllowed(byte, in: part) {
                output.append(byte)
            } else {
                output.append(percent)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private enum Part { case authority, path, query, fragment }

    private static let slash = UInt8(ascii: "/"), questionMark = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
    private static let percent = UInt8(ascii: "%"), colon = UInt8(ascii: ":")
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The end of a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`), when the string starts with one.
    private static func schemeEnd(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.first, isLetter(first) else { return nil }
        for (index, byte) in bytes.enumerated().dropFirst() {
            if byte == colon { return index }
            guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            else { return nil }
        }
        return nil
    }

    /// Whether `byte` may stand raw in `part`: pchar (unreserved, sub-delims, `:`, `@`), `/` and `?` after the
    /// authority, brackets in the authority only.
    private static func isAllowed(_ byte: UInt8, in part: Part) -> Bool {
        if isUnreserved(byte) || isSubDelimiter(byte) || byte == colon || byte == UInt8(ascii: "@") { return true }
        switch part {
        case .authority: return byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
        case .path: return byte == slash
        case .query, .fragment: return byte == slash || byte == questionMark
        }
    }

    /// The quick check: a byte no part allows raw (so the string needs the careful pass).
    private static func isAllowedAnywhere(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelimiter(byte) || byte == colon || byte == UInt8(ascii: "@") || byte == slash
            || byte == questionMark || byte == percent || byte == hash
    }

    /// A `%` that does not open an escape, brackets (raw only in a host), or a second `#`: the quick check's misses.
    private static func hasStrayPercent(_ bytes: [UInt8]) -> Bool {
        var hashes = 0
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case percent:
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return true
                }
            case hash:
                hashes += 1
                if hashes > 1 { return true }
            default: break
            }
        }
        return false
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            return true
        default: return false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
