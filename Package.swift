// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "JSONAPIClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "JSONAPIClientCore", targets: ["JSONAPIClientCore"]),
        .library(name: "JSONAPIClient", targets: ["JSONAPIClient"]),
        .library(name: "JSONAPIClientTesting", targets: ["JSONAPIClientTesting"]),
        // Only what an app links is a product. The executables below are this package's own: `swift run jsonapi`,
        // `swift run jsonapi-bench` and `swift run jsonapi-demo` build and run them from a checkout, and they stay out
        // of Xcode's "Add Package" list (the benchmark uses `Process`, which iOS, tvOS and watchOS do not have).
    ],
    targets: [
        // The folder of speed pieces keeps its invariants in a README beside them.
        .target(name: "JSONAPIClientCore", exclude: ["Coding/FastPath/README.md"]),
        // SQLite, the system's (persistence: Sources/JSONAPIClient/Persistence): Apple platforms import their
        // `SQLite3` module; Linux links libsqlite3 through this system-library target (`libsqlite3-dev`). A system
        // library, not a package: the package still depends on none.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "JSONAPIClient",
            dependencies: ["JSONAPIClientCore", .target(name: "CSQLite", condition: .when(platforms: [.linux]))]),
        .target(name: "JSONAPIClientTesting", dependencies: ["JSONAPIClient"]),
        .executableTarget(name: "jsonapi", dependencies: ["JSONAPIClient"], path: "Sources/JSONAPITool"),
        .executableTarget(name: "jsonapi-bench", dependencies: ["JSONAPIClient"], path: "Benchmarks/JSONAPIBenchmark"),
        .executableTarget(name: "jsonapi-demo", dependencies: ["JSONAPIClient"], path: "Examples/Demo"),
        .testTarget(name: "CoreTests", dependencies: ["JSONAPIClientCore"], resources: [.copy("Fixtures")]),
        .target(name: "TestSupport", dependencies: ["JSONAPIClient", "JSONAPIClientTesting"], path: "Tests/TestSupport"),
        // The child process of the store's kill test: saves in a loop until its parent kills it. Not a product.
        .executableTarget(
            name: "store-kill-child", dependencies: ["JSONAPIClient", "JSONAPIClientTesting"], path: "Tests/StoreKillChild"),
        .testTarget(
            name: "ClientTests", dependencies: ["JSONAPIClient", "JSONAPIClientTesting", "TestSupport", "store-kill-child"]),
        .testTarget(name: "PaginationTests", dependencies: ["JSONAPIClient", "TestSupport"]),
        .testTarget(name: "ToolTests", dependencies: ["jsonapi", "JSONAPIClient", "TestSupport"]),
        // Rules read from the sources (the module map of Docs/Architecture.md, the documentation of public API):
        // no dependency, so they build and run first.
        .testTarget(name: "ArchitectureTests"),
    ],
    swiftLanguageModes: [.v6]
)
