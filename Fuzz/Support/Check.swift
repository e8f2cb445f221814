// What every fuzz target shares: the input as `Data`, and a failed check that stops the run with a message.
import Foundation

/// The fuzzer's input as `Data` (a copy: the library may keep what it decodes).
func fuzzInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
    guard let bytes, count > 0 else { return Data() }
    return Data(bytes: bytes, count: count)
}

/// Stops the run when `condition` is false: libFuzzer sees the abort as a crash and saves the input as an artifact.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !condition() else { return }
    FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
    abort()
}
