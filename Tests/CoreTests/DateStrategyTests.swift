import Foundation
@testable import JSONAPIClientCore
import Testing

/// ISO 8601 dates without a UTC offset, as Django and FastAPI servers write times stored without a zone.
@Suite("Dates without a UTC offset")
struct DateStrategyTests {
    struct Event: Resource {
        static let resourceType = "events"
        var id: String
        var at: Date
    }

    static let paris = TimeZone(identifier: "Europe/Paris")
    static let tokyo = TimeZone(secondsFromGMT: 9 * 3600)

    private func document(_ at: String) -> String {
        #"{"data": {"type": "events", "id": "1", "attributes": {"at": "\#(at)"}}}"#
    }

    /// The date `at` decodes to under `strategy`.
    private func date(_ at: String, _ strategy: DateStrategy = .iso8601) throws -> Date? {
        try decode(Event.self, document(at), decoder: JSONAPIDecoder(dateStrategy: strategy)).data?.at
    }

    @Test("The default reads a time without an offset as UTC, with or without a fraction")
    func defaultIsUTC() throws {
        #expect(try date("2024-01-01T01:00:00") == Date(timeIntervalSince1970: 1_704_070_800))
        #expect(try date("2024-01-01T01:00:00.5") == Date(timeIntervalSince1970: 1_704_070_800.5))
        #expect(try date("2024-01-01 01:00:00") == Date(timeIntervalSince1970: 1_704_070_800))
        // With an offset, the local-time option plays no part.
        let paris = try #require(Self.paris)
        #expect(try date("2024-01-01T01:00:00Z", .iso8601(localTimes: .in(paris))) == Date(timeIntervalSince1970: 1_704_070_800))
        #expect(try date("2024-01-01T01:00:00+02:00", .iso8601(localTimes: .in(paris)))
            == Date(timeIntervalSince1970: 1_704_070_800 - 7200))
    }

    @Test("A date written with escapes reads as the text they stand for")
    func escapedDate() throws {
        #expect(try date(#"2024-01-01T01:00:00\u005A"#) == Date(timeIntervalSince1970: 1_704_070_800))
        #expect(try date(#"2024-01-01T01\u003A00:00+00:00"#) == Date(timeIntervalSince1970: 1_704_070_800))
    }

    @Test("A named zone reads wall-clock time there, in winter and in summer time")
    func namedZone() throws {
        let paris = DateStrategy.iso8601(localTimes: .in(try #require(Self.paris)))
        // Winter: UTC+1.
        #expect(try date("2024-01-01T01:00:00", paris) == Date(timeIntervalSince1970: 1_704_070_800 - 3600))
        // Summer: UTC+2 (2024-07-01T12:00:00 UTC is 1_719_835_200).
        #expect(try date("2024-07-01T14:00:00", paris) == Date(timeIntervalSince1970: 1_719_835_200))
        // The morning after the change to summer time (2024-03-31 at 02:00 local): already UTC+2.
        #expect(try date("2024-03-31T05:00:00", paris) == Date(timeIntervalSince1970: 1_711_854_000))
        // A fixed offset.
        let tokyo = DateStrategy.iso8601(localTimes: .in(try #require(Self.tokyo)))
        #expect(try date("2024-01-01T09:00:00", tokyo) == Date(timeIntervalSince1970: 1_704_067_200))
    }

    @Test("Rejected: a time without an offset is a decoding error with its pointer; with one it is read")
    func rejected() throws {
        let decoder = JSONAPIDecoder(dateStrategy: .iso8601(localTimes: .rejected))
        let error = decodingError(Event.self, document("2024-01-01T01:00:00"), decoder: decoder)
        #expect(error?.pointer == "/data/attributes/at")
        #expect(error?.code == .invalidValue)
        #expect(error?.description.contains("UTC offset") == true)
        #expect(try decode(Event.self, document("2024-01-01T01:00:00Z"), decoder: decoder).data?.at
            == Date(timeIntervalSince1970: 1_704_070_800))
    }

    @Test("Dates are written as Foundation writes them from 1583 to 9999, read back exactly from year 0, expanded beyond")
    func formatting() throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let fractional = ISO8601DateFormatter()
        fractional.timeZone = TimeZone(identifier: "UTC")
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var random = SplitMix(seed: 0xDA7E)
        // -12_212_553_600 is 1583-01-01, 253_402_300_799 is 9999-12-31T23:59:59Z.
        var seconds: [Int64] = [0, -1, 1, 86_399, 86_400, 951_782_400, -12_212_553_600, 253_402_300_799]
        for _ in 0..<2_000 { seconds.append(-12_212_553_600 + Int64(random.next() % 265_614_854_400)) }
        for second in seconds {
            let date = Date(timeIntervalSince1970: Double(second))
            #expect(ISO8601.format(date, fractionalSeconds: false) == formatter.string(from: date))
            let withMilliseconds = date.addingTimeInterval(Double(random.next() % 8) * 0.125)
            #expect(ISO8601.format(withMilliseconds, fractionalSeconds: true) == fractional.string(from: withMilliseconds))
        }
        #expect(ISO8601.format(Date(timeIntervalSince1970: 0.9996), fractionalSeconds: true) == "1970-01-01T00:00:01.000Z")
        // Years 0 to 1582 are proleptic Gregorian (Foundation's calendar is Julian there): they read back exactly.
        for second: Int64 in [-62_167_219_200, -12_212_553_601, -31_000_000_000] {
            let date = Date(timeIntervalSince1970: Double(second))
            let text = ISO8601.format(date, fractionalSeconds: false)
            #expect(ISO8601.parse(text) == date, "\(text)")
        }
        func text(_ second: Double) -> String { ISO8601.format(Date(timeIntervalSince1970: second), fractionalSeconds: false) }
        #expect(text(-62_167_219_200) == "0000-01-01T00:00:00Z")
        #expect(text(-12_212_553_601) == "1582-12-31T23:59:59Z")
        // Outside RFC 3339's years, ISO 8601's expanded form.
        #expect(text(-62_167_219_201) == "-0001-12-31T23:59:59Z")
        #expect(text(253_402_300_800) == "10000-01-01T00:00:00Z")
    }

    @Test("Writing with a local-time option still writes UTC with Z")
    func writing() throws {
        let paris = try #require(Self.paris)
        let encoder = JSONAPIEncoder(dateStrategy: .iso8601(fractionalSeconds: true, localTimes: .in(paris)))
        let body = try encoder.encode(Document(data: Event(id: "1", at: Date(timeIntervalSince1970: 1_704_070_800.25))))
        #expect(String(decoding: body, as: UTF8.self).contains(#""at":"2024-01-01T01:00:00.250Z""#))
    }
}
