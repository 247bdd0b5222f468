import ChatStore
import Foundation
import SimplexEncoding
import XCTest

@testable import ChatCore

/// The contact commands served from the store: a contact and a pending connection recorded by the store (as the
/// agent's handshake will record them) are listed and renamed through command lines.
final class ContactStoreCommandTests: XCTestCase {
    /// Records, on its own connection to the engine's database, a pending connection and a contact made from another.
    private func recordContacts(_ h: EngineHarness) throws -> (contact: Contact, pending: PendingContactConnection) {
        let db = try SQLiteDatabase(path: h.folder.appendingPathComponent("simplex_v1_chat.db").path)
        let chat = ChatRepository(db: db)
        let user = try XCTUnwrap(try chat.activeUser())
        let repo = ContactRepository(db: db)
        let merged = try ContactUserPreferences(
            ContactModelTests.input(try ContactModelTests.fixture("ContactUserPreferences")))
        func pending(_ id: String) -> ContactRepository.NewPendingConnection {
            ContactRepository.NewPendingConnection(
                agentConnId: AgentConnId(bytes: Array(id.utf8)), status: .new, initiated: true,
                connLinkInv: CreatedConnLink(connFullLink: "simplex:/invitation#/?v=2-7&smp=\(id)"), viaContactUriHash: nil,
                xContactId: nil, incognitoProfile: nil, chatVersion: 16, pqSupport: true)
        }
        let first = try repo.createPendingConnection(user: user, pending("conn-a"), at: EngineHarness.time)
        let contact = try repo.createContact(
            user: user, fromPendingConnection: first.pccConnId,
            ContactRepository.PeerInfo(
                profile: Profile(displayName: "bob", fullName: "Bob"),
                peerChatVRange: ChatVersionRange(minVersion: 1, maxVersion: 16), connChatVersion: 16, status: .ready,
                mergedPreferences: merged), at: EngineHarness.time)
        let second = try repo.createPendingConnection(user: user, pending("conn-b"), at: EngineHarness.time)
        return (contact, second)
    }

    private func firstContact(_ list: CanonicalJSON) -> CanonicalJSON? {
        if case .array(let contacts) = list["contacts"] { return contacts.first }
        return nil
    }

    func testContactsAreListedAndRenamedFromTheStore() async throws {
        let h = try EngineHarness()
        await h.startWithUser("alice")
        let (contact, pending) = try recordContacts(h)

        let list = await h.result("/_contacts 1", "contactsList")
        XCTAssertEqual(list["contacts"], try CanonicalJSON.parse("[" + String(decoding: contact.jsonBytes, as: UTF8.self) + "]"))
        let human = await h.result("/contacts", "contactsList")
        XCTAssertEqual(human["contacts"], list["contacts"])

        // Human forms find the contact by its local display name and go on as the API form with its id (which
        // `/_info @` does not serve yet).
        let info = await h.send("/info @bob")
        let byId = await h.send("/_info @\(contact.contactId)")
        XCTAssertEqual(info, byId)
        await h.storeError("/info @carol", "contactNotFoundByName")
        let renamed = await h.result("/_set alias @\(contact.contactId) Bobby", "contactAliasUpdated")
        XCTAssertEqual(renamed["toContact"]?["profile"]?["localAlias"]?.stringValue, "Bobby")
        XCTAssertEqual(renamed["user"]?["userId"]?.integerValue, 1)
        let cleared = await h.result("/_set alias @\(contact.contactId)", "contactAliasUpdated")
        XCTAssertEqual(cleared["toContact"]?["profile"]?["localAlias"]?.stringValue, "")
        await h.storeError("/_set alias @99 x", "contactNotFound")

        await h.result(#"/_set custom @\#(contact.contactId) {"z":[1],"a":null}"#, "cmdOk")
        await h.result(#"/_settings @\#(contact.contactId) {"enableNtfs":"mentions","favorite":true}"#, "cmdOk")
        let listed = await h.result("/_contacts 1", "contactsList")
        XCTAssertEqual(
            firstContact(listed)?["customData"], try CanonicalJSON.parse(#"{"a":null,"z":[1]}"#))
        XCTAssertEqual(
            firstContact(listed)?["chatSettings"],
            try CanonicalJSON.parse(#"{"enableNtfs":"mentions","favorite":true}"#))
        await h.result("/_set custom @\(contact.contactId)", "cmdOk")
        let noData = await h.result("/_contacts 1", "contactsList")
        XCTAssertNil(firstContact(noData)?["customData"])
        await h.storeError(#"/_settings @99 {"enableNtfs":"all"}"#, "contactNotFound")

        let work = await h.result("/_set alias :\(pending.pccConnId) work", "connectionAliasUpdated")
        XCTAssertEqual(work["toConnection"]?["localAlias"]?.stringValue, "work")
        XCTAssertEqual(work["toConnection"]?["pccConnStatus"]?["type"]?.stringValue, "new")
        // The contact's connection is not a pending one.
        await h.storeError("/_set alias :\(contact.activeConn?.connId ?? 0) x", "pendingConnectionNotFound")
    }
}
