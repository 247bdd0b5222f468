import Foundation

/// The command line: one subcommand (or none) and the options every subcommand shares (`simplex-host --help`).
struct Options {
    /// What to do; `interactive` when no subcommand is given.
    enum Command: Equatable {
        case interactive
        case scripting
        case connect(link: String)
        case find
        case controllers
        case forget(id: Int64)
        case name(String)
        case status
    }

    var command = Command.interactive
    /// `--json`: the scripting mode without a subcommand, JSON output with one.
    var json = false
    var dataFolder: URL
    var deviceName: String?
    /// Creates the first chat profile when there is none (the controller shows and uses it).
    var profile: String?
    var reconnect = false
    var multicastGroup: String?
    var multicastPort: UInt16?
    var multicastInterface: String?
    /// Seconds for each wait of the host role (xrcp.md §17), keyed connect, tls, hello, discovery.
    var timeouts: [String: Double] = [:]
    /// TCP keep-alive: idle seconds, seconds between probes, probes.
    var keepAlive: (idle: Int32, interval: Int32, probes: Int32)?
    /// Events a controller may leave unfetched before the session ends.
    var eventQueue: Int?
    /// `--core-lib PATH`: a libsimplex to run instead of the embedded core, through its C ABI.
    var coreLibrary: String?
    /// `--db-key-file PATH`: the file holding the databases' passphrase (or `SIMPLEX_DB_KEY`: `StoreKey`).
    var databaseKeyFile: String?

    /// What went wrong with the command line, with the subcommand whose help applies.
    struct UsageError: Error {
        let message: String
        let subcommand: String?
    }

    /// The user asked for help (`--help`, `-h`, `help [SUBCOMMAND]`).
    struct HelpRequest: Error { let subcommand: String? }

    static let subcommands = ["connect", "find", "controllers", "forget", "name", "status"]

    init(_ arguments: [String]) throws {
        let env = ProcessInfo.processInfo.environment
        let base =
            env["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        dataFolder = base.appendingPathComponent("simplex-host")
        var subcommand: String?
        var positional: [String] = []
        var help = false
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(message: "\(name) needs a value", subcommand: subcommand) }
            return arguments[i]
        }
        func seconds(_ name: String) throws -> Double {
            guard let s = Double(try value(name)), s > 0, s.isFinite else {
                throw UsageError(message: "\(name) takes a number of seconds", subcommand: subcommand)
            }
            return s
        }
        func count(_ name: String) throws -> Int32 {
            guard let n = Int32(try value(name)), n > 0 else {
                throw UsageError(message: "\(name) takes a positive whole number", subcommand: subcommand)
            }
            return n
        }
        var keepAlive = (idle: Int32(30), interval: Int32(15), probes: Int32(4))
        var keepAliveSet = false
        while i < arguments.count {
            let argument = arguments[i]
            switch argument {
            case "--json": json = true
            case "--data": dataFolder = URL(fileURLWithPath: try value(argument))
            case "--device-name": deviceName = try value(argument)
            case "--profile":
                let name = try value(argument)
                // `--profile "$USER"` with USER unset (root in a container, a service) arrives empty.
                guard !name.isEmpty, !name.contains(where: \.isWhitespace) else {
                    throw UsageError(
                        message: name.allSatisfy(\.isWhitespace)
                            ? "--profile needs a name, one word such as --profile alice (is USER unset? --profile \"$(id -un)\" names it after the login)"
                            : "--profile takes one word, the name desktops show: \(name) has spaces",
                        subcommand: subcommand)
                }
                profile = name
            case "--reconnect": reconnect = true
            case "--multicast":
                let v = try value(argument)
                guard let colon = v.lastIndex(of: ":"), let port = UInt16(v[v.index(after: colon)...]) else {
                    throw UsageError(message: "--multicast takes ADDR:PORT", subcommand: subcommand)
                }
                multicastGroup = String(v[..<colon])
                multicastPort = port
            case "--multicast-iface": multicastInterface = try value(argument)
            case "--connect-timeout", "--tls-timeout", "--hello-timeout", "--discovery-timeout":
                timeouts[String(argument.dropFirst(2).dropLast("-timeout".count))] = try seconds(argument)
            case "--keepalive-idle":
                keepAlive.idle = try count(argument)
                keepAliveSet = true
            case "--keepalive-interval":
                keepAlive.interval = try count(argument)
                keepAliveSet = true
            case "--keepalive-probes":
                keepAlive.probes = try count(argument)
                keepAliveSet = true
            case "--event-queue": eventQueue = Int(try count(argument))
            case "--core-lib": coreLibrary = try value(argument)
            case "--db-key-file": databaseKeyFile = try value(argument)
            case "-h", "--help": help = true
            case let other where other.hasPrefix("-") && other.count > 1 && subcommand != "name":
                throw UsageError(message: "unknown option \(other)", subcommand: subcommand)
            case let word where subcommand == nil:
                guard word == "help" || Self.subcommands.contains(word) else {
                    if word.hasPrefix("xrcp:/") {
                        throw UsageError(
                            message: "a link needs the connect subcommand: simplex-host connect '\(word)'", subcommand: nil)
                    }
                    throw UsageError(message: "unknown command \(word)", subcommand: nil)
                }
                subcommand = word
            case let word: positional.append(word)
            }
            i += 1
        }
        if keepAliveSet { self.keepAlive = keepAlive }
        if subcommand == "help" { throw HelpRequest(subcommand: positional.first) }
        if help { throw HelpRequest(subcommand: subcommand) }
        command = try Self.command(subcommand, positional, json: json)
    }

    private static func command(_ subcommand: String?, _ positional: [String], json: Bool) throws -> Command {
        func none() throws {
            guard positional.isEmpty else {
                throw UsageError(message: "unexpected \(positional.joined(separator: " "))", subcommand: subcommand)
            }
        }
        switch subcommand {
        case nil:
            try none()
            return json ? .scripting : .interactive
        case "connect":
            guard positional.count == 1, let link = positional.first else {
                throw UsageError(message: "connect takes one xrcp:/ link (quote it: it contains # and ?)", subcommand: "connect")
            }
            return .connect(link: link)
        case "find":
            try none()
            return .find
        case "controllers":
            try none()
            return .controllers
        case "forget":
            guard positional.count == 1, let id = Int64(positional[0]) else {
                throw UsageError(
                    message: "forget takes a controller's number (see simplex-host controllers)", subcommand: "forget")
            }
            return .forget(id: id)
        case "name":
            let name = positional.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw UsageError(message: "name takes the device name to show", subcommand: "name") }
            return .name(name)
        default:
            try none()
            return .status
        }
    }
}
