import Foundation

/// `Retry-After` (RFC 9110 §10.2.3): a delay in seconds, or an HTTP date — read alike by ``RetryMiddleware`` and
/// the ``WriteQueue``'s replay.
enum RetryAfter {
    /// The seconds `value` asks to wait from `now`: any number of digits (a 20-digit one is a very long wait, not an
    /// unreadable one), or an IMF-fixdate less `now`; `nil` for anything else.
    static func seconds(_ value: String, now: Date) -> Double? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return Double(value)
        }
        return RetryMiddleware.httpDate(value).map { $0.timeIntervalSince(now) }
    }
}
