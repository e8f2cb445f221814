import Foundation

/// The `Cache-Control` directives of a message (RFC 9111 §5.2) that a private cache acts on. Directive names are
/// case-insensitive; the first occurrence of a directive counts; unknown directives are ignored.
struct CacheControl: Sendable, Hashable {
    /// `no-store`: the message is not kept.
    var noStore = false
    /// `no-cache`: a stored response is not used without validating it first (the field-name form counts as the
    /// plain one).
    var noCache = false
    /// `must-revalidate`: once stale, the response is not used without validating it first.
    var mustRevalidate = false
    /// `max-age` in seconds: `0` when the value is not a number (RFC 9111 §4.2.1: invalid freshness is stale),
    /// 2³¹ when larger.
    var maxAge: Int?

    /// The directives of every `Cache-Control` field of `fields`.
    init(_ fields: HTTPFields) {
        var seen: Set<String> = []
        for value in fields.values(for: "Cache-Control") {
            for (name, argument) in Self.directives(value) {
                guard seen.insert(name).inserted else { continue }
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                case "max-age": maxAge = argument.flatMap(Self.deltaSeconds) ?? 0
                default: break
                }
            }
        }
    }

    /// The directives of one field value: lowercased names and their arguments, unquoted.
    static func directives(_ value: String) -> [(String, String?)] {
        var items: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items.compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { return nil }
            guard parts.count == 2 else { return (name, nil) }
            var argument = parts[1]
            if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                argument = String(argument.dropFirst().dropLast())
            }
            return (name, argument)
        }
    }

    /// A delta-seconds value (RFC 9111 §1.2.2): digits only; one too large for 32 bits is 2³¹.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return min(Int(text.prefix(11)) ?? Int(Int32.max) + 1, Int(Int32.max) + 1)
    }
}

/// How long a stored response may be used without asking the server (RFC 9111 §4.2, as a private cache): worked out
/// once, when the response is received (or revalidated), from its `Cache-Control`, `Expires`, `Age` and `Date`.
///
/// A response without `max-age` or `Expires` is stale at once: the store uses no heuristic freshness (§4.2.2
/// allows one; not guessing keeps a response from being reused longer than its server said).
struct Freshness: Sendable, Hashable {
    /// Seconds the response is fresh for, counted from its generation: `max-age`, else `Expires` − `Date`; `0`
    /// without either, and when `Expires` is not a date (§5.3: an invalid date is in the past).
    var lifetime: Double
    /// The response's age when it was received (`corrected_initial_age`, §4.2.3).
    var initialAge: Double
    /// When it was received, by the store's clock.
    var receivedAt: Date
    /// Whether it may be used only after validating it: its `no-cache`, or a write that changed what it lists.
    var requiresValidation: Bool
    /// Whether, once stale, it may be used only after validating it (`must-revalidate`).
    var mustRevalidate: Bool

    /// The freshness of `response`, asked for at `requestTime` and received at `responseTime`.
    init(of response: HTTPResponse, requestTime: Date, responseTime: Date) {
        let control = CacheControl(response.headerFields)
        let date = response.headerFields[.date].flatMap(Self.httpDate) ?? responseTime
        if let maxAge = control.maxAge {
            lifetime = Double(maxAge)
        } else if let expires = response.headerFields[.expires] {
            lifetime = Self.httpDate(expires).map { max(0, $0.timeIntervalSince(date)) } ?? 0
        } else {
            lifetime = 0
        }
        let ageValue = response.headerFields[.age].flatMap(CacheControl.deltaSeconds).map(Double.init) ?? 0
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, ageValue + responseDelay)
        receivedAt = responseTime
        requiresValidation = control.noCache
        mustRevalidate = control.mustRevalidate
    }

    /// The response's age at `now` (`current_age`, §4.2.3).
    func age(at now: Date) -> Double { initialAge + max(0, now.timeIntervalSince(receivedAt)) }

    /// Whether it is fresh at `now`: its lifetime is more than its age (at exactly its lifetime it is stale).
    func isFresh(at now: Date) -> Bool { !requiresValidation && lifetime > age(at: now) }

    /// Whether it may be used at `now` without asking the server: fresh, or stale by no more than `maxStale` (when
    /// given) and its server allows using it stale.
    func isUsable(at now: Date, maxStale: Duration?) -> Bool {
        if isFresh(at: now) { return true }
        guard let maxStale, mayServeStale else { return false }
        let seconds = Double(maxStale.components.seconds) + Double(maxStale.components.attoseconds) * 1e-18
        return age(at: now) - lifetime <= max(0, seconds)
    }

    /// Whether its server allows using it once stale (§4.2.4): not `no-cache`, not `must-revalidate`.
    var mayServeStale: Bool { !requiresValidation && !mustRevalidate }

    /// Parses an HTTP-date (RFC 9110 §5.6.7): the IMF-fixdate form, and the obsolete RFC 850 and asctime forms a
    /// recipient must accept. `nil` for anything else.
    static func httpDate(_ text: String) -> Date? {
        if let date = imfFixdate(text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        let trimmed = text.split(separator: " ").joined(separator: " ")  // asctime pads a day with a space
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    /// Parses the IMF-fixdate form every current server sends (`Sun, 06 Nov 1994 08:49:37 GMT`) without a
    /// `DateFormatter`, which costs more to make than the rest of storing a response; `nil` for any other text.
    static func imfFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 32, bytes[7] == 32, bytes[11] == 32,
            bytes[16] == 32, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 32,
            bytes[26...].elementsEqual("GMT".utf8)
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
            let minute = number(20..<22), let second = number(23..<25),
            let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            year >= 1, (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
        let month = monthIndex + 1
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}

extension HTTPField.Name {
    /// `Cache-Control`.
    static let cacheControl = HTTPField.Name("Cache-Control")
    /// `Date`.
    static let date = HTTPField.Name("Date")
    /// `Expires`.
    static let expires = HTTPField.Name("Expires")
    /// `Age`.
    static let age = HTTPField.Name("Age")
    /// `Vary`.
    static let vary = HTTPField.Name("Vary")
}
