public import Foundation
public import SMP
import TestSupport

/// Our `smp-test-server` (Sources/smp-test-server) in its own process on 127.0.0.1, the binary built next to the test
/// bundle, optionally with a store file so that it can be killed and started again on the same port; its
/// compatibility with the independent Python client is proved in Tests/EndToEnd/smp_test_server.py.
public final class TestSMPServer {
    public let process = Process()
    public let server: SMPServer
    public let port: UInt16
    /// The address as the server printed it, for peers that parse it themselves.
    public let address: String
    /// The queues in its store when it started.
    public let queues: Int

    /// The built `smp-test-server`: in the test bundle's folder (the build's products folder), else `.build/debug`.
    public static func binary() throws -> URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            Bundle(for: TestSMPServer.self).bundleURL.deletingLastPathComponent(),
            Python.repositoryRoot.appendingPathComponent(".build/debug"),
        ]
        for folder in candidates.compactMap({ $0 }) {
            let url = folder.appendingPathComponent("smp-test-server")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw PeerFailure("smp-test-server is not built next to the tests (swift build --build-tests builds it)")
    }

    public init(_ arguments: [String] = [], port: UInt16 = 0) throws {
        process.executableURL = try Self.binary()
        process.arguments = ["--port", String(port), "--quiet"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            (address, self.port, queues) = try Self.readAddress(output)
            server = try SMPServerWithAuth(parsing: address).server
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
    }

    /// The one JSON line the server prints on stdout.
    private static func readAddress(_ output: Pipe) throws -> (String, UInt16, Int) {
        var line: [UInt8] = []
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw PeerFailure("smp-test-server exited before printing its address") }
            line += chunk
        }
        let json = try JSONSerialization.jsonObject(with: Data(line.prefix { $0 != 0x0a })) as? [String: Any]
        guard let address = json?["address"] as? String, let p = json?["port"] as? Int, let port = UInt16(exactly: p),
            let queues = json?["queues"] as? Int
        else { throw PeerFailure("no address in \(String(decoding: line, as: UTF8.self))") }
        return (address, port, queues)
    }

    deinit { killNow() }

    /// SIGKILL: the test process's signal mask, which children inherit, blocks SIGTERM; and a kill is what the
    /// store must survive.
    public func killNow() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
