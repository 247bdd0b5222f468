import Foundation

/// The command line (`simplex-host --help`).
struct Options {
    var json = false
    var dataFolder: URL
    var deviceName: String?
    var multicastGroup: String?
    var multicastPort: UInt16?
    var multicastInterface: String?
    /// Seconds for each wait of the host role (xrcp.md §17), keyed connect, tls, hello, discovery.
    var timeouts: [String: Double] = [:]

    static let usage = """
        usage: simplex-host --json [--data DIR] [--device-name NAME] [--multicast ADDR:PORT] [--multicast-iface IPV4] [TIMEOUTS]

          --json                 scripting mode: one command per line on standard input (text, or
                                 {"corrId":"1","cmd":"/v"}); every response and event as one JSON line on standard output
          --data DIR             data folder (default: $XDG_DATA_HOME/simplex-host, or ~/.local/share/simplex-host)
          --device-name NAME     the name controllers see (default: this machine's host name)
          --multicast ADDR:PORT  where /find remote ctrl listens (default 224.0.0.251:5227)
          --multicast-iface IPV4 the interface address to join the group on
          --connect-timeout S, --tls-timeout S, --hello-timeout S, --discovery-timeout S
                                 the host role's waits (defaults 15, 15, 15 and 30 seconds)
        """

    enum Failure: Error { case usage(String) }

    init(_ arguments: [String]) throws {
        let env = ProcessInfo.processInfo.environment
        let base =
            env["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        dataFolder = base.appendingPathComponent("simplex-host")
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw Failure.usage("\(name) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--json": json = true
            case "--data": dataFolder = URL(fileURLWithPath: try value("--data"))
            case "--device-name": deviceName = try value("--device-name")
            case "--multicast":
                let v = try value("--multicast")
                guard let colon = v.lastIndex(of: ":"), let port = UInt16(v[v.index(after: colon)...]) else {
                    throw Failure.usage("--multicast takes ADDR:PORT")
                }
                multicastGroup = String(v[..<colon])
                multicastPort = port
            case "--multicast-iface": multicastInterface = try value("--multicast-iface")
            case "--connect-timeout", "--tls-timeout", "--hello-timeout", "--discovery-timeout":
                let name = arguments[i]
                guard let seconds = Double(try value(name)), seconds > 0 else { throw Failure.usage("\(name) takes seconds") }
                timeouts[String(name.dropFirst(2).dropLast("-timeout".count))] = seconds
            case "-h", "--help": throw Failure.usage("")
            case let other: throw Failure.usage("unknown option \(other)")
            }
            i += 1
        }
    }
}
