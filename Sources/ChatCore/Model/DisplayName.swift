/// Display-name validation (chat-api.md §7.1, the core's `mkValidName`): the valid name derived from a wanted one.
/// A name is valid when it equals its derived name.
enum DisplayName {
    /// Keeps letters, numbers, symbols, marks and punctuation in sensible places: the first character must be a letter,
    /// number or symbol (not `#`, `@`, `'`); spaces collapse to one; at most three punctuation marks in a row, and after
    /// a space only one; quotes (`'`) never; the result is cut to 50 characters and trailing spaces dropped.
    static func valid(_ name: String) -> String {
        var out: [Unicode.Scalar] = []
        var prev: Unicode.Scalar? = nil
        var punct = 0
        for c in name.unicodeScalars {
            let space = isSpace(c)
            let valid: Bool
            if c == "'" {
                valid = false
            } else if let p = prev {
                if isSpace(p) {
                    valid = validFirst(c) || (punct == 0 && isPunctuation(c))
                } else if isPunctuation(p) {
                    valid = validFirst(c) || space || (punct < 3 && isPunctuation(c))
                } else {
                    valid = validFirst(c) || space || isMark(c) || isPunctuation(c)
                }
            } else {
                valid = c.value > 0x20 && c != "#" && c != "@" && validFirst(c)
            }
            guard valid else { continue }
            let kept: Unicode.Scalar = space ? " " : c
            out.append(kept)
            prev = kept
            if isPunctuation(c) {
                punct += 1
            } else if !space {
                punct = 0
            }
        }
        var result = Array(out.prefix(50))
        while let last = result.last, isSpace(last) { result.removeLast() }
        var s = String.UnicodeScalarView()
        s.append(contentsOf: result)
        return String(s)
    }

    private static func validFirst(_ c: Unicode.Scalar) -> Bool { isLetter(c) || isNumber(c) || isSymbol(c) }

    /// Haskell's `isSpace`: the Latin-1 spaces, else the space separator category.
    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x20, 0x09...0x0D, 0xA0: return true
        case 0..<0x100: return false
        default: return c.properties.generalCategory == .spaceSeparator
        }
    }

    private static func isLetter(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }

    private static func isMark(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    private static func isNumber(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber: true
        default: false
        }
    }

    private static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            true
        default: false
        }
    }

    private static func isSymbol(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol: true
        default: false
        }
    }

    /// A profile for a user created without one: an adjective and an animal, as the core's profile generator makes.
    static func random(_ randomBytes: (Int) -> [UInt8]) -> Profile {
        let bytes = randomBytes(4)
        let a = Int(bytes[0]) << 8 | Int(bytes[1])
        let n = Int(bytes[2]) << 8 | Int(bytes[3])
        return Profile(displayName: adjectives[a % adjectives.count] + animals[n % animals.count])
    }

    private static let adjectives = [
        "Agile", "Amber", "Bold", "Brave", "Bright", "Calm", "Clever", "Cosmic", "Curious", "Daring", "Eager", "Gentle",
        "Golden", "Happy", "Humble", "Jolly", "Kind", "Lively", "Lucky", "Mellow", "Merry", "Nimble", "Noble", "Patient",
        "Quiet", "Rapid", "Serene", "Sharp", "Silent", "Steady", "Swift", "Witty",
    ]

    private static let animals = [
        "Badger", "Beaver", "Bison", "Crane", "Dolphin", "Eagle", "Falcon", "Ferret", "Fox", "Gazelle", "Heron", "Ibex",
        "Jaguar", "Koala", "Lemur", "Lynx", "Marmot", "Narwhal", "Otter", "Owl", "Panda", "Puffin", "Quokka", "Raven",
        "Salmon", "Seal", "Tapir", "Tiger", "Walrus", "Wolf", "Yak", "Zebra",
    ]
}
