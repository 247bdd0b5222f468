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
