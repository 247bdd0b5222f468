internal import SimplexEncoding

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

    public private(set) var values: [String: JSONValue] = [:]

    public init() {}

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        for key in Self.keys {
            if let v = try input.member(key) { values[key] = JSONValue(v.value) }
        }
    }

    /// The core's own defaults (`defaultAppSettings`, AppSettings.hs), under the platform's and the stored ones:
    /// `/_get app settings` answers every setting that has one. The app platform, the proxy, the current theme ids and
    /// the themes have none.
    static let coreDefaults: AppSettings = {
        var d = AppSettings()
        let defaults: KeyValuePairs<String, JSONValue> = [
            "networkConfig": NetworkConfig().json, "privacyEncryptLocalFiles": .bool(true),
            "privacyAskToApproveRelays": .bool(true), "privacyAcceptImages": .bool(true),
            "privacyLinkPreviews": .bool(true), "privacyShowChatPreviews": .bool(true),
            "privacySaveLastDraft": .bool(true), "privacyProtectScreen": .bool(false), "privacyMediaBlurRadius": .integer(0),
            "notificationMode": .string("instant"), "notificationPreviewMode": .string("message"),
            "webrtcPolicyRelay": .bool(true), "webrtcICEServers": .array([]), "confirmRemoteSessions": .bool(false),
            "connectRemoteViaMulticast": .bool(true), "connectRemoteViaMulticastAuto": .bool(true),
            "developerTools": .bool(false), "confirmDBUpgrades": .bool(false), "androidCallOnLockScreen": .string("show"),
            "iosCallKitEnabled": .bool(true), "iosCallKitCallsInRecents": .bool(false),
            // Doubles, as aeson writes them.
            "uiProfileImageCornerRadius": .number("22.5"), "uiChatItemRoundness": .number("0.75"),
            "uiChatItemTail": .bool(true), "uiColorScheme": .string("SYSTEM"), "uiDarkColorScheme": .string("SIMPLEX"),
            "oneHandUI": .bool(true), "chatBottomBar": .bool(true),
        ]
        for (key, value) in defaults { d.values[key] = value }
        return d
    }()

    /// These settings with `defaults` filling what they leave out (the core's `combineAppSettings`).
    func over(_ defaults: AppSettings) -> AppSettings {
        var merged = defaults
        merged.values.merge(values) { _, mine in mine }
        return merged
    }

    public var json: JSONValue { .object(Self.keys.compactMap { k in values[k].map { JSONField(k, $0) } }) }
}
