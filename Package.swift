// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "JSONAPIClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "JSONAPIClientCore", targets: ["JSONAPIClientCore"]),
        .library(name: "JSONAPIClient", targets: ["JSONAPIClient"]),
        .library(name: "JSONAPIClientTesting", targets: ["JSONAPIClientTesting"]),
        .executable(name: "jsonapi", targets: ["JSONAPITool"]),
        .executable(name: "jsonapi-bench", targets: ["JSONAPIBenchmark"]),
        .executable(name: "jsonapi-demo", targets: ["JSONAPIDemo"]),
    ],
    targets: [
        // The folder of speed pieces keeps its invariants in a README beside them.
        .target(name: "JSONAPIClientCore", exclude: ["Coding/FastPath/README.md"]),
        .target(name: "JSONAPIClient", dependencies: ["JSONAPIClientCore"]),
        .target(name: "JSONAPIClientTesting", dependencies: ["JSONAPIClient"]),
        .executableTarget(name: "JSONAPITool", dependencies: ["JSONAPIClient"]),
        .executableTarget(name: "JSONAPIBenchmark", dependencies: ["JSONAPIClient"], path: "Benchmarks/JSONAPIBenchmark"),
        .executableTarget(name: "JSONAPIDemo", dependencies: ["JSONAPIClient"], path: "Examples/Demo"),
        .testTarget(name: "CoreTests", dependencies: ["JSONAPIClientCore"], resources: [.copy("Fixtures")]),
        .target(name: "TestSupport", dependencies: ["JSONAPIClient", "JSONAPIClientTesting"], path: "Tests/TestSupport"),
        .testTarget(name: "ClientTests", dependencies: ["JSONAPIClient", "JSONAPIClientTesting", "TestSupport"]),
        .testTarget(name: "PaginationTests", dependencies: ["JSONAPIClient", "TestSupport"]),
        .testTarget(name: "ToolTests", dependencies: ["JSONAPITool", "JSONAPIClient", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
