public import SimplexEncoding

/// PrefEnabled: whether a feature is on for the user's messages and for the contact's.
public struct PrefEnabled: Hashable, Sendable {
    public var forUser: Bool
    public var forContact: Bool

    public init(forUser: Bool, forContact: Bool) {
        self.forUser = forUser
        self.forContact = forContact
    }
}

/// ContactUserPreference: one feature of a contact's merged preferences.
public struct ContactUserPreference: Hashable, Sendable {
    public var enabled: PrefEnabled
    /// ContactUserPref: the user's preference and where it came from, `contact` when the user set one for this
    /// contact, `user` when it is the user's general one (`sumTypeJSON $ dropPrefix "CUP"`).
    public var userPreferenceSource: Source
    public var userPreference: ChatPreference
    public var contactPreference: ChatPreference

    public enum Source: String, Hashable, Sendable {
        case contact, user
    }

    public init(
        enabled: PrefEnabled, userPreferenceSource: Source, userPreference: ChatPreference,
        contactPreference: ChatPreference
    ) {
        self.enabled = enabled
        self.userPreferenceSource = userPreferenceSource
        self.userPreference = userPreference
        self.contactPreference = contactPreference
    }

    var json: JSONValue {
        .object([
            JSONField(
                "enabled",
                .object([JSONField("forUser", .bool(enabled.forUser)), JSONField("forContact", .bool(enabled.forContact))])),
            JSONField(
                "userPreference",
                .object([JSONField("type", .string(userPreferenceSource.rawValue)), JSONField("preference", userPreference.json)])
            ),
            JSONField("contactPreference", contactPreference.json),
        ])
    }

    init(_ input: JSONInput, timed: Bool) throws(ChatError) {
        _ = try input.object()
        let e = try input.required("enabled").object()
        enabled = PrefEnabled(forUser: try e.required("forUser").bool(), forContact: try e.required("forContact").bool())
        let u = try input.required("userPreference").object()
        userPreferenceSource = try u.required("type").enumeration(Source.self)
        userPreference = try ChatPreference(u.required("preference"), timed: timed)
        contactPreference = try ChatPreference(input.required("contactPreference"), timed: timed)
    }
}

/// ContactUserPreferences (chat-api.md §7.3, `Contact.mergedPreferences`): every chat feature, in the core's order,
/// and the contact's bot commands when it has them. The merging that makes it belongs to the chat protocol; this is
/// its value and JSON.
public struct ContactUserPreferences: Hashable, Sendable, JSONWritable {
    /// By feature name (`ChatFeature.rawValue`); every feature is present.
    public internal(set) var features: [String: ContactUserPreference]
    public var commands: [CanonicalJSON]?

    /// A value that must carry every feature; nil when one is missing.
    public init?(features: [String: ContactUserPreference], commands: [CanonicalJSON]? = nil) {
        guard ChatFeature.allCases.allSatisfy({ features[$0.rawValue] != nil }) else { return nil }
        self.features = features
        self.commands = commands
    }

    public subscript(feature: String) -> ContactUserPreference? { features[feature] }

    public func write(to w: inout JSONWriter) {
        var fields: [JSONField] = ChatFeature.allCases.compactMap { f in
            features[f.rawValue].map { JSONField(f.rawValue, $0.json) }
        }
        if let commands { fields.append(JSONField("commands", .array(commands.map(JSONValue.init)))) }
        w.value(JSONValue.object(fields))
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        var features: [String: ContactUserPreference] = [:]
        for f in ChatFeature.allCases {
            features[f.rawValue] = try ContactUserPreference(input.required(f.rawValue), timed: f == .timedMessages)
        }
        self.features = features
        commands = try input.member("commands")?.array().map(\.value)
    }
}
