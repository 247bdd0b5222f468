import SimplexCrypto
import SimplexEncoding
import XCTest

/// The computed vectors of xrcp.md §19.2 that this layer covers, byte for byte.
final class SpecVectorTests: XCTestCase {
    private let sessionKey = try! Ed25519.PrivateKey(seed: [UInt8](repeating: 1, count: 32))
    private let identityKey = try! Ed25519.PrivateKey(seed: [UInt8](repeating: 2, count: 32))
    private let controllerDH = try! X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32))
    private let hostDH = try! X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 4, count: 32))

    private let exampleInvitation =
        "xrcp:/EBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8=@192.168.1.10:45678#/?v=1&app=%7B%22appVersionRange%22%3A%7B%22maxVersion%22%3A%226.5.0.13%22%2C%22minVersion%22%3A%226.5.0.12%22%7D%2C%22compression%22%3Atrue%2C%22deviceName%22%3A%22My%20Desktop%22%7D&ts=1750000000&skey=MCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w%3D&idkey=MCowBQYDK2VwAyEAgTl3Dqh9F19Wo1Rmw0x-zMuNipG07jeiXfYPW4_Js5Q%3D&dh=MCowBQYDK2VuAyEAXf7dO2vUf2-ijuFdlp1bsOpTd01Ii9r53xxuASSz7yI%3D&ssig=WPhhfi1WLg0ZRzU3b17icO1HHSSflL8AfpRyZqKS-vedpOX8ascCTyf-nwuJhEJHrVrvJTtIKjqrAjVzZq4LCg==&idsig=dU-RfXp1hlQcTG7WDkDE6KYWDtwKnDqzCwOPpw8BLqV8xDGaGHfgDy3C67MXtSeQlGyQmNbneYo2vEPEVhawCQ=="

    private var dhSecret: X25519.SharedSecret { try! controllerDH.sharedSecret(with: hostDH.publicKey) }

    func testTVSPKI() {
        XCTAssertEqual(
            Hex.encode(sessionKey.publicKey.spki),
            "302a300506032b65700321008a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c")
        XCTAssertEqual(
            Hex.encode(identityKey.publicKey.spki),
            "302a300506032b65700321008139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394")
        XCTAssertEqual(
            Hex.encode(controllerDH.publicKey.spki),
            "302a300506032b656e0321005dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22")
        XCTAssertEqual(
            Hex.encode(hostDH.publicKey.spki),
            "302a300506032b656e032100ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10b")
        // len1 framing of an SPKI key on the wire: 0x2c then 44 bytes.
        XCTAssertEqual(try ShortBytes(hostDH.publicKey.spki).encoded().first, 0x2c)
    }

    func testTVINVSignaturesOverTheExampleInvitation() throws {
        // The unsigned part built from our encoders, then both signatures (§5.4).
        let app = CanonicalJSON.object([
            "appVersionRange": .object(["minVersion": .string("6.5.0.12"), "maxVersion": .string("6.5.0.13")]),
            "compression": .bool(true), "deviceName": .string("My Desktop"),
        ])
        let fingerprint = Base64.encode(Array(0x10...0x2f) as [UInt8])
        let unsigned =
            "xrcp:/\(fingerprint)@192.168.1.10:45678#/?v=\(VersionRange(1))&app=\(QueryEncoding.encode(app.rendered))&ts=1750000000"
            + "&skey=\(QueryEncoding.encode(Base64.encode(sessionKey.publicKey.spki)))"
            + "&idkey=\(QueryEncoding.encode(Base64.encode(identityKey.publicKey.spki)))"
            + "&dh=\(QueryEncoding.encode(Base64.encode(controllerDH.publicKey.spki)))"
        let ssig = sessionKey.signature(for: Array(unsigned.utf8))
        XCTAssertEqual(
            Hex.encode(ssig.rawRepresentation),
            "58f8617e2d562e0d194735376f5ee270ed471d249f94bf007e947266a292faf79da4e5fc6ac7024f27fe9f0b89844247ad5aef253b482a3aab02357366ae0b0a"
        )
        let withSsig = unsigned + "&ssig=" + Base64.encode(ssig.rawRepresentation)
        let idsig = identityKey.signature(for: Array(withSsig.utf8))
        XCTAssertEqual(
            Hex.encode(idsig.rawRepresentation),
            "754f917d7a7586541c4c6ed60e40c4e8a6160edc0a9c3ab30b038fa70f012ea57cc4319a1877e00f2dc2ebb317b52790946c9098d6e7798a36bc43c45616b009"
        )
        let full = withSsig + "&idsig=" + Base64.encode(idsig.rawRepresentation)
        XCTAssertEqual(full, exampleInvitation)
        XCTAssertEqual(full.utf8.count, 658)
        let legacy = identityKey.signature(
            for: Array((unsigned + "&ssig=" + Base64.encode(ssig.rawRepresentation, alphabet: .standard)).utf8))
        XCTAssertEqual(
            Hex.encode(legacy.rawRepresentation),
            "f7fbadd4c2b8ba08ed3151506b536808a1cfb2a53075d0d3c1c93abce7f799435f88f180f13b16238969d337b5318313f8f29abbbcfa457a241d1f072511680b"
        )
    }

    func testTVDH() throws {
        XCTAssertEqual(Hex.encode(dhSecret.rawRepresentation), "40e47a3f525bdcac491d418978d7db5af623ac7afe7623c6d78a5d4fce9d0f63")
        XCTAssertEqual(try hostDH.sharedSecret(with: controllerDH.publicKey), dhSecret)
        XCTAssertEqual(Hex.encode(dhSecret.boxKey.derivedKey), "2a7e61b6389226baa04c5738c81d23db39ecf157632f9d000c918f0ec66be83e")
    }

    func testTVSXBOX() throws {
        let key = try SecretBox.Key(rawRepresentation: [UInt8](repeating: 0x11, count: 32))
        let nonce = try SecretBox.Nonce(rawRepresentation: [UInt8](repeating: 0x22, count: 24))
        let hello = Array("hello".utf8)
        XCTAssertEqual(Hex.encode(key.derivedKey), "ebe2ea9953a361619e3ba13000fe51dbf0d8da61064b4e93a6dd3acc6499d080")
        XCTAssertEqual(Hex.encode(SecretBox.seal(hello, key: key, nonce: nonce)), "a3696edb209c402ad676213ab65f7d20ea048b5303")
        XCTAssertEqual(
            Hex.encode(SecretBox.sealTailTag(hello, key: key, nonce: nonce)), "ea048b5303a3696edb209c402ad676213ab65f7d20")
        XCTAssertEqual(
            Hex.encode(try SecretBox.sealPadded(hello, to: 32, key: key, nonce: nonce)),
            "f2d6a22bfd35ef987aa6f8ceb207998282648f5a0049316b52cf9907ef6cecb635497763e4440094f9a9792370545bf7")
    }

    func testTVMCASTPacket() throws {
        let nonce = try SecretBox.Nonce(rawRepresentation: Array(0x40...0x57))
        var packet = try ShortBytes(controllerDH.publicKey.spki).encoded() + nonce.rawRepresentation
        packet += try SecretBox.sealPadded(Array(exampleInvitation.utf8), to: 900, key: dhSecret.boxKey, nonce: nonce)
        XCTAssertEqual(packet.count, 985)
        XCTAssertEqual(Hex.encode(Digest.sha256(packet)), "ae08f0cb3b988fa8ccf99487511da2ff271e5913d06614fdc90871a0185725a0")
        XCTAssertEqual(
            Hex.encode(packet.prefix(80)),
            "2c302a300506032b656e0321005dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22404142434445464748494a4b4c4d4e4f505152535455565724b0271e7ba307db124c53"
        )
    }

    func testTVHELLOBlock() throws {
        let nonce = try SecretBox.Nonce(rawRepresentation: Array(0x80...0x97))
        let json = Array(#"{"v":1,"ca":"AAAA","app":{},"kem":"AAAA"}"#.utf8)
        var message = Array("HELLO ".utf8) + (try ShortBytes(hostDH.publicKey.spki).encoded()) + nonce.rawRepresentation
        message += try SecretBox.sealPadded(json, to: 12288, key: dhSecret.boxKey, nonce: nonce)
        XCTAssertEqual(message.count, 12379)
        let block = try Padding.pad(message, to: 16384)
        XCTAssertEqual(
            Hex.encode(block.prefix(77)),
            "305b48454c4c4f202c302a300506032b656e032100ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10b808182838485868788898a8b8c8d8e8f9091929394959697"
        )
        XCTAssertEqual(Hex.encode(Digest.sha256(block)), "592297e8c079cac0ee56cb7f99955393fd757f3166dce272d70a0faf837d7374")
    }

    /// TV-HYBRID's secret, built from the raw bytes (the KEM tests build it from a KEM secret).
    private var hybrid: HybridSecret {
        try! HybridSecret(rawRepresentation: Digest.sha3_256(dhSecret.rawRepresentation + Array(0x60...0x7f)))
    }

    func testTVHYBRID() {
        XCTAssertEqual(Hex.encode(hybrid.rawRepresentation), "98c8eeb05d50059b16b5ec6f7db8423f2993860d200ee8917e66a842d6598271")
    }

    func testTVCHAINAndControllerHello() throws {
        var (ckA, ckB) = ChainKey.initialChains(from: hybrid)
        XCTAssertEqual(Hex.encode(ckA.rawRepresentation), "0b6b0978c56e08695ddb7fe5af08b83c9739cfa2c56be19dde39e442a1e39e7d")
        XCTAssertEqual(Hex.encode(ckB.rawRepresentation), "dd6b3469439198f751754c7690529e3aa4094e49573b4bda15b16ea4d59070e0")
        let expectedA = [
            (
                "9161f32719544fb8c06dabbad15b43f604f1789fe4eea806d4fd7f1723621205",
                "3d22a39c0a65a6b09b4140d2b1d5f549fe44d7b036839ca7",
                "1982fc1a4bbe28740169181cddd971327c8ebd835ef99af1330ce815264f72a8"
            ),
            (
                "7289cca0bf3dc7425e35f10aa7cf4a46e5c070d25a8a3c2aed7b85f000fb77d9",
                "37fefdae73a1e3a5110fa84f2670d9985b694deb7a5ee93b",
                "d7fd35bd91b29df6bfc2f8c5363c5ae42b4dcc05368b7ea12e5ded6dd919765a"
            ),
            (
                "64da61bb8f67e738d05d6014e65f3cca114a36f7370a990758345b7f2d26f514",
                "6c9ccfec899195d9627a2ecefc0e2850a292db36bb69d120",
                "050ce3c0f99c06c23d9de75ff7ae1ddce722ef8e38c892287fea0fa93092cb75"
            ),
        ]
        let expectedB = [
            (
                "57044c91854af1f157076eb9456fdddfd761732d864ecc83f821127afc3bb5bc",
                "0d4c9bbe9d522efb5d6a04a59c0c7b6016905772df091f41",
                "92f3813796e172b603689664ca391349c5c6a6296c397a11a434dfffe8b20a0f"
            ),
            (
                "22e36c9f833cc0be59e530bd526a1de6ef5be20f9c9e9f5ec0dba65668f7b577",
                "d19d661f9440c63a9d6a7c2bfddd4f90e293a1b3d4c48f49",
                "e21012d92360cb586f83890d05d68a02328f67b0e688d613117718cc25666c5c"
            ),
        ]
        var stepsA: [MessageKey] = []
        for (key, nonce, next) in expectedA {
            let mk = ckA.next()
            stepsA.append(mk)
            XCTAssertEqual(Hex.encode(mk.key.rawRepresentation), key)
            XCTAssertEqual(Hex.encode(mk.nonce.rawRepresentation), nonce)
            XCTAssertEqual(Hex.encode(ckA.rawRepresentation), next)
        }
        for (key, nonce, next) in expectedB {
            let mk = ckB.next()
            XCTAssertEqual(Hex.encode(mk.key.rawRepresentation), key)
            XCTAssertEqual(Hex.encode(mk.nonce.rawRepresentation), nonce)
            XCTAssertEqual(Hex.encode(ckB.rawRepresentation), next)
        }

        // TV-CHELLO: the controller HELLO body under ckA step 1.
        let hello = try SecretBox.sealPadded(Array("{}".utf8), to: 12288, key: stepsA[0].key, nonce: stepsA[0].nonce)
        XCTAssertEqual(hello.count, 12304)
        XCTAssertEqual(Hex.encode(hello.prefix(16)), "d3eaa1fad723f55dacd7b0fe23b3ecbe")
        XCTAssertEqual(Hex.encode(Digest.sha256(hello)), "871637e83df8e3f1f8646703e676de1b0ba59599ad2f5084ab615f1337762cec")

        // TV-BODY: the first request, corrId 1, under ckA step 2, signed with the session and identity keys.
        let plaintext = try ShortBytes(Array(0xa0...0xbf)).encoded() + Array(#"{"type":"recv","wait":10000000}"#.utf8)
        XCTAssertEqual(
            Hex.encode(plaintext),
            "20a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf7b2274797065223a2272656376222c2277616974223a31303030303030307d"
        )
        let ct = SecretBox.sealTailTag(plaintext, key: stepsA[1].key, nonce: stepsA[1].nonce)
        var w = ByteWriter()
        w.writeUInt32(1)
        w.writeUInt32(UInt32(ct.count))
        w.writeBytes(ct)
        let signed = w.bytes
        let ssig = sessionKey.signature(for: Digest.sha512(signed))
        let idsig = identityKey.signature(for: Digest.sha512(signed + ssig.rawRepresentation))
        try w.writeShortBytes(ssig.rawRepresentation)
        try w.writeShortBytes(idsig.rawRepresentation)
        XCTAssertEqual(w.bytes.count, 218)
        XCTAssertEqual(
            Hex.encode(w.bytes),
            "0000000100000050"
                + "698138d9ae4ec57b8161cde94a4a8351172b35e1ac11f5f77ba082922112f20f967435787c2c4637148183851397e4a355b40491ce22634ad5bbbce51d10a00bdcc4033fdf1dac72f7f9d54c327a6bb6"
                + "40a48932a0427b89127b81102a633012a74529deb20346259c8e97af9d2d3331fc1e3fad8086f0f08e11578d38691ce41a9c7731d2b2f6b45d15aba6922d66080a"
                + "4056de8fea16f92d0045be56eb8b8710dde25653e6504c849c8248235eb65f5b85100ff2a11f609bb11c226977bda18463e53f1b2130d63032ce1e5b31f9036f09"
        )
    }
}
