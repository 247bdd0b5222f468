import Foundation
import SimplexABI

/// Calls into the C ABI the way a C program does, and frees what it returns.
enum C {
    static func take(_ p: UnsafeMutablePointer<CChar>) -> String {
        defer { free(p) }
        return String(cString: p)
    }

    static func json(_ p: UnsafeMutablePointer<CChar>) -> [String: Any] {
        let text = take(p)
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? ["unparsed": text]
    }

    /// A fresh folder for one test's databases and files.
    static func folder() -> String {
        let path = NSTemporaryDirectory() + "simplex-abi-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `chat_migrate_init` on `<folder>/db`: the result and the controller.
    static func open(_ prefix: String, key: String = "", confirm: String = "yesUp") -> ([String: Any], UnsafeMutableRawPointer?) {
        var ctrl: UnsafeMutableRawPointer?
        let result = json(chat_migrate_init(prefix, key, confirm, &ctrl))
        return (result, ctrl)
    }

    static func send(_ ctrl: UnsafeMutableRawPointer?, _ command: String) -> [String: Any] { json(chat_send_cmd(ctrl, command)) }

    /// `result.type` or `error.errorType.type` (or `error.type`).
    static func type(_ envelope: [String: Any]) -> String? {
        if let result = envelope["result"] as? [String: Any] { return result["type"] as? String }
        guard let error = envelope["error"] as? [String: Any] else { return nil }
        return (error["errorType"] as? [String: Any])?["type"] as? String ?? error["type"] as? String
    }
}
