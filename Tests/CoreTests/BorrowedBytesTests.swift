import Foundation
import Testing

@testable import JSONAPIClientCore

/// `BorrowedBytes`, the one view through which the coders read bytes by address: its boundaries (the empty view,
/// a slice at either end, the last word that fits) and the ways bytes are lent to it.
@Suite("Borrowed bytes")
struct BorrowedBytesTests {
    @Test("Lending an array, Data, a string and a literal gives their bytes, in order; the empty ones give none")
    func lending() {
        let bytes: [UInt8] = Array("héllo".utf8)
        #expect(BorrowedBytes.lending(bytes) { $0.array } == bytes)
        #expect(BorrowedBytes.lending(Data(bytes)) { $0.array } == bytes)
        #expect(BorrowedBytes.lending("héllo") { $0.array } == bytes)
        #expect(BorrowedBytes.lending("héllo" as StaticString) { $0.array } == bytes)
        #expect(BorrowedBytes.lending([UInt8]()) { $0.count } == 0)
        #expect(BorrowedBytes.lending("") { $0.string } == "")
        // A string without contiguous UTF-8 (bridged, or a shared substring) is lent from a copy.
        let sliced = String("xxhéllo".dropFirst(2))
        #expect(BorrowedBytes.lending(sliced) { $0.array } == bytes)
    }

    @Test("Two views compare equal exactly when they hold the same bytes: empty ones, each length, a last byte apart")
    func comparing() {
        let bytes: [UInt8] = Array(0..<40)
        var other = bytes
        other[39] = 0xFF
        BorrowedBytes.lending(bytes) { all in
            BorrowedBytes.lending(other) { changed in
                // Empty views (an empty slice, an empty array's view, which may have no address) are equal.
                #expect(all[0..<0].elementsEqual(changed[5..<5]))
                BorrowedBytes.lending([UInt8]()) { empty in
                    #expect(empty.elementsEqual(all[3..<3]) && all[3..<3].elementsEqual(empty))
                    #expect(!empty.elementsEqual(all[0..<1]) && !all[0..<1].elementsEqual(empty))
                }
                for length in 1...40 {
                    // The same bytes from two arrays; the last one changed, or one byte more.
                    #expect(all[0..<length].elementsEqual(changed[0..<length]) == (length < 40))
                    #expect(!all[0..<length].elementsEqual(all[0..<(length - 1)]))
                    #expect(all[(40 - length)..<40].elementsEqual(changed[(40 - length)..<40]) == false)
                }
                // Equal lengths, other bytes.
                #expect(!all[0..<8].elementsEqual(all[1..<9]))
            }
        }
    }

    @Test("Slices are indexed from 0 and may be empty or the whole; a byte is read where it is")
    func slices() {
        let bytes: [UInt8] = Array(0..<20)
        BorrowedBytes.lending(bytes) { all in
            #expect(all.count == 20)
            #expect(all[0] == 0 && all[19] == 19)
            #expect(all[0..<0].count == 0)
            #expect(all[20..<20].count == 0)
            #expect(all[0..<20].array == bytes)
            let middle = all[5..<9]
            #expect(middle.count == 4)
            #expect(middle[0] == 5 && middle[3] == 8)
            #expect(middle[1..<3].array == [6, 7])
            #expect(all[19..<20].array == [19])
        }
    }

    @Test("A word is the eight bytes at a position, the first lowest, up to the last position that has eight")
    func words() {
        let bytes: [UInt8] = Array(1...16)
        BorrowedBytes.lending(bytes) { view in
            #expect(view.word(at: 0) == 0x0807_0605_0403_0201)
            #expect(view.word(at: 1) == 0x0908_0706_0504_0302)  // unaligned
            #expect(view.word(at: 8) == 0x100F_0E0D_0C0B_0A09)  // the last eight
            #expect(view[3..<11].word(at: 0) == 0x0B0A_0908_0706_0504)
        }
    }

    @Test("Text, comparison, hashing and copying agree with the bytes")
    func textEqualityHashingCopying() {
        BorrowedBytes.lending("café") { view in
            #expect(view.string == "café")
            #expect(view.elementsEqual("café".utf8))
            #expect(!view.elementsEqual("cafe".utf8))
            #expect(!view.elementsEqual("caf".utf8))
            BorrowedBytes.lending(Array("café".utf8)) { other in #expect(view.elementsEqual(other)) }
            BorrowedBytes.lending(Array("cafés".utf8)) { other in #expect(!view.elementsEqual(other)) }
            var first = Hasher(), second = Hasher()
            view.hash(into: &first)
            BorrowedBytes.lending(Array("café".utf8)) { $0.hash(into: &second) }
            #expect(first.finalize() == second.finalize())
            #expect(view.data == Data("café".utf8))
            var copy = [UInt8](repeating: 0, count: 8)
            let copied = copy.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map(view.copy(to:)) ?? 0 }
            #expect(copied == 5)
            #expect(Array(copy.prefix(6)) == Array("café".utf8) + [0])
        }
        // An invalid byte is repaired in the text, and kept in the bytes.
        BorrowedBytes.lending([0x61, 0xFF] as [UInt8]) { view in
            #expect(view.string == "a\u{FFFD}")
            #expect(view.array == [0x61, 0xFF])
        }
    }

    @Test("A tape that owns a copy reads the same bytes after the caller's are gone; so does one moved onto a copy")
    func tapeCopies() throws {
        var input = Array(#"{"name":"ann","n":[1,2]}"#.utf8)
        let owned = try JSONTape(parsing: input)
        let borrowed = try input.withUnsafeBufferPointer { buffer in
            let tape = try JSONTape(borrowing: BorrowedBytes(buffer))
            tape.bytes.adoptCopy()
            return tape
        }
        for index in input.indices { input[index] = UInt8(ascii: " ") }
        for tape in [owned, borrowed] {
            #expect(tape.string(1) == "name")
            #expect(tape.string(2) == "ann")
            #expect(tape.numberText(6) == "2")
        }
    }
}
