// simplex-bench: figures and ratios against a baseline measured in the same run — the crypto primitives beside
// pqcrypto and PyNaCl, sessions, the session manager, the C ABI, the chat core, files and the encrypted store.
//
//   simplex-bench [crypto] [--seconds S]     figures and ratios (ours / baseline)
//   simplex-bench session                    session set-up split (TLS, KEM, HELLO) and `send` round trips
//   simplex-bench host                       events/s to a controller; a remote /_get chats beside the local one
//   simplex-bench abi [--seconds S]          commands per second through libsimplex's C ABI beside the Swift API
//   simplex-bench core [N] [--groups G] [--rounds R] [--only C] [--encrypted]
//                                            the chat core's item queries on N notes (1,000,000) and its chat list
//                                            with G local groups (10,000); --encrypted: on a plaintext and an
//                                            encrypted store in one run, with the ratios
//   simplex-bench files [--mb N]             file MB/s through a session each way beside the floor; peak memory
//   simplex-bench store-encryption           chat-store inserts and queries, plaintext beside sealed
//   simplex-bench goals [--mb N]             remote control's speed goals in one run: Ed25519 beside libsodium,
//                                            HELLO beside its crypto, `/v` beside TLS echo + crypto, files (200 MB)
//                                            beside the floor
//   simplex-bench smp [--messages N] [--queues Q]
//                                            SEND→MSG latency and messages/s through smp-test-server beside a TLS
//                                            echo of 16 KiB blocks + the per-message crypto; client memory per queue
//   simplex-bench agent [--messages N]       two SMP agents through smp-test-server: sendMessage→MSG latency
//                                            beside the SMP floor's SEND→MSG, messages/s one way, both ways, with
//                                            receipts, beside pipelined SMP
//   simplex-bench markdown [--mb N]          markdown parse time for N MB (1) of each special character beside
//                                            plain text, through the Swift API and chat_parse_markdown
import Foundation
import SimplexCrypto

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Operations per second of `body`, run for at least `seconds` and 5 times.
func rate(_ seconds: Double, _ body: () -> Void) -> Double {
    var n = 0
    let start = now()
    while true {
        body()
        n += 1
        let elapsed = now() - start
        if elapsed >= seconds && n >= 5 { return Double(n) / elapsed }
    }
}

/// The baseline from scripts/bench/baseline.py in the repository's venv (or SIMPLEX_BENCH_PYTHON).
func baseline(seconds: Double) -> [String: Double]? {
    let python = ProcessInfo.processInfo.environment["SIMPLEX_BENCH_PYTHON"] ?? ".venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        FileHandle.standardError.write(Data("no baseline: \(python) not found (scripts/install-deps creates it)\n".utf8))
        return nil
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: python)
    p.arguments = ["scripts/bench/baseline.py", String(seconds)]
    let out = Pipe()
    p.standardOutput = out
    do { try p.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Double]
}

func cryptoBenchmark(seconds: Double) throws {
    let kem = SNTRUP761.KeyPair()
    let (ct, _) = kem.publicKey.encapsulate()
    let signer = Ed25519.PrivateKey()
    let message = SecureRandom.bytes(64)
    let signature = signer.signature(for: message)
    let dh = X25519.PrivateKey()
    let peer = X25519.PrivateKey().publicKey
    let key = try SecretBox.Key(rawRepresentation: SecureRandom.bytes(32))
    let nonce = SecretBox.Nonce.random()
    let block = SecureRandom.bytes(16384)
    var sink = 0

    let ours: [(String, Double)] = [
        ("sntrup761 keypair", rate(seconds) { sink &+= Int(SNTRUP761.KeyPair().publicKey.rawRepresentation[0]) }),
        ("sntrup761 encapsulate", rate(seconds) { sink &+= Int(kem.publicKey.encapsulate().ciphertext.rawRepresentation[0]) }),
        ("sntrup761 decapsulate", rate(seconds) { sink &+= Int(kem.secretKey.decapsulate(ct).rawRepresentation[0]) }),
        ("Ed25519 sign", rate(seconds) { sink &+= Int(signer.signature(for: message).rawRepresentation[0]) }),
        ("Ed25519 verify", rate(seconds) { sink &+= signer.publicKey.isValidSignature(signature, for: message) ? 1 : 0 }),
        ("X25519", rate(seconds) { sink &+= Int((try? dh.sharedSecret(with: peer))?.rawRepresentation[0] ?? 0) }),
        (
            "secretbox 16 KiB (MB/s)",
            rate(seconds) { sink &+= Int(SecretBox.seal(block, key: key, nonce: nonce)[0]) } * 16384 / 1e6
        ),
    ]
    let theirs = baseline(seconds: seconds)
    func column(_ text: String, _ width: Int, left: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + pad : pad + text
    }
    print(
        column("operation", 26, left: true) + column("ours/s", 12) + column("baseline/s", 13) + column("ratio", 9)
            + "   (baseline: pqcrypto sntrup_761, PyNaCl; same run)")
    for (name, value) in ours {
        let base = theirs?[name]
        print(
            column(name, 26, left: true) + column(String(format: "%.1f", value), 12)
                + column(base.map { String(format: "%.1f", $0) } ?? "n/a", 13)
                + column(base.map { String(format: "%.2fx", value / $0) } ?? "n/a", 9))
    }
    if sink == 42 { print("") }  // keeps the work observable to the optimiser
    ed25519Benchmark(seconds: seconds, pynacl: theirs)
}

/// Ed25519 as the session uses it (the 64-byte SHA-512 digests of xrcp.md §9.3): our wrapper beside libsodium called
/// directly, OpenSSL's EVP calls (the previous implementation) and PyNaCl, in one run. Goal: at least libsodium's rate.
@discardableResult
func ed25519Benchmark(seconds: Double, pynacl: [String: Double]?) -> (sign: Double, verify: Double) {
    let message = SecureRandom.bytes(64)
    let signer = Ed25519.PrivateKey()
    let signature = signer.signature(for: message)
    let direct = Ed25519Reference(message: message)
    var sink = 0
    // The three take turns in short rounds and each figure is the median of its rounds, so that a load that comes
    // and goes on a shared machine falls on all of them alike.
    func interleaved(_ bodies: [() -> Void]) -> [Double] {
        let rounds = 9
        var rates = Array(repeating: [Double](), count: bodies.count)
        for _ in 0..<rounds {
            for (i, body) in bodies.enumerated() { rates[i].append(rate(seconds / Double(rounds), body)) }
        }
        return rates.map { $0.sorted()[rounds / 2] }
    }
    let sign = interleaved([
        { sink &+= Int(signer.signature(for: message).rawRepresentation[0]) },
        { sink &+= Int(direct.sign()) },
        { sink &+= Int(signer.signatureThroughOpenSSL(for: message).rawRepresentation[0]) },
    ])
    let verify = interleaved([
        { sink &+= signer.publicKey.isValidSignature(signature, for: message) ? 1 : 0 },
        { sink &+= direct.verify() ? 1 : 0 },
        { sink &+= signer.publicKey.isValidSignatureThroughOpenSSL(signature, for: message) ? 1 : 0 },
    ])
    let rows: [(String, Double, Double, Double, Double?)] = [
        ("Ed25519 sign", sign[0], sign[1], sign[2], pynacl?["Ed25519 sign"]),
        ("Ed25519 verify", verify[0], verify[1], verify[2], pynacl?["Ed25519 verify"]),
    ]
    func cell(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
    print("")
    print(
        "Ed25519, 64-byte message".padding(toLength: 26, withPad: " ", startingAt: 0) + cell("ours/s", 12)
            + cell("libsodium/s", 13) + cell("ours/floor", 12) + cell("OpenSSL/s", 12) + cell("OpenSSL/floor", 15)
            + cell("PyNaCl/s", 11) + "   (floor: libsodium called directly; medians of 9 alternating rounds)")
    for (name, ours, floor, openSSL, py) in rows {
        print(
            name.padding(toLength: 26, withPad: " ", startingAt: 0) + cell(String(format: "%.1f", ours), 12)
                + cell(String(format: "%.1f", floor), 13) + cell(String(format: "%.2fx", ours / floor), 12)
                + cell(String(format: "%.1f", openSSL), 12) + cell(String(format: "%.2fx", openSSL / floor), 15)
                + cell(py.map { String(format: "%.1f", $0) } ?? "n/a", 11))
    }
    if sink == 42 { print("") }
    return (rows[0].1 / rows[0].2, rows[1].1 / rows[1].2)
}

/// The speed goals of remote control in one run, each figure over its floor measured in the same run.
func goalsBenchmark(seconds: Double, megabytes: Int) async throws {
    let ed = ed25519Benchmark(seconds: seconds, pynacl: baseline(seconds: seconds))
    print("")
    let hello = try SessionBenchmark.setup(rounds: 20)
    let roundTrip = try await SessionBenchmark.roundTrip(requests: 300)
    print("")
    let files = try await FileBenchmark.run(megabytes: megabytes)
    let goals: [(String, Double, String, Bool)] = [
        ("Ed25519 sign / libsodium", ed.sign, "≥ 1.00", ed.sign >= 1.0),
        ("Ed25519 verify / libsodium", ed.verify, "≥ 1.00", ed.verify >= 1.0),
        ("file upload / floor", files.up, "≥ 0.70", files.up >= 0.7),
        ("file download / floor", files.down, "≥ 0.70", files.down >= 0.7),
        ("HELLO to established / its crypto", hello, "≤ 1.20", hello <= 1.2),
        ("remote /v / (TLS echo + crypto)", roundTrip, "≤ 1.15", roundTrip <= 1.15),
    ]
    print("\ngoals, one run:")
    for (name, ratio, goal, met) in goals {
        print(
            "  " + name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%6.2fx", ratio) + "   goal "
                + goal + (met ? "   met" : "   not met"))
    }
}

/// Round trips with fresh random keys; exits non-zero on the first mismatch.
var args = Array(CommandLine.arguments.dropFirst())
var seconds = 0.5
if let i = args.firstIndex(of: "--seconds"), i + 1 < args.count, let s = Double(args[i + 1]) {
    seconds = s
    args.removeSubrange(i...i + 1)
}
switch args.first ?? "crypto" {
case "crypto":
    try cryptoBenchmark(seconds: seconds)
case "session":
    try SessionBenchmark.setup(rounds: 20)
    try await SessionBenchmark.roundTrip(requests: 300)
case "host":
    try await HostBenchmark.run(events: 5000, requests: 300)
case "abi":
    try await ABIBenchmark.run(seconds: seconds)
case "core":
    var rounds = 200
    if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let r = Int(args[i + 1]) {
        rounds = r
        args.removeSubrange(i...i + 1)
    }
    var only: String?
    if let i = args.firstIndex(of: "--only"), i + 1 < args.count {
        only = args[i + 1]
        args.removeSubrange(i...i + 1)
    }
    var groups = 10_000
    if let i = args.firstIndex(of: "--groups"), i + 1 < args.count, let g = Int(args[i + 1]) {
        groups = max(0, g)
        args.removeSubrange(i...i + 1)
    }
    let encrypted = args.contains("--encrypted")
    args.removeAll { $0 == "--encrypted" }
    let items = args.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
    if encrypted {
        try await CoreBenchmark.runEncrypted(items: items, groups: groups, rounds: max(1, rounds), only: only)
    } else {
        try await CoreBenchmark.run(items: items, groups: groups, rounds: max(1, rounds), only: only)
    }
case "files":
    var megabytes = 1000
    if let i = args.firstIndex(of: "--mb"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { megabytes = n }
    try await FileBenchmark.run(megabytes: megabytes)
case "goals":
    var megabytes = 200
    if let i = args.firstIndex(of: "--mb"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { megabytes = n }
    try await goalsBenchmark(seconds: seconds, megabytes: megabytes)
case "store-encryption":
    try StoreEncryptionBenchmark.run(seconds: seconds)
case "smp":
    var messages = 2000
    if let i = args.firstIndex(of: "--messages"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { messages = n }
    var queues = 10_000
    if let i = args.firstIndex(of: "--queues"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { queues = n }
    try await SMPBenchmark.run(messages: messages, queues: queues)
case "agent":
    var messages = 1000
    if let i = args.firstIndex(of: "--messages"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { messages = n }
    try await AgentBenchmark.run(messages: messages)
case "markdown":
    var megabytes = 1
    if let i = args.firstIndex(of: "--mb"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { megabytes = n }
    MarkdownBenchmark.run(megabytes: megabytes, rounds: 3)
default:
    FileHandle.standardError.write(
        Data(
            "usage: simplex-bench [crypto] [--seconds S] | session | host | abi [--seconds S] | core [N] [--groups G] [--rounds R] [--only C] [--encrypted] | files [--mb N] | store-encryption [--seconds S] | goals [--mb N] | smp [--messages N] [--queues Q] | agent [--messages N] | markdown [--mb N]\n"
                .utf8)
    )
    exit(2)
}
