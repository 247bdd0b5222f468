import Foundation
import SimplexCrypto
import SimplexTLS
import TestSupport
import XCTest

/// A fixed clock for certificates and checks (2026-05-28), so the tests do not depend on the machine's time.
let testNow: Int64 = 1_780_000_000

/// One side's pairing CA and per-session credential (xrcp.md §3.1): the controller's CA is 25 hours old, the host's 1.
struct Side {
    let authority: CertificateAuthority
    let credential: TLSCredential

    static func controller(now: Int64 = testNow) throws -> Side {
        let ca = try CertificateAuthority.generate(now: now, hoursBefore: 25)
        return Side(authority: ca, credential: try ca.issueLeaf(now: now))
    }

    static func host(now: Int64 = testNow) throws -> Side {
        let ca = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        return Side(authority: ca, credential: try ca.issueLeaf(now: now))
    }

    var fingerprint: CertificateFingerprint { authority.certificate.fingerprint }
}

/// A connection with what happened to it while `pump` moved bytes.
final class Endpoint {
    let connection: TLSConnection
    var events: [TLSEvent] = []
    var error: TLSError?

    init(_ connection: TLSConnection) { self.connection = connection }

    var sessionInfo: TLSSessionInfo? {
        for case .handshakeCompleted(let info) in events { return info }
        return nil
    }

    var receivedData: [UInt8] {
        var all: [UInt8] = []
        for case .applicationData(let bytes) in events { all += bytes }
        return all
    }

    /// Feeds `bytes` in pieces of the sizes `split` picks; stops at the first error, which it records.
    func feed(_ bytes: [UInt8], split: inout some PieceSizes) {
        var offset = 0
        while offset < bytes.count, error == nil {
            let n = min(split.next(), bytes.count - offset)
            do {
                events += try connection.receive(Array(bytes[offset..<offset + n]))
            } catch {
                self.error = error
            }
            offset += n
        }
    }
}

/// Sizes of the pieces bytes are delivered in.
protocol PieceSizes {
    mutating func next() -> Int
}

/// Whole writes at once.
struct Whole: PieceSizes {
    func next() -> Int { Int.max }
}

/// Pieces of one fixed size (1 for byte-at-a-time).
struct Fixed: PieceSizes {
    let size: Int
    func next() -> Int { size }
}

/// Pseudo-random piece sizes in `range`, reproducible from the seed.
struct RandomPieces: PieceSizes {
    var generator: SplitMix64
    let range: ClosedRange<Int>

    init(seed: UInt64, range: ClosedRange<Int>) {
        generator = SplitMix64(seed: seed)
        self.range = range
    }

    mutating func next() -> Int { Int.random(in: range, using: &generator) }
}

/// SplitMix64: a small seeded generator, so "random" test inputs are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }
}

/// Moves bytes between two connections until neither has anything to send. A side that failed still sends
/// (its fatal alert), and a side that failed receives nothing more.
func pump(_ a: Endpoint, _ b: Endpoint, split: inout some PieceSizes) {
    while true {
        let fromA = a.connection.takeOutgoing()
        if !fromA.isEmpty, b.error == nil { b.feed(fromA, split: &split) }
        let fromB = b.connection.takeOutgoing()
        if !fromB.isEmpty, a.error == nil { a.feed(fromB, split: &split) }
        if fromA.isEmpty && fromB.isEmpty { return }
    }
}

func pump(_ a: Endpoint, _ b: Endpoint) {
    var whole = Whole()
    pump(a, b, split: &whole)
}

/// A client (XRCP host) and a server (XRCP controller) with their handshake run.
struct Pair {
    let host: Side
    let controller: Side
    let client: Endpoint
    let server: Endpoint

    init(
        host: Side, controller: Side, clientPin: CertificateFingerprint? = nil, serverPin: HostPin = .anyHost,
        clientNow: Int64 = testNow, serverNow: Int64 = testNow, split: inout some PieceSizes
    ) throws {
        self.host = host
        self.controller = controller
        client = Endpoint(
            try TLSConnection(
                role: .client(controllerCA: clientPin ?? controller.fingerprint), credential: host.credential,
                now: clientNow))
        server = Endpoint(try TLSConnection(role: .server(serverPin), credential: controller.credential, now: serverNow))
        try client.connection.start()
        pump(client, server, split: &split)
    }

    init(serverPin: HostPin = .anyHost) throws {
        var whole = Whole()
        try self.init(host: try .host(), controller: try .controller(), serverPin: serverPin, split: &whole)
    }
}

// MARK: Python peer (scripts/fixtures/tls_peer.py)

enum PythonPeer {
    /// Starts `script` (tls_peer.py unless told) with `arguments`; its stdout is read line by line with `Lines`.
    static func start(_ arguments: [String], script: String = "scripts/fixtures/tls_peer.py") throws -> (Process, Lines) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script(script)] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, Lines(handle: output.fileHandleForReading))
    }

    /// Writes `credential` as PEM files (chain [leaf, CA] and the leaf's PKCS#8 key) into a new temporary folder.
    static func writePEM(_ credential: TLSCredential) throws -> (folder: String, chain: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let chain = folder.appendingPathComponent("chain.pem")
        let key = folder.appendingPathComponent("key.pem")
        let chainText = credential.chain.map { pem("CERTIFICATE", $0.derRepresentation) }.joined()
        try chainText.write(to: chain, atomically: true, encoding: .utf8)
        try pem("PRIVATE KEY", credential.leafKey.pkcs8).write(to: key, atomically: true, encoding: .utf8)
        return (folder.path, chain.path, key.path)
    }

    /// Writes an SMP server's chain (2–4 certificates, leaf first) and its leaf's PKCS#8 key as PEM files.
    static func writePEM(_ credential: ServerCredential) throws -> (folder: String, chain: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let chain = folder.appendingPathComponent("chain.pem")
        let key = folder.appendingPathComponent("key.pem")
        let chainText = credential.chain.map { pem("CERTIFICATE", $0.derRepresentation) }.joined()
        try chainText.write(to: chain, atomically: true, encoding: .utf8)
        try pem("PRIVATE KEY", credential.leafKey.pkcs8).write(to: key, atomically: true, encoding: .utf8)
        return (folder.path, chain.path, key.path)
    }

    static func pem(_ label: String, _ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }

    /// JSON lines from a pipe.
    final class Lines {
        let handle: FileHandle
        var buffer: [UInt8] = []
        init(handle: FileHandle) { self.handle = handle }

        func next() throws -> [String: Any] {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    let object = try JSONSerialization.jsonObject(with: Data(line))
                    return try XCTUnwrap(object as? [String: Any], "not a JSON object")
                }
                let data = handle.availableData
                guard !data.isEmpty else { throw Failure("tls_peer.py ended without a line") }
                buffer += data
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

// MARK: Test-only TCP on 127.0.0.1

/// A blocking TCP socket on the loopback interface with a receive timeout, for the Python interop tests only.
final class LoopbackSocket {
    let fd: Int32

    private init(fd: Int32) throws {
        self.fd = fd
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw PythonPeer.Failure("setsockopt: errno \(errno)")
        }
    }

    deinit { _ = Glibc.close(fd) }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    static func connect(port: UInt16) throws -> LoopbackSocket {
        let socket = try LoopbackSocket(fd: Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        var address = loopback(port: port)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { throw PythonPeer.Failure("connect: errno \(errno)") }
        return socket
    }

    /// A listening socket on an ephemeral port, and the port.
    static func listen() throws -> (LoopbackSocket, UInt16) {
        let socket = try LoopbackSocket(fd: Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket.fd, $0, length) == 0 && Glibc.listen(socket.fd, 1) == 0
                    && getsockname(socket.fd, $0, &length) == 0
            }
        }
        guard ok else { throw PythonPeer.Failure("bind/listen: errno \(errno)") }
        return (socket, UInt16(bigEndian: address.sin_port))
    }

    func accept() throws -> LoopbackSocket {
        let fd = Glibc.accept(self.fd, nil, nil)
        guard fd >= 0 else { throw PythonPeer.Failure("accept: errno \(errno)") }
        return try LoopbackSocket(fd: fd)
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw PythonPeer.Failure("send: errno \(errno)") }
            offset += n
        }
    }

    /// Up to `max` bytes; empty at end of stream.
    func read(max: Int = 65536) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max)
        let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else { throw PythonPeer.Failure("recv: errno \(errno)") }
        return Array(buffer.prefix(n))
    }
}
