// simplex-bench core --encrypted: the core benchmark's commands on a plaintext and an encrypted store of the same
// content in one run (docs/storage-encryption.md), each command through the engine and as the store's SQL, the two
// stores taking turns in every round so that both see the same load; the ratio encrypted / plain per command.
import ChatCore
import ChatStore
import Foundation
import SimplexCrypto

extension CoreBenchmark {
    /// One store of the comparison: its engine, a second connection for the SQL, and the commands' statements.
    private struct Side {
        let name: String
        let engine: ChatEngine
        let db: SQLiteDatabase
    }

    static func runEncrypted(items: Int, groups: Int, rounds: Int, only: String? = nil) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-bench-sealed-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        print("load average before: \(loadAverage())")
        var sides: [Side] = []
        for (name, key) in [("plain", nil), ("encrypted", DatabaseKey("benchmark passphrase"))] {
            sides.append(try await side(name, key: key, folder: folder, items: items, groups: groups))
        }

        let middle = Int64(max(1, items / 2))
        // The commands of `run`, with the statements each store issues for them.
        func cases(_ db: SQLiteDatabase) throws -> [(String, String, [ItemStoreProbe.Statement])] {
            [
                ("last page", "/_get chat *1 count=50", ItemStoreProbe.lastPage(userId: 1, noteFolderId: 1, count: 50)),
                (
                    "around the middle", "/_get chat *1 around=\(middle) count=25",
                    try ItemStoreProbe.aroundPage(db, userId: 1, noteFolderId: 1, itemId: middle, count: 25)
                ),
                (
                    "search", "/_get chat *1 count=50 search=needle",
                    ItemStoreProbe.lastPage(userId: 1, noteFolderId: 1, count: 50, search: "needle")
                ),
                ("chat list", "/_get chats 1", try ItemStoreProbe.chatList(db, userId: 1)),
            ]
        }
        let perSide = try sides.map { try cases($0.db) }

        func column(_ text: String, _ width: Int, left: Bool = false) -> String {
            let pad = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + pad : pad + text
        }
        print(
            column("command", 20, left: true) + column("plain ms", 10) + column("encr. ms", 10) + column("ratio", 8)
                + column("SQL plain", 11) + column("SQL encr.", 11) + column("ratio", 8) + column("rounds", 8)
                + "  replies"
                + "\n(medians; core: the command through the engine; SQL: the store's statements, prepared once)")
        for index in perSide[0].indices where only == nil || perSide[0][index].0.hasPrefix(only ?? "") {
            let (name, line, _) = perSide[0][index]
            var replies: [[UInt8]] = []
            var steps: [[(ChatStore.Statement, [SQLValue])]] = []
            for (side, cases) in zip(sides, perSide) {
                replies.append(await side.engine.execute(line).bytes)
                var prepared: [String: ChatStore.Statement] = [:]
                steps.append(
                    try cases[index].2.map { (s) throws -> (ChatStore.Statement, [SQLValue]) in
                        if let statement = prepared[s.sql] { return (statement, s.values) }
                        let statement = try side.db.prepare(s.sql)
                        prepared[s.sql] = statement
                        return (statement, s.values)
                    })
            }
            guard replies.allSatisfy({ $0.starts(with: Array(#"{"result":"#.utf8)) }) else {
                print("\(name): \(line) failed: \(String(decoding: (replies.last ?? []).prefix(300), as: UTF8.self))")
                continue
            }
            var core: [[Double]] = [[], []]
            var sql: [[Double]] = [[], []]
            var rows = 0
            let began = now()
            while core[0].count < rounds && (core[0].count < 5 || now() - began < 20) {
                for (i, side) in sides.enumerated() {
                    var start = now()
                    _ = await side.engine.execute(line)
                    core[i].append(now() - start)
                    start = now()
                    for (statement, values) in steps[i] {
                        try statement.bind(values)
                        while try statement.step() { rows &+= statement.row.count }
                    }
                    sql[i].append(now() - start)
                }
            }
            let c = core.map { median($0) * 1000 }
            let s = sql.map { median($0) * 1000 }
            print(
                column(name, 20, left: true) + column(String(format: "%.3f", c[0]), 10)
                    + column(String(format: "%.3f", c[1]), 10) + column(String(format: "%.2fx", c[1] / c[0]), 8)
                    + column(String(format: "%.3f", s[0]), 11) + column(String(format: "%.3f", s[1]), 11)
                    + column(String(format: "%.2fx", s[1] / s[0]), 8) + column("\(core[0].count)", 8)
                    + (replies[0] == replies[1] ? "  the same bytes" : "  DIFFER"))
            if rows == -1 { print("") }  // keeps the reads observable to the optimiser
        }
        print("load average after: \(loadAverage())")
        print("peak memory (VmHWM): \(peakMemory())")
    }

    /// A store with `items` notes and `groups` local groups, sealed with `key` when given, and its started engine.
    private static func side(_ name: String, key: DatabaseKey?, folder: URL, items: Int, groups: Int) async throws -> Side {
        let prefix = folder.appendingPathComponent(name).path
        var configuration = ChatEngine.Configuration()
        configuration.clock = { UTCTime(seconds: 1_700_000_000) }
        let engine = try ChatEngine(prefix: prefix, key: key, configuration: configuration)
        _ = await engine.execute(#"/_create user {"profile":{"displayName":"bench","fullName":""},"pastTimestamp":false}"#)
        _ = await engine.execute("/_start")
        let db = try SQLiteDatabase(path: ChatDatabases.files(prefix: prefix).chat, key: key)
        let start = now()
        let texts = (1...max(1, items)).lazy.map { $0 % 1000 == 0 ? "note \($0) needle" : "note \($0)" }
        let origin = UTCTime(seconds: 1_700_000_000)
        try ItemStoreProbe.fillNotes(db, userId: 1, noteFolderId: 1, texts: texts, from: origin)
        if groups > 0 {
            try ItemStoreProbe.fillGroups(
                db, userId: 1, count: groups, from: origin, spacing: Int64(max(1, items / groups)), itemsEvery: 10,
                itemsPerGroup: 3)
        }
        _ = try db.query("PRAGMA wal_checkpoint(TRUNCATE)")
        let size =
            (try? FileManager.default.attributesOfItem(atPath: ChatDatabases.files(prefix: prefix).chat)[.size] as? Int) ?? 0
        print(
            String(
                format: "%@: %d notes and %d groups in %.1f s, chat database %@", name, items, groups, now() - start,
                byteCount(size)))
        return Side(name: name, engine: engine, db: db)
    }

    /// /proc/loadavg's first three figures.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "n/a" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
