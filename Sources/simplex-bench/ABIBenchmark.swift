import ChatCore
import Foundation
import SimplexABI

/// Commands per second through libsimplex's C ABI (`chat_send_cmd`: C strings in, a malloc'd answer out, the command run on
/// the calling thread under the engine's lock) beside the same commands through the in-process Swift API
/// (`await ChatEngine.execute`), in the same run, each on its own store. Rounds alternate to spread the noise.
enum ABIBenchmark {
    static let commands: [(name: String, line: @Sendable (Int) -> String)] = [
        ("/_get chats", { _ in "/_get chats 1 pcc=on" }),
        ("create a note", { i in #"/_create *1 json [{"msgContent":{"type":"text","text":"note \#(i)"}}]"# }),
        ("/_ttl (a write)", { i in "/_ttl 1 \(86400 * (1 + i % 2))" }),
    ]

    static func run(seconds: Double) async throws {
        let folder = NSTemporaryDirectory() + "simplex-bench-abi-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let engine = try ChatEngine(prefix: folder + "/swift")
        var ctrl: UnsafeMutableRawPointer?
        let opened = take(chat_migrate_init(folder + "/c", "", "yesUp", &ctrl))
        guard opened == #"{"type":"ok"}"#, let ctrl else { throw BenchFailure("chat_migrate_init: \(opened)") }
        let handle = ControllerHandle(ctrl)
        for line in ["/create user alice", "/_start"] {
            _ = await engine.execute(line)
            _ = take(chat_send_cmd(ctrl, line))
        }

        print("commands through the C ABI beside the in-process Swift API (same run, \(seconds) s x 3 rounds each)")
        print(pad("command", 18, left: true) + pad("C ABI/s", 11) + pad("Swift/s", 11) + pad("ratio", 8) + "   answer")
        for command in commands {
            let answer = String(take(chat_send_cmd(ctrl, command.line(0))).prefix(90))
            var abi = 0.0
            var swift = 0.0
            for _ in 0..<3 {
                abi += await onThread { rate(seconds) { i in free(chat_send_cmd(handle.pointer, command.line(i))) } }
                swift += await Task.detached { await asyncRate(seconds) { i in _ = await engine.execute(command.line(i)) } }.value
            }
            print(
                pad(command.name, 18, left: true) + pad(String(format: "%.0f", abi / 3), 11)
                    + pad(String(format: "%.0f", swift / 3), 11) + pad(String(format: "%.0f%%", 100 * abi / swift), 8) + "   "
                    + answer)
        }
    }

    /// The controller pointer, handed to the thread that calls the C ABI.
    struct ControllerHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
        init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
    }

    struct BenchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func take(_ p: UnsafeMutablePointer<CChar>) -> String {
        defer { free(p) }
        return String(cString: p)
    }

    /// Calls per second of `body(i)`, for at least `seconds`.
    static func rate(_ seconds: Double, _ body: (Int) -> Void) -> Double {
        let start = now()
        var n = 0
        while true {
            body(n)
            n += 1
            if n % 16 == 0, now() - start >= seconds { return Double(n) / (now() - start) }
        }
    }

    static func asyncRate(_ seconds: Double, _ body: (Int) async -> Void) async -> Double {
        let start = now()
        var n = 0
        while true {
            await body(n)
            n += 1
            if n % 16 == 0, now() - start >= seconds { return Double(n) / (now() - start) }
        }
    }

    /// Runs blocking C calls on a thread of their own, as a C program would, off Swift's concurrency pool.
    static func onThread(_ body: @escaping @Sendable () -> Double) async -> Double {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}
