public import ChatModel
import Foundation

/// Which commands stay on the host (xrcp.md §15.4). The reference host trusts the controller to filter them;
/// this host refuses them itself.
public enum RemotePolicy {
    /// Commands a controller may never run on this host: lifecycle, folders, file encryption, database, network
    /// configuration, device name, and every remote-control command: the rows of `Resources/commands.tsv` whose
    /// `forwarded` is `no`.
    public static let neverForwarded: Set<CommandName> = CommandCatalog.neverForwarded

    /// Commands of §15.4 that the catalog does not hold (old folder commands, raw SQL, quitting, the controller
    /// role's own commands), by their leading words: the core would refuse most of them anyway, but a host must not
    /// depend on that.
    public static let neverForwardedPrefixes: [String] = [
        "/_temp_folder", "/temp_folder", "/_files_folder", "/files_folder", "/remote_hosts_folder", "/db export",
        "/db import", "/db delete", "/db encrypt", "/db key", "/db decrypt", "/sql", "/_sql", "/quit", "/q",
        "/create remote host", "/list remote hosts", "/switch remote host", "/start remote host", "/stop remote host",
        "/delete remote host", "/store remote file", "/get remote file", "/set device name", "/_network", "/network",
        "/net",
    ]

    /// Why a command line must stay on the host, or nil when a controller may run it.
    public static func refusal(_ line: String) -> String? {
        let text = line.trimmingCharacters(in: .whitespaces)
        if let parsed = try? ChatCommand(parsing: text), neverForwarded.contains(parsed.name) { return parsed.name.rawValue }
        let lowered = text.lowercased()
        for prefix in neverForwardedPrefixes where lowered.hasPrefix(prefix) {
            let rest = lowered.dropFirst(prefix.count)
            if rest.isEmpty || rest.first == " " { return prefix }
        }
        return nil
    }

    /// The host's own remote-control commands (xrcp.md §14), served by `HostRemoteControl`.
    public static let remoteControl: Set<CommandName> = CommandCatalog.commands(servedBy: .host)
}
