/// A file description link (simplexmq's `FileDescriptionURI`): `simplex:/file#/?desc=…&data=…`, or the same after
/// `https://<host>[:<port>]` instead of `simplex:`. `desc` is the recipient's file description, YAML, which only a
/// download reads; `data` is the sender's JSON about the file.
struct FileDescriptionLink: Equatable {
    var description: String
    var clientData: String?

    /// Reads the link as the core's parser does: the scheme, `/file` (a `/` may follow), `#/?`, then a query string
    /// (`&`- or `;`-separated, `+` and `%XX` decoded) up to a space, which must have `desc`.
    init(_ text: String) throws(ChatError) {
        let invalid = ChatError.error(.commandError("Failed reading: invalid file description link"))
        var rest = Substring(text)
        if rest.hasPrefix("simplex:") {
            rest = rest.dropFirst("simplex:".count)
        } else if rest.hasPrefix("https://") {
            rest = rest.dropFirst("https://".count)
            let host = rest.prefix { !":#,;/ ".contains($0) }
            guard !host.isEmpty else { throw invalid }
            rest = rest.dropFirst(host.count)
            if rest.hasPrefix(":") {
                let port = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
                guard !port.isEmpty else { throw invalid }
                rest = rest.dropFirst(1 + port.count)
            }
        } else {
            throw invalid
        }
        guard rest.hasPrefix("/file") else { throw invalid }
        rest = rest.dropFirst("/file".count)
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        guard rest.hasPrefix("#/?") else { throw invalid }
        let query = rest.dropFirst(3).prefix { $0 != " " && $0 != "\n" }
        var params: [(String, String)] = []
        for pair in query.split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            params.append((Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : ""))
        }
        guard let desc = params.first(where: { $0.0 == "desc" })?.1, !desc.isEmpty else { throw invalid }
        description = desc
        clientData = params.first { $0.0 == "data" }?.1
    }

    /// URL decoding as http-types' `urlDecode True`: `+` is a space, `%XX` a byte; anything else stays.
    private static func decode(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(s.utf8)[...]
        while let b = utf8.first {
            utf8 = utf8.dropFirst()
            if b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%"), utf8.count >= 2, let hi = hex(utf8[utf8.startIndex]),
                let lo = hex(utf8[utf8.startIndex + 1])
            {
                bytes.append(hi << 4 | lo)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
