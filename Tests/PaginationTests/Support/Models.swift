import Foundation
import JSONAPIClient

struct PersonName: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
}

/// A seeded article; relationships other than the author are not needed here.
struct Article: Resource, Equatable {
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
