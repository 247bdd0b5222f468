internal import SimplexHTTP2
internal import SimplexTLS

/// What writing HTTP/2's pending frames into TLS can fail with, for both session roles to map into their errors.
enum TransportFailure: Error {
    case http2(HTTP2Error)
    case tls(TLSError)
}

extension TLSConnection {
    /// Moves the frames HTTP/2 wants to send into the TLS stream (both roles run HTTP/2 over TLS, xrcp.md §9.1).
    func send(framesOf http2: HTTP2Connection) throws(TransportFailure) {
        let out: [UInt8]
        do { out = try http2.takeOutgoing() } catch { throw .http2(error) }
        guard !out.isEmpty else { return }
        do { try send(out) } catch { throw .tls(error) }
    }
}
