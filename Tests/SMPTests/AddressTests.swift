import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import SMP

/// smp.md §1.7–§1.9 and the fixed strings of §8.1 (Vectors/links.json).
final class AddressTests: XCTestCase {
    func testIntegerAndTimeEncodings() throws {
        let v = try vectors("links")
        let int64 = try v.field("int64 (EncodingTests)")
        let value = try XCTUnwrap(int64["value"]?.integerValue)
        XCTAssertEqual(try value.encoded(), try int64.hex("smp_hex"))
        XCTAssertEqual(try Int64(decoding: int64.hex("smp_hex")), value)
        let time = try v.field("systemtime (EncodingTests)")
        let seconds = try XCTUnwrap(time["seconds"]?.integerValue)
        XCTAssertEqual(try seconds.encoded(), try time.hex("smp_hex"))
    }

    func testHosts() throws {
        let hosts = try vectors("links").field("hosts (tests/CoreTests/EncodingTests.hs)")
        XCTAssertEqual(try TransportHost(parsing: hosts.string("domain")), .domain("smp.simplex.im"))
        let onion = try hosts.string("onion")
        XCTAssertEqual(try TransportHost(parsing: onion), .onion(onion))
        XCTAssertEqual(try TransportHost(parsing: hosts.string("ipv4")), .ipv4(192, 168, 0, 1))
        for h in [try hosts.string("domain"), onion, try hosts.string("ipv4")] {
            XCTAssertEqual(try TransportHost(parsing: h).text, h)
        }
        guard case .array(let domains) = try hosts.field("parse_as_domain"),
            case .array(let bad) = try hosts.field("must_not_parse_fully")
        else { return XCTFail("lists") }
        XCTAssertEqual(domains.count, 3)
        for d in domains {
            let s = try XCTUnwrap(d.stringValue)
            XCTAssertEqual(try TransportHost(parsing: s), .domain(s))
        }
        XCTAssertEqual(bad.count, 5)
        for b in bad { XCTAssertThrowsError(try TransportHost(parsing: XCTUnwrap(b.stringValue))) }
        XCTAssertEqual(try TransportHost(parsing: "[2001:DB8::1]"), .ipv6("2001:db8::1"))
    }

    func testServerAddress() throws {
        let inputs = try vectors("links").field("inputs")
        let text = try inputs.string("server")
        let server = try SMPServer(parsing: text)
        XCTAssertEqual(server.keyHash.bytes, try inputs.hex("server_keyHash_bytes_hex"))
        XCTAssertEqual(server.hosts.count, 2)
        XCTAssertEqual(server.port, "5223")
        XCTAssertEqual(server.text, text)
        XCTAssertEqual(server.legacyText, "smp://1234-w==@smp.simplex.im:5223")
        // Binary: NonEmpty host ‖ len1(port) ‖ len1(keyHash); the port is a length-prefixed string.
        var w = ByteWriter()
        try server.encode(to: &w)
        XCTAssertEqual(Array(w.bytes.prefix(16)), [2, 14] + Array("smp.simplex.im".utf8))
        XCTAssertEqual(Array(w.bytes.suffix(10)), [4] + Array("5223".utf8) + [4, 0xd7, 0x6d, 0xf8, 0xfb])
        var r = ByteReader(w.bytes)
        XCTAssertEqual(try SMPServer(from: &r), server)
        XCTAssertTrue(r.isAtEnd)

        let withAuth = try SMPServerWithAuth(parsing: "smp://1234-w==:secret@smp.example.com")
        XCTAssertEqual(withAuth.basicAuth?.text, "secret")
        XCTAssertEqual(withAuth.text, "smp://1234-w==:secret@smp.example.com")
        XCTAssertThrowsError(try SMPServer(parsing: "smp://1234-w==:secret@smp.example.com"))
        XCTAssertThrowsError(try SMPServerWithAuth(parsing: "smp://1234-w==:se/cret@smp.example.com"))
        for bad in [
            "smp://@h", "smp://1234-w==@", "smp://1234-w==@h,", "smp://1234-w==@h:x", "xftp://1234-w==@h",
            "smp://1234-w==@h:99999",
        ] {
            XCTAssertThrowsError(try SMPServer(parsing: bad), bad)
        }
    }

    /// The port policy of smp.md §2.1 (simplexmq `useWebPort` and `useTransport`).
    func testPortRules() throws {
        let preset = try SMPServer(
            parsing: "smp://1234-w==@smp8.simplex.im,beccx4yfxxbvyhqypaavemqurytl6hozr47wfc7uuecacjqdvwpw2xid.onion")
        XCTAssertEqual(preset.endpoint(webPort: .preset).port, 443)
        XCTAssertEqual(preset.endpoint(webPort: .preset).alpn, "http/1.1")
        XCTAssertEqual(preset.endpoint(webPort: .off).port, 5223)
        XCTAssertEqual(preset.endpoint(webPort: .off).alpn, "smp/1")
        let other = try SMPServer(parsing: "smp://1234-w==@relay.example.org")
        XCTAssertEqual(other.endpoint(webPort: .preset).port, 5223)
        XCTAssertEqual(other.endpoint(webPort: .preset).alpn, "smp/1")
        XCTAssertEqual(other.endpoint(webPort: .all).port, 443)
        let explicit = try SMPServer(parsing: "smp://1234-w==@smp.simplex.im:7000")
        XCTAssertEqual(explicit.endpoint(webPort: .preset).port, 7000)
        XCTAssertEqual(explicit.endpoint(webPort: .preset).alpn, "http/1.1")
        let ip = try SMPServer(parsing: "smp://1234-w==@127.0.0.1:5001")
        XCTAssertEqual(ip.endpoint(webPort: .preset).port, 5001)
        XCTAssertEqual(ip.endpoint(webPort: .preset).alpn, "smp/1")
    }

    func testQueueURIRoundTrips() throws {
        let v = try vectors("links")
        let inputs = try v.field("inputs")
        guard case .object(let roundTrip) = try v.field("round_trip") else { return XCTFail("round_trip") }
        let queues = roundTrip.filter { $0.key.hasPrefix("queue") }
        XCTAssertEqual(queues.count, 8)
        for (name, value) in queues {
            let text = try XCTUnwrap(value.stringValue)
            let uri = try SMPQueueURI(parsing: text)
            XCTAssertEqual(uri.text, text, name)
            for n in 0..<text.utf8.count { _ = try? SMPQueueURI(parsing: String(decoding: text.utf8.prefix(n), as: UTF8.self)) }
            XCTAssertEqual(uri.address.senderId.bytes, try inputs.hex("senderId_bytes_hex"), name)
            XCTAssertEqual(Base64.encode(uri.address.dhPublicKey.spki), try inputs.string("dh_key_spki_b64url"), name)
            XCTAssertEqual(uri.address.server.hosts.count, name.hasPrefix("queue1Str") ? 1 : 2, name)
            // Binary: parse ∘ encode is the identity on bytes (a contact mode at range 1–4 has no byte, as in the reference).
            let bytes = try uri.encoded()
            XCTAssertEqual(try SMPQueueURI(decoding: bytes).encoded(), bytes, name)
            // A truncation is an error, or (without the optional mode byte) a shorter value of the same bytes.
            for n in 0..<bytes.count {
                let prefix = Array(bytes.prefix(n))
                if let shorter = try? SMPQueueURI(decoding: prefix) { XCTAssertEqual(try shorter.encoded(), prefix, name) }
            }
        }
        let legacy = try SMPQueueURI(parsing: roundTrip["queueStr (v=1-4, legacy layout, messaging)"]?.stringValue ?? "")
        XCTAssertEqual(legacy.clientVersions, try VersionRange(min: 1, max: 4))
        XCTAssertEqual(legacy.address.queueMode, .messaging)
        XCTAssertEqual(try SMPQueueURI(parsing: roundTrip["queueStrContact"]?.stringValue ?? "").address.queueMode, .contact)
        XCTAssertNil(try SMPQueueURI(parsing: roundTrip["queueStrNoQM"]?.stringValue ?? "").address.queueMode)
    }

    func testQueueURIParseOnly() throws {
        let v = try vectors("links")
        guard case .object(let roundTrip) = try v.field("round_trip"), case .object(let parseOnly) = try v.field("parse_only")
        else {
            return XCTFail("sections")
        }
        let targets = [
            "queue with extra param and dh before query -> same as queueStr": "queueStr (v=1-4, legacy layout, messaging)",
            "queueNewStr' (dh not url-escaped) -> same as queueNewStr": "queueNewStr (v=2-4, new layout)",
            "queueV1 legacy unversioned -> same as queueV1": "queueV1",
        ]
        for (source, target) in targets {
            let input = try XCTUnwrap(parseOnly[source]?.stringValue, source)
            let expected = try XCTUnwrap(roundTrip[target]?.stringValue, target)
            XCTAssertEqual(try SMPQueueURI(parsing: input).text, expected, source)
        }
    }

    /// The queue URIs inside the §8.1 connection links: escaped once more as the `smp=` value (`%253D`), several
    /// joined with `;` before escaping.
    func testQueueURIsInsideConnectionLinks() throws {
        guard case .object(let roundTrip) = try vectors("links").field("round_trip") else { return XCTFail("round_trip") }
        let queueStr = try XCTUnwrap(roundTrip["queueStr (v=1-4, legacy layout, messaging)"]?.stringValue)
        for name in ["invitation", "invitation_2_queues", "invitation_new_queue_layout", "contact", "contact_with_client_data"] {
            let link = try XCTUnwrap(roundTrip[name]?.stringValue, name)
            let query = try XCTUnwrap(link.split(separator: "?", maxSplits: 1).last, name)
            let smp = try XCTUnwrap(QueryEncoding.first("smp", in: QueryEncoding.parameters(query)), name)
            let uris = try String(decoding: smp, as: UTF8.self).split(separator: ";").map { try SMPQueueURI(parsing: String($0)) }
            XCTAssertEqual(uris.count, name == "invitation_2_queues" ? 2 : 1, name)
            let joined = uris.map(\.text).joined(separator: ";")
            XCTAssertTrue(link.contains("smp=" + QueryEncoding.encode(joined)), name)
            if name != "invitation_new_queue_layout" { XCTAssertEqual(uris[0].text, queueStr, name) }
        }
    }

    func testQueueInfoVersions() throws {
        let uri = try SMPQueueURI(
            parsing: try vectors("links").field("round_trip").string("queueStr (v=1-4, legacy layout, messaging)"))
        for version: UInt16 in 1...4 {
            let info = SMPQueueInfo(clientVersion: version, address: uri.address)
            let bytes = try info.encoded()
            let back = try SMPQueueInfo(decoding: bytes)
            XCTAssertEqual(try back.encoded(), bytes, "v\(version)")
            switch version {
            case 4: XCTAssertEqual(bytes.last, UInt8(ascii: "M"))
            case 3: XCTAssertEqual(bytes.last, UInt8(ascii: "T"))
            default: XCTAssertEqual(bytes.last, uri.address.dhPublicKey.spki.last)
            }
            var expected = uri.address
            if version == 2 { expected.queueMode = nil }
            if version > 1 { XCTAssertEqual(back.address, expected, "v\(version)") }
        }
        // No mode byte when the mode is absent (smp.md §9.1 #17).
        var noMode = uri.address
        noMode.queueMode = nil
        let bytes = try SMPQueueInfo(clientVersion: 4, address: noMode).encoded()
        XCTAssertEqual(bytes.last, noMode.dhPublicKey.spki.last)
    }
}
