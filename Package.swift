// swift-tools-version:6.0
// simplex-host: a Linux host (and controller) for SimpleX Chat remote control.
//
// Layers (a module imports only modules on lower levels; scripts/check-layers enforces it):
//   L5  simplex-host (CLI)  SimplexABI (libsimplex.so); tools: simplex-bench, smp-test-server (SMPTestServer)
//   L4  SimplexHost
//   L3  RemoteChat  ChatCore  SMPClient  SMPAgent
//   L2  XRCP  SMP  Ratchet  AgentProtocol  SimplexTLS  ChatStore
//   L1  SimplexCrypto  SimplexZstd  SimplexHTTP2  TerminalQR  ChatModel  SimplexArchive  SimplexMarkdown
//   L0  SimplexEncoding  SimplexNet, C targets (system libraries, CSNTRUP761 and CSealedVFS)
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

/// Debian package names, so a missing library tells the user what to install.
func apt(_ names: String...) -> [SystemPackageProvider] { [.apt(names)] }

let package = Package(
    name: "simplex-host",
    products: [
        .executable(name: "simplex-host", targets: ["simplex-host"]),
        .executable(name: "simplex-bench", targets: ["simplex-bench"]),
        .executable(name: "sntrup761-roundtrip", targets: ["sntrup761-roundtrip"]),
        .executable(name: "smp-test-server", targets: ["smp-test-server"]),
        // libsimplex.so: the official core's C ABI (chat-api.md §9) over the embedded core.
        .library(name: "simplex", type: .dynamic, targets: ["SimplexABI"]),
    ],
    targets: [
        // MARK: C libraries from Debian, each wrapped by exactly one Swift module.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: apt("libssl-dev")),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: apt("libsodium-dev")),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: apt("libnghttp2-dev")),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: apt("libsqlite3-dev")),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: apt("libqrencode-dev")),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: apt("libzstd-dev")),
        // The C header of libsimplex, for C programs and for hosts that load a libsimplex at run time.
        .systemLibrary(name: "CLibSimplex"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: apt("zlib1g-dev")),

        // sntrup761 has no Debian package: our own portable C, optimised even in debug builds
        // because key generation is a few million arithmetic operations.
        .target(name: "CSNTRUP761", cSettings: [.unsafeFlags(["-O2"])]),
        // The encrypting SQLite VFS of sealed databases (docs/storage-encryption.md): C, because SQLite calls it
        // for every page; it seals with libsodium and OpenSSL and is wrapped by ChatStore alone.
        .target(name: "CSealedVFS", dependencies: ["CSQLite", "CSodium", "COpenSSL"]),

        // MARK: L0
        .target(name: "SimplexEncoding", swiftSettings: strictSwift),
        // The only sockets: TCP, multicast, interfaces.
        .target(name: "SimplexNet", swiftSettings: strictSwift),

        // MARK: L1
        .target(
            name: "SimplexCrypto",
            dependencies: ["SimplexEncoding", "COpenSSL", "CSodium", "CSNTRUP761"],
            swiftSettings: strictSwift),
        .target(name: "SimplexZstd", dependencies: ["CZstd"], swiftSettings: strictSwift),
        // QR codes for invitations, drawn in the terminal (libqrencode).
        .target(name: "TerminalQR", dependencies: ["CQREncode"], swiftSettings: strictSwift),
        // HTTP/2 over memory buffers (nghttp2).
        .target(name: "SimplexHTTP2", dependencies: ["CNGHTTP2"], swiftSettings: strictSwift),
        // Zip archives, streamed: stored and deflate (zlib) entries, ZIP64, names that stay inside their folder.
        .target(name: "SimplexArchive", dependencies: ["CZlib", "SimplexEncoding"], swiftSettings: strictSwift),
        // The chat API's command catalog, syntax and JSON types (chat-api.md).
        .target(name: "ChatModel", dependencies: ["SimplexEncoding"], swiftSettings: strictSwift),
        // SimpleX's message markdown and its link parsers (chat-api.md §7.19, §9.2).
        .target(name: "SimplexMarkdown", dependencies: ["SimplexEncoding"], swiftSettings: strictSwift),

        // MARK: L2
        // The remote-control protocol without I/O: invitations, HELLO blocks, key schedule, bodies.
        .target(
            name: "XRCP",
            dependencies: ["SimplexCrypto", "SimplexEncoding", "SimplexZstd"],
            swiftSettings: strictSwift),
        // The messaging protocol without I/O: addresses, transmissions, commands, handshake blocks, block encryption.
        .target(name: "SMP", dependencies: ["SimplexCrypto", "SimplexEncoding"], swiftSettings: strictSwift),
        // SQLite: the chat and agent databases, migrations, pairings.
        .target(
            name: "ChatStore", dependencies: ["SimplexCrypto", "SimplexEncoding", "CSQLite", "CSealedVFS"],
            swiftSettings: strictSwift),
        // The double ratchet with header encryption (smp.md §5), without I/O: X3DH, KDFs, headers, skipped keys.
        .target(name: "Ratchet", dependencies: ["SimplexCrypto", "SimplexEncoding"], swiftSettings: strictSwift),
        // The agent's wire formats without I/O (smp.md §4): links, envelopes, agent messages, sealing and opening.
        .target(
            name: "AgentProtocol", dependencies: ["SMP", "Ratchet", "SimplexCrypto", "SimplexEncoding"],
            swiftSettings: strictSwift),
        // TLS over memory buffers; OpenSSL's libssl half (libcrypto's is SimplexCrypto's).
        .target(
            name: "SimplexTLS",
            dependencies: ["SimplexCrypto", "SimplexEncoding", "COpenSSL"],
            swiftSettings: strictSwift),

        // MARK: L3
        // The remote chat layer: host and controller sessions over TLS, XRCP and HTTP/2, without sockets.
        .target(
            name: "RemoteChat",
            dependencies: ["XRCP", "SimplexTLS", "SimplexHTTP2", "SimplexCrypto", "SimplexEncoding", "SimplexNet"],
            swiftSettings: strictSwift),

        // The SMP client: one actor per server connection over TCP and TLS, its protocol an I/O-free state machine.
        .target(
            name: "SMPClient", dependencies: ["SMP", "SimplexTLS", "SimplexCrypto", "SimplexEncoding", "SimplexNet"],
            swiftSettings: strictSwift),

        // The SMP agent: connections, queues, ratchets and messages over SMP; its store in the agent database. It
        // carries out its handshake and deliveries on SMPClient, the lower of the two.
        .target(
            name: "SMPAgent",
            dependencies: ["AgentProtocol", "ChatStore", "SMP", "SMPClient", "Ratchet", "SimplexCrypto", "SimplexEncoding"],
            swiftSettings: strictSwift),

        // The embedded chat core: engine, handlers per API section, event queue (chat-api.md).
        .target(
            name: "ChatCore",
            dependencies: [
                "ChatModel", "ChatStore", "SimplexArchive", "SimplexEncoding", "SimplexCrypto", "SimplexMarkdown", "SMP",
                "SMPClient", "SimplexNet", "SimplexTLS", "SimplexZstd",
            ],
            swiftSettings: strictSwift),

        // MARK: L4
        // Wiring: the remote-control commands over sessions, store and sockets.
        .target(
            name: "SimplexHost",
            dependencies: [
                "RemoteChat", "ChatStore", "ChatModel", "XRCP", "SimplexTLS", "SimplexCrypto", "SimplexEncoding", "SimplexNet",
                "CLibSimplex",
            ],
            swiftSettings: strictSwift),

        // MARK: L5
        .executableTarget(
            name: "simplex-host", dependencies: ["SimplexHost", "ChatCore", "ChatStore", "SimplexEncoding", "TerminalQR"],
            swiftSettings: strictSwift),

        // The C ABI of libsimplex over the embedded core, with remote control in both roles wired by SimplexHost.
        .target(
            name: "SimplexABI",
            dependencies: ["ChatCore", "ChatStore", "SimplexCrypto", "SimplexEncoding", "SimplexMarkdown", "SimplexHost"],
            swiftSettings: strictSwift),

        // MARK: Tools
        .executableTarget(name: "sntrup761-roundtrip", dependencies: ["SimplexCrypto"], swiftSettings: strictSwift),
        .executableTarget(
            name: "simplex-bench",
            dependencies: [
                "SimplexCrypto", "SimplexEncoding", "RemoteChat", "XRCP", "SimplexTLS", "SimplexNet", "SimplexHost", "ChatCore",
                "SimplexABI", "ChatStore", "SimplexMarkdown", "SMP", "SMPClient", "SMPAgent",
            ],
            swiftSettings: strictSwift),

        // The SMP server for tests (smp.md §3.8): its logic without I/O and the thin driver, then the program.
        .target(
            name: "SMPTestServer",
            dependencies: ["SMP", "SimplexTLS", "SimplexCrypto", "SimplexEncoding", "SimplexNet"],
            swiftSettings: strictSwift),
        .executableTarget(
            name: "smp-test-server",
            dependencies: ["SMPTestServer", "SMP", "SimplexCrypto", "SimplexEncoding", "SimplexNet"],
            swiftSettings: strictSwift),

        // MARK: Tests
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSwift),
        // An in-memory controller made from the protocol pieces, shared by the session and service tests.
        .target(
            name: "TestPeers",
            dependencies: ["XRCP", "SimplexTLS", "SimplexHTTP2", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            path: "Tests/TestPeers", swiftSettings: strictSwift),
        // Our smp-test-server as a process, for the client's and the agent's tests.
        .target(
            name: "SMPServerProcess", dependencies: ["SMP", "TestSupport"], path: "Tests/SMPServerProcess",
            swiftSettings: strictSwift),
        .testTarget(name: "SimplexEncodingTests", dependencies: ["SimplexEncoding", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(
            name: "SimplexCryptoTests",
            dependencies: ["SimplexCrypto", "SimplexEncoding", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSwift),
        .testTarget(
            name: "ChatStoreTests", dependencies: ["ChatStore", "SimplexCrypto", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(
            name: "RemoteChatTests",
            dependencies: [
                "RemoteChat", "XRCP", "SimplexTLS", "SimplexHTTP2", "SimplexCrypto", "SimplexEncoding", "SimplexNet",
                "TestSupport", "TestPeers",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "SimplexHostTests",
            dependencies: [
                "SimplexHost", "RemoteChat", "ChatStore", "ChatModel", "XRCP", "SimplexCrypto", "SimplexEncoding", "SimplexNet",
                "TestSupport", "TestPeers",
            ],
            swiftSettings: strictSwift),
        .testTarget(name: "SimplexNetTests", dependencies: ["SimplexNet", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(name: "TerminalQRTests", dependencies: ["TerminalQR", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(
            name: "SimplexHTTP2Tests", dependencies: ["SimplexHTTP2", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            swiftSettings: strictSwift),
        .testTarget(name: "SimplexZstdTests", dependencies: ["SimplexZstd"], swiftSettings: strictSwift),
        .testTarget(name: "SimplexArchiveTests", dependencies: ["SimplexArchive", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(
            name: "XRCPTests", dependencies: ["XRCP", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strictSwift),
        .testTarget(
            name: "SMPTests", dependencies: ["SMP", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            resources: [.copy("Vectors")], swiftSettings: strictSwift),
        .testTarget(
            name: "SMPClientTests",
            dependencies: [
                "SMPClient", "SMP", "SimplexTLS", "SimplexCrypto", "SimplexEncoding", "SimplexNet", "TestSupport",
                "SMPServerProcess",
            ],
            swiftSettings: strictSwift),
        .testTarget(name: "ChatModelTests", dependencies: ["ChatModel", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(name: "SimplexMarkdownTests", dependencies: ["SimplexMarkdown"], swiftSettings: strictSwift),
        .testTarget(
            name: "ChatCoreTests",
            dependencies: [
                "ChatCore", "ChatModel", "ChatStore", "SimplexArchive", "SimplexEncoding", "TestSupport", "SMP", "SMPClient",
                "SimplexNet", "SimplexTLS", "SimplexCrypto",
            ],
            resources: [.copy("Fixtures/contacts")], swiftSettings: strictSwift),
        .testTarget(
            name: "SimplexABITests", dependencies: ["SimplexABI", "TestSupport"], resources: [.copy("Fixtures")],
            swiftSettings: strictSwift),
        .testTarget(
            name: "RatchetTests", dependencies: ["Ratchet", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strictSwift),
        .testTarget(
            name: "AgentProtocolTests",
            dependencies: ["AgentProtocol", "SMP", "Ratchet", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strictSwift),
        .testTarget(
            name: "SMPAgentTests",
            dependencies: [
                "SMPAgent", "AgentProtocol", "ChatStore", "SMP", "SMPClient", "Ratchet", "SimplexCrypto", "SimplexEncoding",
                "TestSupport", "SMPServerProcess",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "SMPTestServerTests",
            dependencies: ["SMPTestServer", "SMP", "SimplexCrypto", "SimplexEncoding"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "SimplexTLSTests",
            dependencies: ["SimplexTLS", "SimplexCrypto", "SimplexEncoding", "TestSupport"],
            swiftSettings: strictSwift),
    ],
    swiftLanguageModes: [.v6]
)
