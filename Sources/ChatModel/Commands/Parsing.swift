extension ChatCommand {
    /// Every grammar, in the catalog's order: the order alternatives are tried in (chat-api.md §3).
    static let grammars: [CommandGrammar] = CommandName.allCases.compactMap(grammar(for:))

    private static let grammarsByName: [CommandName: CommandGrammar] = Dictionary(
        uniqueKeysWithValues: grammars.map { ($0.name, $0) })

    /// Parses one command line as the core does (chat-api.md §1.1): trailing whitespace dropped, then the
    /// first grammar that consumes the whole line, case-sensitively.
    public init(parsing line: String) throws(CommandParseError) {
        var bytes = Array(line.utf8)
        while let last = bytes.last, CommandScanner.isSpace(last) {
            bytes.removeLast()
        }
        var scanner = CommandScanner(bytes, commandLine: true)
        for grammar in Self.grammars {
            scanner.position = 0
            if let command = grammar.read(&scanner) {
                self = command
                return
            }
        }
        throw CommandParseError(scanner)
    }

    /// The command's canonical text: the `/_…` API form with optional parts left out when they hold their
    /// defaults and JSON written compactly.
    ///
    /// - Precondition: every value has a text form: ids are non-negative, word arguments have no spaces,
    ///   JSON arguments are of the kind the grammar takes (all true of parsed commands).
    public var text: String {
        guard let text = Self.grammarsByName[name]?.write(self) else {
            preconditionFailure("\(name.rawValue): a value without a text form in \(self)")
        }
        return text
    }
}
