import Foundation
import JSONAPIClientCore
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

    @Test("Writing with a local-time option still writes UTC with Z")
    func writing() throws {
        let paris = try #require(Self.paris)
        let encoder = JSONAPIEncoder(dateStrategy: .iso8601(fractionalSeconds: true, localTimes: .in(paris)))
        let body = try encoder.encode(Document(data: Event(id: "1", at: Date(timeIntervalSince1970: 1_704_070_800.25))))
        #expect(String(decoding: body, as: UTF8.self).contains(#""at":"2024-01-01T01:00:00.250Z""#))
    }
}
