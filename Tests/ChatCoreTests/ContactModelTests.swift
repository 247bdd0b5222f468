import Foundation
import SimplexEncoding
import TestSupport
import XCTest

@testable import ChatCore

/// The JSON of contacts, connections, requests and addresses, byte for byte against fixtures from chat-api.md's
/// examples that Tests/EndToEnd/contact_fixtures.py checks against the official Python package's types.
final class ContactModelTests: XCTestCase {
    static func fixture(_ name: String) throws -> [UInt8] {
        let folder = try XCTUnwrap(Bundle.module.url(forResource: "contacts", withExtension: nil))
        var bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name + ".json")))
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes
    }

    static func input(_ bytes: [UInt8]) throws -> JSONInput { JSONInput(try CanonicalJSON.parse(bytes)) }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Each fixture read and written again is the same bytes: field order, omitted optionals, tags.
    func testEveryFixtureIsWrittenBackByteForByte() throws {
        let readers: [(String, (JSONInput) throws -> [UInt8])] = [
            ("Connection", { try Connection($0).jsonBytes }),
            ("Connection.address", { try Connection($0).jsonBytes }),
            ("Contact", { try Contact($0).jsonBytes }),
            ("Contact.prepared", { try Contact($0).jsonBytes }),
            ("ContactUserPreferences", { try ContactUserPreferences($0).jsonBytes }),
            ("PendingContactConnection", { try PendingContactConnection($0).jsonBytes }),
            ("PendingContactConnection.joining", { try PendingContactConnection($0).jsonBytes }),
            ("UserContactRequest", { try UserContactRequest($0).jsonBytes }),
            ("UserContactLink", { try UserContactLink($0).jsonBytes }),
            ("UserContactLink.manual", { try UserContactLink($0).jsonBytes }),
        ]
        for (name, rewrite) in readers {
            let bytes = try Self.fixture(name)
            XCTAssertEqual(text(try rewrite(Self.input(bytes))), text(bytes), name)
        }
    }

    static let created = UTCTime(iso8601: "2025-05-02T10:11:12.345Z")!

    static let readyConnection = Connection(
        connId: 7, agentConnId: AgentConnId(bytes: Array("7a8df6b3-2d4c-4e".utf8)), connChatVersion: 15,
        peerChatVRange: ChatVersionRange(minVersion: 1, maxVersion: 15), connType: .contact, connStatus: .ready,
        contactConnInitiated: true, entityId: 3, pqSupport: true, pqEncryption: true, pqSndEnabled: true,
        pqRcvEnabled: true, createdAt: created)

    /// Values built in code write the fixtures: the writers do not depend on the readers.
    func testValuesBuiltInCodeWriteTheFixtures() throws {
        XCTAssertEqual(text(Self.readyConnection.jsonBytes), text(try Self.fixture("Connection")))

        let merged = try ContactUserPreferences(Self.input(try Self.fixture("ContactUserPreferences")))
        let contact = Contact(
            contactId: 3, localDisplayName: "bob",
            profile: LocalProfile(profileId: 5, profile: Profile(displayName: "bob", fullName: "Bob"), localAlias: ""),
            activeConn: Self.readyConnection, contactUsed: true, contactStatus: .active, chatSettings: ChatSettings(),
            userPreferences: Preferences(), mergedPreferences: merged, createdAt: Self.created,
            updatedAt: UTCTime(iso8601: "2025-05-02T10:15:00Z")!, chatTs: UTCTime(iso8601: "2025-06-01T09:30:12.123456Z")!)
        XCTAssertEqual(text(contact.jsonBytes), text(try Self.fixture("Contact")))

        let pending = PendingContactConnection(
            pccConnId: 12, pccAgentConnId: AgentConnId(bytes: Array("pending-conn-12".utf8)), pccConnStatus: .new,
            viaContactUri: false,
            connLinkInv: CreatedConnLink(
                connFullLink: "simplex:/invitation#/?v=2-7&smp=smp%3A%2F%2F...",
                connShortLink: "https://smp6.simplex.im/i#Wq8p..."),
            localAlias: "", createdAt: UTCTime(iso8601: "2025-06-01T09:00:00Z")!,
            updatedAt: UTCTime(iso8601: "2025-06-01T09:00:00Z")!)
        XCTAssertEqual(text(pending.jsonBytes), text(try Self.fixture("PendingContactConnection")))

        let at = UTCTime(iso8601: "2025-06-02T13:00:00Z")!
        let request = UserContactRequest(
            contactRequestId: 3, agentInvitationId: AgentInvId(bytes: Array("contact-req-inv".utf8)), contactId: 17,
            userContactLinkId: 2, cReqChatVRange: ChatVersionRange(minVersion: 1, maxVersion: 16), localDisplayName: "carol",
            profileId: 31,
            profile: LocalProfile(profileId: 31, profile: Profile(displayName: "carol", fullName: "Carol"), localAlias: ""),
            createdAt: at, updatedAt: at, xContactId: XContactId(bytes: Array("x-contact-id".utf8)), pqSupport: true)
        XCTAssertEqual(text(request.jsonBytes), text(try Self.fixture("UserContactRequest")))

        let address = UserContactLink(
            userContactLinkId: 1, connLinkContact: CreatedConnLink(connFullLink: "simplex:/contact#/?v=2-7&smp=smp%3A%2F%2Fa"),
            shortLinkDataSet: false, shortLinkLargeDataSet: false, addressSettings: AddressSettings(businessAddress: true))
        XCTAssertEqual(text(address.jsonBytes), text(try Self.fixture("UserContactLink.manual")))
    }

    /// The tagged form is written; the plain strings of older cores are read too.
    func testConnStatusIsWrittenTaggedAndReadInBothForms() throws {
        let all: [(ConnStatus, String, String)] = [
            (.new, #"{"type":"new"}"#, "new"), (.prepared, #"{"type":"prepared"}"#, "prepared"),
            (.joined, #"{"type":"joined"}"#, "joined"), (.requested, #"{"type":"requested"}"#, "requested"),
            (.accepted, #"{"type":"accepted"}"#, "accepted"), (.sndReady, #"{"type":"sndReady"}"#, "snd-ready"),
            (.ready, #"{"type":"ready"}"#, "ready"), (.deleted, #"{"type":"deleted"}"#, "deleted"),
        ]
        for (status, tagged, plain) in all {
            XCTAssertEqual(text(status.jsonBytes), tagged)
            XCTAssertEqual(try ConnStatus(Self.input(Array(tagged.utf8))), status)
            XCTAssertEqual(try ConnStatus(Self.input(Array("\"\(plain)\"".utf8))), status)
            XCTAssertEqual(ConnStatus(storeText: status.storeText, connError: nil), status)
        }
        let failed = ConnStatus.failed(connError: "AUTH")
        XCTAssertEqual(text(failed.jsonBytes), #"{"type":"failed","connError":"AUTH"}"#)
        XCTAssertEqual(try ConnStatus(Self.input(failed.jsonBytes)), failed)
        XCTAssertEqual(ConnStatus(storeText: "failed", connError: "AUTH"), failed)
        for bad in [#"{"type":"snd-ready"}"#, #""sndReady""#, #""failed""#, #"{"type":"failed"}"#, "1", #"{"type":"x"}"#] {
            XCTAssertThrowsError(try ConnStatus(Self.input(Array(bad.utf8))), bad)
        }
    }

    /// `uiConnLinkType` is lower case on the way out and read in either case, as the official parser reads it.
    func testConnectionModeIsLowerCase() throws {
        XCTAssertEqual(try ConnectionMode(Self.input(Array(#""INV""#.utf8))), .invitation)
        XCTAssertEqual(try ConnectionMode(Self.input(Array(#""con""#.utf8))), .contact)
        XCTAssertThrowsError(try ConnectionMode(Self.input(Array(#""grp""#.utf8))))
    }

    /// Byte strings are base64url, padded on the way out, and read padded or not.
    func testAgentIdsAreBase64URLPadded() throws {
        let id = AgentConnId(bytes: [0xFB, 0xFF, 0x01])
        XCTAssertEqual(text(id.jsonBytes), #""-_8B""#)
        XCTAssertEqual(text(AgentConnId(bytes: [1]).jsonBytes), #""AQ==""#)
        XCTAssertEqual(try AgentConnId(Self.input(Array(#""AQ==""#.utf8))), AgentConnId(bytes: [1]))
        XCTAssertEqual(try AgentConnId(Self.input(Array(#""AQ""#.utf8))), AgentConnId(bytes: [1]))
        for bad in [#""""#, #""+/8B""#, #""==""#, "7"] {
            XCTAssertThrowsError(try AgentConnId(Self.input(Array(bad.utf8))), bad)
        }
    }

    /// Merged preferences need every feature; a missing one is refused, not filled in.
    func testMergedPreferencesNeedEveryFeature() throws {
        let merged = try ContactUserPreferences(Self.input(try Self.fixture("ContactUserPreferences")))
        XCTAssertEqual(merged["reactions"]?.enabled, PrefEnabled(forUser: true, forContact: true))
        XCTAssertEqual(merged["timedMessages"]?.userPreferenceSource, .user)
        var features: [String: ContactUserPreference] = [:]
        for f in ["timedMessages", "fullDelete", "reactions", "voice", "files", "calls"] { features[f] = merged[f] }
        XCTAssertNil(ContactUserPreferences(features: features))
        features["sessions"] = merged["sessions"]
        XCTAssertEqual(ContactUserPreferences(features: features), merged)
        guard case .object(var fields) = try CanonicalJSON.parse(try Self.fixture("ContactUserPreferences")) else {
            return XCTFail("not an object")
        }
        fields["voice"] = nil
        XCTAssertThrowsError(try ContactUserPreferences(JSONInput(.object(fields))))
    }

    /// Address settings as `/_address_settings` takes them: missing booleans are false, autoAccept absent is manual.
    func testAddressSettingsReadAsTheCoreReadsThem() throws {
        let s = try AddressSettings(Self.input(Array(#"{"autoAccept":{}}"#.utf8)))
        XCTAssertEqual(s, AddressSettings(autoAccept: .init(acceptIncognito: false)))
        XCTAssertEqual(text(s.jsonBytes), #"{"businessAddress":false,"autoAccept":{"acceptIncognito":false}}"#)
        XCTAssertThrowsError(try AddressSettings(Self.input(Array(#"{"autoReply":{"text":1}}"#.utf8))))
    }

    /// Every fixture with a value changed at random, or a member dropped, is read or refused with a ChatError —
    /// never a trap; so is random text.
    func testMangledInputIsRefusedNeverTraps() throws {
        var rng = SeededGenerator(seed: 17)
        let names = [
            "Connection", "Connection.address", "Contact", "Contact.prepared", "ContactUserPreferences",
            "PendingContactConnection", "PendingContactConnection.joining", "UserContactRequest", "UserContactLink",
            "UserContactLink.manual",
        ]
        let replacements: [CanonicalJSON] = [
            .null, .bool(true), .integer(-1), .integer(Int64.max), .string(""), .string("=="), .array([]), .object([:]),
            .number("1.5"),
        ]
        func mangle(_ v: CanonicalJSON, depth: Int) -> CanonicalJSON {
            guard case .object(var fields) = v, !fields.isEmpty else {
                return replacements.randomElement(using: &rng) ?? .null
            }
            let keys = fields.keys.sorted()
            let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: fields[key] = nil
            case 1: fields[key] = replacements.randomElement(using: &rng)
            default: fields[key] = depth < 3 ? mangle(fields[key] ?? .null, depth: depth + 1) : .null
            }
            return .object(fields)
        }
        var refused = 0
        for round in 0..<2000 {
            let name = names[round % names.count]
            let value = mangle(try CanonicalJSON.parse(try Self.fixture(name)), depth: 0)
            let input = JSONInput(value)
            do {
                switch name.split(separator: ".")[0] {
                case "Connection": _ = try Connection(input)
                case "Contact": _ = try Contact(input)
                case "ContactUserPreferences": _ = try ContactUserPreferences(input)
                case "PendingContactConnection": _ = try PendingContactConnection(input)
                case "UserContactRequest": _ = try UserContactRequest(input)
                default: _ = try UserContactLink(input)
                }
            } catch {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 1000)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            guard let json = try? CanonicalJSON.parse(bytes) else { continue }
            XCTAssertThrowsError(try Contact(JSONInput(json)))
        }
    }
}
