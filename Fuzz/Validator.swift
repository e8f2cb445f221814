// Fuzz target: the validator never crashes, whatever the bytes.
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    _ = try? DocumentValidator.validate(data)
    return 0
}
