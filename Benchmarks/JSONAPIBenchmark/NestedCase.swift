import Foundation
import JSONAPIClientCore

/// `decode-nested`: resources whose attributes are plain nested objects — an address with a position inside it, and
/// an array of three tags — decoded into ordinary `Codable` structs: five keyed containers for plain objects per
/// resource, besides the resource's own. Its floor, `floor-nested`, is `JSONDecoder` reading the same bytes into
/// wire-format structs.
enum NestedCase {
    struct Position: Codable, Equatable {
        var lat: Double
        var lng: Double
    }

    struct Address: Codable, Equatable {
        var street: String
        var city: String
        var zip: String
        var position: Position
    }

    struct Tag: Codable, Equatable {
        var label: String
        var weight: Int
    }

    struct Place: Resource {
        static let resourceType = "places"
        var id: String
        var name: String
        var address: Address
        var tags: [Tag]
    }

    enum Wire {
        struct Document: Decodable {
            var data: [Resource]
        }
        struct Resource: Decodable {
            var type: String
            var id: String
            var attributes: Attributes
        }
        struct Attributes: Decodable {
            var name: String
            var address: Address
            var tags: [Tag]
        }
    }

    static let labels = ["red", "green", "blue"]

    /// What place `number` (from 1) holds.
    static func address(of number: Int) -> Address {
        Address(
            street: "\(number) Long Street", city: "Springfield", zip: "\(10_000 + number)",
            position: Position(lat: Double(number) / 8, lng: -Double(number) / 4))
    }

    static func document(places: Int) -> [UInt8] {
        let resources = (1...max(places, 1)).map { number in
            let address = address(of: number)
            let tags = labels.enumerated().map { #"{"label":"\#($1)","weight":\#($0 + number)}"# }
            return #"{"type":"places","id":"\#(number)","attributes":{"name":"Place \#(number)","address":{"street":"\#(address.street)","city":"\#(address.city)","zip":"\#(address.zip)","position":{"lat":\#(address.position.lat),"lng":\#(address.position.lng)}},"tags":[\#(tags.joined(separator: ","))]}}"#
        }
        return Array(#"{"data":[\#(resources.joined(separator: ","))]}"#.utf8)
    }

    /// `nil` when `places` are the document's, in order; otherwise what differs first.
    static func check(_ places: [(id: String, name: String, address: Address, tags: [Tag])], count: Int) -> String? {
        guard places.count == max(count, 1) else { return "expected \(max(count, 1)) places, got \(places.count)" }
        for (offset, place) in places.enumerated() {
            let number = offset + 1
            let tags = labels.enumerated().map { Tag(label: $1, weight: $0 + number) }
            guard place.id == "\(number)", place.name == "Place \(number)", place.address == address(of: number),
                place.tags == tags
            else { return "place \(number) differs" }
        }
        return nil
    }

    static func cases(size: Int, selected: Set<String>) -> [BenchmarkCase] {
        let bytes = document(places: size)
        let data = Data(bytes)
        let jsonDecoder = JSONDecoder()
        let decoder = JSONAPIDecoder()
        var cases: [BenchmarkCase] = []
        if selected.contains("floor-nested") {
            cases.append(
                BenchmarkCase(
                    name: "floor-nested", floor: nil, bytes: bytes.count,
                    run: { try jsonDecoder.decode(Wire.Document.self, from: data).data.count },
                    check: {
                        let wire = try jsonDecoder.decode(Wire.Document.self, from: data).data
                        let places = wire.map { ($0.id, $0.attributes.name, $0.attributes.address, $0.attributes.tags) }
                        return check(places, count: size)
                    }))
        }
        if selected.contains("decode-nested") {
            cases.append(
                BenchmarkCase(
                    name: "decode-nested", floor: "floor-nested", bytes: bytes.count,
                    run: { try decoder.decode(Document<[Place]>.self, from: data).data?.count ?? 0 },
                    check: {
                        let places = try decoder.decode(Document<[Place]>.self, from: data).data ?? []
                        return check(places.map { ($0.id, $0.name, $0.address, $0.tags) }, count: size)
                    }))
        }
        return cases
    }
}
