import Foundation
import Testing

/// The JSON:API test server (Tests/Server) that scripts/test.sh starts; its URL comes from
/// `JSONAPI_TEST_SERVER_URL`. A test that needs it fails — never skips — when the variable is missing.
enum TestServer {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "JSONAPI_TEST_SERVER_URL is not set: run scripts/test.sh, or start Tests/Server/start.sh and export it"
        }
    }

    static func url() throws -> URL {
        guard let value = ProcessInfo.processInfo.environment["JSONAPI_TEST_SERVER_URL"], !value.isEmpty,
            let url = URL(string: value)
        else {
            Issue.record("JSONAPI_TEST_SERVER_URL is not set")
            throw Missing()
        }
        return url
    }
}
