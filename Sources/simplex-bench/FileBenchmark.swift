import Foundation
import RemoteChat
import SimplexCrypto
import SimplexTLS
import XRCP

/// File throughput through a controller session on loopback (our controller and our host in one process), each way,
/// beside the single-core floor measured in the same run over the same bytes: a TLS copy (seal and open in memory)
/// plus XSalsa20-Poly1305 and SHA-512. Also the peak resident memory while each transfer runs, which stays far below
/// the file's size when files stream.
enum FileBenchmark {
    static let now = Int64(Date().timeIntervalSince1970)
    static let chunk = 65536

    /// Keeps uploads in a file and serves that file back.
    final class DiskHandler: RemoteHostHandler, @unchecked Sendable {
        let stored: URL
        init(stored: URL) { self.stored = stored }

        func execute(command: String, retryNumber: Int64) async -> [UInt8] { Array(#"{"result":{"type":"cmdOk"}}"#.utf8) }
        func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
            try? await Task.sleep(nanoseconds: UInt64(waitMicroseconds) * 1000)
            return nil
        }
        func beginStoring(fileName: String, fileSize: UInt32) async throws(RemoteProtocolError) -> any RemoteFileSink {
            guard FileManager.default.createFile(atPath: stored.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: stored)
            else { throw .invalidBody("cannot create \(stored.path)") }
            return Sink(handle: handle, name: stored.lastPathComponent)
        }
        func openFile(_ file: RemoteFile) async throws(RemoteFileError) -> any RemoteFileSource {
            do { return try Source(url: stored) } catch { throw .protocolError(.noFile) }
        }
    }

    final class Sink: RemoteFileSink, @unchecked Sendable {
        let handle: FileHandle
        let name: String
        init(handle: FileHandle, name: String) {
            self.handle = handle
            self.name = name
        }
        func write(_ bytes: [UInt8]) async throws(RemoteProtocolError) {
            do { try handle.write(contentsOf: bytes) } catch { throw .invalidBody("\(error)") }
        }
        func commit() async throws(RemoteProtocolError) -> String {
            try? handle.close()
            return name
        }
        func discard() async { try? handle.close() }
    }

    final class Source: RemoteFileSource, @unchecked Sendable {
        let handle: FileHandle
        let size: UInt32
        let digest: [UInt8]
        init(url: URL) throws {
            let hash = Digest.SHA512Stream()
            var total = 0
            let reader = try FileHandle(forReadingFrom: url)
            while let data = try reader.read(upToCount: FileBenchmark.chunk), !data.isEmpty {
                hash.update(Array(data))
                total += data.count
            }
            try reader.close()
            digest = hash.finalize()
            size = UInt32(total)
            handle = try FileHandle(forReadingFrom: url)
        }
        func read(max: Int) async throws(RemoteProtocolError) -> [UInt8]? {
            guard let data = try? handle.read(upToCount: max), !data.isEmpty else { return nil }
            return Array(data)
        }
    }

    final class Notices: @unchecked Sendable {
        private let lock = NSLock()
        private var code: String?
        private var up = false
        func note(_ n: ControllerConnection.Notice) {
            lock.withLock {
                switch n {
                case .sessionCode(let c): code = c
                case .established: up = true
                case .ended: break
                }
            }
        }
        var sessionCode: String? { lock.withLock { code } }
        var established: Bool { lock.withLock { up } }
    }

    /// Returns upload and download over the floor (the goal is at least 0.7 each).
    @discardableResult
    static func run(megabytes: Int) async throws -> (up: Double, down: Double) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simplex-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.bin")
        let size = megabytes * 1_000_000
        try write(size: size, to: source)

        let floor = try floorSeconds(source)
        let notices = Notices()
        let controller = try ControllerConnection(
            authority: try CertificateAuthority.generate(now: now, hoursBefore: 1), identityKey: Ed25519.PrivateKey(),
            app: ControllerAppInfo(deviceName: "bench", compression: true), address: "127.0.0.1", now: now,
            settings: ControllerConnectionSettings(pollEvents: false, chunkSize: chunk), notify: { notices.note($0) })
        await controller.run()
        let host = try HostConnection(
            setup: HostSessionSetup(
                invitation: try controller.invitation.verified(),
                authority: try CertificateAuthority.generate(now: now, hoursBefore: 1),
                app: HostAppInfo(appVersion: .current, deviceName: "bench"), now: now),
            handler: DiskHandler(stored: folder.appendingPathComponent("stored.bin"))
        ) { _ in }
        await host.run()
        while notices.sessionCode == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        try await host.verify(code: notices.sessionCode ?? "")
        while !notices.established { try await Task.sleep(nanoseconds: 1_000_000) }

        let idle = resetPeak()
        var t = SessionBenchmark.clock()
        _ = try await controller.storeFile(at: source)
        let up = SessionBenchmark.clock() - t
        let upPeak = peakMB()
        resetPeak()
        let target = folder.appendingPathComponent("downloaded.bin")
        t = SessionBenchmark.clock()
        try await controller.getFile(
            RemoteFile(userId: 1, fileId: 1, sent: true, fileSource: .object(["filePath": .string("stored.bin")])), to: target)
        let down = SessionBenchmark.clock() - t
        let downPeak = peakMB()
        await controller.stop()
        await host.stop()
        let same = FileManager.default.contentsEqual(atPath: source.path, andPath: target.path)

        let mb = Double(size) / 1e6
        let floorRate = mb / floor.total
        print("file transfer through a session on loopback, \(megabytes) MB (controller and host in this process):")
        for (name, seconds, peak) in [("upload (storeFile)", up, upPeak), ("download (getFile)", down, downPeak)] {
            print(
                String(
                    format: "  %-20@ %8.1f MB/s   floor %7.1f MB/s   ratio %.2f   peak RSS %6.0f MB (idle %.0f MB)",
                    name as NSString, mb / seconds, floorRate, (mb / seconds) / floorRate, peak, idle))
        }
        print(
            String(
                format: "  floor, one core, same bytes: TLS copy %.1f MB/s + XSalsa20-Poly1305 %.1f MB/s + SHA-512 %.1f MB/s",
                mb / floor.tls, mb / floor.box, mb / floor.sha))
        print("  the downloaded file \(same ? "equals" : "DIFFERS FROM") the original")
        if !same { throw CocoaError(.fileReadCorruptFile) }
        return ((mb / up) / floorRate, (mb / down) / floorRate)
    }

    private static func write(size: Int, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let block = Data(SecureRandom.bytes(1_000_000))
        var left = size
        while left > 0 {
            let n = min(left, block.count)
            try handle.write(contentsOf: block.prefix(n))
            left -= n
        }
    }

    /// Seconds for each part of the floor over the file's bytes, read in the transfers' chunks.
    private static func floorSeconds(_ url: URL) throws -> (tls: Double, box: Double, sha: Double, total: Double) {
        let ca = try CertificateAuthority.generate(now: now, hoursBefore: 1)
        let server = try TLSConnection(role: .server(.anyHost), credential: try ca.issueLeaf(now: now), now: now)
        let client = try TLSConnection(
            role: .client(controllerCA: ca.certificate.fingerprint), credential: try ca.issueLeaf(now: now), now: now)
        try client.start()
        while !client.isEstablished || !server.isEstablished {
            _ = try server.receive(client.takeOutgoing())
            _ = try client.receive(server.takeOutgoing())
        }
        let sealer = SecretBoxStream(.seal, key: try SecretBox.Key(rawRepresentation: SecureRandom.bytes(32)), nonce: .random())
        let hash = Digest.SHA512Stream()
        var tls = 0.0
        var box = 0.0
        var sha = 0.0
        var sink = 0
        let reader = try FileHandle(forReadingFrom: url)
        defer { try? reader.close() }
        while let data = try reader.read(upToCount: chunk), !data.isEmpty {
            let bytes = Array(data)
            var t = SessionBenchmark.clock()
            try client.send(bytes)
            for case .applicationData(let d) in try server.receive(client.takeOutgoing()) { sink &+= d.count }
            tls += SessionBenchmark.clock() - t
            t = SessionBenchmark.clock()
            sink &+= Int(sealer.update(bytes).first ?? 0)
            box += SessionBenchmark.clock() - t
            t = SessionBenchmark.clock()
            hash.update(bytes)
            sha += SessionBenchmark.clock() - t
        }
        sink &+= Int(sealer.finalizeTag()[0]) &+ Int(hash.finalize()[0])
        if sink == 42 { print("") }  // keeps the work observable to the optimiser
        return (tls, box, sha, tls + box + sha)
    }

    /// The peak resident set size so far (VmHWM), in MB.
    private static func peakMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb / 1000
    }

    /// Starts a new peak (Linux: writing 5 to clear_refs resets VmHWM to the current RSS); returns the current one.
    @discardableResult
    private static func resetPeak() -> Double {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .ascii)
        return peakMB()
    }
}
