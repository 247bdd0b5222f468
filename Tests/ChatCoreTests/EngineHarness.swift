import ChatCore
import ChatModel
import ChatStore
import Foundation
import SimplexEncoding
import Synchronization
import XCTest

/// A chat engine on databases in a fresh temporary folder, with a fixed clock, and helpers to read its envelopes.
final class EngineHarness {
    let folder: URL
    let engine: ChatEngine

    /// 2025-06-01T09:30:12.123456Z.
    static let time = UTCTime(seconds: 1_748_770_212, nanoseconds: 123_456_000)

    /// The engine's clock: `time` until a test moves it.
    let clock = TestClock()

    /// `key`: the store's passphrase (files sealed at rest), nil for plaintext files.
    init(
        eventQueueCapacity: Int = 4096, itemExpiry: ItemExpiryConfiguration = ItemExpiryConfiguration(), key: String? = nil
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatcore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = Self.configuration
        let clock = clock
        configuration.clock = { clock.now }
        configuration.eventQueueCapacity = eventQueueCapacity
        configuration.itemExpiry = itemExpiry
        engine = try ChatEngine(
            prefix: folder.appendingPathComponent("simplex_v1").path, key: key.flatMap(Self.databaseKey),
            configuration: configuration)
    }

    /// The files' prefix: `<prefix>_chat.db`, `<prefix>_agent.db`.
    var prefix: String { folder.appendingPathComponent("simplex_v1").path }

    /// What every harness engine is built with: Argon2id at its least work, so that sealed stores stay fast to test
    /// (the format is the same).
    static var configuration: ChatEngine.Configuration {
        var configuration = ChatEngine.Configuration()
        configuration.databaseKeyCost = .minimum
        return configuration
    }

    /// A passphrase's key at the harness's cost; nil for "".
    static func databaseKey(_ passphrase: String) -> DatabaseKey? {
        DatabaseKey(passphrase, cost: configuration.databaseKeyCost)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Sends a line; returns the envelope's text.
    func text(_ line: String) async -> String { await engine.execute(line).text }

    /// Sends a line and checks the envelope's exact text.
    func expect(_ line: String, _ expected: String, file: StaticString = #filePath, line l: UInt = #line) async {
        let text = await engine.execute(line).text
        XCTAssertEqual(text, expected, line, file: file, line: l)
    }

    /// Sends a line; returns the parsed envelope.
    func send(_ line: String, file: StaticString = #filePath, line l: UInt = #line) async -> CanonicalJSON {
        let text = await engine.execute(line).text
        do {
            return try CanonicalJSON.parse(text)
        } catch {
            XCTFail("not JSON: \(text)", file: file, line: l)
            return .null
        }
    }

    /// Sends a line that must succeed with a result of `type`; returns the result.
    @discardableResult
    func result(_ line: String, _ type: String, file: StaticString = #filePath, line l: UInt = #line) async
        -> CanonicalJSON
    {
        let envelope = await send(line, file: file, line: l)
        guard let result = envelope["result"] else {
            XCTFail("\(line): expected result \(type), got \(envelope.rendered)", file: file, line: l)
            return .null
        }
        XCTAssertEqual(result["type"]?.stringValue, type, "\(line): \(envelope.rendered)", file: file, line: l)
        XCTAssertEqual(envelope.keys, ["result"], file: file, line: l)
        return result
    }

    /// Sends a line that must fail with `{"type":"error","errorType":{"type":errorType,…}}`; returns the errorType.
    @discardableResult
    func chatError(_ line: String, _ errorType: String, file: StaticString = #filePath, line l: UInt = #line) async
        -> CanonicalJSON
    {
        let envelope = await send(line, file: file, line: l)
        guard let error = envelope["error"] else {
            XCTFail("\(line): expected error \(errorType), got \(envelope.rendered)", file: file, line: l)
            return .null
        }
        XCTAssertEqual(error["type"]?.stringValue, "error", "\(line): \(envelope.rendered)", file: file, line: l)
        XCTAssertEqual(error["errorType"]?["type"]?.stringValue, errorType, "\(line): \(envelope.rendered)", file: file, line: l)
        return error["errorType"] ?? .null
    }

    /// Sends a line that must fail with `{"type":"errorStore","storeError":{"type":storeError,…}}`.
    @discardableResult
    func storeError(_ line: String, _ storeError: String, file: StaticString = #filePath, line l: UInt = #line) async
        -> CanonicalJSON
    {
        let envelope = await send(line, file: file, line: l)
        XCTAssertEqual(
            envelope["error"]?["type"]?.stringValue, "errorStore", "\(line): \(envelope.rendered)", file: file, line: l)
        XCTAssertEqual(
            envelope["error"]?["storeError"]?["type"]?.stringValue, storeError, "\(line): \(envelope.rendered)", file: file,
            line: l)
        return envelope["error"]?["storeError"] ?? .null
    }

    /// Creates a user with `name` (made active) and returns its id.
    @discardableResult
    func createUser(_ name: String, file: StaticString = #filePath, line l: UInt = #line) async -> Int64 {
        let r = await result(
            #"/_create user {"profile":{"displayName":"\#(name)","fullName":""},"pastTimestamp":false}"#, "activeUser",
            file: file, line: l)
        return r["user"]?["userId"]?.integerValue ?? -1
    }

    /// Creates the first user and starts the chat.
    @discardableResult
    func startWithUser(_ name: String = "alice") async -> Int64 {
        let id = await createUser(name)
        await result("/_start", "chatStarted")
        return id
    }
}

/// A clock a test moves by whole seconds.
final class TestClock: Sendable {
    private let offset = Atomic<Int64>(0)

    var now: UTCTime { EngineHarness.time.adding(seconds: offset.load(ordering: .relaxed)) }

    func set(secondsAfterStart seconds: Int64) { offset.store(seconds, ordering: .relaxed) }
}

extension CanonicalJSON {
    /// The keys of an object (empty for other values).
    var keys: [String] {
        if case .object(let fields) = self { return fields.keys.sorted() }
        return []
    }

    var arrayValue: [CanonicalJSON]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
