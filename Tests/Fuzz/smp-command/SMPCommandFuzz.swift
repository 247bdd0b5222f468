// SMP commands (smp.md §3.3): the first byte picks the version (6–18). A command body never traps, and a command
// that parses encodes at that version to bytes that parse as itself.
import SMP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPCommand(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)) else { return 0 }
    let version = 6 + UInt16(selector) % 13
    guard let command = try? SMPCommand(parsing: rest, version: version) else { return 0 }
    guard let encoded = try? command.encoded(version: version) else { return 0 }
    let again = try? SMPCommand(parsing: encoded, version: version)
    invariant(again == command, "v\(version) \(command) encodes to \(encoded), which parses as \(String(describing: again))")
    return 0
}
