extension ChatCommand {
    /// Every grammar, in the order alternatives are tried in (chat-api.md §3): the catalog's rows in its order, then
    /// the human forms (no line is read by both, so they need not be interleaved as in the core's parser).
    static let grammars: [CommandGrammar] = rowGrammars + HumanCommand.grammars

    private static let rowGrammars: [CommandGrammar] = CommandName.allCases.compactMap(grammar(for:))

    private static let grammarsByName: [CommandName: CommandGrammar] = Dictionary(
        uniqueKeysWithValues: rowGrammars.map { ($0.name, $0) })

    /// Several human forms may spell one row; each writes only its own case.
    private static let humanGrammarsByName: [CommandName: [CommandGrammar]] = Dictionary(
        grouping: HumanCommand.grammars, by: \.name)

    /// Parses one command line as the core does (chat-api.md §1.1): trailing whitespace dropped, then the
    /// first grammar that consumes the whole line, case-sensitively.
    public init(parsing line: String) throws(CommandParseError) {
        var bytes = Array(line.utf8)
        while let last = bytes.last, CommandScanner.isSpace(last) {
            bytes.removeLast()
        }
        // Grammars whose leading literal the line lacks cannot read it, and are skipped; a line no grammar reads is
        // tried against all of them, so that the error says how far each got.
        var scanner = CommandScanner(bytes, commandLine: true)
        for grammar in Self.grammars where grammar.mayRead(bytes) {
            scanner.position = 0
            if let command = grammar.read(&scanner) {
                self = command
                return
            }
        }
        scanner = CommandScanner(bytes, commandLine: true)
        for grammar in Self.grammars {
            scanner.position = 0
            _ = grammar.read(&scanner)
        }
        throw CommandParseError(scanner)
    }

    /// The command's canonical text: the `/_…` API form with optional parts left out when they hold their
    /// defaults and JSON written compactly; a human form in its own spelling (it has no id-based form).
    ///
    /// - Precondition: every value has a text form: ids are non-negative, word arguments have no spaces,
    ///   JSON arguments are of the kind the grammar takes (all true of parsed commands).
    public var text: String {
        let written: String?
        if case .human = self {
            written = Self.humanGrammarsByName[name]?.lazy.compactMap { $0.write(self) }.first
        } else {
            written = Self.grammarsByName[name]?.write(self)
        }
        guard let text = written else {
            preconditionFailure("\(name.rawValue): a value without a text form in \(self)")
        }
        return text
    }
}
