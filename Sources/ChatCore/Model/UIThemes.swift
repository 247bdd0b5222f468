internal import SimplexEncoding

/// UIThemeEntityOverrides (chat-api.md §7.4 `User.uiThemes`, §7.10 `GroupInfo.uiThemes`; UITheme.hs): a user's or a
/// chat's theme, kept as the official core's typed decoder reads it and written as its `defaultJSON` encoder writes
/// it: absent values left out (a `null` wallpaper too), colour keys other than the twelve it knows dropped, colours
/// only as `#` and eight hex digits.
public struct UIThemeEntityOverrides: Hashable, Sendable, JSONEncodable {
    public var light: UIThemeEntityOverride?
    public var dark: UIThemeEntityOverride?

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        light = try input.member("light").map { (v) throws(ChatError) in try UIThemeEntityOverride(v) }
        dark = try input.member("dark").map { (v) throws(ChatError) in try UIThemeEntityOverride(v) }
    }

    /// What the store holds; text the decoder refuses reads as no overrides, as the core's `fromField` reads it.
    init(stored text: String) {
        if let json = try? CanonicalJSON.parse(text), let overrides = try? Self(JSONInput(json)) {
            self = overrides
        } else {
            light = nil
            dark = nil
        }
    }

    public var json: JSONValue { .record(["light": light?.json, "dark": dark?.json]) }
}

/// UIThemeEntityOverride (UITheme.hs): one colour mode's overrides.
public struct UIThemeEntityOverride: Hashable, Sendable, JSONEncodable {
    /// `light` or `dark` (UIColorMode).
    public var mode: String
    /// ChatWallpaper, its known fields in record order.
    public var wallpaper: JSONValue?
    /// UIColors, its known fields in record order.
    public var colors: JSONValue

    static let colorKeys = [
        "accent", "accentVariant", "secondary", "secondaryVariant", "background", "menus", "title", "accentVariant2",
        "sentMessage", "sentReply", "receivedMessage", "receivedReply",
    ]

    init(_ input: JSONInput) throws(ChatError) {
        _ = try input.object()
        let mode = try input.required("mode")
        guard ["light", "dark"].contains(try mode.string()) else {
            throw mode.fail("unexpected value \"\(try mode.string())\"")
        }
        self.mode = try mode.string()
        wallpaper = try input.member("wallpaper").map { (w) throws(ChatError) in try Self.wallpaper(w) }
        let colors = try input.required("colors").object()
        var fields: [JSONField] = []
        for key in Self.colorKeys {
            if let color = try colors.member(key) { fields.append(JSONField(key, .string(try Self.color(color)))) }
        }
        self.colors = .object(fields)
    }

    /// ChatWallpaper: `preset`, `imageFile`, `background`, `tint`, `scaleType`, `scale`, each optional.
    private static func wallpaper(_ input: JSONInput) throws(ChatError) -> JSONValue {
        _ = try input.object()
        let scaleType = try input.member("scaleType").map { (s) throws(ChatError) -> String in
            let text = try s.string()
            guard ["fill", "fit", "repeat"].contains(text) else { throw s.fail("unexpected value \"\(text)\"") }
            return text
        }
        return .record([
            "preset": try input.optionalString("preset").map(JSONValue.string),
            "imageFile": try input.optionalString("imageFile").map(JSONValue.string),
            "background": try input.member("background").map { (c) throws(ChatError) in .string(try color(c)) },
            "tint": try input.member("tint").map { (c) throws(ChatError) in .string(try color(c)) },
            "scaleType": scaleType.map(JSONValue.string),
            "scale": try input.member("scale").map { (s) throws(ChatError) in try double(s) },
        ])
    }

    /// UIColor: `#` and eight hex digits, either case.
    private static func color(_ input: JSONInput) throws(ChatError) -> String {
        let text = try input.string()
        let digits = text.utf8.dropFirst()
        let isHex: (UInt8) -> Bool = {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66)
        }
        guard text.utf8.first == UInt8(ascii: "#"), digits.count == 8, digits.allSatisfy(isHex) else {
            throw input.fail("bad UIColor")
        }
        return text
    }

    /// A Double, written as aeson writes one: a whole number with `.0`.
    private static func double(_ input: JSONInput) throws(ChatError) -> JSONValue {
        switch input.value {
        case .integer(let n): return .number("\(n).0")
        case .number(let text): return .number(text)
        default: throw input.fail("expected Double, but encountered \(input.value.kindName)")
        }
    }

    public var json: JSONValue { .record(["mode": .string(mode), "wallpaper": wallpaper, "colors": colors]) }
}
