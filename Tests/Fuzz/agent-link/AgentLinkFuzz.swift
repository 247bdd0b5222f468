// Agent links (smp.md §4.1): connection requests, invitations and their e2e ratchet parameters as URI text. Nothing
// traps, and what parses is read from its own text as itself.
import AgentProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAgentLink(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(fuzzBytes(data, size))
    if let request = try? ConnectionRequest(parsing: text) {
        let again = try? ConnectionRequest(parsing: request.text)
        invariant(again == request, "link \(request.text.debugDescription) does not parse as itself")
    }
    _ = try? InvitationRequest(parsing: text)
    if let params = try? E2ERatchetParamsURI(parsing: text) {
        let again = try? E2ERatchetParamsURI(parsing: params.text)
        invariant(again == params, "e2e parameters \(params.text.debugDescription) do not parse as themselves")
    }
    return 0
}
