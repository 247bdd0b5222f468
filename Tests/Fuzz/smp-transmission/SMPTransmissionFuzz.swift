// SMP transmissions and batches (smp.md §2.5, §3.1): the first byte picks the side and the version (6–18). A
// server's read of a client transmission and a client's read of a server's never trap, and every failure is an
// error to answer; each transmission of a batch is read the same way.
import SMP

private let sessionId = SessionId([UInt8](repeating: 0x5a, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPTransmission(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    let parameters = TransportParameters(version: 6 + UInt16(selector >> 2) % 13, sessionId: sessionId)
    let transmissions = selector & 2 == 0 ? [rest] : (try? TransmissionBatch.parse(rest)) ?? []
    for t in transmissions {
        if selector & 1 == 0 {
            _ = Transmissions.decodeCommand(t, parameters: parameters)
        } else {
            _ = Transmissions.decodeResponse(t, parameters: parameters)
        }
    }
    return 0
}
