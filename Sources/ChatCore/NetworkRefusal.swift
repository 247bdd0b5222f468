public import ChatModel

/// The commands that need a network peer to act — contacts and their links, addresses, group invitations and links,
/// files over relays, calls, push tokens, queue rotation, ratchet sync, service requests and directory search, chat
/// relay tests. The embedded core has no network yet, so each returns one error, the refusal below, and never a pretended
/// success. The command table's `served_by` column alone decides which commands are refused; NetworkRefusalTests walks
/// every command against it. Prepared chats (`/_prepare contact`, `/_prepare group`) are refused too: they stand for
/// the peer behind a link, and the embedded core holds no peers.
public enum NetworkRefusal {
    /// The rows of `Resources/commands.tsv` whose `served_by` is `refused`.
    public static let commands: Set<CommandName> = CommandCatalog.commands(servedBy: .refused)

    /// The refusal: `commandError` naming the command.
    public static func error(_ name: CommandName) -> ChatError {
        .error(.commandError("\(name.rawValue) needs a network peer, and the embedded core has no network yet"))
    }

    /// The answer to a command the embedded core does not serve (distinct from the refusal). Every core command is
    /// served or refused but the eight remote-control commands of §4.14, which the host serves above the core.
    public static func notServed(_ name: CommandName) -> ChatError {
        .error(.commandError("not served by the embedded core yet: \(name.rawValue)"))
    }
}
