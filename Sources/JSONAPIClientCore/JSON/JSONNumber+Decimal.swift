import Foundation

/// Between `Decimal` and JSON numbers, digit for digit (never through `Double`).
extension JSONNumber {
    /// The number with `decimal`'s digits; `nil` for NaN.
    init?(decimal: Decimal) {
        // `Decimal`'s description is plain notation (`-12345678901234567.89`, `1` followed by zeros), never an
        // exponent, and "NaN" for NaN.
        self.init(decimal.description)
    }

    /// The `Decimal` that holds exactly this number, or `nil` when none does (more than 38 significant digits, or
    /// an exponent beyond `Decimal`'s range; `Decimal(string:)` would round or fail).
    var exactDecimal: Decimal? {
        guard let decimal = Decimal(string: text, locale: nil), DecimalText.sameValue(decimal.description, text) else {
            return nil
        }
        return decimal
    }
}
