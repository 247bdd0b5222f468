import Foundation
import SimplexNet
import TestSupport
import XCTest

final class TCPTests: XCTestCase {
    func testEchoOnLoopback() throws {
        let listener = try TCPListener(address: "127.0.0.1")
        XCTAssertNotEqual(listener.endpoint.port, 0)
        let client = try TCPConnection.connect(to: listener.endpoint, timeout: 2)
        try client.enableKeepAlive(idle: 30, interval: 15, probes: 4)
        let server = try XCTUnwrap(try listener.accept(timeout: 2))
        let payload = [UInt8](repeating: 7, count: 300_000)
        let writer = Thread { try? client.write(payload) }
        writer.start()
        var received: [UInt8] = []
        while received.count < payload.count { received += try server.read(timeout: 2) }
        XCTAssertEqual(received, payload)
        try server.write(Array("ok".utf8))
        XCTAssertEqual(try client.read(timeout: 2), Array("ok".utf8))
        XCTAssertEqual(try client.read(timeout: 0.05), [], "a read that times out returns nothing")
        server.shutdown()
        XCTAssertEqual(thrown { try client.read(timeout: 2) } as? NetError, .closed)
        XCTAssertEqual(client.localEndpoint?.address, "127.0.0.1")
    }

    func testWritesThatDoNotWaitForAFullSocket() throws {
        let listener = try TCPListener(address: "127.0.0.1")
        let client = try TCPConnection.connect(to: listener.endpoint, timeout: 2)
        let server = try XCTUnwrap(try listener.accept(timeout: 2))
        let chunk = ArraySlice([UInt8](repeating: 9, count: 65536))
        var written = 0
        // Nobody reads: the socket buffers fill and a write takes nothing, without blocking.
        while true {
            let n = try client.writeAvailable(chunk)
            if n == 0 { break }
            written += n
        }
        XCTAssertGreaterThan(written, 0)
        XCTAssertEqual(try client.writeAvailable([]), 0)
        XCTAssertFalse(try client.waitWritable(timeout: 0.05), "a full socket is not writable")
        var read = 0
        while read < written { read += try server.read(timeout: 2).count }
        XCTAssertEqual(read, written)
        XCTAssertTrue(try client.waitWritable(timeout: 2))
        server.shutdown()
        XCTAssertTrue(try client.waitWritable(timeout: 2), "a closed peer wakes the writer, whose write then fails")
    }

    func testRefusedConnectionSaysSo() throws {
        let port = try TCPListener(address: "127.0.0.1").endpoint.port  // released at once: nothing listens there
        XCTAssertEqual(
            thrown { try TCPConnection.connect(to: try IPv4Endpoint("127.0.0.1", port), timeout: 2) } as? NetError,
            .connectionRefused)
        XCTAssertEqual(thrown { try IPv4Endpoint("999.1.1.1", 1) } as? NetError, .invalidAddress("999.1.1.1"))
        XCTAssertNil(try TCPListener(address: "127.0.0.1").accept(timeout: 0.05))
    }

    func testAddressOrderOfInvitations() {
        let all = [
            LocalAddress(interface: "lo", address: "127.0.0.1", prefixLength: 8),
            LocalAddress(interface: "eth0", address: "192.168.1.10", prefixLength: 24),
            LocalAddress(interface: "eth1", address: "169.254.3.4", prefixLength: 16),
            LocalAddress(interface: "wlan0", address: "10.0.0.5", prefixLength: 8),
            LocalAddress(interface: "x", address: "0.0.0.0", prefixLength: 0),
        ]
        XCTAssertEqual(LocalAddresses.ordered(all).map(\.address), ["192.168.1.10", "10.0.0.5", "127.0.0.1"])
        XCTAssertEqual(
            LocalAddresses.ordered(all, preferredAddress: "10.0.0.5").map(\.address), ["10.0.0.5", "192.168.1.10", "127.0.0.1"])
        XCTAssertEqual(LocalAddresses.ordered(all, preferredInterface: "lo").first?.address, "127.0.0.1")
        XCTAssertEqual(LocalAddresses.ordered(all, preferredAddress: "1.2.3.4").first?.address, "192.168.1.10")
        XCTAssertTrue(all[1].contains("192.168.1.200"))
        XCTAssertFalse(all[1].contains("192.168.2.1"))
        XCTAssertTrue(LocalAddresses.system().contains { $0.address == "127.0.0.1" && $0.prefixLength == 8 })
    }

    /// Multicast on the loopback interface: the source address the listener sees is the sender's interface address.
    func testMulticastOnLoopback() throws {
        let group = try IPv4Endpoint("224.0.0.251", UInt16.random(in: 20000...60000))
        let receiver = try MulticastReceiver(group: group, interfaceAddress: "127.0.0.1")
        let sender = try MulticastSender(group: group, interfaceAddress: "127.0.0.1")
        try sender.send(Array("announce".utf8))
        let (bytes, source) = try XCTUnwrap(try receiver.receive(timeout: 2))
        XCTAssertEqual(bytes, Array("announce".utf8))
        XCTAssertEqual(source.address, "127.0.0.1")
        XCTAssertNil(try receiver.receive(timeout: 0.05))
    }
}

final class ResolveTests: XCTestCase {
    /// Names resolve through the system resolver to IPv4 endpoints; dotted quads stay themselves; a name that does
    /// not resolve says so.
    func testResolve() throws {
        XCTAssertEqual(try IPv4Endpoint.resolve("localhost", port: 5223).first, try IPv4Endpoint("127.0.0.1", 5223))
        XCTAssertEqual(try IPv4Endpoint.resolve("10.1.2.3", port: 443), [try IPv4Endpoint("10.1.2.3", 443)])
        guard case .unresolved(let host, _)? = thrown({ try IPv4Endpoint.resolve("no-such-host.invalid", port: 1) }) as? NetError
        else { return XCTFail("a name under .invalid resolved") }
        XCTAssertEqual(host, "no-such-host.invalid")
    }
}
