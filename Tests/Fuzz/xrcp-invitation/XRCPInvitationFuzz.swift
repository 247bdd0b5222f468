// XRCP invitations (xrcp.md §5): a URI never traps, one that parses is read from its own text as itself, and
// checking its signatures and app info answers rather than traps.
import XRCP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXRCPInvitation(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let uri = fuzzText(fuzzBytes(data, size))
    guard let signed = try? SignedInvitation(uri: uri) else { return 0 }
    let again = try? SignedInvitation(uri: signed.uri)
    invariant(again == signed, "\(signed.uri.debugDescription) does not parse as the invitation it came from")
    _ = try? signed.verify()
    _ = try? signed.invitation.appInfo()
    _ = signed.invitation.unsignedURI
    return 0
}
