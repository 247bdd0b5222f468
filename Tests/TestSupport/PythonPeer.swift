public import Foundation

/// The Python that runs the independent implementations: SIMPLEX_TEST_PYTHON, or the repository's `.venv`
/// (scripts/install-deps makes it). A missing interpreter is an error, never a skip.
public enum Python {
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    public static func interpreter() throws -> String {
        let path =
            ProcessInfo.processInfo.environment["SIMPLEX_TEST_PYTHON"]
            ?? repositoryRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw PeerFailure("\(path) not found; run scripts/install-deps")
        }
        return path
    }

    public static func script(_ relativePath: String) -> String { repositoryRoot.appendingPathComponent(relativePath).path }
}

public struct PeerFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A Python peer driven in lock step over pipes: each message is `u32be(length) ‖ bytes`; for every message sent the
/// peer answers with one message, or with length 0xFFFFFFFF when it is done.
public final class LockStepPeer {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    public init(script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script(script)] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Sends bytes and returns the peer's answer, or nil once the peer reports it is done.
    public func exchange(_ bytes: [UInt8]) throws -> [UInt8]? {
        var frame = withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Array($0) }
        frame += bytes
        input.fileHandleForWriting.write(Data(frame))
        let head = try read(4)
        let n = head.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if n == 0xFFFF_FFFF { return nil }
        return try read(Int(n))
    }

    /// Waits for the peer to exit and fails with its stderr if it did not succeed.
    public func finish() throws {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PeerFailure(stderrText) }
    }

    private var stderrText: String { String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self) }

    private func read(_ count: Int) throws -> [UInt8] {
        var out = [UInt8]()
        while out.count < count {
            let chunk = output.fileHandleForReading.readData(ofLength: count - out.count)
            if chunk.isEmpty {
                process.waitUntilExit()
                throw PeerFailure("peer exited: \(stderrText)")
            }
            out += chunk
        }
        return out
    }
}
