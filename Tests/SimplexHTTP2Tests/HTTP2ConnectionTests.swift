import SimplexCrypto
import SimplexEncoding
import SimplexHTTP2
import TestSupport
import XCTest

final class HTTP2ConnectionTests: XCTestCase {
    private let requestHeaders = [
        HeaderField(":method", "POST"), HeaderField(":path", "/"), HeaderField(":scheme", "https"),
        HeaderField(":authority", "0.0.0.0"),
    ]

    /// Moves bytes both ways until neither side has anything to send; returns each side's events.
    private func pump(_ client: HTTP2Connection, _ server: HTTP2Connection) throws -> (client: [HTTP2Event], server: [HTTP2Event])
    {
        var clientEvents: [HTTP2Event] = []
        var serverEvents: [HTTP2Event] = []
        while true {
            let c = try client.takeOutgoing()
            if !c.isEmpty { serverEvents += try server.receive(c) }
            let s = try server.takeOutgoing()
            if !s.isEmpty { clientEvents += try client.receive(s) }
            if c.isEmpty && s.isEmpty { return (clientEvents, serverEvents) }
        }
    }

    private static func bodies(_ events: [HTTP2Event]) -> [Int32: [UInt8]] {
        var out: [Int32: [UInt8]] = [:]
        for case .data(let stream, let bytes) in events { out[stream, default: []] += bytes }
        return out
    }

    func testRequestsAndStreamedResponsesInMemory() throws {
        let client = try HTTP2Connection(role: .client)
        let server = try HTTP2Connection(role: .server)
        var sent: [Int32: [UInt8]] = [:]
        var serverEvents: [HTTP2Event] = []
        for size in [0, 10, 70_000, 300_000] {
            let stream = try client.submitRequest(requestHeaders)
            let body = SecureRandom.bytes(size)
            sent[stream] = body
            var offset = 0
            while offset < size {
                let n = min(size - offset, 12_345)
                try client.send(Array(body[offset..<offset + n]), on: stream)
                offset += n
                serverEvents += try pump(client, server).server
            }
            try client.finish(stream: stream)
        }
        serverEvents += try pump(client, server).server
        XCTAssertEqual(Self.bodies(serverEvents), sent.filter { !$0.value.isEmpty })
        XCTAssertTrue(serverEvents.contains(.headers(stream: 1, fields: requestHeaders)))
        for stream in sent.keys { XCTAssertTrue(serverEvents.contains(.endStream(stream: stream))) }

        // Responses, streamed in pieces and finished out of order, arrive whole per stream.
        for stream in sent.keys {
            try server.submitResponse(stream: stream, headers: [HeaderField(":status", "200")])
            try server.send(Array("response \(stream) ".utf8), on: stream)
        }
        var clientEvents = try pump(client, server).client
        for stream in sent.keys.sorted(by: >) {
            try server.send(Array("end".utf8), on: stream)
            try server.finish(stream: stream)
        }
        clientEvents += try pump(client, server).client
        let responses = Self.bodies(clientEvents).mapValues { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(responses, Dictionary(uniqueKeysWithValues: sent.keys.map { ($0, "response \($0) end") }))
        for stream in sent.keys { XCTAssertTrue(clientEvents.contains(.streamClosed(stream: stream, errorCode: 0))) }
        XCTAssertThrowsError(try server.send([1], on: 1))
    }

    func testGarbageIsATypedError() throws {
        let server = try HTTP2Connection(role: .server)
        XCTAssertThrowsError(try server.receive(Array("GET / HTTP/1.1\r\n\r\n".utf8)))
        for _ in 0..<200 {
            let s = try HTTP2Connection(role: .server)
            _ = try? s.receive(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + SecureRandom.bytes(Int.random(in: 0..<200)))
            _ = try? s.takeOutgoing()
        }
    }

    /// Our client against the `h2` library as server: it answers each body with its SHA-256 in hex.
    func testOurClientWithPythonH2Server() throws {
        let peer = try LockStepPeer(script: "scripts/fixtures/h2_peer.py", arguments: ["server", "7"])
        let client = try HTTP2Connection(role: .client)
        var expected: [Int32: String] = [:]
        for i in 0..<7 {
            let body = SecureRandom.bytes([0, 1, 100, 16384, 70000, 200_000, 5][i])
            let stream = try client.submitRequest(requestHeaders)
            try client.send(body, on: stream)
            try client.finish(stream: stream)
            expected[stream] = Hex.encode(Digest.sha256(body))
        }
        var events: [HTTP2Event] = []
        while let answer = try peer.exchange(try client.takeOutgoing()) {
            events += try client.receive(answer)
        }
        events += try client.receive([])
        try peer.finish()
        let bodies = Self.bodies(events).mapValues { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(bodies, expected)
        for stream in expected.keys {
            XCTAssertTrue(events.contains(.headers(stream: stream, fields: [HeaderField(":status", "200")])))
        }
    }

    /// Our server against the `h2` library as client: we answer each body with its SHA-256 in hex; it checks.
    func testOurServerWithPythonH2Client() throws {
        let peer = try LockStepPeer(script: "scripts/fixtures/h2_peer.py", arguments: ["client", "7"])
        let server = try HTTP2Connection(role: .server)
        var bodies: [Int32: [UInt8]] = [:]
        var toSend: [UInt8] = []
        var rounds = 0
        while let answer = try peer.exchange(toSend) {
            rounds += 1
            XCTAssertLessThan(rounds, 10_000)
            for event in try server.receive(answer) {
                switch event {
                case .headers(let stream, _): bodies[stream] = []
                case .data(let stream, let bytes): bodies[stream, default: []] += bytes
                case .endStream(let stream):
                    try server.submitResponse(stream: stream, headers: [HeaderField(":status", "200")])
                    try server.send(Array(Hex.encode(Digest.sha256(bodies[stream] ?? [])).utf8), on: stream)
                    try server.finish(stream: stream)
                default: break
                }
            }
            toSend = try server.takeOutgoing()
        }
        try peer.finish()
        XCTAssertEqual(bodies.count, 7)
        XCTAssertEqual(bodies[11]?.count, 200_000)  // request 5 of 7, on stream 11
    }
}
