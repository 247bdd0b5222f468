/// The chat API's command table (chat-api.md §4), generated from `Resources/commands.tsv` into
/// `Generated/CommandCatalog.swift`: which commands exist, their documented syntax, their responses.
/// How each command's text is parsed and printed is `ChatCommand.grammar(for:)`, generated from the same table
/// into `Generated/ChatCommandCases.swift`.
public enum CommandCatalog {}

/// One row of `Resources/commands.tsv` (its notes column left out).
public struct CatalogRow: Hashable, Sendable {
    /// The seed section (`2.1` … `2.18`, matching chat-api.md §4.1 … §4.18) or `extra` (§4.19, §4.20).
    public let section: String
    /// The text syntax as the table writes it (chat-api.md §0.2 notation).
    public let syntax: String
    /// The `type` tags of the command's result (chat-api.md §5); empty for the raw-text catch-all.
    public let responseTypes: [String]
    /// Whether and how the command waits for the network.
    public let network: NetworkUse
    /// Who answers the command on this host.
    public let servedBy: ServedBy
    /// Whether a remote controller may run the command on this host (xrcp.md §15.4).
    public let forwarded: Bool

    public init(
        section: String, syntax: String, responseTypes: [String], network: NetworkUse, servedBy: ServedBy,
        forwarded: Bool
    ) {
        self.section = section
        self.syntax = syntax
        self.responseTypes = responseTypes
        self.network = network
        self.servedBy = servedBy
        self.forwarded = forwarded
    }
}

/// The table's `served_by` column: who answers a command on this host.
public enum ServedBy: String, Hashable, Sendable {
    /// The embedded core.
    case core
    /// Nobody yet: the command needs a network peer, and the embedded core refuses it rather than pretend.
    case refused
    /// The host, above the core: its remote-control commands (xrcp.md §14).
    case host
    /// No typed command: the catch-alls (raw console text, `//…`).
    case untyped
}

/// The table's `needs_network` column (chat-api.md §4, "Net").
public enum NetworkUse: String, Hashable, Sendable {
    /// Local only.
    case no
    /// Returns after local changes; network work is queued and reported by events.
    case background
    /// The command itself waits for servers.
    case interactive
}

extension CommandCatalog {
    /// The commands whose `served_by` is `value`.
    public static func commands(servedBy value: ServedBy) -> Set<CommandName> {
        Set(CommandName.allCases.filter { $0.row.servedBy == value })
    }

    /// The commands a remote controller may never run on this host (`forwarded` is `no`).
    public static let neverForwarded: Set<CommandName> = Set(CommandName.allCases.filter { !$0.row.forwarded })
}

extension CommandName {
    /// The command's row in the catalog.
    public var row: CatalogRow {
        guard let row = CommandCatalog.rows[self] else {
            preconditionFailure("\(rawValue): no catalog row (the generated table lists every case)")
        }
        return row
    }
}
