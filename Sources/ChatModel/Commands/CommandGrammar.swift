/// The arguments of one command, read and written by its grammar.
protocol CommandArguments: Hashable, Sendable {
    init()
    static var syntax: Syntax<Self> { get }
}

/// The arguments of a command that has none.
struct NoArguments: Hashable, Sendable {}

/// One catalog row's grammar with its types erased, so all commands can be tried in the table's order.
struct CommandGrammar: Sendable {
    let name: CommandName
    let read: @Sendable (inout CommandScanner) -> ChatCommand?
    let write: @Sendable (ChatCommand) -> String?
    /// Sample lines (from the syntax, optional parts present) followed by the minimal line.
    let samples: @Sendable () -> [SyntaxSample]
    /// Whether a line could be of this grammar, from its leading literal (see `Syntax.leading`).
    let mayRead: @Sendable ([UInt8]) -> Bool

    /// A command whose case carries `Args`, parsed and printed by `Args.syntax`.
    static func command<Args: CommandArguments>(
        _ name: CommandName,
        _ make: @escaping @Sendable (Args) -> ChatCommand
    ) -> CommandGrammar {
        let syntax = Args.syntax
        return CommandGrammar(
            name: name,
            read: { scanner in
                var args = Args()
                return syntax.parse(&scanner, into: &args) ? make(args) : nil
            },
            write: { command in (command.arguments as? Args).flatMap(syntax.text) },
            samples: { syntax.samples() + [syntax.minimal()] }, mayRead: syntax.mayRead)
    }

    /// A human form whose `HumanCommand` case carries `Args`, parsed and printed by `syntax`; `extract` is `nil` for
    /// the other cases (several cases share an arguments type, each with its own syntax).
    static func human<Args: HumanArguments>(
        _ name: CommandName,
        _ syntax: Syntax<Args>,
        _ make: @escaping @Sendable (Args) -> HumanCommand,
        _ extract: @escaping @Sendable (HumanCommand) -> Args?
    ) -> CommandGrammar {
        CommandGrammar(
            name: name,
            read: { scanner in
                var args = Args()
                return syntax.parse(&scanner, into: &args) ? .human(make(args)) : nil
            },
            write: { command in
                guard case .human(let human) = command, let args = extract(human) else { return nil }
                return syntax.text(args)
            },
            samples: { syntax.samples() + [syntax.minimal()] }, mayRead: syntax.mayRead)
    }

    /// A command without arguments.
    static func constant(_ command: ChatCommand, _ syntax: Syntax<NoArguments>) -> CommandGrammar {
        CommandGrammar(
            name: command.name,
            read: { scanner in
                var args = NoArguments()
                return syntax.parse(&scanner, into: &args) ? command : nil
            },
            write: { $0 == command ? syntax.text(NoArguments()) : nil },
            samples: { syntax.samples() + [syntax.minimal()] }, mayRead: syntax.mayRead)
    }
}
