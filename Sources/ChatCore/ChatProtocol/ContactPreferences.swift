// The merging of a contact's preferences (`contactUserPreferences`, `prefEnabled`); the values and their JSON are
// in Model/ContactUserPreferences.swift.

extension PrefEnabled {
    /// The two sides' choices combined (`prefEnabled`). `always` against `no` turns the feature on for the side that
    /// said no, the receiving end, only for asymmetric features; any other `no` turns it off for both.
    init(asymmetric: Bool, user: FeatureAllowed, contact: FeatureAllowed) {
        switch (user, contact) {
        case (.always, .no): self.init(forUser: false, forContact: asymmetric)
        case (.no, .always): self.init(forUser: asymmetric, forContact: false)
        case (_, .no), (.no, _): self.init(forUser: false, forContact: false)
        default: self.init(forUser: true, forContact: true)
        }
    }
}

/// A contact's `mergedPreferences`: for every chat feature, the user's preference for this contact (else the
/// user's general one, else the default) against the contact's (else the default).
extension ContactUserPreferences {
    /// - Parameters:
    ///   - user: the user's profile preferences.
    ///   - forContact: what the user set for this contact (`userPreferences`).
    ///   - contact: the preferences in the contact's profile.
    ///   - incognito: the connection uses an incognito profile, so the user's general preferences are not applied.
    public init(user: Preferences?, forContact: Preferences, contact: Preferences?, incognito: Bool) {
        var features: [String: ContactUserPreference] = [:]
        for feature in ChatFeature.allCases {
            let name = feature.rawValue
            let set = forContact.features[name]
            let general = incognito ? nil : user?.features[name]
            let userPref = set ?? general ?? feature.defaultPreference
            let contactPref = contact?.features[name] ?? feature.defaultPreference
            // Disappearing messages need both sides to agree on the time; the other features can be one-sided.
            let enabled = PrefEnabled(
                asymmetric: feature != .timedMessages, user: userPref.allow, contact: contactPref.allow)
            // An incognito contact shows what was set for it, even the default, never the user's general choice.
            let source: ContactUserPreference.Source = incognito || set != nil ? .contact : .user
            features[name] = ContactUserPreference(
                enabled: enabled, userPreferenceSource: source,
                userPreference: incognito ? (set ?? feature.defaultPreference) : userPref, contactPreference: contactPref)
        }
        self.features = features
        // The contact's bot commands, from its profile (a bot's menu in the apps).
        commands = contact?.commands
    }

    /// The feature's state; nil only for a name that is not a chat feature.
    public func enabled(_ featureName: String) -> PrefEnabled? { features[featureName]?.enabled }
}

extension Preferences {
    /// The preferences a profile carries to a contact (`userProfileToSend`): every feature present, each the one set
    /// for this contact, else the user's (not applied to an incognito connection), else the default; the bot
    /// commands always present.
    public static func toSend(user: Preferences?, forContact: Preferences?, incognito: Bool) -> Preferences {
        var sent = Preferences()
        for feature in ChatFeature.allCases {
            let name = feature.rawValue
            sent.features[name] =
                forContact?.features[name] ?? (incognito ? nil : user?.features[name]) ?? feature.defaultPreference
        }
        sent.commands = (incognito ? nil : user?.commands) ?? []
        return sent
    }
}
