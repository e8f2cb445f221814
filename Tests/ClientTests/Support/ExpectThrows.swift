import Testing

// `let error = #expect(throws: E.self) { … }` returns the error only from Swift 6.1 on; the package declares Swift 6.0.
// These check the same thing — the body throws an `E`, else an issue is recorded where they are called — and return
// the error, on every toolchain.

/// The error of type `E` that `body` throws; records an issue (and returns `nil`) when it throws none or another.
///
/// - Parameters:
///   - type: The error type expected.
///   - comment: What the issue says, if one is recorded.
///   - sourceLocation: Where the issue is recorded.
///   - body: The code expected to throw.
/// - Returns: The error thrown, or `nil`.
func expectThrows<E: Error, R>(
    _ type: E.Type, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) -> E? {
    do {
        _ = try body()
    } catch let error as E {
        return error
    } catch {
        recordWrongError(error, expected: E.self, comment, sourceLocation)
        return nil
    }
    recordNoError(expected: E.self, comment, sourceLocation)
    return nil
}

/// The error of type `E` that `body` throws; records an issue (and returns `nil`) when it throws none or another.
///
/// - Parameters:
///   - type: The error type expected.
///   - comment: What the issue says, if one is recorded.
///   - sourceLocation: Where the issue is recorded.
///   - body: The code expected to throw.
/// - Returns: The error thrown, or `nil`.
func expectThrows<E: Error, R>(
    _ type: E.Type, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> R
) async -> E? {
    do {
        _ = try await body()
    } catch let error as E {
        return error
    } catch {
        recordWrongError(error, expected: E.self, comment, sourceLocation)
        return nil
    }
    recordNoError(expected: E.self, comment, sourceLocation)
    return nil
}

private func recordWrongError(_ error: any Error, expected: Any.Type, _ comment: Comment?, _ location: SourceLocation) {
    Issue.record(
        "expected an error of type \(expected), but \(error) was thrown\(note(comment))",
        sourceLocation: location)
}

private func recordNoError(expected: Any.Type, _ comment: Comment?, _ location: SourceLocation) {
    Issue.record(
        "expected an error of type \(expected), but none was thrown\(note(comment))",
        sourceLocation: location)
}

private func note(_ comment: Comment?) -> String { comment.map { ": \($0)" } ?? "" }
