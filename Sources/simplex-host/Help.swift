import ChatCore

/// What `simplex-host` exits with (also in the README).
enum ExitCode: Int32 {
    /// Done; or a session that ended (stopped on either side, or by a signal).
    case ok = 0
    /// The command or the session failed: a bad link, the controller unreachable or not found, codes that differ.
    case failed = 1
    /// The command line is wrong.
    case usage = 2
    /// The data folder or its databases cannot be used.
    case storage = 3
    /// There is no chat profile yet (`--profile NAME` creates it).
    case noProfile = 4
    /// The library of `--core-lib` cannot be loaded, or is not a libsimplex.
    case coreLibrary = 5
}

/// `--help` texts, one per subcommand.
enum Help {
    static let common = """
        options (every subcommand):
          --data DIR             data folder (default: $XDG_DATA_HOME/simplex-host, or ~/.local/share/simplex-host)
          --device-name NAME     the name controllers see this time (simplex-host name … keeps one)
          --profile NAME         create the chat profile NAME if there is none yet
          --reconnect            after a session ends, wait for a known controller to announce itself and connect again
          --multicast ADDR:PORT  where announcements are heard (default 224.0.0.251:5227)
          --multicast-iface IPV4 the interface address to join the group on
          --connect-timeout S, --tls-timeout S, --hello-timeout S, --discovery-timeout S
                                 the host role's waits (defaults 15, 15, 15 and 30 seconds)
          --keepalive-idle S, --keepalive-interval S, --keepalive-probes N
                                 how soon a vanished controller is noticed (defaults 30, 15, 4: within 90 seconds)
          --event-queue N        events a controller may leave unfetched before its session ends (default 4096)
          --core-lib PATH        run a libsimplex (its C ABI) instead of the embedded core
          --db-key-file PATH     the databases are encrypted with the passphrase in this file (keep it chmod 600);
                                 or set SIMPLEX_DB_KEY. Never on the command line, which other users can see.
                                 A new data folder is made encrypted; /db key OLD NEW (chat stopped) changes the key
        """

    static let exitCodes = """
        exit codes: 0 done (a session that ended counts), 1 failed, 2 bad command line, 3 data folder or database
        unusable, 4 no chat profile yet, 5 the --core-lib library cannot be loaded or is not a libsimplex
        """

    static let main = """
        usage: simplex-host [SUBCOMMAND] [OPTIONS]

        A Linux host for SimpleX Chat remote control: SimpleX Desktop drives this machine's chat core.

          (none)                 start the host and say what to do next; then type a link, find, stop, quit or /commands
          connect <xrcp link>    connect to SimpleX Desktop's "Link a mobile" link and confirm the session code
          find                   wait for a known desktop to announce itself on the local network, and connect
          controllers            list the known desktops
          forget <id>            forget a known desktop
          name <device name>     set the name desktops see (kept in the data folder)
          status                 the data folder, device name, profile and known desktops
          controller             play the controller (the SimpleX Desktop role): a QR code for a phone or another host
                                 to scan, then each line typed runs on that host
          --json                 scripting mode: one command per line on standard input (text, or
                                 {"corrId":"1","cmd":"/v"}); every response and event as one JSON line on standard output

        `simplex-host SUBCOMMAND --help` for each one.

        """ + common + "\n\n" + exitCodes

    static func text(for subcommand: String?) -> String {
        switch subcommand {
        case "connect":
            return """
                usage: simplex-host connect '<xrcp:/ link>' [OPTIONS]

                Connects to the desktop that shows the link (SimpleX Desktop: "Link a mobile"), prints the session code
                and asks whether the desktop shows the same one. Stays connected until either side stops (Ctrl-C here).

                """ + common + "\n\n" + exitCodes
        case "find":
            return """
                usage: simplex-host find [OPTIONS]

                Waits for a desktop paired before to announce itself (SimpleX Desktop: "Link a mobile" with this device
                chosen), connects and confirms it without asking. With --reconnect it keeps doing so after each session.

                """ + common + "\n\n" + exitCodes
        case "controllers":
            return "usage: simplex-host controllers [--json] [OPTIONS]\n\nLists the known desktops with their numbers.\n\n"
                + common + "\n\n" + exitCodes
        case "forget":
            return
                "usage: simplex-host forget <id> [OPTIONS]\n\nForgets a known desktop: it has to be paired again with a link.\n\n"
                + common + "\n\n" + exitCodes
        case "name":
            return "usage: simplex-host name <device name> [OPTIONS]\n\nSets the name desktops see, kept in the data folder.\n\n"
                + common + "\n\n" + exitCodes
        case "status":
            return
                "usage: simplex-host status [--json] [OPTIONS]\n\nThe data folder, device name, chat profile and known desktops.\n\n"
                + common + "\n\n" + exitCodes
        default:
            return main + "\n\nCommands refused by the embedded core (they need a network peer, which it does not have yet):\n"
                + NetworkRefusal.commands.map(\.rawValue).sorted().joined(separator: " ")
        }
    }
}
