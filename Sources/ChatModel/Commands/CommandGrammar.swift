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
            samples: { syntax.samples() + [syntax.minimal()] })
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
            samples: { syntax.samples() + [syntax.minimal()] })
    }
}
