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

        let perSide = try sides.map { try commands($0.db, items: items) }

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
                steps.append(try prepareOnce(cases[index].2, on: side.db))
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
        let (engine, db) = try await openStore(prefix: prefix, key: key)
        let (notesSeconds, groupsSeconds) = try fill(db, items: items, groups: groups)
        _ = try db.query("PRAGMA wal_checkpoint(TRUNCATE)")
        let size =
            (try? FileManager.default.attributesOfItem(atPath: ChatDatabases.files(prefix: prefix).chat)[.size] as? Int) ?? 0
        print(
            String(
                format: "%@: %d notes and %d groups in %.1f s, chat database %@", name, items, groups,
                notesSeconds + groupsSeconds,
                byteCount(size)))
        return Side(name: name, engine: engine, db: db)
    }

    /// /proc/loadavg's first three figures.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "n/a" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
