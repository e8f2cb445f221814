import Foundation
import JSONAPIClient
import TestSupport

/// A seeded article as the walks read it: `created` is absent under a sparse fieldset, and relationships other than
/// the author are not needed here. (The full model is TestSupport's `Article`.)
struct ArticleSummary: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
    var created: Date?
    var author: PersonName?
}

extension URL {
    /// The decoded value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        URLComponents(url: self, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}

/// The ids 1...200 as strings.
let allSeededIDs = (1...200).map(String.init)
