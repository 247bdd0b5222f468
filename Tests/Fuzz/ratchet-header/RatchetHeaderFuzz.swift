// Double-ratchet headers and messages (smp.md §4.4) and the ratchet's stored forms: the first byte picks the
// decoder, and for headers the e2e version (1–4). Nothing traps, and what decodes encodes to bytes that decode as
// itself.
import Ratchet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRatchetHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    let version = 1 + UInt16(selector >> 3) % 4
    switch selector % 8 {
    case 0:
        guard let header = try? RatchetHeader(decoding: rest, version: version),
            let encoded = try? header.encoded(version: version)
        else { return 0 }
        let again = try? RatchetHeader(decoding: encoded, version: version)
        invariant(again == header, "v\(version) header \(header) does not decode from \(encoded)")
    case 1:
        // Below v3 the ciphertext has a 1-byte length, read by the reference's `largeP` rule (a first byte under 32
        // starts a 2-byte length, as no header is shorter than 32 bytes): a shorter one does not read back.
        guard let header = try? EncMessageHeader(decoding: rest), header.version >= 3 || header.body.count >= 32 else {
            return 0
        }
        checkRoundTrip(EncMessageHeader.self, rest)
    case 2:
        guard let message = try? EncRatchetMessage(decoding: rest), let encoded = try? message.encoded(version: version) else {
            return 0
        }
        _ = try? EncRatchetMessage(decoding: encoded)
    case 3: checkRoundTrip(E2ERatchetParams.self, rest)
    case 4: checkRoundTrip(RatchetKEMParams.self, rest)
    case 5:
        guard let state = try? RatchetState(decoding: rest) else { return 0 }
        let encoded = state.encoded()
        invariant(
            (try? RatchetState(decoding: encoded))?.encoded() == encoded, "a stored ratchet does not decode from its encoding")
    case 6:
        guard let key = try? RatchetMessageKey(decoding: rest) else { return 0 }
        invariant(
            (try? RatchetMessageKey(decoding: key.encoded())) == key, "a stored message key does not decode from its encoding")
    default:
        guard let key = try? MessageEncryptKey(decoding: rest) else { return 0 }
        invariant(
            (try? MessageEncryptKey(decoding: key.encoded())) == key, "a stored encrypt key does not decode from its encoding")
    }
    return 0
}
