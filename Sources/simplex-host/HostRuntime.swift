import ChatStore
import Foundation
import SimplexEncoding
import SimplexHost

/// Why the host could not start, with the exit code and a hint for a person.
struct StartFailure: Error {
    let message: String
    let hint: String?
    let code: ExitCode
}

/// The data folder: private to its owner, since it holds the pairing keys and the chat databases.
struct DataFolder {
    let url: URL

    var databasePrefix: String { url.appendingPathComponent("simplex_v1").path }
    /// Where the host keeps its pairings when a loaded libsimplex owns `simplex_v1_*`: that core has its own schema
    /// (the official core's, with its own SQLite inside), so the host's tables live in files of their own.
    var hostStorePrefix: String { url.appendingPathComponent("simplex_host").path }
    var filesFolder: URL { url.appendingPathComponent("files") }
    private var deviceNameFile: URL { url.appendingPathComponent("device-name") }

    /// Creates the folder (0700) and tightens what an older version or a copy left readable: the folder to 0700,
    /// the files in it to 0600. Everything the process creates afterwards is private by its umask.
    func prepare() throws(StartFailure) {
        umask(0o077)
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
                let path = url.appendingPathComponent(name).path
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
                try FileManager.default.setAttributes([.posixPermissions: isFolder.boolValue ? 0o700 : 0o600], ofItemAtPath: path)
            }
            try removeUnfinishedUploads()
        } catch {
            throw StartFailure(
                message: "cannot use the data folder \(url.path): \(error.localizedDescription)",
                hint: "choose another with --data DIR", code: .storage)
        }
    }

    /// Uploads cut off by a crash or a kill stay behind under temporary names: they are never files of the chat.
    private func removeUnfinishedUploads() throws {
        guard FileManager.default.fileExists(atPath: filesFolder.path) else { return }
        for name in try FileManager.default.contentsOfDirectory(atPath: filesFolder.path) where name.hasPrefix(".upload-") {
            try FileManager.default.removeItem(at: filesFolder.appendingPathComponent(name))
        }
    }

    /// The device name kept by `simplex-host name`.
    var storedDeviceName: String? {
        guard let data = FileManager.default.contents(atPath: deviceNameFile.path) else { return nil }
        let name = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }

    func storeDeviceName(_ name: String) throws(StartFailure) {
        do { try Data((name + "\n").utf8).write(to: deviceNameFile, options: .atomic) } catch {
            throw StartFailure(
                message: "cannot keep the device name in \(deviceNameFile.path): \(error.localizedDescription)", hint: nil,
                code: .storage)
        }
    }
}

/// The host, wired: the core, the pairing store and `HostWiring` (event router, session bridge, remote-control service,
/// command router and, with `--reconnect`, the reconnector). Each mode says where events go.
final class HostRuntime: Sendable {
    let folder: DataFolder
    let backend: any ChatBackend
    let deviceName: String
    private let wiring: HostWiring

    var remoteControl: HostRemoteControl { wiring.remoteControl }
    var router: CommandRouter { wiring.router }
    var reconnector: Reconnector? { wiring.reconnector }

    /// What the host tells its user.
    typealias Output = HostWiring.Output

    init(options: Options, output: Output) async throws(StartFailure) {
        folder = DataFolder(url: options.dataFolder)
        let key = try StoreKey.resolved(options.databaseKeyFile)
        try folder.prepare()
        // A loaded library opens (and migrates) the databases first, so its own DBMigrationResult says what is wrong.
        let library = try await Self.loadLibrary(options.coreLibrary, key: key, folder: folder)
        let store: ChatStoreActor
        do {
            if library != nil {
                // The library's files opened with this key: the host's own follow a key change of theirs that a crash
                // cut short between the library's switch and the host's.
                do { try ChatDatabases.adoptStagedKeyChange(prefix: folder.hostStorePrefix, key: key?.databaseKey) } catch {
                    throw ChatDatabases.OpenError.errorSQL(dbFile: folder.hostStorePrefix, "\(error)")
                }
            }
            store = try ChatStoreActor(
                prefix: library == nil ? folder.databasePrefix : folder.hostStorePrefix, key: key?.databaseKey,
                confirmation: .yesUp)
            if let library {
                backend = library
            } else {
                backend = try CoreBackend.make(prefix: folder.databasePrefix, key: key?.databaseKey)
            }
            try await CoreBackend.setFilePaths(of: backend, dataFolder: folder.url)
        } catch ChatDatabases.OpenError.errorNotADatabase(let file) {
            throw StartFailure(
                message: "\(file) does not open \(key == nil ? "without a key" : "with this key")",
                hint: StoreKey.wrongKeyHint, code: .storage)
        } catch {
            throw StartFailure(
                message: "cannot open the databases in \(folder.url.path): \(error)",
                hint: "is another simplex-host using an older copy? --data DIR chooses another folder", code: .storage)
        }
        deviceName = options.deviceName ?? folder.storedDeviceName ?? ProcessInfo.processInfo.hostName

        var settings = HostWiring.Settings(deviceName: deviceName)
        if let bound = options.eventQueue { settings.eventQueue = bound }
        if let g = options.multicastGroup { settings.multicast.group = g }
        if let p = options.multicastPort { settings.multicast.port = p }
        settings.multicast.interfaceAddress = options.multicastInterface
        if let t = options.timeouts["connect"] { settings.timeouts.connect = t }
        if let t = options.timeouts["tls"] { settings.timeouts.tls = t }
        if let t = options.timeouts["hello"] { settings.timeouts.hello = t }
        if let t = options.timeouts["discovery"] { settings.timeouts.discovery = t }
        if let k = options.keepAlive {
            settings.timeouts.keepAlive = .init(idle: k.idle, interval: k.interval, probes: k.probes)
        }
        settings.reconnect = options.reconnect
        let filesFolder = folder.filesFolder
        wiring = HostWiring(
            backend: backend, store: store, storeFiles: HostStoreFiles(store: store, sharedWithCore: library == nil),
            filesFolder: { filesFolder }, settings: settings, output: output)
    }

    /// `--core-lib PATH`: the library, loaded and opened on the data folder's databases.
    private static func loadLibrary(_ path: String?, key: StoreKey?, folder: DataFolder) async throws(StartFailure)
        -> LibraryCore?
    {
        guard let path else { return nil }
        do {
            return try await LibraryCore.load(path: path, prefix: folder.databasePrefix, key: key?.passphrase ?? "")
        } catch {
            switch error {
            case .notLoadable, .missingFunction:
                throw StartFailure(
                    message: error.description, hint: "--core-lib takes the path of a libsimplex.so", code: .coreLibrary)
            case .migration(let type, _) where type == "errorNotADatabase":
                throw StartFailure(message: error.description, hint: StoreKey.wrongKeyHint, code: .storage)
            case .migration:
                throw StartFailure(
                    message: error.description, hint: "was the data folder made by another core? --data DIR chooses another",
                    code: .storage)
            }
        }
    }

    /// A person's modes start the chat as the apps do: with the profile there is (or `--profile NAME` creates).
    func startChat(profile: String?) async throws(StartFailure) {
        let user = await backend.execute("/user")
        if user.starts(with: Array(#"{"error""#.utf8)) {
            guard let profile else {
                throw StartFailure(
                    message: "there is no chat profile yet", hint: "add --profile NAME once to create it (desktops show it)",
                    code: .noProfile)
            }
            let created = await backend.execute("/create user \(profile)")
            if created.starts(with: Array(#"{"error""#.utf8)) {
                throw StartFailure(
                    message: "cannot create the profile \(profile): \(String(decoding: created, as: UTF8.self))",
                    hint: "a profile name is one word; use another", code: .failed)
            }
        }
        let started = await backend.execute("/_start")
        if started.starts(with: Array(#"{"error""#.utf8)) {
            throw StartFailure(
                message: "cannot start the chat: \(String(decoding: started, as: UTF8.self))", hint: nil, code: .failed)
        }
    }

    /// Ends a session and stops the event loops (a signal, the end of input, the subcommand done).
    func shutdown() async { await wiring.shutdown() }
}
