import SimplexEncoding

// The core's typed reading of JSON arguments (`<json(T)>`, chat-api.md §0.2): the first byte picks a type, the
// rest is its JSON. A refusal is a `commandError`, never a trap; a profile, content, preview or file read back
// from its own JSON is itself.
@testable import ChatCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChatJSONInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = split(fuzzBytes(data, size)), let json = try? CanonicalJSON.parse(rest) else { return 0 }
    let input = JSONInput(json)
    switch selector % 16 {
    case 0: roundTrip(Profile.self, input)
    case 1: roundTrip(MsgContent.self, input)
    case 2: roundTrip(LinkPreview.self, input)
    case 3: roundTrip(CryptoFile.self, input)
    case 4: _ = try? GroupProfile(input)
    case 5: _ = try? ChatSettings(input)
    case 6: _ = try? Preferences(input)
    case 7: _ = try? GroupPreferences(input)
    case 8: _ = try? AppSettings(input)
    case 9: _ = try? ServerRoles(input)
    case 10: _ = try? SubmittedChatRelay(input)
    case 11: _ = try? UIThemeEntityOverrides(input)
    case 12: _ = try? ChatTagData(input)
    case 13: _ = try? NewUser(input)
    case 14: _ = try? NetworkConfig(input)
    default: _ = try? MsgReaction(input)
    }
    return 0
}

private protocol JSONReadable: JSONEncodable, Equatable {
    init(_ input: JSONInput) throws(ChatError)
}

extension Profile: JSONReadable {}
extension MsgContent: JSONReadable {}
extension LinkPreview: JSONReadable {}
extension CryptoFile: JSONReadable {}

private func roundTrip<T: JSONReadable>(_ type: T.Type, _ input: JSONInput) {
    guard let value = try? T(input) else { return }
    let rendered = value.json.renderedBytes
    guard let json = try? CanonicalJSON.parse(rendered) else {
        invariant(false, "\(T.self) \(value) renders as JSON that does not parse: \(fuzzText(rendered))")
        return
    }
    let again = try? T(JSONInput(json))
    invariant(again == value, "\(T.self) \(value) renders as \(fuzzText(rendered)), read back as \(String(describing: again))")
}
