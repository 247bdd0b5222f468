import Foundation

/// The command line of `simplex-host controller` (`simplex-host controller --help`).
struct ControllerOptions {
    /// Where the invitation's QR code goes.
    enum QROutput: Equatable {
        /// Drawn in the terminal when it fits, else the file forms are offered.
        case terminal
        /// The link only.
        case text
        case png(String)
        case svg(String)
    }

    var json = false
    var dataFolder: URL
    /// `--db-key-file PATH`: the passphrase of an encrypted data folder (or `SIMPLEX_DB_KEY`: `StoreKey`).
    var databaseKeyFile: String?
    var deviceName: String?
    /// A known host to start with instead of a new pairing (interactive mode).
    var host: Int64?
    var announce = false
    var address: String?
    var interface: String?
    var port: UInt16?
    var qr = QROutput.terminal
    var qrInvert = false
    var qrFullBlocks = false
    var multicastGroup: String?
    var multicastPort: UInt16?
    var multicastInterface: String?
    var compression = true
    var connectTimeout: Double?
    var helloTimeout: Double?
    var pollWait: Double?
    var announceCount: Int?
    var announceInterval: Double?

    static let usage = """
        usage: simplex-host controller [--json] [--data DIR] [--db-key-file PATH] [--device-name NAME] [--host ID [--announce]]
                                       [--addr IPV4 --iface NAME] [--port N] [--qr terminal|text|png:FILE|svg:FILE]
                                       [--qr-invert] [--qr-style half|full] [--multicast ADDR:PORT]
                                       [--multicast-iface IPV4] [--no-compression] [TIMEOUTS]

        Plays the controller (the SimpleX Desktop role): shows an invitation for a phone or another host to scan,
        then runs each line typed at the prompt as a chat command on that host, printing responses and events.

          --json                 scripting mode: controller commands (/start remote host new, /list remote hosts, …)
                                 and chat commands on standard input, one JSON line per response or event out
          --data DIR             data folder with the known hosts (default: as simplex-host's)
          --db-key-file PATH     the passphrase of an encrypted data folder, from a file (or SIMPLEX_DB_KEY)
          --device-name NAME     the name hosts see (default: this machine's host name)
          --host ID              start a session with a known host instead of a new pairing
          --announce             with --host: announce the invitation by multicast (60 packets, one a second)
          --addr IPV4 --iface NAME, --port N
                                 the address (or interface) and port to listen on
          --qr FORM              terminal (default): drawn when the terminal is large enough; text: the link only;
                                 png:FILE or svg:FILE: an image file
          --qr-invert            light modules on dark, for scanners that need it
          --qr-style half|full   half blocks (default, two modules per character) or full blocks (larger)
          --multicast ADDR:PORT  where announcements go (default 224.0.0.251:5227)
          --multicast-iface IPV4 the interface address to announce from (default: the invitation's address)
          --no-compression       do not offer zstd bodies
          --connect-timeout S, --hello-timeout S, --poll-wait S, --announce-count N, --announce-interval S
                                 the controller's waits (defaults 60, 60, 10 seconds; 60 packets 1 second apart)
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
        func seconds(_ name: String) throws -> Double {
            guard let s = Double(try value(name)), s > 0, s.isFinite else { throw Failure.usage("\(name) takes seconds") }
            return s
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--json": json = true
            case "--data": dataFolder = URL(fileURLWithPath: try value("--data"))
            case "--db-key-file": databaseKeyFile = try value("--db-key-file")
            case "--device-name": deviceName = try value("--device-name")
            case "--host":
                guard let id = Int64(try value("--host")), id >= 0 else { throw Failure.usage("--host takes a host id") }
                host = id
            case "--announce": announce = true
            case "--addr": address = try value("--addr")
            case "--iface": interface = try value("--iface")
            case "--port":
                guard let p = UInt16(try value("--port")) else { throw Failure.usage("--port takes 0 to 65535") }
                port = p
            case "--qr":
                let v = try value("--qr")
                switch v {
                case "terminal": qr = .terminal
                case "text": qr = .text
                case _ where v.hasPrefix("png:") && v.count > 4: qr = .png(String(v.dropFirst(4)))
                case _ where v.hasPrefix("svg:") && v.count > 4: qr = .svg(String(v.dropFirst(4)))
                default: throw Failure.usage("--qr takes terminal, text, png:FILE or svg:FILE")
                }
            case "--qr-invert": qrInvert = true
            case "--qr-style":
                switch try value("--qr-style") {
                case "half": qrFullBlocks = false
                case "full": qrFullBlocks = true
                default: throw Failure.usage("--qr-style takes half or full")
                }
            case "--multicast":
                let v = try value("--multicast")
                guard let colon = v.lastIndex(of: ":"), let port = UInt16(v[v.index(after: colon)...]) else {
                    throw Failure.usage("--multicast takes ADDR:PORT")
                }
                multicastGroup = String(v[..<colon])
                multicastPort = port
            case "--multicast-iface": multicastInterface = try value("--multicast-iface")
            case "--no-compression": compression = false
            case "--connect-timeout": connectTimeout = try seconds("--connect-timeout")
            case "--hello-timeout": helloTimeout = try seconds("--hello-timeout")
            case "--poll-wait": pollWait = try seconds("--poll-wait")
            case "--announce-interval": announceInterval = try seconds("--announce-interval")
            case "--announce-count":
                guard let n = Int(try value("--announce-count")), n > 0 else {
                    throw Failure.usage("--announce-count takes a positive number")
                }
                announceCount = n
            case "-h", "--help": throw Failure.usage("")
            case let other: throw Failure.usage("unknown option \(other)")
            }
            i += 1
        }
        if announce && host == nil { throw Failure.usage("--announce needs --host: only known hosts hear announcements") }
        if (address == nil) != (interface == nil) { throw Failure.usage("--addr and --iface go together") }
    }

    /// The `/start remote host` line interactive mode begins with.
    var startCommand: String {
        var line = "/start remote host " + (host.map(String.init) ?? "new")
        if host != nil && announce { line += " multicast=on" }
        if let address, let interface { line += " addr=\(address) iface=\(interface)" }
        if let port { line += " port=\(port)" }
        return line
    }
}
