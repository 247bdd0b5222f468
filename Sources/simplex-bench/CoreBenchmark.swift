// simplex-bench core: the embedded chat core's item queries and chat list on a large store. Each command runs through
// the engine (parse, store, JSON) beside the same SQL the store issues, each distinct statement prepared once and
// stepped directly on the same database; the ratio is the core's overhead. The query plans show which indexes each
// statement uses.
import ChatCore
import ChatStore
import Foundation
import SimplexCrypto

enum CoreBenchmark {
    /// Fills a fresh store with `items` notes and `groups` local groups and times the commands, core and SQL rounds
    /// taking turns so that both see the same load; at most `rounds` rounds each, fewer past a few seconds.
    static func run(items: Int, groups: Int, rounds: Int, only: String? = nil) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-bench-core-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (engine, db) = try await openStore(prefix: folder.appendingPathComponent("bench").path, key: nil)
        let (notesSeconds, groupsSeconds) = try fill(db, items: items, groups: groups)
        print(String(format: "filled 1 notes folder with %d items in %.1f s (one transaction)", items, notesSeconds))
        if groups > 0 {
            print(
                String(
                    format: "created %d local groups, 3 items in every 10th, in %.1f s (one transaction)", groups,
                    groupsSeconds))
        }

        let cases = try commands(db, items: items)
        print(
            column("command", 20, left: true) + column("core ms", 10) + column("SQL ms", 10) + column("ratio", 9)
                + column("rounds", 8) + column("reply", 11) + "  reply digest"
                + "\n(medians; SQL: the store's statements, each prepared once, on the same database)")
        var plans: [(String, [String])] = []
        for (name, line, statements) in cases where only == nil || name.hasPrefix(only ?? "") {
            let reply = await engine.execute(line).bytes
            guard reply.starts(with: Array(#"{"result":"#.utf8)) else {
                print("\(name): \(line) failed: \(String(decoding: reply.prefix(300), as: UTF8.self))")
                continue
            }
            let steps = try prepareOnce(statements, on: db)
            var rows = 0
            var coreTimes: [Double] = []
            var sqlTimes: [Double] = []
            let began = now()
            while coreTimes.count < rounds && (coreTimes.count < 5 || now() - began < 10) {
                var start = now()
                _ = await engine.execute(line)
                coreTimes.append(now() - start)
                start = now()
                for (statement, values) in steps {
                    try statement.bind(values)
                    while try statement.step() { rows &+= statement.row.count }
                }
                sqlTimes.append(now() - start)
            }
            let core = median(coreTimes) * 1000
            let direct = median(sqlTimes) * 1000
            let digest = Digest.sha256(reply).prefix(6).map { String(format: "%02x", $0) }.joined()
            print(
                column(name, 20, left: true) + column(String(format: "%.3f", core), 10)
                    + column(String(format: "%.3f", direct), 10) + column(String(format: "%.2fx", core / direct), 9)
                    + column("\(coreTimes.count)", 8) + column(byteCount(reply.count), 11) + "  " + digest)
            // Each distinct statement's plan once, with how many times the command runs it.
            var lines: [String] = []
            var seen: [String: Int] = [:]
            for s in statements { seen[s.sql, default: 0] += 1 }
            for s in statements where seen[s.sql] != nil {
                let times = seen.removeValue(forKey: s.sql) ?? 1
                let plan = try db.query("EXPLAIN QUERY PLAN " + s.sql, s.values).compactMap { $0.last?.text }
                let text = s.sql.split(whereSeparator: \.isNewline).joined(separator: " ")
                lines.append((times > 1 ? "  ×\(times) " : "  ") + text.prefix(110) + (text.count > 110 ? "…" : ""))
                lines += plan.map { "      " + $0 }
            }
            plans.append(("\(name) (\(line)): \(statements.count) statements", lines))
            if rows == -1 { print("") }  // keeps the reads observable to the optimiser
        }
        print("\nquery plans:")
        for (name, lines) in plans {
            print(name)
            for line in lines { print(line) }
        }
        print("\npeak memory (VmHWM): \(peakMemory())")
    }

    /// A started engine with one user on a fresh store at `prefix` (sealed with `key` when given), and a connection of
    /// its own to the chat database for the SQL rounds. The clock is fixed, so that replies are the same bytes on
    /// every run and their digests compare builds.
    static func openStore(prefix: String, key: DatabaseKey?) async throws -> (ChatEngine, SQLiteDatabase) {
        var configuration = ChatEngine.Configuration()
        configuration.clock = { UTCTime(seconds: 1_700_000_000) }
        let engine = try ChatEngine(prefix: prefix, key: key, configuration: configuration)
        _ = await engine.execute(#"/_create user {"profile":{"displayName":"bench","fullName":""},"pastTimestamp":false}"#)
        _ = await engine.execute("/_start")
        return (engine, try SQLiteDatabase(path: ChatDatabases.files(prefix: prefix).chat, key: key))
    }

    /// Fills the notes folder with `items` notes and creates `groups` local groups, each in one transaction; the
    /// seconds each took.
    static func fill(_ db: SQLiteDatabase, items: Int, groups: Int) throws -> (notes: Double, groups: Double) {
        var start = now()
        // Every 1000th note holds the searched word, so a search page reads about 50,000 notes.
        let texts = (1...max(1, items)).lazy.map { $0 % 1000 == 0 ? "note \($0) needle" : "note \($0)" }
        let origin = UTCTime(seconds: 1_700_000_000)
        try ItemStoreProbe.fillNotes(db, userId: 1, noteFolderId: 1, texts: texts, from: origin)
        let notes = now() - start
        start = now()
        if groups > 0 {
            // Spread over the notes' time span, so the chat list interleaves them; every 10th group has 3 items.
            try ItemStoreProbe.fillGroups(
                db, userId: 1, count: groups, from: origin, spacing: Int64(max(1, items / groups)), itemsEvery: 10,
                itemsPerGroup: 3)
        }
        return (notes, now() - start)
    }

    /// The timed commands: name, command line, and the statements the store issues for it on `db`.
    static func commands(_ db: SQLiteDatabase, items: Int) throws -> [(String, String, [ItemStoreProbe.Statement])] {
        let middle = Int64(max(1, items / 2))
        return [
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

    /// Each distinct statement prepared once, as a cache of prepared statements would hold it, with its values.
    static func prepareOnce(_ statements: [ItemStoreProbe.Statement], on db: SQLiteDatabase) throws
        -> [(ChatStore.Statement, [SQLValue])]
    {
        var prepared: [String: ChatStore.Statement] = [:]
        return try statements.map { (s) throws -> (ChatStore.Statement, [SQLValue]) in
            if let statement = prepared[s.sql] { return (statement, s.values) }
            let statement = try db.prepare(s.sql)
            prepared[s.sql] = statement
            return (statement, s.values)
        }
    }

    /// `text` padded to `width`, on the right when `left`.
    static func column(_ text: String, _ width: Int, left: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + pad : pad + text
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func byteCount(_ n: Int) -> String {
        n >= 1 << 20
            ? String(format: "%.1f MiB", Double(n) / 1_048_576)
            : n >= 1 << 10 ? String(format: "%.1f KiB", Double(n) / 1024) : "\(n) B"
    }

    /// VmHWM from /proc/self/status.
    static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "n/a" }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.map { $0.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces) } ?? "n/a"
    }
}
