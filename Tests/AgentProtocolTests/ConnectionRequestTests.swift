import Ratchet
import SMP
import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import AgentProtocol

/// Full connection links (smp.md §1.8–§1.11) against links.json: every round-trip string parses and is written back
/// byte for byte, every parse-only string reads as its canonical form, and broken links are typed errors.
final class ConnectionRequestTests: XCTestCase {
    private var roundTrip: [String: CanonicalJSON] = [:]
    private var parseOnly: [String: CanonicalJSON] = [:]

    override func setUpWithError() throws {
        let v = try fixture("links")
        roundTrip = try v.at("round_trip").objectValue
        parseOnly = try v.at("parse_only").objectValue
    }

    private func link(_ name: String) throws -> String { try XCTUnwrap(roundTrip[name]?.stringValue, name) }

    func testEveryLinkRoundTrips() throws {
        let links = roundTrip.filter { $0.key.hasPrefix("invitation") || $0.key.hasPrefix("contact") }
        XCTAssertEqual(links.count, 7)
        for (name, value) in links {
            let text = try XCTUnwrap(value.stringValue)
            let request = try ConnectionRequest(parsing: text)
            XCTAssertEqual(request.text, text, name)
            XCTAssertEqual(request.mode, name.hasPrefix("invitation") ? .invitation : .contact, name)
            XCTAssertEqual(request.data.queues.count, name == "invitation_2_queues" ? 2 : 1, name)
        }
    }

    func testFieldsOfTheInvitation() throws {
        let inputs = try fixture("links").at("inputs")
        let request = try ConnectionRequest(parsing: link("invitation"))
        guard case .invitation(let data, let e2e) = request else { return XCTFail("not an invitation") }
        XCTAssertEqual(data.agentVersions, try VersionRange(min: 2, max: 7))
        XCTAssertNil(data.clientData)
        let queue = data.queues[0]
        XCTAssertEqual(queue.clientVersions, try VersionRange(min: 1, max: 4))
        XCTAssertEqual(queue.address.senderId.bytes, try inputs.hex("senderId_bytes_hex"))
        XCTAssertEqual(queue.address.queueMode, .messaging)
        XCTAssertEqual(queue.address.server.hosts.count, 2)
        XCTAssertEqual(Base64.encode(queue.address.dhPublicKey.spki), try inputs.string("dh_key_spki_b64url"))
        XCTAssertEqual(e2e.versions, VersionRange(1))
        XCTAssertEqual(Base64.encode(e2e.key1.spki), try inputs.string("x448_key_spki_b64url"))
        XCTAssertEqual(e2e.key1, e2e.key2)
        XCTAssertNil(e2e.kem)
        XCTAssertEqual(try ConnectionRequest(parsing: link("invitation_with_empty_client_data")).data.clientData, "{}")
        XCTAssertEqual(
            try ConnectionRequest(parsing: link("contact_with_client_data")).data.clientData,
            #"{"type":"group_link", "group_link_id":"abc"}"#)
    }

    func testParseOnlyForms() throws {
        let targets = [
            "https invitation -> same as invitation (scheme becomes simplex:)": "invitation",
            "https contact v=1 -> contact_v2 (agent range raised to 2)": "contact_v2",
            "https contact v=1-2 -> contact_v2": "contact_v2",
        ]
        for (source, target) in targets {
            let input = try XCTUnwrap(parseOnly[source]?.stringValue, source)
            XCTAssertEqual(try ConnectionRequest(parsing: input).text, try link(target), source)
        }
        // A `/` before `#`, another https host with a port, the new queue layout: all the same link.
        let invitation = try link("invitation")
        let slashed = invitation.replacingOccurrences(of: "invitation#", with: "invitation/#")
        XCTAssertEqual(try ConnectionRequest(parsing: slashed).text, invitation)
        let hosted = invitation.replacingOccurrences(of: "simplex:", with: "https://example.com:8443")
        XCTAssertEqual(try ConnectionRequest(parsing: hosted).text, invitation)
        // Only a contact link's range is raised; an invitation's v=1 stays.
        let contactV1 = try link("contact").replacingOccurrences(of: "v=2-7", with: "v=1")
        XCTAssertEqual(try ConnectionRequest(parsing: contactV1).data.agentVersions, VersionRange(2))
        let invitationV1 = invitation.replacingOccurrences(of: "v=2-7", with: "v=1")
        XCTAssertEqual(try ConnectionRequest(parsing: invitationV1).data.agentVersions, VersionRange(1))
    }

    func testE2EParamsText() throws {
        let escaped = try XCTUnwrap(roundTrip["e2e_params (value of e2e=)"]?.stringValue)
        let inner = String(decoding: QueryEncoding.decode(escaped), as: UTF8.self)
        let params = try E2ERatchetParamsURI(parsing: inner)
        XCTAssertEqual(params.text, inner)
        XCTAssertEqual(QueryEncoding.encode(params.text), escaped)
        // A KEM key is read and written only when the range reaches version 3.
        let kemKey = [UInt8](repeating: 0x5a, count: 1158)
        let pq = E2ERatchetParamsURI(
            versions: try VersionRange(min: 2, max: 3), key1: params.key1, key2: params.key2,
            kem: .proposed(publicKey: kemKey))
        XCTAssertTrue(pq.text.contains("&kem_key="))
        XCTAssertEqual(try E2ERatchetParamsURI(parsing: pq.text), pq)
        let accepted = E2ERatchetParamsURI(
            versions: VersionRange(3), key1: params.key1, key2: params.key2,
            kem: .accepted(ciphertext: [1, 2, 3], publicKey: kemKey))
        XCTAssertEqual(try E2ERatchetParamsURI(parsing: accepted.text), accepted)
        let old = E2ERatchetParamsURI(
            versions: VersionRange(2), key1: params.key1, key2: params.key2, kem: .proposed(publicKey: kemKey))
        XCTAssertFalse(old.text.contains("kem"))
        XCTAssertNil(try E2ERatchetParamsURI(parsing: pq.text.replacingOccurrences(of: "v=2-3", with: "v=2")).kem)
        // The parameters at the agreed version keep a KEM only from version 3.
        XCTAssertNil(pq.params(version: 2).kem)
        XCTAssertEqual(pq.params(version: 3).kem, .proposed(publicKey: kemKey))
    }

    func testE2EParamsBinary() throws {
        let escaped = try XCTUnwrap(roundTrip["e2e_params (value of e2e=)"]?.stringValue)
        let params = try E2ERatchetParamsURI(parsing: String(decoding: QueryEncoding.decode(escaped), as: UTF8.self))
        let bytes = try params.encoded()
        // VersionRange (4) ‖ len1 SPKI (69) ‖ len1 SPKI (69) ‖ "0"
        XCTAssertEqual(bytes.count, 4 + 69 + 69 + 1)
        XCTAssertEqual(bytes.last, UInt8(ascii: "0"))
        XCTAssertEqual(try E2ERatchetParamsURI(decoding: bytes), params)
        for n in 0..<bytes.count { XCTAssertThrowsError(try E2ERatchetParamsURI(decoding: Array(bytes.prefix(n)))) }
        XCTAssertThrowsError(try E2ERatchetParamsURI(decoding: bytes + [0]))
    }

    func testVersionAgreement() throws {
        let invitation = try ConnectionRequest(parsing: link("invitation"))
        // The §8.1 link offers e2e version 1 only, below our 2–3.
        XCTAssertThrowsError(try invitation.agreeVersions()) { XCTAssertEqual($0 as? AgentProtocolError, .version) }
        let current = try ConnectionRequest(
            parsing: link("invitation").replacingOccurrences(of: "e2e=v%3D1%26", with: "e2e=v%3D2-3%26"))
        XCTAssertEqual(try current.agreeVersions(), JoinVersions(agent: 7, smpClient: 4, e2e: 3))
        XCTAssertEqual(
            try current.agreeVersions(agent: try VersionRange(min: 2, max: 5)), JoinVersions(agent: 5, smpClient: 4, e2e: 3))
        let contact = try ConnectionRequest(parsing: link("contact_v2"))
        XCTAssertEqual(try contact.agreeVersions(), JoinVersions(agent: 2, smpClient: 4, e2e: nil))
        let future = try ConnectionRequest(parsing: link("contact").replacingOccurrences(of: "v=2-7", with: "v=8-9"))
        XCTAssertThrowsError(try future.agreeVersions()) { XCTAssertEqual($0 as? AgentProtocolError, .version) }
        XCTAssertThrowsError(try current.agreeVersions(smpClient: try VersionRange(min: 5, max: 6))) {
            XCTAssertEqual($0 as? AgentProtocolError, .version)
        }
        XCTAssertTrue(VersionAgreement.accepts(7, supported: AgentVersion.supported, agreed: 7))
        XCTAssertTrue(VersionAgreement.accepts(1, supported: AgentVersion.supported, agreed: 2))
        XCTAssertFalse(VersionAgreement.accepts(8, supported: AgentVersion.supported, agreed: 7))
        // An "M" envelope's version raises the connection's, never above ours, never down.
        XCTAssertEqual(AgentVersion.upgrade(current: 4, received: 6), 6)
        XCTAssertEqual(AgentVersion.upgrade(current: 4, received: 9), 7)
        XCTAssertNil(AgentVersion.upgrade(current: 7, received: 9))
        XCTAssertNil(AgentVersion.upgrade(current: 5, received: 3))
        XCTAssertNil(AgentVersion.upgrade(current: 2, received: 1))
    }

    func testMalformedLinksAreTypedErrors() throws {
        let invitation = try link("invitation")
        let broken = [
            "", "simplex:", "simplex:/", "simplex:/group#/?v=2-7", "simplex:/invitation#?v=2-7", "mailto:/invitation#/?v=2",
            "https:///invitation#/?v=2-7", "https://host:port/invitation#/?v=2-7",
            invitation.replacingOccurrences(of: "v=2-7", with: "v=7-2"),
            invitation.replacingOccurrences(of: "v=2-7&", with: ""),
            invitation.replacingOccurrences(of: "&e2e=", with: "&e3e="),
            invitation.replacingOccurrences(of: "x3dh%3D", with: "x3dh%3Dxx"),
            invitation.replacingOccurrences(of: "smp=smp", with: "smp=smq"),
            invitation.replacingOccurrences(of: "smp=", with: "smp=%3B"),
            invitation.replacingOccurrences(of: "%2CMEIw", with: "%2CMCowBQYDK2VuAyEA"),
        ]
        for text in broken {
            XCTAssertThrowsError(try ConnectionRequest(parsing: text), text) { error in
                guard case .linkSyntax = error as? AgentProtocolError else { return XCTFail("\(error) for \(text)") }
            }
        }
        // Every prefix, and random corruption, is a value or a typed error — never a trap.
        var g = SeededGenerator(seed: 17)
        for name in ["invitation", "contact_with_client_data", "invitation_2_queues"] {
            let text = try link(name)
            for n in 0..<text.utf8.count {
                do { _ = try ConnectionRequest(parsing: String(decoding: text.utf8.prefix(n), as: UTF8.self)) } catch {}
            }
            var bytes = Array(text.utf8)
            for _ in 0..<300 {
                let i = Int.random(in: 0..<bytes.count, using: &g)
                let saved = bytes[i]
                bytes[i] = UInt8.random(in: 0...255, using: &g)
                do { _ = try ConnectionRequest(parsing: String(decoding: bytes, as: UTF8.self)) } catch {}
                bytes[i] = saved
            }
        }
    }
}
