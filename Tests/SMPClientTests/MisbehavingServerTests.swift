import Foundation
import SMP
import SMPClient
import SimplexCrypto
import SimplexEncoding
import XCTest

/// Our client against a server that breaks the protocol (smp.md §2.3–§2.7): every bad hello, block or answer ends in
/// a typed error or event within the configured times, never a trap or a hang, and the client connects again once
/// the server behaves.
final class MisbehavingServerTests: XCTestCase {
    private let quick = SMPClientConfiguration(
        connectTimeout: 2, timing: SMPConnectionTiming(responseTimeout: 0.5, maxConsecutiveTimeouts: 3),
        reconnectDelay: 0.1, maxReconnectDelay: 0.2)

    /// A queue the honest server accepts `SUB` for: any ids and keys.
    private func queue(on server: SMPServer) throws -> RecipientQueue {
        RecipientQueue(
            server: server, recipientId: EntityId(SecureRandom.bytes(24)), senderId: EntityId(SecureRandom.bytes(24)),
            recipientKey: Ed25519.PrivateKey(),
            sharedSecret: try X25519.PrivateKey().sharedSecret(with: X25519.PrivateKey().publicKey), queueMode: .messaging)
    }

    private func ping(_ client: SMPClient, _ server: SMPServer) async -> SMPClientError? {
        await failure { () async throws(SMPClientError) in try await client.ping(server) }
    }

    /// A wrong hello fails the connect with the handshake's error (smp.md §2.3, §2.4), and no hello at all with a
    /// timeout; the next request, once the server behaves, connects again.
    func testBadServerHellos() async throws {
        let cases: [(MisbehavingServer.Misbehaviour, SMPClientError)] = [
            (.wrongSessionId, .transport(.session)),
            (.foreignIdentity, .transport(.handshake(.identity))),
            (.badKeySignature, .transport(.handshake(.badAuth))),
            (.silentHello, .timeout),
        ]
        for (misbehaviour, expected) in cases {
            let server = try MisbehavingServer(misbehaviour)
            let client = SMPClient(configuration: quick)
            let started = Date()
            let refused = await ping(client, server.server)
            XCTAssertEqual(refused, expected, "\(misbehaviour)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 4, "\(misbehaviour)")
            server.misbehaviour = .none
            let recovered = await ping(client, server.server)
            XCTAssertNil(recovered, "\(misbehaviour)")
            await client.close()
            server.stop()
        }
    }

    /// Bad answers to a command once connected (smp.md §2.5–§2.7): a block that does not decrypt, a batch that runs
    /// past its block or holds fewer transmissions than it says, half a block then a close or silence, no answer,
    /// a closed connection, a response for another queue. Each is a typed error for the request; the connection
    /// is dropped except after a timeout or a response naming another queue; a request after the server behaves
    /// succeeds.
    func testBadAnswersToACommand() async throws {
        let cases: [(MisbehavingServer.Misbehaviour, SMPClientError)] = [
            (.garbageBlock, .transport(.largeMsg)),
            (.oversizeBatch, .transport(.block)),
            (.shortBatch, .transport(.block)),
            (.truncatedBlockThenClose, .connectionLost),
            (.truncatedBlockThenStall, .timeout),
            (.stall, .timeout),
            (.closeOnCommand, .connectionLost),
            (.otherEntity, .unexpectedResponse("OK for another entity")),
        ]
        for (misbehaviour, expected) in cases {
            let server = try MisbehavingServer(.none)
            let client = SMPClient(configuration: quick)
            let connected = await ping(client, server.server)
            XCTAssertNil(connected)
            server.misbehaviour = misbehaviour
            let started = Date()
            let refused = await ping(client, server.server)
            XCTAssertEqual(refused, expected, "\(misbehaviour)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "\(misbehaviour)")
            server.misbehaviour = .none
            if misbehaviour == .truncatedBlockThenStall {
                // The connection outlived the timeout with half a block read: the next block completes it into
                // one that does not decrypt, which drops the connection.
                let misaligned = await ping(client, server.server)
                XCTAssertEqual(misaligned, .transport(.largeMsg))
            }
            let recovered = await ping(client, server.server)
            XCTAssertNil(recovered, "\(misbehaviour)")
            await client.close()
            server.stop()
        }
    }

    /// Responses for correlation ids never sent are dropped (smp.md §2.7): the request still gets its own answer, and
    /// the connection stays.
    func testResponseForAnUnknownCorrIdIsIgnored() async throws {
        let server = try MisbehavingServer(.unknownCorrId)
        let client = SMPClient(configuration: quick)
        for _ in 0..<3 {
            let answered = await ping(client, server.server)
            XCTAssertNil(answered)
        }
        XCTAssertEqual(server.connections, 1)
        await client.close()
        server.stop()
    }

    /// With a queue subscribed, a connection lost to a bad block, to half a block then a close, or to requests that
    /// time out is reported to the subscriber with its reason, and the client reconnects and subscribes again by
    /// itself once the server behaves (smp.md §2.7, §3.8).
    func testReconnectsAndResubscribesAfterABrokenConnection() async throws {
        let cases: [(MisbehavingServer.Misbehaviour, SMPClientError, pings: Int)] = [
            (.garbageBlock, .transport(.largeMsg), 1),
            (.truncatedBlockThenClose, .connectionLost, 1),
            (.stall, .timeout, 3),
        ]
        for (misbehaviour, reason, pings) in cases {
            let server = try MisbehavingServer(.none)
            let client = SMPClient(configuration: quick)
            let q = try queue(on: server.server)
            let log = EventLog(try await client.subscribe(q))
            server.misbehaviour = misbehaviour
            for _ in 0..<pings {
                let refused = await ping(client, server.server)
                XCTAssertEqual(refused, pings == 1 ? reason : .timeout, "\(misbehaviour)")
            }
            _ = await log.wait(for: 1)
            XCTAssertEqual(log.all.first, .disconnected(reason), "\(misbehaviour)")
            server.misbehaviour = .none
            let deadline = Date().addingTimeInterval(5)
            while !log.all.contains(.resubscribed), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertTrue(log.all.contains(.resubscribed), "\(misbehaviour): \(log.all)")
            XCTAssertFalse(log.isEnded, "\(misbehaviour)")
            XCTAssertGreaterThanOrEqual(server.connections, 2, "\(misbehaviour)")
            let connection = try await client.connection(to: server.server)
            let subscribed = await connection.isSubscribed(q.recipientId)
            XCTAssertTrue(subscribed, "\(misbehaviour)")
            await client.close()
            server.stop()
        }
    }
}
