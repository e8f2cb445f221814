import Foundation
@_exported import JSONAPIClientTesting

/// The base URL of scripted tests; nothing is ever sent there.
public let exampleBase = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")
