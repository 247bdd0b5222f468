import ChatStore
import Foundation

/// The same chat-like workload on a plaintext and a sealed database (docs/storage-encryption.md), side by side
/// in one run: inserts one message per transaction and in batches, and the queries a chat list and a chat view
/// make. The page cache is kept small, as on a store much bigger than memory, so reads reach the VFS.
/// `--seconds` scales the number of repetitions (1 = the defaults, about a second per operation and store).
enum StoreEncryptionBenchmark {
    static let rows = 20_000
    static let chats = 200

    struct Store {
        let name: String
        let db: SQLiteDatabase
        let openSeconds: Double
    }

    static func run(seconds: Double) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let key = DatabaseKey("benchmark passphrase") else { return }

        var t = now()
        let plain = Store(
            name: "plain", db: try SQLiteDatabase(path: folder.appendingPathComponent("plain.db").path), openSeconds: now() - t)
        t = now()
        let sealed = Store(
            name: "sealed", db: try SQLiteDatabase(path: folder.appendingPathComponent("sealed.db").path, key: key),
            openSeconds: now() - t)
        let stores = [plain, sealed]
        for store in stores { try prepare(store.db) }

        var rng = SystemRandomNumberGenerator()
        let bodies = (0..<64).map { i in "message \(i) " + String(repeating: "lorem ipsum ", count: 5 + i % 20) }
        var next: [String: Int] = [:]
        func insert(_ db: SQLiteDatabase, _ name: String, count: Int) throws {
            try db.transaction { () throws(SQLiteError) in
                for _ in 0..<count {
                    let i = next[name, default: 0]
                    next[name] = i + 1
                    try db.run(
                        "INSERT INTO messages (chat_id, ts, body) VALUES (?, ?, ?)",
                        [.integer(Int64(i % chats)), .integer(Int64(i)), .text(bodies[i % bodies.count])])
                }
            }
        }

        // Each operation runs the same number of times on both stores, so both hold the same rows throughout; five
        // alternating rounds, the best of each, so drift in the machine's load hits both alike.
        var results: [(String, wall: [Double], cpu: [Double])] = []
        func measure(_ operation: String, times: Int, _ body: (Store) throws -> Void) rethrows {
            let count = max(1, Int(Double(times) * seconds))
            var wall = [Double](repeating: 0, count: stores.count)
            var cpu = [Double](repeating: 0, count: stores.count)
            for _ in 0..<5 {
                for (i, store) in stores.enumerated() {
                    let start = now()
                    let startCPU = cpuTime()
                    for _ in 0..<count { try body(store) }
                    wall[i] = max(wall[i], Double(count) / (now() - start))
                    cpu[i] = max(cpu[i], Double(count) / max(cpuTime() - startCPU, 1e-9))
                }
            }
            results.append((operation, wall, cpu))
        }

        // The same rows in both: the batch inserts fill each store to `rows` first.
        for store in stores { try insert(store.db, store.name, count: rows) }
        for store in stores { _ = try store.db.query("PRAGMA wal_checkpoint(TRUNCATE)") }

        try measure("insert, 1 message per transaction", times: 1000) { try insert($0.db, $0.name, count: 1) }
        try measure("insert, 100 messages per transaction", times: 20) { try insert($0.db, $0.name, count: 100) }
        try measure("message by id", times: 10000) { store in
            let id = Int64.random(in: 1...Int64(rows), using: &rng)
            _ = try store.db.query("SELECT body FROM messages WHERE id = ?", [.integer(id)])
        }
        try measure("last 50 messages of a chat", times: 1000) { store in
            let chat = Int64.random(in: 0..<Int64(chats), using: &rng)
            _ = try store.db.query(
                "SELECT id, ts, body FROM messages WHERE chat_id = ? ORDER BY ts DESC LIMIT 50", [.integer(chat)])
        }
        try measure("chat list (latest message per chat)", times: 10) { store in
            _ = try store.db.query("SELECT chat_id, max(ts) FROM messages GROUP BY chat_id")
        }
        try measure("search text (full scan)", times: 5) { store in
            _ = try store.db.query("SELECT count(*) FROM messages WHERE body LIKE '%ipsum lorem ipsum lorem ipsum lorem%'")
        }
        try measure("checkpoint after 50 inserts", times: 10) { store in
            try insert(store.db, store.name, count: 50)
            _ = try store.db.query("PRAGMA wal_checkpoint(TRUNCATE)")
        }

        func column(_ text: String, _ width: Int, left: Bool = false) -> String {
            let pad = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + pad : pad + text
        }
        print(
            String(
                format: "store encryption: %d messages, %d chats, 1 MiB page cache; open %.3f s plain, %.3f s sealed (Argon2id)",
                rows, chats, plain.openSeconds, sealed.openSeconds))
        print(
            column("operation", 40, left: true) + column("plain/s", 11) + column("sealed/s", 11)
                + column("time sealed/plain", 19) + column("CPU sealed/plain", 18))
        for (name, wall, cpu) in results {
            print(
                column(name, 40, left: true) + column(String(format: "%.1f", wall[0]), 11)
                    + column(String(format: "%.1f", wall[1]), 11) + column(String(format: "%.2fx", wall[0] / wall[1]), 19)
                    + column(String(format: "%.2fx", cpu[0] / cpu[1]), 18))
        }
        print("(time: wall clock, fsync waits included; CPU: this process's user and system time, steadier on a busy machine)")
    }

    /// This thread's CPU time: what the work itself costs, whatever else the machine runs.
    static func cpuTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func prepare(_ db: SQLiteDatabase) throws {
        _ = try db.query("PRAGMA cache_size = -1024")
        try db.execute(
            """
            CREATE TABLE messages (id INTEGER PRIMARY KEY, chat_id INTEGER NOT NULL, ts INTEGER NOT NULL, body TEXT NOT NULL);
            CREATE INDEX messages_chat_ts ON messages (chat_id, ts);
            """)
    }
}
