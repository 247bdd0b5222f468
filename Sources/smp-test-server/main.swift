// smp-test-server: an SMP server for tests (smp.md §3.8), on loopback. See README ("SMP test server").
import Foundation
import SMP
import SMPTestServer
import SimplexCrypto
import SimplexEncoding
import SimplexNet

let usageText = """
    usage: smp-test-server [--listen 127.0.0.1] [--port P] [--store FILE] [--ed448] [--chain 2|3|4]
                           [--quota Q] [--password PW] [--max-connections N] [--max-queues N]
                           [--versions MIN-MAX] [--quiet]
    Prints one JSON line on standard output, {"address":"smp://<keyHash>@127.0.0.1:<port>",...}, then serves until
    killed; with --store the queues, messages and certificates are kept in FILE across restarts.
    """

struct Options {
    var listen = "127.0.0.1"
    var port: UInt16 = 0
    var store: String?
    var algorithm = CertificateKeyAlgorithm.ed25519
    var chain = ServerChainLength.two
    var configuration = ServerConfiguration()
    var quiet = false
}

/// The command line's errors and the store's, as messages and exit codes, in one place.
enum ExitError: Error {
    case usage(String)
    case store(String)
    case listen(String)

    var code: Int32 {
        switch self {
        case .usage: 2
        case .store: 3
        case .listen: 1
        }
    }

    var message: String {
        switch self {
        case .usage(let m): "smp-test-server: \(m)\n\(usageText)"
        case .store(let m): "smp-test-server: the store cannot be used: \(m)"
        case .listen(let m): "smp-test-server: cannot listen: \(m)"
        }
    }
}

func parse(_ args: [String]) throws(ExitError) -> Options {
    var o = Options()
    var i = 0
    func value(_ name: String) throws(ExitError) -> String {
        i += 1
        guard i < args.count else { throw .usage("\(name) needs a value") }
        return args[i]
    }
    func number(_ name: String) throws(ExitError) -> Int {
        let v = try value(name)
        guard let n = Int(v), n >= 0 else { throw .usage("\(name): \(v) is not a number") }
        return n
    }
    while i < args.count {
        let a = args[i]
        switch a {
        case "--listen":
            o.listen = try value(a)
            guard o.listen.hasPrefix("127.") else { throw .usage("--listen: a test server binds to a loopback address") }
        case "--port":
            let n = try number(a)
            guard let p = UInt16(exactly: n) else { throw .usage("--port: \(n) is not a port") }
            o.port = p
        case "--store": o.store = try value(a)
        case "--ed448": o.algorithm = .ed448
        case "--chain":
            guard let c = ServerChainLength(rawValue: try number(a)) else { throw .usage("--chain: 2, 3 or 4") }
            o.chain = c
        case "--quota":
            let n = try number(a)
            guard n > 0 else { throw .usage("--quota: at least 1") }
            o.configuration.limits.quota = n
        case "--password":
            guard let pw = try? BasicAuth(try value(a)) else { throw .usage("--password: not a valid basic auth") }
            o.configuration.limits.password = pw
        case "--max-connections":
            let n = try number(a)
            guard n > 0 else { throw .usage("--max-connections: at least 1") }
            o.configuration.maxConnections = n
        case "--max-queues": o.configuration.limits.maxQueues = try number(a)
        case "--versions":
            guard let r = try? VersionRange(text: try value(a)), SMPVersion.supported.contains(r.min),
                SMPVersion.supported.contains(r.max)
            else { throw .usage("--versions: a range within \(SMPVersion.supported)") }
            o.configuration.versions = r
        case "--quiet": o.quiet = true
        case "--help", "-h":
            print(usageText)
            exit(0)
        default: throw .usage("unknown option \(a)")
        }
        i += 1
    }
    return o
}

/// The store's credential, or a new one (recorded first in a new store, so the address stays the same).
func credential(_ o: Options, _ records: [StoreRecord]) throws(ExitError) -> (ServerCredential, StoreRecord) {
    for r in records {
        guard case .credential(let chain, let leaf) = r else { continue }
        do {
            let certificates = try chain.map { (der: [UInt8]) throws(CryptoError) in try Certificate(der: der) }
            return (try ServerCredential(chain: certificates, leafKey: CertificateKey(pkcs8: leaf)), r)
        } catch {
            throw .store("its credential: \(error)")
        }
    }
    let now = Int64(Date().timeIntervalSince1970)
    do {
        let c = try ServerCredential.generate(algorithm: o.algorithm, length: o.chain, now: now - 3600)
        return (c, .credential(chain: c.chain.map(\.derRepresentation), leafKey: c.leafKey.pkcs8))
    } catch {
        throw .listen("certificates: \(error)")
    }
}

func start() throws(ExitError) -> Never {
    let o = try parse(Array(CommandLine.arguments.dropFirst()))
    var journal: Journal?
    var records: [StoreRecord] = []
    if let path = o.store {
        do { (journal, records) = try Journal.open(path: path) } catch { throw .store("\(error)") }
    }
    let (credential, credentialRecord) = try credential(o, records)
    var store = QueueStore()
    for r in records { store.apply(r) }
    if let journal {
        do { try journal.rewrite([credentialRecord] + store.snapshot) } catch { throw .store("\(error)") }
    }
    let listener: TCPListener
    do { listener = try TCPListener(address: o.listen, port: o.port) } catch { throw .listen("\(error)") }
    let port = listener.endpoint.port
    let keyHash = KeyHash(credential.fingerprint)
    guard let host = try? TransportHost(parsing: o.listen),
        let server = try? SMPServer(hosts: [host], port: String(port), keyHash: keyHash)
    else { throw .listen("address \(o.listen)") }
    let address = SMPServerWithAuth(server: server, basicAuth: o.configuration.limits.password).text
    let versions = o.configuration.versions
    let algorithm = credential.leafKey.algorithm == .ed448 ? "ed448" : "ed25519"
    let fingerprint = Base64.encode(keyHash.bytes)
    let line =
        "{\"address\":\"\(address)\",\"port\":\(port),\"fingerprint\":\"\(fingerprint)\","
        + "\"chainLength\":\(credential.chain.count),\"certificateKey\":\"\(algorithm)\","
        + "\"versions\":[\(versions.min),\(versions.max)],\"queues\":\(store.count)}\n"
    FileHandle.standardOutput.write(Data(line.utf8))
    signal(SIGPIPE, SIG_IGN)
    let quiet = o.quiet
    let s = ServerDriver(
        listener: listener, credential: credential, store: store, journal: journal, configuration: o.configuration,
        log: { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        })
    s.run()
}

do { try start() } catch {
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
    exit(error.code)
}
