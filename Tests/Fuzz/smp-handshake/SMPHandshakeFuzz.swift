// SMP handshake blocks (smp.md §2.2–§2.4): the server's and the client's hello and the server's answer, as bodies
// and as padded blocks. Nothing traps, and what parses encodes to bytes that parse as itself.
import SMP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPHandshake(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    if let hello = try? ServerHello(decoding: bytes), let encoded = try? hello.encoded() {
        invariant((try? ServerHello(decoding: encoded)) == hello, "server hello \(hello) does not parse from \(encoded)")
        if let block = try? hello.block() {
            invariant((try? ServerHello(block: block)) == hello, "server hello \(hello) does not parse from its block")
        }
    }
    if let hello = try? ClientHello(decoding: bytes), let encoded = try? hello.encoded() {
        invariant((try? ClientHello(decoding: encoded)) == hello, "client hello \(hello) does not parse from \(encoded)")
        if let block = try? hello.block() {
            invariant((try? ClientHello(block: block)) == hello, "client hello \(hello) does not parse from its block")
        }
    }
    if let response = try? ServerHandshakeResponse(decoding: bytes), let encoded = try? response.encoded() {
        invariant(
            (try? ServerHandshakeResponse(decoding: encoded)) == response,
            "handshake answer \(response) does not parse from \(encoded)")
    }
    _ = try? ServerHello(block: bytes)
    _ = try? ClientHello(block: bytes)
    return 0
}
