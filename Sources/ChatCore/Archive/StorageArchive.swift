internal import ChatStore
internal import Foundation
internal import SimplexArchive

/// The archive of a chat store, in the layout of the official apps (simplex-chat `Archive.hs`): both databases at
/// the top, the files folder's files under `simplex_v1_files/`, the wallpapers under `simplex_v1_assets/wallpapers/`.
/// Only the folders' own files go in, not their subfolders, as the apps do.
///
/// Entries stream between the files and the archive, so a large files folder is never held in memory; the databases
/// are first copied consistently (`VACUUM INTO`) into a temporary folder.
struct StorageArchive {
    static let chatDatabase = "simplex_v1_chat.db"
    static let agentDatabase = "simplex_v1_agent.db"
    static let filesFolder = "simplex_v1_files"
    static let assetsFolder = "simplex_v1_assets"
    static let wallpapersFolder = "wallpapers"

    let databases: ChatDatabases
    /// The core's folders (`/set file paths`); a folder not set is left out.
    let files: String?
    let assets: String?

    private var fileManager: FileManager { .default }

    // MARK: Export

    func export(_ config: ArchiveConfig) throws(ChatError) -> [ArchiveError] {
        let temp = try temporaryFolder(config)
        defer { try? fileManager.removeItem(atPath: temp) }
        let chatCopy = temp + "/" + Self.chatDatabase
        let agentCopy = temp + "/" + Self.agentDatabase
        do {
            try databases.chat.copy(to: chatCopy)
            try databases.agent.copy(to: agentCopy)
        } catch {
            throw .database(error)
        }
        let method: ZipWriter.Method = config.disableCompression ? .stored : .deflated
        // The archive is written under a name of its own beside the destination and renamed onto it only when
        // whole, so an export that fails or is killed half way leaves a previous archive of that name as it was.
        let destination = config.archivePath
        removePartialExports(of: destination)
        let partial = Self.partialExportPath(of: destination)
        let sink: FileZipSink
        do { sink = try FileZipSink(creating: partial) } catch { throw .error(.exception(error.archiveMessage)) }
        let writer = ZipWriter(sink: sink)
        do {
            try add(chatCopy, as: Self.chatDatabase, to: writer, method: method)
            try add(agentCopy, as: Self.agentDatabase, to: writer, method: method)
            var errors: [ArchiveError] = []
            if let files {
                errors += addFolder(files, as: Self.filesFolder, to: writer, method: method)
            }
            if let assets {
                let wallpapers = assets + "/" + Self.wallpapersFolder
                if fileManager.fileExists(atPath: wallpapers) {
                    errors += addFolder(
                        wallpapers, as: Self.assetsFolder + "/" + Self.wallpapersFolder, to: writer, method: method)
                }
            }
            try writer.finish()
            try sink.close()
            guard rename(partial, destination) == 0 else {
                throw ZipError.io("rename \(partial): \(String(cString: strerror(errno)))")
            }
            Self.syncFolder(of: destination)
            return errors
        } catch {
            try? fileManager.removeItem(atPath: partial)
            throw .error(.exception(error.archiveMessage))
        }
    }

    /// `<folder>/.<name>.export-<UUID>`: hidden, in the destination's folder so that the rename stays on one volume.
    static func partialExportPath(of destination: String) -> String {
        let url = URL(fileURLWithPath: destination)
        return url.deletingLastPathComponent().path + "/" + partialExportPrefix(of: url.lastPathComponent) + UUID().uuidString
    }

    private static func partialExportPrefix(of name: String) -> String { "." + name + ".export-" }

    /// What an export killed half way left beside the same destination.
    private func removePartialExports(of destination: String) {
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        let prefix = Self.partialExportPrefix(of: url.lastPathComponent)
        guard let names = try? fileManager.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            try? fileManager.removeItem(atPath: folder + "/" + name)
        }
    }

    /// Makes a rename in the folder durable.
    static func syncFolder(of path: String) {
        let fd = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    /// The folder's regular files, each as `<prefix>/<name>`; a file that cannot be added is an `ArchiveError`, the
    /// others go in.
    private func addFolder(_ folder: String, as prefix: String, to writer: ZipWriter, method: ZipWriter.Method)
        -> [ArchiveError]
    {
        let names: [String]
        do { names = try fileManager.contentsOfDirectory(atPath: folder).sorted() } catch {
            return [.fileError(file: folder, fileError: error.localizedDescription)]
        }
        var errors: [ArchiveError] = []
        for name in names {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            do {
                try add(path, as: prefix + "/" + name, to: writer, method: method)
            } catch {
                errors.append(.fileError(file: name, fileError: error.archiveMessage))
            }
        }
        return errors
    }

    /// Streams one file into the archive; an entry whose file fails half way is taken back out.
    private func add(_ path: String, as name: String, to writer: ZipWriter, method: ZipWriter.Method) throws(ZipError) {
        let source = try FileZipSource(path: path)
        let modified = (try? fileManager.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        try writer.beginEntry(
            name: name, method: method, modified: DOSTimestamp(secondsSince1970: Int64(modified.timeIntervalSince1970)),
            expectedSize: source.size)
        do {
            var position: UInt64 = 0
            while position < source.size {
                let n = Int(min(64 * 1024, source.size - position))
                try writer.write(try source.read(at: position, count: n))
                position += UInt64(n)
            }
            try writer.endEntry()
        } catch {
            try? writer.abandonEntry()
            throw error
        }
    }

    // MARK: Import

    /// The most an archive may expand to, whatever the free space: far above any chat store, far below a bomb's
    /// declared terabytes.
    static let maxExpandedBytes: UInt64 = 64 << 30
    /// Room kept free on a volume beside what an import writes there.
    static let freeSpaceMargin: UInt64 = 64 << 20

    /// Checks the archive as a whole before anything is written (no duplicate or symbolic-link entry, and what it
    /// declares fits the free space and `maxExpandedBytes`), extracts it into a temporary folder, expanding no entry
    /// past its declared size, and checks both databases there (`ChatDatabases.checkReplacement`: header, the store's
    /// key, integrity, schema). Only then it closes the store and switches both files together
    /// (`ChatDatabases.replaceFiles`: a crash leaves the old store or the new one), the old ones kept as
    /// `<database>.bak` beside them as the apps do (the answer has no field to say so: `archiveErrors` are errors);
    /// then the files and wallpapers, each file replacing one of the same name. Entries whose names would leave the
    /// folder are refused one by one.
    func importArchive(_ config: ArchiveConfig) throws(ChatError) -> [ArchiveError] {
        let reader: ZipReader
        do { reader = try ZipReader(source: try FileZipSource(path: config.archivePath)) } catch {
            throw .error(.exception(error.archiveMessage))
        }
        let wanted = try plan(reader.entries, archive: config.archivePath)
        let temp = try temporaryFolder(config)
        defer { try? fileManager.removeItem(atPath: temp) }
        try checkFreeSpace(for: wanted, temp: temp, archive: config.archivePath)
        let extractedFiles = temp + "/" + Self.filesFolder
        let extractedWallpapers = temp + "/" + Self.wallpapersFolder
        var errors: [ArchiveError] = []
        var found: Set<String> = []
        for (entry, path) in wanted {
            guard let path else {
                errors.append(.fileError(file: entry.name, fileError: ZipError.unsafeName(entry.name).message))
                continue
            }
            if path == [Self.chatDatabase] || path == [Self.agentDatabase] {
                do { try extract(entry, from: reader, to: temp + "/" + path[0]) } catch {
                    throw .error(.exception(error.archiveMessage))
                }
                found.insert(path[0])
            } else if path.count == 2, path[0] == Self.filesFolder {
                errors += extractFile(entry, from: reader, into: extractedFiles, name: path[1])
            } else if path.count == 3, path[0] == Self.assetsFolder, path[1] == Self.wallpapersFolder {
                errors += extractFile(entry, from: reader, into: extractedWallpapers, name: path[2])
            }
        }
        for name in [Self.chatDatabase, Self.agentDatabase] where !found.contains(name) {
            throw .error(.exception("\(config.archivePath): the archive has no \(name)"))
        }
        do {
            try ChatDatabases.checkReplacement(
                chat: temp + "/" + Self.chatDatabase, agent: temp + "/" + Self.agentDatabase, key: databases.key,
                names: (Self.chatDatabase, Self.agentDatabase))
        } catch {
            throw .errorDatabase(DatabaseError(error))
        }

        databases.close()
        do {
            _ = try databases.replaceFiles(chat: temp + "/" + Self.chatDatabase, agent: temp + "/" + Self.agentDatabase)
        } catch {
            throw .error(.exception(error.message))
        }
        if let files {
            errors += moveFolderFiles(extractedFiles, into: files)
        }
        if let assets {
            errors += moveFolderFiles(extractedWallpapers, into: assets + "/" + Self.wallpapersFolder)
        }
        return errors
    }

    /// The entries an import extracts, with their paths (nil: a name that would leave the folder, refused alone);
    /// folders and what is not part of a chat store (the apps ignore it too) are left out. An archive with a
    /// symbolic link, or with two entries for one path, is refused: which of two would count is anyone's guess, and
    /// no export makes either.
    private func plan(_ entries: [ZipEntry], archive: String) throws(ChatError) -> [(ZipEntry, [String]?)] {
        var seen: Set<[String]> = []
        var out: [(ZipEntry, [String]?)] = []
        for entry in entries where !entry.isDirectory {
            guard !entry.isSymbolicLink else {
                throw .error(.exception("\(archive): \(entry.name) is a symbolic link, not a file"))
            }
            guard let path = try? entry.safePath() else {
                out.append((entry, nil))
                continue
            }
            guard seen.insert(path).inserted else {
                throw .error(.exception("\(archive): the archive has \(path.joined(separator: "/")) more than once"))
            }
            let isStore =
                path == [Self.chatDatabase] || path == [Self.agentDatabase]
                || (path.count == 2 && path[0] == Self.filesFolder)
                || (path.count == 3 && path[0] == Self.assetsFolder && path[1] == Self.wallpapersFolder)
            if isStore { out.append((entry, path)) }
        }
        return out
    }

    /// What the entries declare against `maxExpandedBytes` and the free space: all of it in the temporary folder, and
    /// on the store's volume the `.bak` copies of the current databases, plus the extracted files when the
    /// temporary folder is elsewhere (they are copied, not renamed, across volumes).
    private func checkFreeSpace(for wanted: [(ZipEntry, [String]?)], temp: String, archive: String) throws(ChatError) {
        var declared: UInt64 = 0
        for (entry, path) in wanted where path != nil {
            let (sum, overflow) = declared.addingReportingOverflow(entry.uncompressedSize)
            declared = overflow ? .max : sum
        }
        guard declared <= Self.maxExpandedBytes else {
            let limit = Self.maxExpandedBytes
            throw .error(.exception("\(archive): the archive declares \(declared) bytes, more than the \(limit) an import takes"))
        }
        let store = URL(fileURLWithPath: databases.prefix).deletingLastPathComponent().path
        let current = databases.paths.reduce(UInt64(0)) { $0 + (Self.size(of: $1) ?? 0) }
        let sameVolume = Self.volume(of: temp) != nil && Self.volume(of: temp) == Self.volume(of: store)
        let needs: [(folder: String, bytes: UInt64)] =
            sameVolume ? [(temp, declared + current)] : [(temp, declared), (store, current + declared)]
        for (folder, bytes) in needs {
            guard let free = Self.freeBytes(of: folder) else { continue }
            guard bytes + Self.freeSpaceMargin <= free else {
                let margin = Self.freeSpaceMargin
                throw .error(
                    .exception("\(archive): importing needs \(bytes) bytes in \(folder), which has \(free) free (\(margin) kept)")
                )
            }
        }
    }

    private static func size(of path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(max(0, st.st_size)) : nil
    }

    private static func volume(of path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_dev) : nil
    }

    private static func freeBytes(of path: String) -> UInt64? {
        var fs = statvfs()
        guard statvfs(path, &fs) == 0 else { return nil }
        return UInt64(fs.f_bavail) * UInt64(fs.f_frsize)
    }

    private func extract(_ entry: ZipEntry, from reader: ZipReader, to path: String) throws(ZipError) {
        let sink = try FileZipSink(creating: path)
        do {
            try reader.extract(entry, to: sink)
            try sink.close()
        } catch {
            try? fileManager.removeItem(atPath: path)
            throw error
        }
    }

    private func extractFile(_ entry: ZipEntry, from reader: ZipReader, into folder: String, name: String) -> [ArchiveError] {
        do {
            try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            return [.importError(error.localizedDescription)]
        }
        do { try extract(entry, from: reader, to: folder + "/" + name) } catch {
            return [.fileError(file: name, fileError: error.archiveMessage)]
        }
        return []
    }

    /// Moves each file of `from` into `to` (created if missing). A folder the archive did not have moves nothing.
    private func moveFolderFiles(_ from: String, into to: String) -> [ArchiveError] {
        guard fileManager.fileExists(atPath: from) else { return [] }
        let names: [String]
        do {
            try fileManager.createDirectory(atPath: to, withIntermediateDirectories: true)
            names = try fileManager.contentsOfDirectory(atPath: from).sorted()
        } catch {
            return [.importError(error.localizedDescription)]
        }
        var errors: [ArchiveError] = []
        for name in names {
            do { try moveReplacing(from + "/" + name, to: to + "/" + name) } catch {
                errors.append(.fileError(file: name, fileError: error.localizedDescription))
            }
        }
        return errors
    }

    /// A rename when both are on one volume, else a copy (temporary folders are often elsewhere).
    private func moveReplacing(_ from: String, to: String) throws {
        if fileManager.fileExists(atPath: to) { try fileManager.removeItem(atPath: to) }
        if rename(from, to) != 0 { try fileManager.copyItem(atPath: from, toPath: to) }
    }

    // MARK: Delete

    /// Closes the store and removes both databases (with their WAL files), the files, assets and temporary folders.
    static func deleteStorage(_ databases: ChatDatabases, folders: [String]) throws(ChatError) {
        databases.close()
        let fileManager = FileManager.default
        do {
            for path in databases.paths + databases.paths.flatMap(SQLiteDatabase.companionFiles) + folders
            where fileManager.fileExists(atPath: path) {
                try fileManager.removeItem(atPath: path)
            }
        } catch {
            throw .error(.exception(error.localizedDescription))
        }
    }

    // MARK: Temporary folder

    private func temporaryFolder(_ config: ArchiveConfig) throws(ChatError) -> String {
        let parent = config.parentTempDirectory ?? fileManager.temporaryDirectory.path
        let path = parent + "/simplex-chat." + UUID().uuidString
        do {
            try fileManager.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .error(.exception("\(path): createDirectory: \(error.localizedDescription)"))
        }
        return path
    }
}

extension Error {
    /// A zip error's own sentence, or the system's.
    var archiveMessage: String { (self as? ZipError)?.message ?? localizedDescription }
}
