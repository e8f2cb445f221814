import Dispatch
import Foundation
import Testing

@testable import JSONAPIClient

/// The transport's deadline timer on a platform whose `Int` is 32 bits (watchOS's `arm64_32`), run here by passing
/// that `Int`'s largest value: a timeout past 2^31 ns is counted in milliseconds or seconds, never "never".
@Suite("Timeouts on a 32-bit Int")
struct DispatchIntervalTests {
    static let int32Max = Int64(Int32.max)

    @Test(
        "Each duration takes the finest unit that fits a 32-bit Int",
        arguments: [
            (Duration.seconds(1), DispatchTimeInterval.nanoseconds(1_000_000_000)),
            (.nanoseconds(1_999_999_999), .nanoseconds(1_999_999_999)),
            (.seconds(2), .milliseconds(2000)),
            (.seconds(3), .milliseconds(3000)),
            (.seconds(60), .milliseconds(60_000)),
            (.milliseconds(2_147_481_999), .milliseconds(2_147_481_999)),
            (.seconds(2_147_482), .seconds(2_147_482)),
            (.seconds(30 * 86_400), .seconds(2_592_000)),
            (.seconds(2_147_483_647), .seconds(2_147_483_647)),
            (.seconds(2_147_483_648), .never),
            (.zero, .nanoseconds(0)),
            (.milliseconds(-1), .nanoseconds(0)),
            (.seconds(-5), .nanoseconds(0)),
        ])
    func thirtyTwoBit(_ duration: Duration, _ expected: DispatchTimeInterval) {
        #expect(duration.dispatchInterval(intMax: Self.int32Max) == expected)
    }

    @Test("On a 64-bit Int the same durations stay in nanoseconds up to 292 years")
    func sixtyFourBit() {
        #expect(Duration.seconds(60).dispatchInterval == .nanoseconds(60_000_000_000))
        #expect(Duration.seconds(30 * 86_400).dispatchInterval == .nanoseconds(2_592_000_000_000_000))
        #expect(Duration.seconds(Int64.max).dispatchInterval == .never)
    }
}
