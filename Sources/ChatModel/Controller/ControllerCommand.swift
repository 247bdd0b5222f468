/// The controller role's commands (xrcp.md §15.1): the SimpleX Desktop side of remote control. They are not rows of
/// the chat API's catalog (`Resources/commands.tsv`); their own table is `Resources/controller-commands.tsv`, and each
/// case's grammar both parses and prints it with the same machinery as `ChatCommand`.
public enum ControllerCommand: Hashable, Sendable {
    /// `/set device name <name>`: the name put in invitations.
    case setLocalDeviceName(String)
    case listRemoteHosts
    case startRemoteHost(StartRemoteHost)
    /// `nil` is `local`: commands run here again.
    case switchRemoteHost(Int64?)
    case stopRemoteHost(RemoteHostKey)
    case deleteRemoteHost(Int64)
    case storeRemoteFile(StoreRemoteFile)
    case getRemoteFile(GetRemoteFile)
    case setRemoteHostsFolder(String)

    /// Parses one line as the core does: trailing whitespace dropped, then the first grammar that consumes the whole
    /// line, case-sensitively. Lines of the chat API fail here; try `ChatCommand` for them.
    public init(parsing line: String) throws(CommandParseError) {
        var bytes = Array(line.utf8)
        while let last = bytes.last, CommandScanner.isSpace(last) {
            bytes.removeLast()
        }
        var scanner = CommandScanner(bytes, commandLine: true)
        for grammar in Self.grammars {
            scanner.position = 0
            if let command = grammar.read(&scanner) {
                self = command
                return
            }
        }
        throw CommandParseError(scanner)
    }

    /// The command's canonical text.
    ///
    /// - Precondition: every value has a text form (true of parsed commands; ids are non-negative, an interface name
    ///   with spaces or quotes is only written when no `port=` follows it).
    public var text: String {
        guard let text = Self.grammars.lazy.compactMap({ $0.write(self) }).first else {
            preconditionFailure("\(name.rawValue): a value without a text form in \(self)")
        }
        return text
    }

    public var name: ControllerCommandName {
        switch self {
        case .setLocalDeviceName: .setLocalDeviceName
        case .listRemoteHosts: .listRemoteHosts
        case .startRemoteHost: .startRemoteHost
        case .switchRemoteHost: .switchRemoteHost
        case .stopRemoteHost: .stopRemoteHost
        case .deleteRemoteHost: .deleteRemoteHost
        case .storeRemoteFile: .storeRemoteFile
        case .getRemoteFile: .getRemoteFile
        case .setRemoteHostsFolder: .setRemoteHostsFolder
        }
    }
}

/// The controller commands' names, in the order of `Resources/controller-commands.tsv` (the reference's constructor
/// names, lower-camel-cased).
public enum ControllerCommandName: String, CaseIterable, Sendable {
    case setLocalDeviceName
    case listRemoteHosts
    case startRemoteHost
    case switchRemoteHost
    case stopRemoteHost
    case deleteRemoteHost
    case storeRemoteFile
    case getRemoteFile
    case setRemoteHostsFolder
}

/// Which session a command means (xrcp.md §15, `RHKey`): the one with a host not stored yet, or a stored host's.
public enum RemoteHostKey: Hashable, Sendable {
    case new
    case id(Int64)
}

extension ControllerCommand {
    /// `/start remote host new|<id>[ multicast=on|off][ addr=<ipv4> iface=<name>][ port=<n>]`.
    public struct StartRemoteHost: Hashable, Sendable {
        /// `nil` for `new`: a new pairing.
        public var remoteHostId: Int64?
        /// Announce by multicast; only for a known host.
        public var multicast = false
        public var address: BindAddress?
        public var port: Int64?

        public init(remoteHostId: Int64? = nil, multicast: Bool = false, address: BindAddress? = nil, port: Int64? = nil) {
            self.remoteHostId = remoteHostId
            self.multicast = multicast
            self.address = address
            self.port = port
        }
    }

    /// `addr=<ipv4> iface=<name>` (`RCCtrlAddress`).
    public struct BindAddress: Hashable, Sendable {
        public var address: String
        public var interface: String

        public init(address: String, interface: String) {
            self.address = address
            self.interface = interface
        }
    }

    /// `/store remote file <id>[ encrypt=on|off] <localPath>`.
    public struct StoreRemoteFile: Hashable, Sendable {
        public var remoteHostId: Int64 = 0
        /// `nil`: as the host stores its own files (its `encryptFiles`).
        public var encrypt: Bool?
        public var localPath = ""

        public init(remoteHostId: Int64 = 0, encrypt: Bool? = nil, localPath: String = "") {
            self.remoteHostId = remoteHostId
            self.encrypt = encrypt
            self.localPath = localPath
        }
    }

    /// `/get remote file <id> <json(RemoteFile)>`.
    public struct GetRemoteFile: Hashable, Sendable {
        public var remoteHostId: Int64 = 0
        public var file = RawJSON.emptyObject

        public init(remoteHostId: Int64 = 0, file: RawJSON = .emptyObject) {
            self.remoteHostId = remoteHostId
            self.file = file
        }
    }
}

// MARK: Grammars

/// One controller grammar with its argument type erased.
struct ControllerGrammar: Sendable {
    let name: ControllerCommandName
    let read: @Sendable (inout CommandScanner) -> ControllerCommand?
    let write: @Sendable (ControllerCommand) -> String?
    let samples: @Sendable () -> [SyntaxSample]

    static func make<Args: Hashable & Sendable>(
        _ name: ControllerCommandName, _ syntax: Syntax<Args>, blank: Args,
        wrap: @escaping @Sendable (Args) -> ControllerCommand, unwrap: @escaping @Sendable (ControllerCommand) -> Args?
    ) -> ControllerGrammar {
        ControllerGrammar(
            name: name,
            read: { scanner in
                var args = blank
                return syntax.parse(&scanner, into: &args) ? wrap(args) : nil
            },
            write: { command in unwrap(command).flatMap(syntax.text) },
            samples: { syntax.samples() + [syntax.minimal()] })
    }
}

extension ControllerCommand {
    /// Every grammar in the table's order, the order alternatives are tried in.
    static let grammars: [ControllerGrammar] = [
        .make(
            .setLocalDeviceName, ["/set device name ", .param(\.self, .text)], blank: "",
            wrap: { .setLocalDeviceName($0) },
            unwrap: { if case .setLocalDeviceName(let a) = $0 { a } else { nil } }),
        .make(
            .listRemoteHosts, ["/list remote hosts"], blank: NoArguments(), wrap: { _ in .listRemoteHosts },
            unwrap: { $0 == .listRemoteHosts ? NoArguments() : nil }),
        .make(
            .startRemoteHost,
            [
                "/start remote host ",
                .oneOf([
                    .param(\.remoteHostId, .words([("new", nil)])),
                    [
                        .param(\.remoteHostId, Lexeme<Int64>.decimal.map({ Optional($0) }, { $0 })),
                        .flag(" multicast=", \.multicast, default: false),
                    ],
                ]),
                .optional(.space, \.address, .bindAddress), .optional(" port=", \.port, .decimal),
            ],
            blank: StartRemoteHost(), wrap: { .startRemoteHost($0) },
            unwrap: { if case .startRemoteHost(let a) = $0, a.remoteHostId != nil || !a.multicast { a } else { nil } }),
        .make(
            .switchRemoteHost,
            [
                "/switch remote host ",
                .oneOf([
                    .param(\.self, .words([("local", nil)])), .param(\.self, Lexeme<Int64>.decimal.map({ Optional($0) }, { $0 })),
                ]),
            ],
            blank: Int64?.none, wrap: { .switchRemoteHost($0) },
            unwrap: { if case .switchRemoteHost(let a) = $0 { a } else { nil } }),
        .make(
            .stopRemoteHost, ["/stop remote host ", .param(\.self, .remoteHostKey)], blank: RemoteHostKey.new,
            wrap: { .stopRemoteHost($0) },
            unwrap: { if case .stopRemoteHost(let a) = $0 { a } else { nil } }),
        .make(
            .deleteRemoteHost, ["/delete remote host ", .param(\.self, .decimal)], blank: Int64(0),
            wrap: { .deleteRemoteHost($0) },
            unwrap: { if case .deleteRemoteHost(let a) = $0 { a } else { nil } }),
        .make(
            .storeRemoteFile,
            [
                "/store remote file ", .param(\.remoteHostId, .decimal), .space,
                .optional("encrypt=", \.encrypt, Lexeme<Bool>.onOff.then(.space)), .param(\.localPath, .text),
            ],
            blank: StoreRemoteFile(), wrap: { .storeRemoteFile($0) },
            unwrap: { if case .storeRemoteFile(let a) = $0 { a } else { nil } }),
        .make(
            .getRemoteFile,
            ["/get remote file ", .param(\.remoteHostId, .decimal), .space, .param(\.file, .json(.object))],
            blank: GetRemoteFile(), wrap: { .getRemoteFile($0) },
            unwrap: { if case .getRemoteFile(let a) = $0 { a } else { nil } }),
        .make(
            .setRemoteHostsFolder, ["/remote_hosts_folder ", .param(\.self, .text)], blank: "",
            wrap: { .setRemoteHostsFolder($0) },
            unwrap: { if case .setRemoteHostsFolder(let a) = $0 { a } else { nil } }),
    ]
}

extension Lexeme {
    /// This value, then `suffix` (e.g. `on ` in `encrypt=on `), read and written together.
    func then(_ suffix: Syntax<NoArguments>) -> Lexeme {
        let read = self.read
        let write = self.write
        return Lexeme(
            expected: expected, samples: samples.map { $0 + SyntaxSample(" ") },
            read: { scanner in
                guard let value = read(&scanner) else { return nil }
                var none = NoArguments()
                return suffix.read(&scanner, &none) ? value : nil
            },
            write: { value, out in write(value, &out) && suffix.write(NoArguments(), &out) })
    }
}

extension Lexeme where Value == RemoteHostKey {
    /// `new` or a stored host's id.
    static let remoteHostKey = Lexeme(
        expected: ["\"new\"", "a number"], samples: [SyntaxSample("new"), SyntaxSample("3")],
        read: { scanner in
            if scanner.match(Array("new".utf8)) { return .new }
            return scanner.decimal().map(RemoteHostKey.id)
        },
        write: { value, out in
            switch value {
            case .new: out += "new"
            case .id(let id):
                guard id >= 0 else { return false }
                out += String(id)
            }
            return true
        })
}

extension Lexeme where Value == ControllerCommand.BindAddress {
    /// `addr=<ipv4> iface=<name>`. The interface is first read as a JSON string running to the end of the line (the
    /// desktop app quotes it), otherwise as a word — so a quoted name followed by ` port=` keeps its quotes, as in the
    /// reference (xrcp.md §15.1).
    static let bindAddress = Lexeme(
        expected: ["\"addr=\""],
        samples: [
            SyntaxSample("addr=192.168.1.10 iface=wlan0"),
            SyntaxSample("addr=10.0.0.2 iface=wlan0", alternate: #"addr=10.0.0.2 iface="wlan0""#),
        ],
        read: { scanner in
            guard scanner.literal(Array("addr=".utf8)), let address = scanner.token(), isIPv4(address),
                scanner.literal(Array(" iface=".utf8))
            else { return nil }
            let start = scanner.position
            if let json = RawJSON.read(&scanner), let name = json.stringValue {
                return ControllerCommand.BindAddress(address: address, interface: name)
            }
            scanner.position = start
            guard let name = scanner.token() else { return nil }
            return ControllerCommand.BindAddress(address: address, interface: name)
        },
        write: { value, out in
            guard isIPv4(value.address), !value.interface.isEmpty, !value.interface.hasPrefix("\""),
                !value.interface.utf8.contains(where: CommandScanner.isSpace)
            else { return false }
            out += "addr=\(value.address) iface=\(value.interface)"
            return true
        })

    /// Dotted decimal, four parts of at most three digits each, each at most 255.
    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { p in
                !p.isEmpty && p.count <= 3 && p.utf8.allSatisfy(CommandScanner.isDigit) && (Int(p) ?? 256) <= 255
            }
    }
}
