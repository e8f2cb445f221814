import Foundation

/// How `Date` properties are read from and written to attributes.
public struct DateStrategy: Sendable {
    enum Kind: Sendable {
        case iso8601(fractionalSeconds: Bool, localTimes: LocalTimes)
        case secondsSince1970
        case millisecondsSince1970
        case custom(any DateTranscoder)
    }

    let kind: Kind

    /// ISO 8601 / RFC 3339 text. Reading accepts fractional seconds or none, `Z` or an offset, and reads a time
    /// without an offset (`2024-05-01T12:00:00`) as UTC; writing gives whole seconds in UTC, e.g.
    /// `2024-05-01T12:00:00Z`.
    public static let iso8601 = DateStrategy(kind: .iso8601(fractionalSeconds: false, localTimes: .utc))
    /// ISO 8601 as ``iso8601``, but written with milliseconds, e.g. `2024-05-01T12:00:00.250Z`.
    public static let iso8601WithFractionalSeconds = DateStrategy(kind: .iso8601(fractionalSeconds: true, localTimes: .utc))
    /// ISO 8601 as ``iso8601``, with a choice of what a time without a UTC offset means.
    ///
    /// ```swift
    /// let decoder = JSONAPIDecoder(dateStrategy: .iso8601(localTimes: .in(TimeZone(identifier: "Europe/Paris")!)))
    /// ```
    ///
    /// - Parameters:
    ///   - fractionalSeconds: Whether dates are written with milliseconds.
    ///   - localTimes: How `2024-05-01T12:00:00` (no `Z`, no offset) is read: ``LocalTimes/utc``,
    ///     ``LocalTimes/in(_:)`` a time zone, or ``LocalTimes/rejected``.
    /// - Returns: The strategy.
    public static func iso8601(fractionalSeconds: Bool = false, localTimes: LocalTimes) -> DateStrategy {
        DateStrategy(kind: .iso8601(fractionalSeconds: fractionalSeconds, localTimes: localTimes))
    }
    /// A number of seconds since 1970-01-01T00:00:00Z.
    public static let secondsSince1970 = DateStrategy(kind: .secondsSince1970)
    /// A number of milliseconds since 1970-01-01T00:00:00Z.
    public static let millisecondsSince1970 = DateStrategy(kind: .millisecondsSince1970)
    /// Your own conversion, by a ``DateTranscoder``.
    ///
    /// - Parameter transcoder: Reads and writes dates your way.
    /// - Returns: The strategy.
    public static func custom(_ transcoder: some DateTranscoder) -> DateStrategy {
        DateStrategy(kind: .custom(transcoder))
    }

    /// What an ISO 8601 date-time without a UTC offset means (`2024-01-01T01:00:00`, as several Python server
    /// frameworks write times stored without a zone).
    public struct LocalTimes: Sendable {
        /// The zone such a time is read in; `nil` for UTC.
        let zone: TimeZone?
        /// Whether such a time is a decoding error.
        let isRejected: Bool

        /// Read as UTC (the default).
        public static let utc = LocalTimes(zone: nil, isRejected: false)
        /// Read as a wall-clock time in `timeZone` (daylight saving time included).
        ///
        /// - Parameter timeZone: The zone to read wall-clock times in.
        /// - Returns: The rule.
        public static func `in`(_ timeZone: TimeZone) -> LocalTimes { LocalTimes(zone: timeZone, isRejected: false) }
        /// Not read: such a value is a decoding error.
        public static let rejected = LocalTimes(zone: nil, isRejected: true)
    }

    /// The JSON value for a date.
    func encode(_ date: Date) throws -> JSONValue {
        switch kind {
        case .iso8601(let fractional, _): .string(ISO8601.format(date, fractionalSeconds: fractional))
        case .secondsSince1970: .double(date.timeIntervalSince1970)
        case .millisecondsSince1970: .double((date.timeIntervalSince1970 * 1000).rounded())
        case .custom(let transcoder): try transcoder.encode(date)
        }
    }
}

/// A conversion between `Date` and its JSON value, for ``DateStrategy/custom(_:)``:
///
/// ```swift
/// struct DayNumber: DateTranscoder {
///     func decode(_ value: JSONValue) throws -> Date { Date(timeIntervalSince1970: Double(value.intValue ?? 0) * 86_400) }
///     func encode(_ date: Date) throws -> JSONValue { .int(Int64(date.timeIntervalSince1970 / 86_400)) }
/// }
/// let decoder = JSONAPIDecoder(dateStrategy: .custom(DayNumber()))
/// ```
public protocol DateTranscoder: Sendable {
    /// The date a JSON value stands for; throw when it is not one.
    func decode(_ value: JSONValue) throws -> Date
    /// The JSON value for a date.
    func encode(_ date: Date) throws -> JSONValue
}

/// A fast, strict RFC 3339 reader and writer (no Foundation formatter on the hot path).
enum ISO8601 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; also accepts a lower-case `t`/`z` or a space separator.
    /// A time without `Z` or an offset is read in `localTimes`' zone, or not at all.
    static func parse(_ text: String, localTimes: DateStrategy.LocalTimes = .utc) -> Date? {
        var text = text
        return text.withUTF8 { parse(BorrowedBytes($0), localTimes: localTimes) }
    }

    static func parse(_ bytes: BorrowedBytes, localTimes: DateStrategy.LocalTimes = .utc) -> Date? {
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2), index < bytes.count
        else { return nil }
        let separator = bytes[index]
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else {
            return nil
        }
        index += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetSeconds = 0
        var zone: TimeZone?
        switch index < bytes.count ? bytes[index] : 0 {
        case 0:
            guard !localTimes.isRejected else { return nil }
            zone = localTimes.zone
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), expect(UInt8(ascii: ":")), let minutes = digits(2), hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        guard index == bytes.count, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let date = Date(timeIntervalSince1970: Double(seconds) + fraction)
        guard let zone else { return date }
        // The zone's offset at that wall-clock time: its offset at the time read as UTC, then at the result (the two
        // differ only within hours of a daylight-saving change).
        let first = zone.secondsFromGMT(for: date)
        return date.addingTimeInterval(-Double(zone.secondsFromGMT(for: date.addingTimeInterval(-Double(first)))))
    }

    static func format(_ date: Date, fractionalSeconds: Bool) -> String {
        var interval = date.timeIntervalSince1970
        if fractionalSeconds { interval = (interval * 1000).rounded() / 1000 }
        let whole = Int(interval.rounded(.down))
        let milliseconds = Int(((interval - Double(whole)) * 1000).rounded())
        var days = whole / 86_400
        var secondsOfDay = whole % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        if (0...9999).contains(year) {
            // Written as bytes: string interpolation and padding cost 6,000 instructions per date.
            return String(unsafeUninitializedCapacity: 24) { text in
                var count = 0
                func put(_ value: Int, digits: Int) {
                    var divisor = 1
                    for _ in 1..<digits { divisor *= 10 }
                    while divisor > 0 {
                        text[count] = UInt8(truncatingIfNeeded: 48 + value / divisor % 10)
                        count += 1
                        divisor /= 10
                    }
                }
                func put(_ ascii: Unicode.Scalar) {
                    text[count] = UInt8(ascii: ascii)
                    count += 1
                }
                put(year, digits: 4)
                put("-")
                put(month, digits: 2)
                put("-")
                put(day, digits: 2)
                put("T")
                put(secondsOfDay / 3600, digits: 2)
                put(":")
                put(secondsOfDay / 60 % 60, digits: 2)
                put(":")
                put(secondsOfDay % 60, digits: 2)
                if fractionalSeconds {
                    put(".")
                    put(min(milliseconds, 999), digits: 3)
                }
                put("Z")
                return count
            }
        }
        // Years outside 0...9999 have no RFC 3339 form; they are written in ISO 8601's expanded form (`-0001`,
        // `10000`), which no reader is likely to take, rather than as a wrong date.
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value.magnitude)
            let padded = text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
            return value < 0 ? "-" + padded : padded
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))"
        if fractionalSeconds { text += ".\(pad(min(milliseconds, 999), 3))" }
        return text + "Z"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
