import SimplexCrypto
import SimplexTLS
import XCTest

/// Bytes no TLS peer would send, fed to both roles: never a trap, always a typed error (or a wait for more bytes
/// when the input could still be the start of a record).
final class MalformedInputTests: XCTestCase {
    private let host = try? Side.host()
    private let controller = try? Side.controller()

    private func sides() throws -> (host: Side, controller: Side) {
        (try XCTUnwrap(host), try XCTUnwrap(controller))
    }

    private func newClient() throws -> TLSConnection {
        let (host, controller) = try sides()
        let client = try TLSConnection(
            role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow)
        try client.start()
        _ = client.takeOutgoing()
        return client
    }

    private func newServer() throws -> TLSConnection {
        let (host, controller) = try sides()
        return try TLSConnection(role: .server(.knownHost(host.fingerprint)), credential: controller.credential, now: testNow)
    }

    /// A TLS record starts with a content type (20–23); garbage that does not, and is at least a record header
    /// long, must be refused at once — except that an OpenSSL server reads a first byte with the high bit set as
    /// the two-byte length of an SSLv2-format ClientHello and waits for that many bytes before refusing it.
    private func mustBeRefused(_ garbage: [UInt8], server: Bool) -> Bool {
        garbage.count >= 5 && !(20...23).contains(garbage[0]) && !(server && garbage[0] >= 0x80)
    }

    func testRandomGarbageDuringTheHandshake() throws {
        var generator = SplitMix64(seed: 42)
        var refused = 0
        for trial in 0..<400 {
            let garbage = generator.bytes(Int.random(in: 1...3000, using: &generator))
            for role in ["client", "server"] {
                let connection = role == "client" ? try newClient() : try newServer()
                do {
                    let events = try connection.receive(garbage)
                    XCTAssertEqual(events, [], "\(role) trial \(trial)")
                    XCTAssertFalse(
                        mustBeRefused(garbage, server: role == "server"), "\(role) trial \(trial) accepted \(garbage.prefix(8))")
                } catch {
                    refused += 1
                    // A later call reports the same failure.
                    XCTAssertThrowsError(try connection.receive([0x16])) { XCTAssertEqual($0 as? TLSError, error) }
                }
            }
        }
        XCTAssertGreaterThan(refused, 700)
    }

    func testRecordShapedGarbageDuringTheHandshake() throws {
        var generator = SplitMix64(seed: 43)
        for trial in 0..<400 {
            // A plausible header, then random body bytes of the declared length.
            let length = Int.random(in: 0...2000, using: &generator)
            let type = UInt8.random(in: 20...23, using: &generator)
            let garbage =
                [type, 3, UInt8.random(in: 1...4, using: &generator), UInt8(length >> 8), UInt8(length & 0xFF)]
                + generator.bytes(length)
            for role in ["client", "server"] {
                let connection = role == "client" ? try newClient() : try newServer()
                // Refused with a typed error, or waiting: never completed.
                let events = try? connection.receive(garbage)
                XCTAssert(events == nil || events == [], "\(role) trial \(trial)")
                XCTAssertNil(connection.sessionInfo)
            }
        }
    }

    /// Bytes of the server's first flight flipped (every 7th position): the client never completes.
    func testMutatedServerFlightNeverCompletes() throws {
        var generator = SplitMix64(seed: 44)
        var position = 0
        while true {
            let setup = try newServerWithHello()
            guard position < setup.flight.count else { break }
            var mutated = setup.flight
            mutated[position] ^= UInt8.random(in: 1...255, using: &generator)
            // Refused with a typed error, or waiting: never completed.
            let events = try? setup.client.receive(mutated)
            XCTAssert(events == nil || events == [], "position \(position)")
            XCTAssertNil(setup.client.sessionInfo, "position \(position)")
            position += 7
        }
        XCTAssertGreaterThan(position, 500)
        // Unmutated, the flight completes.
        let setup = try newServerWithHello()
        XCTAssertNotNil(try setup.client.receive(setup.flight).first)
    }

    /// Each byte of the client's final flight flipped: the server never completes and says why.
    func testMutatedClientFlightIsRefused() throws {
        var generator = SplitMix64(seed: 45)
        var positions = 0
        for position in stride(from: 0, to: 2000, by: 13) {
            let setup = try newServerWithHello()
            _ = try setup.client.receive(setup.flight)
            let flight = setup.client.takeOutgoing()
            guard position < flight.count else { break }
            positions += 1
            var mutated = flight
            mutated[position] ^= UInt8.random(in: 1...255, using: &generator)
            do {
                let events = try setup.serverConnection.receive(mutated)
                XCTAssertEqual(events, [], "position \(position)")
            } catch {
                XCTAssertNil(setup.serverConnection.sessionInfo)
            }
            XCTAssertNil(setup.serverConnection.sessionInfo, "position \(position)")
        }
        XCTAssertGreaterThan(positions, 20)
    }

    func testGarbageAfterTheHandshake() throws {
        var generator = SplitMix64(seed: 46)
        var refused = 0
        for _ in 0..<100 {
            let (host, controller) = try sides()
            var whole = Whole()
            let pair = try Pair(host: host, controller: controller, serverPin: .knownHost(host.fingerprint), split: &whole)
            XCTAssertNotNil(pair.server.sessionInfo)
            let garbage = generator.bytes(Int.random(in: 5...3000, using: &generator))
            for connection in [pair.client.connection, pair.server.connection] {
                do throws(TLSError) {
                    let events = try connection.receive(garbage)
                    XCTAssertEqual(events, [])
                } catch {
                    refused += 1
                    switch error {
                    case .connection, .alertReceived: break
                    default: XCTFail("\(error)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(refused, 150)
    }

    private struct ServerWithHello {
        let client: TLSConnection
        let serverConnection: TLSConnection
        let flight: [UInt8]
    }

    /// A client that sent its ClientHello and the server's answering flight, not yet delivered.
    private func newServerWithHello() throws -> ServerWithHello {
        let (host, controller) = try sides()
        let client = try TLSConnection(
            role: .client(controllerCA: controller.fingerprint), credential: host.credential, now: testNow)
        let server = try newServer()
        try client.start()
        _ = try server.receive(client.takeOutgoing())
        return ServerWithHello(client: client, serverConnection: server, flight: server.takeOutgoing())
    }
}
