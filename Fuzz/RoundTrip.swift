// Fuzz target: decode → encode → decode. A document that decodes writes bytes that decode to an equal document,
// and writing that again gives the same bytes; the same for models.
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = fuzzInput(bytes, count)
    roundTrip(PrimaryData.self, data)
    roundTrip([Article].self, data)
    roundTrip(Article?.self, data)
    roundTrip([Post].self, data)
    roundTrip([QuickArticle].self, data)
    roundTrip([Note].self, data)
    return 0
}

private func roundTrip<Primary: Codable & Sendable & Equatable>(_ type: Primary.Type, _ data: Data) {
    guard let document = try? JSONAPIDecoder().decode(Document<Primary>.self, from: data) else { return }
    let text = String(decoding: data, as: UTF8.self)
    for encoder in [JSONAPIEncoder(), JSONAPIEncoder(outputFormatting: .prettyPrinted)] {
        let written: Data
        do {
            written = try encoder.encode(document)
        } catch {
            check(false, "\(Primary.self): a decoded document does not encode: \(error)\ninput: \(text)")
            return
        }
        let writtenText = String(decoding: written, as: UTF8.self)
        let again: Document<Primary>
        do {
            again = try JSONAPIDecoder().decode(Document<Primary>.self, from: written)
        } catch {
            check(false, "\(Primary.self): the written document does not decode: \(error)\ninput: \(text)\nwritten: \(writtenText)")
            return
        }
        check(again == document, "\(Primary.self): decode(encode(d)) != d\ninput: \(text)\nwritten: \(writtenText)")
        if let rewritten = try? encoder.encode(again) {
            check(rewritten == written, "\(Primary.self): writing is not stable\nfirst: \(writtenText)\nthen: \(String(decoding: rewritten, as: UTF8.self))")
        }
    }
}
