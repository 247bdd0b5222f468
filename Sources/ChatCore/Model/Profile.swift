public import SimplexEncoding

/// A profile as peers see it (chat-api.md §7.1); also the argument of `/_profile` and `/_create user`.
public struct Profile: Hashable, Sendable, JSONEncodable {
    public var displayName: String
    public var fullName: String
    public var shortDescr: String?
    public var description: String?
    public var image: String?
    public var contactLink: String?
    public var preferences: Preferences?
    /// `human` or `bot`.
    public var peerType: String?
    /// BadgeProof, opaque to the core.
    public var badge: CanonicalJSON?
    /// SimplexDomainClaim, opaque to the core.
    public var contactDomain: CanonicalJSON?

    public init(displayName: String, fullName: String = "") {
        self.displayName = displayName
        self.fullName = fullName
    }

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        displayName = try input.string("displayName")
        // Clients written for older cores may leave it out; the core's profiles always carry one.
        fullName = try input.optionalString("fullName") ?? ""
        shortDescr = try input.optionalString("shortDescr")
        description = try input.optionalString("description")
        image = try input.optionalString("image")
        contactLink = try input.optionalString("contactLink")
        preferences = try input.member("preferences").map { (p) throws(ChatError) in try Preferences(p) }
        if let p = try input.member("peerType") {
            let t = try p.string()
            guard t == "human" || t == "bot" else { throw p.fail("unexpected value \"\(t)\"") }
            peerType = t
        }
        badge = try input.member("badge")?.object().value
        contactDomain = try input.member("contactDomain")?.object().value
    }

    public var json: JSONValue {
        .record([
            "displayName": .string(displayName), "fullName": .string(fullName), "shortDescr": shortDescr?.json,
            "description": description?.json, "image": image?.json, "contactLink": contactLink?.json,
            "preferences": preferences?.json, "peerType": peerType?.json, "badge": badge.map(JSONValue.init),
            "contactDomain": contactDomain.map(JSONValue.init),
        ])
    }
}

/// A profile as stored locally (chat-api.md §7.2): the profile (its badge aside) with its row id and local alias.
public struct LocalProfile: Hashable, Sendable, JSONWritable {
    public var profileId: Int64
    public var profile: Profile
    public var localAlias: String

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("profileId", profileId)
        w.field("displayName", profile.displayName)
        w.field("fullName", profile.fullName)
        w.field("shortDescr", profile.shortDescr)
        w.field("description", profile.description)
        w.field("image", profile.image)
        w.field("contactLink", profile.contactLink)
        w.field("preferences", profile.preferences?.json)
        w.field("peerType", profile.peerType?.json)
        w.field("contactDomain", profile.contactDomain.map(JSONValue.init))
        w.field("localAlias", localAlias)
        w.endObject()
    }
}
