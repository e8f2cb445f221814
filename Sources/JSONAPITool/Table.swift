import Foundation
import JSONAPIClient

/// `get --output table`: one line per resource — type, id, then the chosen attributes — in aligned columns under a
/// header line. A string shows as its text, any other value as compact JSON, an absent attribute as nothing; line
/// breaks and tabs in values are escaped so that each resource stays on one line.
struct Table {
    /// The header and one row per resource.
    let rows: [[String]]

    /// A table of `resources` with the attributes `columns`; every attribute any resource has, by name, when `nil`.
    init(_ resources: [ResourceObject], columns: [String]?) {
        let names = columns ?? Set(resources.flatMap { $0.attributes.map { Array($0.keys) } ?? [] }).sorted()
        var rows = [["type", "id"] + names]
        for resource in resources {
            let values = names.map { name in resource.attributes?[name].map(Self.cell) ?? "" }
            rows.append([resource.type, resource.id ?? resource.lid ?? ""] + values)
        }
        self.rows = rows
    }

    /// The table's text: columns two spaces apart, each line ending in a newline and without trailing spaces.
    var text: String {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            let line = row.enumerated().map { column, cell in
                cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed()) + "\n"
        }
        .joined()
    }

    private static func cell(_ value: JSONValue) -> String {
        let text = value.stringValue ?? value.description
        return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
    }
}
