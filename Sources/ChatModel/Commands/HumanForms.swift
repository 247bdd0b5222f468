// The pieces of the human (CLI) forms (chat-api.md §3: "Human/CLI forms … are also accepted by the same
// parser"). A human form that carries everything its API form needs (`/create user`, `/db encrypt`) is read into
// the API command's value and prints as its `/_…` form; the others are `HumanCommand`s and print as themselves.

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
            guard let first = name.utf8.first, isNameStart(first) else { return false }
            // A token reads to the next space or comma, so a `'` inside one is kept; only a quoted name cannot hold it.
            if !name.utf8.contains(where: { CommandScanner.isSpace($0) || $0 == UInt8(ascii: ",") }) {
                out += name
                return true
            }
            guard !name.utf8.contains(UInt8(ascii: "'")) else { return false }
            out += "'\(name)'"
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
    static let newUserProfile = newUser(chatRelay: false)

    /// The same for `/create chat relay user <name>[ <short description>]`, with `userChatRelay` true.
    static let newChatRelayUserProfile = newUser(chatRelay: true)

    /// `[files=on|off ][service=on|off ]<name>[ <short description>]` of `/create bot` (`newBotUserP`): the profile's
    /// `peerType` is `bot`, and unless `files=on` its preferences refuse files; `service=on` makes it a client service.
    static let newBotProfile = Lexeme(
        expected: ["\"files=\"", "\"service=\"", "a display name"],
        samples: [SyntaxSample("files=on service=off alice"), SyntaxSample("'Echo Bot' repeats what you say")],
        read: { scanner in
            var files = false
            var service = false
            if scanner.match(Array("files=".utf8)) {
                guard let on = Lexeme<Bool>.onOff.read(&scanner), scanner.whitespace() else { return nil }
                files = on
            }
            if scanner.match(Array("service=".utf8)) {
                guard let on = Lexeme<Bool>.onOff.read(&scanner), scanner.whitespace() else { return nil }
                service = on
            }
            guard let (name, description) = nameAndDescription(&scanner) else { return nil }
            var profile = profileJSON(name, description) + ",\"peerType\":\"bot\""
            if !files { profile += ",\"preferences\":{\"files\":{\"allow\":\"no\"}}" }
            return newUserJSON(profile, extra: service ? ",\"clientService\":true" : "")
        },
        write: { _, _ in false })

    private static func newUser(chatRelay: Bool) -> Lexeme {
        Lexeme(
            expected: ["a display name"], samples: [SyntaxSample("alice"), SyntaxSample("'Alice Smith' likes  tea ")],
            read: { scanner in
                guard let (name, description) = nameAndDescription(&scanner) else { return nil }
                return newUserJSON(profileJSON(name, description), extra: chatRelay ? ",\"userChatRelay\":true" : "")
            },
            write: { _, _ in false })
    }

    /// `<name>[ <short description>]` (the core's `profileNameDescr`).
    private static func nameAndDescription(_ scanner: inout CommandScanner) -> (String, String?)? {
        guard let name = Lexeme<String>.displayName.read(&scanner) else { return nil }
        let start = scanner.position
        if scanner.whitespace(), let description = Lexeme<String>.shortDescription.read(&scanner) {
            return (name, description)
        }
        scanner.position = start
        return (name, nil)
    }

    private static func profileJSON(_ name: String, _ description: String?) -> String {
        "{\"displayName\":" + JSONReader.quoted(name) + ",\"fullName\":\"\""
            + (description.map { ",\"shortDescr\":" + JSONReader.quoted($0) } ?? "")
    }

    private static func newUserJSON(_ profile: String, extra: String) -> RawJSON? {
        var json = CommandScanner("{\"profile\":" + profile + "},\"pastTimestamp\":false" + extra + "}")
        return RawJSON.read(&json)
    }

    /// `<key>` of `/db encrypt`, `<current> <new>` of `/db key`, `<current>` of `/db decrypt` as the
    /// DBEncryptionConfig the core builds (`keepKey` false); an empty key means an unencrypted database.
    static func dbEncryption(current: Bool, new: Bool) -> Lexeme {
        let keys = [current, new].filter { $0 }.count
        return Lexeme(
            expected: ["a key of printable ASCII characters"],
            samples: [SyntaxSample(keys == 2 ? "k3y n3w!" : "k3y!~")],
            read: { scanner in
                var read: [String] = []
                for i in 0..<keys {
                    if i > 0 && !scanner.whitespace() { return nil }
                    guard let key = Lexeme<String>.dbKey.read(&scanner) else { return nil }
                    read.append(key)
                }
                let currentKey = current ? read[0] : ""
                let newKey = new ? read[read.count - 1] : ""
                var json = CommandScanner(
                    "{\"currentKey\":" + JSONReader.quoted(currentKey) + ",\"newKey\":" + JSONReader.quoted(newKey)
                        + ",\"keepKey\":false}")
                return RawJSON.read(&json)
            },
            write: { _, _ in false })
    }
}

extension Lexeme where Value == String {
    /// The short description after a name (`shortDescrP`): the rest of the line, leading and trailing whitespace
    /// dropped, at most 160 characters; nothing when that leaves it empty.
    static let shortDescription = Lexeme(
        expected: ["a short description"],
        samples: [SyntaxSample("likes tea", alternate: "  likes tea")],
        read: { scanner in
            _ = scanner.take(while: CommandScanner.isSpace)
            var description = Substring(scanner.rest())
            while let last = description.unicodeScalars.last, last.properties.isWhitespace {
                description = description.dropLast()
            }
            return description.isEmpty ? nil : String(description.prefix(160))
        },
        // Everything the reader gives has a text form: it may start with non-ASCII whitespace (only spaces are
        // skipped), and cut at 160 characters it may end in whitespace, which reads back trimmed.
        write: { description, out in
            guard let first = description.utf8.first, !CommandScanner.isSpace(first), description.count <= 160 else {
                return false
            }
            out += description
            return true
        })

    /// A user's password (`pwdP`): a JSON string running to the end of the line, or a word up to the next space.
    /// Written as the word when it reads back as one.
    static let password = Lexeme(
        expected: ["a password"],
        samples: [
            SyntaxSample("s3cret!"), SyntaxSample(#""pass word""#), SyntaxSample(#""plain""#, canonical: false),
        ],
        read: { scanner in
            if let json = jsonString(&scanner) { return json }
            let word = scanner.take { $0 != 0x20 }
            return word.isEmpty ? nil : CommandScanner.text(word)
        },
        write: { password, out in
            let plain = !password.isEmpty && !password.utf8.contains(where: CommandScanner.isSpace) && !password.hasPrefix("\"")
            out += plain ? password : JSONReader.quoted(password)
            return true
        })

    /// A message's text in a human command (`msgTextP`): a JSON string running to the end of the line, or the
    /// text as written. Written as written when it reads back the same.
    static let messageText = Lexeme(
        expected: ["text"],
        samples: [
            SyntaxSample("hello there, how are you?"), SyntaxSample(#""\"quoted\" text""#),
            SyntaxSample(#""plain""#, canonical: false),
        ],
        read: { scanner in
            if let json = jsonString(&scanner) { return json }
            let text = scanner.rest()
            return text.isEmpty ? nil : text
        },
        write: { text, out in
            guard !text.isEmpty else { return false }
            let trailingSpace = text.unicodeScalars.last.map { $0.properties.isWhitespace } ?? false
            out += text.hasPrefix("\"") || trailingSpace ? JSONReader.quoted(text) : text
            return true
        })

    /// A JSON string to the end of the line, tried only when the text starts with a quote (so plain text leaves
    /// no JSON expectation behind).
    private static func jsonString(_ scanner: inout CommandScanner) -> String? {
        guard scanner.current == UInt8(ascii: "\"") else { return nil }
        let start = scanner.position
        if let json = RawJSON.read(&scanner), let value = json.stringValue { return value }
        scanner.position = start
        return nil
    }
}
