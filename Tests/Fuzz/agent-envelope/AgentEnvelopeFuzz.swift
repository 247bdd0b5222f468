// The agent's binary envelopes and messages (smp.md §4.2–§4.3) and the e2e ratchet parameters: the first byte picks
// the type. Nothing traps, and what decodes encodes to bytes that decode as itself.
import AgentProtocol
import Ratchet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAgentEnvelope(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    switch selector % 13 {
    case 0: checkRoundTrip(ClientMsgEnvelope.self, rest)
    case 1: checkRoundTrip(ClientMessage.self, rest)
    case 2: checkRoundTrip(AgentMsgEnvelope.self, rest)
    case 3: checkRoundTrip(AgentMessage.self, rest)
    case 4: checkRoundTrip(APrivHeader.self, rest)
    case 5: checkRoundTrip(AMessage.self, rest)
    case 6: checkRoundTrip(AMessageReceipt.self, rest)
    case 7: checkRoundTrip(SndQueueAddress.self, rest)
    case 8: checkRoundTrip(QueueAddition.self, rest)
    case 9: checkRoundTrip(QueueKey.self, rest)
    case 10: checkRoundTrip(QueueUse.self, rest)
    case 11: checkRoundTrip(E2ERatchetParamsURI.self, rest)
    default:
        if let envelope = try? ClientMsgEnvelope(body: rest) {
            let again = (try? envelope.body()).flatMap { try? ClientMsgEnvelope(body: $0) }
            invariant(again == envelope, "envelope \(envelope) does not read from its own body")
        }
    }
    return 0
}
