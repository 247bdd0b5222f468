internal import CSQLite
internal import Glibc
internal import SimplexEncoding

/// A change of several of a store's files at once (`/_db encryption`, `/_db import`), made as crash-safe as one
/// SQLite commit (docs/storage-encryption.md, "Switching files"). The new generation of every file is written
/// beside the old one under a staging name and made durable; then the journal `<prefix>_store.switch` is written
/// (to a temporary name, fsynced, renamed, the folder fsynced). The journal's rename is the commit: without a
/// journal the old generation is current and staging files are leftovers, with one the staged generation is
/// current, and the renames it lists are carried out — again, after a crash — until none is left; then the journal
/// is removed.
///
/// This value is the journal and the plan it stands for, with no I/O: `steps(exists:)` says which renames and
/// removals finish the switch from whatever state a crash left, and running them any number of times gives the same
/// files. `StoreSwitch.commit` and `StoreSwitch.recover(prefix:)` carry them out.
public struct StoreSwitch: Sendable, Equatable {
    /// What staged the new generation; it names the staging files and says whether the old files are kept.
    public enum Kind: String, Sendable {
        /// A key change: `<file>-rekey` replaces `<file>`, which is gone.
        case rekey
        /// An import: `<file>-import` replaces `<file>`, which is kept as `<file>.bak`, as the official apps keep it.
        case `import`

        var stagingSuffix: String {
            switch self {
            case .rekey: "-rekey"
            case .import: "-import"
            }
        }
    }

    /// One file operation of a switch.
    public enum Step: Sendable, Equatable {
        case rename(from: String, to: String)
        case remove(String)
    }

    public let kind: Kind
    /// The files switched, by name in the store's folder, in the order they are switched.
    public let files: [String]

    public init(kind: Kind, files: [String]) {
        self.kind = kind
        self.files = files
    }

    static let version: Int64 = 1

    /// The journal of the store at `prefix` (`<prefix>_store.switch`).
    public static func journalPath(prefix: String) -> String { prefix + "_store.switch" }

    /// Where a file's new generation is staged for a switch of `kind`.
    public static func stagingPath(of file: String, kind: Kind) -> String { file + kind.stagingSuffix }

    /// Where an import keeps the file it replaced.
    public static func backupPath(of file: String) -> String { file + ".bak" }

    /// The journal's bytes: one JSON object, `{"files":[…],"switch":"rekey","version":1}`.
    public var encoded: [UInt8] {
        let json = CanonicalJSON.object([
            "version": .integer(Self.version), "switch": .string(kind.rawValue), "files": .array(files.map { .string($0) }),
        ])
        return Array(json.rendered.utf8)
    }

    /// A journal, or nil for bytes that are not one this version wrote. A file name with a `/`, or `.`/`..`, is
    /// refused: the journal only ever names files beside itself.
    public init?(decoding bytes: [UInt8]) {
        guard let json = try? CanonicalJSON.parse(bytes), json["version"]?.integerValue == Self.version,
            let kind = json["switch"]?.stringValue.flatMap(Kind.init(rawValue:)),
            case .array(let items)? = json["files"]
        else { return nil }
        var files: [String] = []
        for item in items {
            guard let name = item.stringValue, !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
                return nil
            }
            files.append(name)
        }
        guard !files.isEmpty else { return nil }
        self.init(kind: kind, files: files)
    }

    /// The steps that put the staged generation in place in `folder`, given which paths exist now. A file whose
    /// staging copy is gone was switched already. Its WAL and wal-index go first: the old file was checkpointed and
    /// closed, so they hold nothing, and left in place SQLite would read them with the new file.
    public func steps(folder: String, exists: (String) -> Bool) -> [Step] {
        var steps: [Step] = []
        for name in files {
            let target = folder + "/" + name
            let staging = Self.stagingPath(of: target, kind: kind)
            guard exists(staging) else { continue }
            if kind == .import, exists(target) { steps.append(.rename(from: target, to: Self.backupPath(of: target))) }
            for companion in SQLiteDatabase.companionFiles(of: target) where exists(companion) {
                steps.append(.remove(companion))
            }
            steps.append(.rename(from: staging, to: target))
        }
        return steps
    }

    /// The staging files a switch that never committed may have left beside `files` (with SQLite's companions).
    public static func leftovers(of files: [String]) -> [String] {
        files.flatMap { file in
            [Kind.rekey, Kind.import].flatMap { kind in
                let staging = stagingPath(of: file, kind: kind)
                return [staging, staging + "-journal"] + SQLiteDatabase.companionFiles(of: staging)
            }
        }
    }
}

/// Why a switch could not be made or finished.
public struct StoreSwitchError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    init(_ message: String) { self.message = message }
    init(_ error: SQLiteError) { message = error.message }
}

extension StoreSwitch {
    /// Commits a switch whose new files are staged and durable: writes the journal (the commit), carries out the
    /// renames, and removes the journal.
    public func commit(prefix: String) throws(StoreSwitchError) {
        let journal = Self.journalPath(prefix: prefix)
        let pending = journal + "-new"
        let folder = Self.folder(of: prefix)
        // A staged file gone before the commit (removed by an open of the store elsewhere) would switch nothing.
        for name in files where !Self.exists(Self.stagingPath(of: folder + "/" + name, kind: kind)) {
            throw StoreSwitchError("\(name)\(kind.stagingSuffix) is gone before the switch: nothing was changed")
        }
        do {
            try FileBytes.writeNew(pending, encoded)
            try FileBytes.replace(journal, with: pending)
        } catch {
            try? FileBytes.remove(pending)
            throw StoreSwitchError(error)
        }
        try finish(prefix: prefix)
    }

    /// Carries out the journal's steps, then removes it; the steps start from the files as they are, so this also
    /// finishes a switch interrupted at any point.
    func finish(prefix: String) throws(StoreSwitchError) {
        let folder = Self.folder(of: prefix)
        do throws(SQLiteError) {
            for step in steps(folder: folder, exists: Self.exists) {
                switch step {
                case .remove(let path): try FileBytes.remove(path)
                case .rename(let from, let to):
                    guard rename(from, to) == 0 else { throw FileBytes.ioError("rename", from) }
                }
            }
            try FileBytes.sync(folder)
            try FileBytes.remove(Self.journalPath(prefix: prefix))
            try FileBytes.sync(folder)
        } catch {
            throw StoreSwitchError(error)
        }
    }

    /// At start, before any file of the store at `prefix` is opened: finishes a switch whose journal exists, and
    /// removes what a switch that never committed left (staging files, a journal not yet renamed into place), so the
    /// store is wholly one generation. `files` are the store's database files. A journal that does not read is an
    /// error: which generation is current is then unknown, and guessing could lose the newer one.
    public static func recover(prefix: String, files: [String]) throws(StoreSwitchError) {
        let journal = journalPath(prefix: prefix)
        try? FileBytes.remove(journal + "-new")
        if exists(journal) {
            guard let bytes = FileBytes.prefix(journal, count: 1 << 16),
                let pending = StoreSwitch(decoding: bytes)
            else {
                throw StoreSwitchError(
                    "\(journal) is not a store switch journal this version can read; move it away only "
                        + "after checking which of the files beside it are current")
            }
            try pending.finish(prefix: prefix)
        }
        // Leftovers do not decide the generation: one that cannot be removed fails the next switch instead, in its place.
        for leftover in leftovers(of: files) where exists(leftover) { try? FileBytes.remove(leftover) }
    }

    static func folder(of prefix: String) -> String {
        guard let slash = prefix.lastIndex(of: "/") else { return "." }
        return slash == prefix.startIndex ? "/" : String(prefix[..<slash])
    }

    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}

extension ChatDatabases {
    /// `/_db import`: replaces both files of this closed store by `chat` and `agent` (already checked with
    /// `checkReplacement`), through the store's journal, so a crash leaves either the old store or the new one. Each is
    /// moved (or, from another volume, copied) beside its target as `<file>-import` and made durable; the switch then
    /// keeps each old file as `<file>.bak`, as the official apps do. Returns the backups' paths (the files that
    /// existed).
    public func replaceFiles(chat: String, agent: String) throws(StoreSwitchError) -> [String] {
        let targets = Self.files(prefix: prefix)
        let pairs = [(chat, targets.chat), (agent, targets.agent)]
        try StoreSwitch.recover(prefix: prefix, files: [targets.chat, targets.agent])
        let backups = pairs.map(\.1).filter(StoreSwitch.exists).map(StoreSwitch.backupPath(of:))
        do throws(SQLiteError) {
            for (source, target) in pairs {
                let staging = StoreSwitch.stagingPath(of: target, kind: .import)
                try FileBytes.remove(staging)
                if rename(source, staging) != 0 {
                    guard errno == EXDEV else { throw FileBytes.ioError("rename", source) }
                    try FileBytes.copy(source, to: staging)
                }
                try FileBytes.sync(staging)
            }
        } catch {
            for leftover in StoreSwitch.leftovers(of: [targets.chat, targets.agent]) { try? FileBytes.remove(leftover) }
            throw StoreSwitchError(error)
        }
        try StoreSwitch(kind: .import, files: [targets.chat, targets.agent].map(StoreSwitch.name(of:))).commit(prefix: prefix)
        return backups
    }
}

extension FileBytes {
    /// Copies a file's bytes into a new file (made or emptied), for a move across volumes; the copy is not yet durable.
    static func copy(_ source: String, to target: String) throws(SQLiteError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ioError("open", source) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw ioError("open", target) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ioError("read", source) }
            if n == 0 { return }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { write(output, $0 + written, n - written) } ?? 0
                }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw ioError("write", target) }
                written += w
            }
        }
    }
}

// A key change of files that must follow another store's (the host's own files beside a loaded library's): staged
// before the other store changes, committed after it did, and, should a crash come between, adopted at the next start
// when the key that opened the other store opens the staged files and not the current ones.
extension ChatDatabases {
    /// Writes both closed files under `new` to their staging names and makes them durable; nothing is switched.
    public static func stageKeyChange(prefix: String, current: DatabaseKey?, new: DatabaseKey?) throws(KeyError) {
        let files = Self.files(prefix: prefix)
        try recoverSwitch(prefix: prefix)
        for file in [files.chat, files.agent] {
            try checkCurrent(file, key: current)
            do { _ = try SQLiteDatabase(path: file, key: current) } catch { throw .errorOpen(error) }
        }
        do {
            for file in [files.chat, files.agent] { _ = try SQLiteDatabase.stageKeyChange(path: file, from: current, to: new) }
        } catch {
            discardStagedKeyChange(prefix: prefix)
            throw .errorExport(error)
        }
    }

    /// Switches both files to what `stageKeyChange` wrote, through the store's journal.
    public static func commitStagedKeyChange(prefix: String) throws(KeyError) {
        let files = Self.files(prefix: prefix)
        do {
            try StoreSwitch(kind: .rekey, files: [files.chat, files.agent].map(StoreSwitch.name(of:))).commit(prefix: prefix)
        } catch {
            throw .errorExport(SQLiteError(code: SQLITE_IOERR, message: error.message))
        }
    }

    /// Removes what `stageKeyChange` wrote (the other store's change did not happen).
    public static func discardStagedKeyChange(prefix: String) {
        let files = Self.files(prefix: prefix)
        for leftover in StoreSwitch.leftovers(of: [files.chat, files.agent]) { try? FileBytes.remove(leftover) }
    }

    /// At start: when both staged files open with `key` and the current chat file does not, the other store's key
    /// change was made and this one's was cut short before its commit; it is committed now. True when it was.
    @discardableResult
    public static func adoptStagedKeyChange(prefix: String, key: DatabaseKey?) throws(KeyError) -> Bool {
        let files = Self.files(prefix: prefix)
        let staged = [files.chat, files.agent].map { StoreSwitch.stagingPath(of: $0, kind: .rekey) }
        guard !StoreSwitch.exists(StoreSwitch.journalPath(prefix: prefix)),
            staged.allSatisfy({ isInTargetState($0, key) }), !isInTargetState(files.chat, key)
        else { return false }
        try commitStagedKeyChange(prefix: prefix)
        return true
    }
}
