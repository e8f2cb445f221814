import Foundation

/// The JSON:API test server (Tests/Server) that scripts/test.sh starts; its URL comes from
/// `JSONAPI_TEST_SERVER_URL`. A test that needs it fails — never skips — when the variable is missing: the error
/// thrown here fails the test with its description.
public enum TestServer {
    /// The variable is not set.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "JSONAPI_TEST_SERVER_URL is not set: run scripts/test.sh, or start Tests/Server/start.sh and export it"
        }
    }

    /// The server's base URL.
    public static func url() throws -> URL {
        guard let value = ProcessInfo.processInfo.environment["JSONAPI_TEST_SERVER_URL"], !value.isEmpty,
            let url = URL(string: value)
        else { throw Missing() }
        return url
    }
}
