// Fuzz target: the schema-less decode (RawDocument) and JSONValue parsing never crash, whatever the bytes.
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    _ = try? JSONAPIDecoder().decode(RawDocument.self, from: data)
    _ = try? JSONAPIDecoder(maxNestingDepth: 8).decode(RawDocument.self, from: data)
    return 0
}
