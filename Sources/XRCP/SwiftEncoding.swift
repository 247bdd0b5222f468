public import SimplexEncoding

/// The chat API's two JSON styles (xrcp.md §13): a host built for iOS sends sum types as single-field objects
/// (`{"_owsf":true,"tag":{…}}`); controllers that speak the tagged style convert them (§13.3).
public enum SwiftEncoding {
    /// `owsf→tagged`, recursively over the whole value.
    public static func toTagged(_ value: CanonicalJSON) -> CanonicalJSON { convert(value).value }

    private static func convert(_ value: CanonicalJSON) -> (value: CanonicalJSON, tagged: Bool) {
        switch value {
        case .object(let fields):
            if fields.count == 2, fields["_owsf"] == .bool(true), let (tag, inner) = fields.first(where: { $0.key != "_owsf" }) {
                let (converted, innerTagged) = convert(inner)
                if case .object(var record) = converted, !innerTagged {
                    record["type"] = .string(tag)
                    return (.object(record), true)
                }
                return (.object(["type": .string(tag), "data": converted]), true)
            }
            return (.object(fields.mapValues { convert($0).value }), false)
        case .array(let items):
            return (.array(items.map { convert($0).value }), false)
        default:
            return (value, false)
        }
    }
}
