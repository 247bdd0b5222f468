import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import XRCP

/// The keys of xrcp.md §19.2.
enum SpecKeys {
    static let session = try! Ed25519.PrivateKey(seed: [UInt8](repeating: 1, count: 32))
    static let identity = try! Ed25519.PrivateKey(seed: [UInt8](repeating: 2, count: 32))
    static let controllerDH = try! X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32))
    static let hostDH = try! X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 4, count: 32))
    static let exampleURI =
        "xrcp:/EBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8=@192.168.1.10:45678#/?v=1&app=%7B%22appVersionRange%22%3A%7B%22maxVersion%22%3A%226.5.0.13%22%2C%22minVersion%22%3A%226.5.0.12%22%7D%2C%22compression%22%3Atrue%2C%22deviceName%22%3A%22My%20Desktop%22%7D&ts=1750000000&skey=MCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w%3D&idkey=MCowBQYDK2VwAyEAgTl3Dqh9F19Wo1Rmw0x-zMuNipG07jeiXfYPW4_Js5Q%3D&dh=MCowBQYDK2VuAyEAXf7dO2vUf2-ijuFdlp1bsOpTd01Ii9r53xxuASSz7yI%3D&ssig=WPhhfi1WLg0ZRzU3b17icO1HHSSflL8AfpRyZqKS-vedpOX8ascCTyf-nwuJhEJHrVrvJTtIKjqrAjVzZq4LCg==&idsig=dU-RfXp1hlQcTG7WDkDE6KYWDtwKnDqzCwOPpw8BLqV8xDGaGHfgDy3C67MXtSeQlGyQmNbneYo2vEPEVhawCQ=="

    static var exampleInvitation: Invitation {
        Invitation(
            ca: try! CertificateFingerprint(rawRepresentation: Array(0x10...0x2f)), host: "192.168.1.10", port: 45678,
            app: ControllerAppInfo(
                appVersionRange: AppVersionRange(min: AppVersion([6, 5, 0, 12]), max: AppVersion([6, 5, 0, 13])),
                deviceName: "My Desktop", compression: true
            ).json,
            timestamp: 1_750_000_000, sessionKey: session.publicKey, identityKey: identity.publicKey, dh: controllerDH.publicKey)
    }
}

final class InvitationTests: XCTestCase {
    func testTVINVSigningReproducesTheExample() {
        let signed = SpecKeys.exampleInvitation.signed(sessionKey: SpecKeys.session, identityKey: SpecKeys.identity)
        XCTAssertEqual(signed.uri, SpecKeys.exampleURI)
        XCTAssertEqual(signed.uri.utf8.count, 658)
    }

    func testParseAndVerifyTheExample() throws {
        let verified = try SignedInvitation(uri: "  " + SpecKeys.exampleURI + "\n").verified()
        XCTAssertEqual(verified.invitation, SpecKeys.exampleInvitation)
        XCTAssertEqual(try verified.invitation.appInfo().deviceName, "My Desktop")
        XCTAssertEqual(try verified.invitation.appInfo().compression, true)
        XCTAssertEqual(verified.invitation.versions, VersionRange(1))
    }

    func testTamperedAndLegacyInvitationsAreRefused() throws {
        let tampered = SpecKeys.exampleURI.replacingFirst("My%20Desktop", with: "My%20Laptop")
        XCTAssertEqual(thrown { try SignedInvitation(uri: tampered).verified() } as? XRCPError, .invitation)
        // Legacy idsig (over the standard-base64 rendering of ssig): a current host refuses it (§5.4).
        let unsigned = SpecKeys.exampleInvitation.unsignedURI
        let ssig = SpecKeys.session.signature(for: Array(unsigned.utf8)).rawRepresentation
        let legacy = SpecKeys.identity.signature(
            for: Array((unsigned + "&ssig=" + Base64.encode(ssig, alphabet: .standard)).utf8)
        ).rawRepresentation
        let legacyURI = unsigned + "&ssig=" + Base64.encode(ssig) + "&idsig=" + Base64.encode(legacy)
        XCTAssertEqual(thrown { try SignedInvitation(uri: legacyURI).verified() } as? XRCPError, .invitation)
        // Signed by another identity.
        let other = SpecKeys.exampleInvitation.signed(sessionKey: SpecKeys.session, identityKey: Ed25519.PrivateKey())
        XCTAssertEqual(thrown { try SignedInvitation(uri: other.uri).verified() } as? XRCPError, .invitation)
    }

    func testMalformedURIsAreSyntaxErrors() {
        let uri = SpecKeys.exampleURI
        for n in stride(from: 0, to: uri.utf8.count, by: 7) {
            let prefix = String(decoding: Array(uri.utf8.prefix(n)), as: UTF8.self)
            XCTAssertThrowsError(try SignedInvitation(uri: prefix).verified(), "prefix \(n)")
        }
        XCTAssertEqual(
            thrown { try SignedInvitation(uri: uri.replacingFirst("xrcp:/", with: "xrcp://")) } as? XRCPError,
            .syntax("invitation must start with xrcp:/"))
        XCTAssertEqual(
            thrown { try SignedInvitation(uri: uri.replacingFirst(":45678", with: ":0")) } as? XRCPError, .syntax("invalid port"))
        XCTAssertEqual(
            thrown { try SignedInvitation(uri: uri.replacingFirst("&ts=", with: "&tz=")) } as? XRCPError,
            .syntax("invitation has no ts"))
        XCTAssertEqual(
            thrown { try SignedInvitation(uri: uri.replacingFirst("v=1", with: "v=2-1")) } as? XRCPError,
            .syntax("invalid version range"))
        XCTAssertThrowsError(try SignedInvitation(uri: String(repeating: "x", count: 5000)))
        // dh and skey swapped: an Ed25519 key where X25519 is expected.
        XCTAssertThrowsError(try SignedInvitation(uri: uri.replacingFirst("dh=MCowBQYDK2Vu", with: "dh=MCowBQYDK2Vw")))
        var rng = SystemRandomNumberGenerator()
        var bytes = Array(uri.utf8)
        for _ in 0..<2000 {
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            let saved = bytes[i]
            bytes[i] = UInt8.random(in: 0x20...0x7e, using: &rng)
            if let parsed = try? SignedInvitation(uri: String(decoding: bytes, as: UTF8.self)), bytes[i] != saved {
                _ = try? parsed.verified()
            }
            bytes[i] = saved
        }
    }

    /// Every mutation is refused, and each names its own reason (the wire answer stays `invitation`).
    func testEachMutatedInvitationNamesItsReason() throws {
        let uri = SpecKeys.exampleURI
        let unsigned = SpecKeys.exampleInvitation.unsignedURI
        let ssig = SpecKeys.session.signature(for: Array(unsigned.utf8)).rawRepresentation
        let legacyIdsig = SpecKeys.identity.signature(
            for: Array((unsigned + "&ssig=" + Base64.encode(ssig, alphabet: .standard)).utf8)
        ).rawRepresentation
        let legacyURI = unsigned + "&ssig=" + Base64.encode(ssig) + "&idsig=" + Base64.encode(legacyIdsig)
        let otherIdentity = SpecKeys.exampleInvitation.signed(sessionKey: SpecKeys.session, identityKey: Ed25519.PrivateKey())
        let skey = "MCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w%3D"
        let dh = "MCowBQYDK2VuAyEAXf7dO2vUf2-ijuFdlp1bsOpTd01Ii9r53xxuASSz7yI%3D"
        let table: [(String, String, InvitationRefusal)] = [
            ("two slashes", uri.replacingFirst("xrcp:/", with: "xrcp://"), .malformed("invitation must start with xrcp:/")),
            ("other scheme", uri.replacingFirst("xrcp:/", with: "http:/"), .malformed("invitation must start with xrcp:/")),
            ("no ssig", uri.replacingFirst("&ssig=", with: "&sig="), .malformed("invitation has no ssig")),
            ("no idsig", uri.replacingFirst("&idsig=", with: "&isig="), .malformed("invitation has no idsig")),
            ("no @", uri.replacingFirst("@", with: "!"), .malformed("invitation has no @")),
            ("CA not base64url", uri.replacingFirst("EBESExQV", with: "EBES*xQV"), .malformed("CA fingerprint is not base64url")),
            (
                "CA of 31 bytes",
                uri.replacingFirst(
                    "EBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8=", with: Base64.encode((0..<31).map { UInt8($0) })),
                .malformed("CA fingerprint is not 32 bytes")
            ),
            ("no #/?", uri.replacingFirst("#/?", with: "#?"), .malformed("invitation has no #/?")),
            ("no port", uri.replacingFirst(":45678", with: ""), .malformed("invitation has no port")),
            ("port 0", uri.replacingFirst(":45678", with: ":0"), .malformed("invalid port")),
            ("port too large", uri.replacingFirst(":45678", with: ":65536"), .malformed("invalid port")),
            ("empty host", uri.replacingFirst("192.168.1.10", with: ""), .malformed("invalid host")),
            ("descending range", uri.replacingFirst("v=1", with: "v=2-1"), .malformed("invalid version range")),
            ("no v", uri.replacingFirst("v=1", with: "w=1"), .malformed("invitation has no v")),
            ("no app", uri.replacingFirst("&app=", with: "&ap="), .malformed("invitation has no app")),
            ("no ts", uri.replacingFirst("&ts=", with: "&tz="), .malformed("invitation has no ts")),
            (
                "ts not a number", uri.replacingFirst("ts=1750000000", with: "ts=17500O0000"),
                .malformed("ts is not a decimal number of seconds")
            ),
            (
                "ts negative", uri.replacingFirst("ts=1750000000", with: "ts=-1"),
                .malformed("ts is not a decimal number of seconds")
            ),
            (
                "ts out of range", uri.replacingFirst("ts=1750000000", with: "ts=99999999999999999999"),
                .malformed("ts 99999999999999999999 is out of range")
            ),
            ("no skey", uri.replacingFirst("&skey=", with: "&skay="), .malformed("invitation has no skey")),
            ("no idkey", uri.replacingFirst("&idkey=", with: "&idkay="), .malformed("invitation has no idkey")),
            ("no dh", uri.replacingFirst("&dh=", with: "&dj="), .malformed("invitation has no dh")),
            (
                "skey an X25519 key", uri.replacingFirst("skey=" + skey, with: "skey=" + dh),
                .malformed("skey is not an Ed25519 public key")
            ),
            ("idkey not base64url", uri.replacingFirst("idkey=MCow", with: "idkey=MC*w"), .malformed("idkey is not base64url")),
            (
                "dh an Ed25519 key", uri.replacingFirst("dh=" + dh, with: "dh=" + skey),
                .malformed("dh is not an X25519 public key")
            ),
            (
                "ssig short", uri.replacingFirst("&ssig=WPhh", with: "&ssig="),
                .malformed("ssig is not a 64-byte base64url signature")
            ),
            (
                "idsig not base64url", uri.replacingFirst("&idsig=dU-R", with: "&idsig=dU*R"),
                .malformed("idsig is not a 64-byte base64url signature")
            ),
            ("device name changed", uri.replacingFirst("My%20Desktop", with: "My%20Laptop"), .sessionSignature),
            ("ts changed", uri.replacingFirst("ts=1750000000", with: "ts=1750000001"), .sessionSignature),
            ("port changed", uri.replacingFirst(":45678", with: ":45679"), .sessionSignature),
            ("extra parameter", uri.replacingFirst("&ssig=", with: "&x=1&ssig="), .sessionSignature),
            ("ssig of another message", uri.replacingFirst("&ssig=WPhh", with: "&ssig=WPhi"), .sessionSignature),
            ("idsig of another key", otherIdentity.uri, .identitySignature),
            ("idsig changed", uri.replacingFirst("&idsig=dU-R", with: "&idsig=dU-S"), .identitySignature),
            ("legacy idsig", legacyURI, .legacySignature(try SpecKeys.exampleInvitation.appInfo())),
        ]
        for (name, mutated, expected) in table {
            XCTAssertNotEqual(mutated, uri, name)
            XCTAssertEqual(thrown { try SignedInvitation.verify(uri: mutated) } as? InvitationRefusal, expected, name)
            // The wire answer is the same for all of them.
            XCTAssertNotNil(thrown { try SignedInvitation(uri: mutated).verified() } as? XRCPError, name)
        }
        // Different refusals read differently.
        for (a, b) in zip(table, table.dropFirst()) where a.2 != b.2 {
            XCTAssertNotEqual(a.2.description, b.2.description, "\(a.0) / \(b.0)")
        }
        XCTAssertEqual(try SignedInvitation.verify(uri: uri).invitation, SpecKeys.exampleInvitation)
        XCTAssertTrue(
            InvitationRefusal.legacySignature(try SpecKeys.exampleInvitation.appInfo()).description.contains("6.5.0.12"))
    }

    /// An `app` that is JSON but not a controller's app info names the field that is missing or wrong.
    func testControllerAppInfoNamesItsField() {
        func refusal(_ json: String) -> XRCPError? {
            thrown { try ControllerAppInfo(json: try! CanonicalJSON.parse(json)) } as? XRCPError
        }
        XCTAssertEqual(refusal("[]"), .syntax("controller app info is not a JSON object"))
        XCTAssertEqual(refusal(#"{"appVersionRange":{}}"#), .syntax("controller app info has no deviceName string"))
        XCTAssertEqual(refusal(#"{"deviceName":"d"}"#), .syntax("controller app info has no appVersionRange"))
        XCTAssertEqual(
            refusal(#"{"deviceName":"d","appVersionRange":{"maxVersion":"6.5"}}"#),
            .syntax("appVersionRange has no minVersion string"))
        XCTAssertEqual(
            refusal(#"{"deviceName":"d","appVersionRange":{"minVersion":"6.5","maxVersion":"6.x"}}"#),
            .syntax(#"appVersionRange maxVersion "6.x" is not a version"#))
    }

    func testAppVersionNegotiation() throws {
        let ours = AppVersionRange.supported
        let older = AppVersionRange(min: AppVersion([6, 4, 0]), max: AppVersion([6, 5, 0, 12]))
        XCTAssertEqual(ours.negotiate(with: older), AppVersion([6, 5, 0, 12]))
        let tooOld = AppVersionRange(min: AppVersion([6, 0]), max: AppVersion([6, 4, 6, 0]))
        XCTAssertNil(ours.negotiate(with: tooOld))
        XCTAssertTrue(AppVersion([6, 5, 0]) < AppVersion([6, 5, 0, 0]))
        XCTAssertTrue(AppVersion([6, 10]) > AppVersion([6, 9, 9]))
        XCTAssertNil(AppVersion("6..5"))
        XCTAssertNil(AppVersion("6.5a"))
        XCTAssertEqual(AppVersion("6.5.0.13"), AppVersion.current)
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = firstRange(of: target) else { return self }
        return String(self[..<r.lowerBound]) + replacement + String(self[r.upperBound...])
    }
}
