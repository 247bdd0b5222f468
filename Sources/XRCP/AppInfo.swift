public import SimplexEncoding

/// An app version: dotted integers compared as integer lists, a shorter prefix being smaller (xrcp.md §12.3).
public struct AppVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let components: [Int]

    public init(_ components: [Int]) { self.components = components }

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var out: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(p) else { return nil }
            out.append(n)
        }
        guard !out.isEmpty else { return nil }
        components = out
    }

    public var description: String { components.map(String.init).joined(separator: ".") }

    public static func < (a: Self, b: Self) -> Bool { a.components.lexicographicallyPrecedes(b.components) }

    /// The oldest peer the current apps accept (xrcp.md §0.3, §12.3).
    public static let minimumPeer = AppVersion([6, 5, 0, 12])
    /// The version this project speaks as, in both roles: one constant for host and controller.
    public static let current = AppVersion([6, 5, 0, 13])
}

/// `{"minVersion": …, "maxVersion": …}`.
public struct AppVersionRange: Hashable, Sendable {
    public let min: AppVersion
    public let max: AppVersion

    public init(min: AppVersion, max: AppVersion) {
        self.min = min
        self.max = max
    }

    /// What this project accepts from peers.
    public static let supported = AppVersionRange(min: .minimumPeer, max: .current)

    public func contains(_ v: AppVersion) -> Bool { min <= v && v <= max }

    /// The version a host sends for a controller's range: `min(own.max, theirs.max)`, or nil if they do not overlap.
    public func negotiate(with other: AppVersionRange) -> AppVersion? {
        guard min <= other.max && other.min <= max else { return nil }
        return Swift.min(max, other.max)
    }

    var json: CanonicalJSON { .object(["minVersion": .string(min.description), "maxVersion": .string(max.description)]) }

    init(json: CanonicalJSON) throws(XRCPError) {
        func version(_ name: String) throws(XRCPError) -> AppVersion {
            guard let text = json[name]?.stringValue else { throw .syntax("appVersionRange has no \(name) string") }
            guard let v = AppVersion(text) else { throw .syntax("appVersionRange \(name) \"\(text)\" is not a version") }
            return v
        }
        self.init(min: try version("minVersion"), max: try version("maxVersion"))
    }
}

/// The controller's `app` of the invitation (xrcp.md §12.1).
public struct ControllerAppInfo: Hashable, Sendable {
    public var appVersionRange: AppVersionRange
    public var deviceName: String
    public var compression: Bool

    public init(appVersionRange: AppVersionRange = .supported, deviceName: String, compression: Bool = true) {
        self.appVersionRange = appVersionRange
        self.deviceName = deviceName
        self.compression = compression
    }

    public var json: CanonicalJSON {
        .object([
            "appVersionRange": appVersionRange.json, "deviceName": .string(deviceName), "compression": .bool(compression),
        ])
    }

    /// Unknown fields are ignored; an absent `compression` is false.
    public init(json: CanonicalJSON) throws(XRCPError) {
        guard case .object = json else { throw .syntax("controller app info is not a JSON object") }
        guard let name = json["deviceName"]?.stringValue else { throw .syntax("controller app info has no deviceName string") }
        guard let range = json["appVersionRange"] else { throw .syntax("controller app info has no appVersionRange") }
        self.init(
            appVersionRange: try AppVersionRange(json: range), deviceName: name,
            compression: json["compression"]?.boolValue ?? false)
    }
}

/// The host's `app` of its HELLO (xrcp.md §12.2).
public struct HostAppInfo: Hashable, Sendable {
    public enum Encoding: String, Sendable { case swift, kotlin }

    /// The negotiated version, not the host's own.
    public var appVersion: AppVersion
    public var deviceName: String
    public var encoding: Encoding
    public var encryptFiles: Bool
    public var compression: Bool

    public init(
        appVersion: AppVersion, deviceName: String, encoding: Encoding = .kotlin, encryptFiles: Bool = false,
        compression: Bool = true
    ) {
        self.appVersion = appVersion
        self.deviceName = deviceName
        self.encoding = encoding
        self.encryptFiles = encryptFiles
        self.compression = compression
    }

    public var json: CanonicalJSON {
        .object([
            "appVersion": .string(appVersion.description), "deviceName": .string(deviceName),
            "encoding": .string(encoding.rawValue), "encryptFiles": .bool(encryptFiles), "compression": .bool(compression),
        ])
    }

    public init(json: CanonicalJSON) throws(XRCPError) {
        guard case .object = json else { throw .syntax("host app info is not a JSON object") }
        guard let v = json["appVersion"]?.stringValue.flatMap(AppVersion.init) else {
            throw .syntax("host app info has no appVersion version string")
        }
        guard let name = json["deviceName"]?.stringValue else { throw .syntax("host app info has no deviceName string") }
        guard let enc = json["encoding"]?.stringValue.flatMap(Encoding.init(rawValue:)) else {
            throw .syntax("host app info encoding is not \"swift\" or \"kotlin\"")
        }
        guard let files = json["encryptFiles"]?.boolValue else { throw .syntax("host app info has no encryptFiles boolean") }
        self.init(
            appVersion: v, deviceName: name, encoding: enc, encryptFiles: files,
            compression: json["compression"]?.boolValue ?? false)
    }
}
