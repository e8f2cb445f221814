import Foundation

/// An HTTP response as the transport returns it: status, ordered header fields and the whole body.
public struct HTTPResponse: Sendable, Hashable {
    /// The status.
    public var status: Status
    /// The header fields, in order.
    public var headerFields: HTTPFields
    /// The body; empty when there is none.
    public var body: Data

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headerFields: The header fields.
    ///   - body: The body.
    public init(status: Status, headerFields: HTTPFields = HTTPFields(), body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// An HTTP status code, with static members for the codes JSON:API gives meaning to.
    public struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
        /// The three-digit code.
        public let code: Int
        /// The code.
        public var rawValue: Int { code }

        /// A status with the given code.
        ///
        /// - Parameter code: The code, e.g. `404`.
        public init(code: Int) { self.code = code }
        /// A status with the given code.
        ///
        /// - Parameter rawValue: The code, e.g. `404`.
        public init(rawValue: Int) { self.code = rawValue }
        /// A status from an integer literal.
        ///
        /// - Parameter value: The code, e.g. `404`.
        public init(integerLiteral value: Int) { self.code = value }

        /// The class of the status.
        public var kind: Kind {
            switch code {
            case 100..<200: .informational
            case 200..<300: .successful
            case 300..<400: .redirection
            case 400..<500: .clientError
            case 500..<600: .serverError
            default: .invalid
            }
        }

        /// The class of a status code.
        public enum Kind: Sendable, Hashable {
            /// 1xx.
            case informational
            /// 2xx.
            case successful
            /// 3xx.
            case redirection
            /// 4xx.
            case clientError
            /// 5xx.
            case serverError
            /// Outside 100...599.
            case invalid
        }

        /// The code as a number.
        public var description: String { String(code) }

        /// 200 OK.
        public static let ok = Status(code: 200)
        /// 201 Created.
        public static let created = Status(code: 201)
        /// 202 Accepted.
        public static let accepted = Status(code: 202)
        /// 204 No Content.
        public static let noContent = Status(code: 204)
        /// 304 Not Modified: a conditional `GET`'s stored response is still current.
        public static let notModified = Status(code: 304)
        /// 400 Bad Request.
        public static let badRequest = Status(code: 400)
        /// 401 Unauthorized.
        public static let unauthorized = Status(code: 401)
        /// 403 Forbidden.
        public static let forbidden = Status(code: 403)
        /// 404 Not Found.
        public static let notFound = Status(code: 404)
        /// 406 Not Acceptable.
        public static let notAcceptable = Status(code: 406)
        /// 409 Conflict.
        public static let conflict = Status(code: 409)
        /// 415 Unsupported Media Type.
        public static let unsupportedMediaType = Status(code: 415)
        /// 429 Too Many Requests.
        public static let tooManyRequests = Status(code: 429)
        /// 500 Internal Server Error.
        public static let internalServerError = Status(code: 500)
        /// 502 Bad Gateway.
        public static let badGateway = Status(code: 502)
        /// 503 Service Unavailable.
        public static let serviceUnavailable = Status(code: 503)
    }
}
