// The human (CLI) spellings of commands that carry the same typed value as the API form (chat-api.md §3:
// "Human/CLI forms … are also accepted by the same parser"). They are read, never written: a command prints
// as its `/_…` form.

extension Lexeme where Value == String {
    /// A display name in human commands: `'quoted name'`, or a token without spaces or commas that does not
    /// start with `#`, `@` or `'` (chat-api.md §3.1).
    static let displayName = Lexeme(
        expected: ["a display name"], samples: [SyntaxSample("alice"), SyntaxSample("'Alice Smith'")],
        read: { scanner in
            let quote = UInt8(ascii: "'")
            if scanner.match([quote]) {
                let name = scanner.take { $0 != quote }
                guard scanner.match([quote]), let first = name.first, isNameStart(first) else { return nil }
                return CommandScanner.text(name)
            }
            guard let first = scanner.current, isNameStart(first) else { return nil }
            return CommandScanner.text(scanner.take { !CommandScanner.isSpace($0) && $0 != UInt8(ascii: ",") })
        },
        write: { name, out in
            guard let first = name.utf8.first, isNameStart(first), !name.utf8.contains(UInt8(ascii: "'")) else { return false }
            let plain = !name.utf8.contains { CommandScanner.isSpace($0) || $0 == UInt8(ascii: ",") }
            out += plain ? name : "'\(name)'"
            return true
        })

    private static func isNameStart(_ c: UInt8) -> Bool {
        c > 0x20 && c != UInt8(ascii: "#") && c != UInt8(ascii: "@") && c != UInt8(ascii: "'")
    }
}

extension Lexeme where Value == RawJSON {
    /// `<name>[ <short description>]` of `/create user` as the NewUser JSON the core builds from it
    /// (`newUserP`): a profile with the display name, an empty full name and the description (trimmed, at
    /// most 160 characters) when there is one; `pastTimestamp` false.
    static let newUserProfile = Lexeme(
        expected: ["a display name"], samples: [SyntaxSample("alice"), SyntaxSample("'Alice Smith' likes  tea ")],
        read: { scanner in
            guard let name = Lexeme<String>.displayName.read(&scanner) else { return nil }
            var profile = "{\"displayName\":" + JSONReader.quoted(name) + ",\"fullName\":\"\""
            if !scanner.take(while: CommandScanner.isSpace).isEmpty {
                var description = Substring(scanner.rest())
                while let last = description.unicodeScalars.last, last.properties.isWhitespace {
                    description = description.dropLast()
                }
                if !description.isEmpty {
                    profile += ",\"shortDescr\":" + JSONReader.quoted(String(description.prefix(160)))
                }
            }
            var json = CommandScanner("{\"profile\":" + profile + "},\"pastTimestamp\":false}")
            return RawJSON.read(&json)
        },
        write: { _, _ in false })
}
