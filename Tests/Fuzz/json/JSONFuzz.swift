// SimplexEncoding's JSON parser and ChatModel's raw JSON arguments: what parses renders to text that parses to the
// same value, and the compact text of an argument is itself an argument of the same kind.
import ChatModel
import SimplexEncoding

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    if let value = try? CanonicalJSON.parse(bytes) {
        let rendered = value.rendered
        let again = try? CanonicalJSON.parse(rendered)
        invariant(
            again == value, "\(value) renders as \(rendered.debugDescription), which parses to \(String(describing: again))")
    }
    if let raw = try? RawJSON(parsing: fuzzText(bytes)) {
        let again = try? RawJSON(parsing: raw.text)
        invariant(again == raw, "raw JSON \(raw.text.debugDescription) does not parse as itself")
    }
    return 0
}
