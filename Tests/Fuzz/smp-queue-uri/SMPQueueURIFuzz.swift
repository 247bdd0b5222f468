// SMP addresses (smp.md §1.7): queue URIs, servers and hosts as text (first byte even) and in binary (odd). Nothing
// traps, and what parses is read from its own text or encoding as itself.
import SMP
import SimplexEncoding

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPQueueURI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    if selector & 1 == 1 {
        checkRoundTrip(SMPQueueURI.self, rest)
        checkRoundTrip(SMPQueueInfo.self, rest)
        checkRoundTrip(SMPServer.self, rest)
        return 0
    }
    let text = fuzzText(rest)
    if let uri = try? SMPQueueURI(parsing: text) {
        invariant((try? SMPQueueURI(parsing: uri.text)) == uri, "queue URI \(uri.text.debugDescription) does not parse as itself")
    }
    if let server = try? SMPServer(parsing: text) {
        invariant(
            (try? SMPServer(parsing: server.text)) == server, "server \(server.text.debugDescription) does not parse as itself")
    }
    if let server = try? SMPServerWithAuth(parsing: text) {
        invariant(
            (try? SMPServerWithAuth(parsing: server.text)) == server,
            "server \(server.text.debugDescription) does not parse as itself")
    }
    if let host = try? TransportHost(parsing: text) {
        invariant((try? TransportHost(parsing: host.text)) == host, "host \(host.text.debugDescription) does not parse as itself")
    }
    return 0
}
