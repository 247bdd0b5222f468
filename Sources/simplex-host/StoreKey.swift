import ChatStore
import Foundation

/// The passphrase the data folder's databases are encrypted with (docs/storage-encryption.md): read from the file of
/// `--db-key-file PATH` or from the environment variable `SIMPLEX_DB_KEY`, never from the command line itself, which
/// every user of the machine can read (`ps`, /proc/PID/cmdline).
struct StoreKey {
    static let environmentVariable = "SIMPLEX_DB_KEY"

    /// As given: a loaded libsimplex takes the text (`chat_migrate_init`'s key).
    let passphrase: String
    /// Only through `databaseKey`: never printed.
    var databaseKey: DatabaseKey? { DatabaseKey(passphrase) }

    /// Why the key could not be had; the command line (or the environment) is wrong.
    struct Failure: Error {
        let message: String
        let hint: String
    }

    /// The key, or nil when neither a file nor the variable gives one (a plaintext store). A file holds the
    /// passphrase, with at most one line break after it (as editors and `echo` leave one). A file others may read
    /// still works, with a warning on standard error.
    static func resolve(file: String?, environment: [String: String]) throws(Failure) -> StoreKey? {
        let fromEnvironment = environment[environmentVariable]
        switch (file, fromEnvironment) {
        case (nil, nil): return nil
        case (_?, _?):
            throw Failure(
                message: "the database key is given twice: by --db-key-file and by \(environmentVariable)",
                hint: "give it one way: unset \(environmentVariable), or leave out --db-key-file")
        case (nil, let text?):
            guard !text.isEmpty else {
                throw Failure(
                    message: "\(environmentVariable) is set but empty",
                    hint: "set it to the passphrase, or unset it for a store without encryption")
            }
            return StoreKey(passphrase: text)
        case (let path?, nil):
            return try read(path)
        }
    }

    /// The key of the host's options and environment, a failure being a wrong command line.
    static func resolved(_ file: String?) throws(StartFailure) -> StoreKey? {
        do { return try resolve(file: file, environment: ProcessInfo.processInfo.environment) } catch {
            throw StartFailure(message: error.message, hint: error.hint, code: .usage)
        }
    }

    static let wrongKeyHint =
        "the databases are encrypted with another key, or not encrypted: give their passphrase with --db-key-file PATH or \(environmentVariable), or none for a store without encryption"

    private static func read(_ path: String) throws(Failure) -> StoreKey {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw Failure(
                message: "cannot read the database key file \(path): \(error.localizedDescription)",
                hint: "--db-key-file takes a file holding the passphrase (chmod 600)")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw Failure(message: "the database key file \(path) is not UTF-8 text", hint: "write the passphrase as text")
        }
        if text.hasSuffix("\r\n") {
            text.removeLast(2)
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty else {
            throw Failure(message: "the database key file \(path) is empty", hint: "write the passphrase in it")
        }
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
            mode & 0o077 != 0
        {
            Say.error(
                "the database key file \(path) can be read by other users (mode \(String(mode, radix: 8)))",
                hint: "chmod 600 \(path)")
        }
        return StoreKey(passphrase: text)
    }
}
