public import SimplexEncoding

/// AppSettings (chat-api.md §7.28): the apps' preferences kept in the chat database for device migration. Every field
/// is optional; the core keeps the ones it knows, in its field order, and drops others, as its typed decoder does.
/// Field values are opaque to the core.
public struct AppSettings: Hashable, Sendable {
    /// The known keys, in the core's order.
    static let keys = [
        "appPlatform", "networkConfig", "networkProxy", "privacyEncryptLocalFiles", "privacyAskToApproveRelays",
        "privacyAcceptImages", "privacyLinkPreviews", "privacyShowChatPreviews", "privacySaveLastDraft",
        "privacyProtectScreen", "privacyMediaBlurRadius", "notificationMode", "notificationPreviewMode",
        "webrtcPolicyRelay", "webrtcICEServers", "confirmRemoteSessions", "connectRemoteViaMulticast",
        "connectRemoteViaMulticastAuto", "developerTools", "confirmDBUpgrades", "androidCallOnLockScreen",
        "iosCallKitEnabled", "iosCallKitCallsInRecents", "uiProfileImageCornerRadius", "uiChatItemRoundness",
        "uiChatItemTail", "uiColorScheme", "uiDarkColorScheme", "uiCurrentThemeIds", "uiThemes", "oneHandUI",
        "chatBottomBar",
    ]

    public private(set) var values: [String: CanonicalJSON] = [:]

    public init() {}

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        for key in Self.keys {
            if let v = try input.member(key) { values[key] = v.value }
        }
    }

    /// These settings with `defaults` filling what they leave out (the core's `combineAppSettings`).
    func over(_ defaults: AppSettings) -> AppSettings {
        var merged = defaults
        merged.values.merge(values) { _, mine in mine }
        return merged
    }

    public var json: JSONValue { .object(Self.keys.compactMap { k in values[k].map { JSONField(k, JSONValue($0)) } }) }
}
