// simplex-bench core: the embedded chat core's item queries on a large notes folder. Each command runs through the
// engine (parse, store, JSON) beside the same SQL the store issues, prepared once and stepped directly on the same
// database; the ratio is the core's overhead. The query plans show which indexes each statement uses.
import ChatCore
import ChatStore
import Foundation

enum CoreBenchmark {
    /// Fills a fresh store with `items` notes and times the commands `rounds` times each.
    static func run(items: Int, rounds: Int, only: String? = nil) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-bench-core-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let prefix = folder.appendingPathComponent("bench").path
        let engine = try ChatEngine(prefix: prefix)
        _ = await engine.execute(#"/_create user {"profile":{"displayName":"bench","fullName":""},"pastTimestamp":false}"#)
        _ = await engine.execute("/_start")
        let db = try SQLiteDatabase(path: ChatDatabases.files(prefix: prefix).chat)

        var start = now()
        // Every 1000th note holds the searched word, so a search page reads about 50,000 notes.
        let texts = (1...max(1, items)).lazy.map { $0 % 1000 == 0 ? "note \($0) needle" : "note \($0)" }
        try ItemStoreProbe.fillNotes(db, userId: 1, noteFolderId: 1, texts: texts, from: UTCTime(seconds: 1_700_000_000))
        print(String(format: "filled 1 notes folder with %d items in %.1f s (one transaction)", items, now() - start))

        let middle = Int64(max(1, items / 2))
        let cases: [(String, String, [ItemStoreProbe.Statement])] = [
            (
                "last page", "/_get chat *1 count=50",
                ItemStoreProbe.lastPage(userId: 1, noteFolderId: 1, count: 50)
            ),
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
        func column(_ text: String, _ width: Int, left: Bool = false) -> String {
            let pad = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + pad : pad + text
        }
        print(
            column("command", 20, left: true) + column("core ms", 10) + column("SQL ms", 10) + column("ratio", 9)
                + "   (SQL: the store's statements prepared once, same database; \(rounds) rounds)")
        var plans: [(String, [String])] = []
        for (name, line, statements) in cases where only == nil || name.hasPrefix(only ?? "") {
            let reply = await engine.execute(line).text
            guard reply.hasPrefix(#"{"result":"#) else {
                print("\(name): \(line) failed: \(reply.prefix(300))")
                continue
            }
            start = now()
            for _ in 0..<rounds { _ = await engine.execute(line) }
            let core = (now() - start) / Double(rounds) * 1000
            let prepared = try statements.map { s in
                let statement = try db.prepare(s.sql)
                return (statement, s.values)
            }
            var rows = 0
            start = now()
            for _ in 0..<rounds {
                for (statement, values) in prepared {
                    try statement.bind(values)
                    while try statement.step() { rows &+= statement.row.count }
                }
            }
            let direct = (now() - start) / Double(rounds) * 1000
            print(
                column(name, 20, left: true) + column(String(format: "%.3f", core), 10)
                    + column(String(format: "%.3f", direct), 10) + column(String(format: "%.2fx", core / direct), 9))
            var lines: [String] = []
            for s in statements {
                let plan = try db.query("EXPLAIN QUERY PLAN " + s.sql, s.values).compactMap { $0.last?.text }
                lines.append("  " + s.sql.split(whereSeparator: \.isNewline).joined(separator: " ").prefix(110) + "…")
                lines += plan.map { "      " + $0 }
            }
            plans.append(("\(name) (\(line))", lines))
            if rows == -1 { print("") }  // keeps the reads observable to the optimiser
        }
        print("\nquery plans:")
        for (name, lines) in plans {
            print(name)
            for line in lines { print(line) }
        }
        print("\npeak memory (VmHWM): \(peakMemory())")
    }

    /// VmHWM from /proc/self/status.
    static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "n/a" }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.map { $0.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces) } ?? "n/a"
    }
}
