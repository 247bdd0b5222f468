// SMP broker messages and errors (smp.md §3.4, §3.5): the first byte picks the version (6–18). A message body never
// traps; a message that parses encodes to bytes that parse to a message with the same encoding (at an older
// version some are sent as their older form: `DELD` as `END` below v10), and an `ERR` body or transport error
// parses from its encoding as itself.
import SMP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPBrokerMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    let version = 6 + UInt16(selector) % 13
    if let message = try? SMPBrokerMessage(parsing: rest, version: version), let encoded = try? message.encoded(version: version)
    {
        let again = try? SMPBrokerMessage(parsing: encoded, version: version)
        let reencoded = try? again?.encoded(version: version)
        invariant(
            reencoded == encoded, "v\(version) \(message) encodes to \(encoded), which parses as \(String(describing: again))")
    }
    if let error = try? SMPErrorType(decoding: rest), let encoded = try? error.encoded() {
        let again = try? SMPErrorType(decoding: encoded)
        invariant(again == error, "ERR \(error) encodes to \(encoded), which parses as \(String(describing: again))")
    }
    if let error = try? TransportError(decoding: rest) {
        let again = try? TransportError(decoding: error.encoded())
        invariant(again == error, "transport error \(error) does not parse from its encoding")
    }
    return 0
}
