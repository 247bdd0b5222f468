import ChatModel
import XCTest

/// The human (CLI) forms: each parses into the row it spells, a `HumanCommand` prints as itself (aliases as the
/// full spelling), and one that carries everything its API form needs becomes that API command.
final class HumanFormTests: XCTestCase {
    private func parse(_ line: String, file: StaticString = #filePath, line number: UInt = #line) throws -> ChatCommand {
        do {
            return try ChatCommand(parsing: line)
        } catch {
            XCTFail("\(line.debugDescription): \(error)", file: file, line: number)
            throw error
        }
    }

    private func failure(_ line: String) -> String? {
        do {
            _ = try ChatCommand(parsing: line)
            return nil
        } catch {
            return error.message
        }
    }

    /// A sample line of every human form in the catalog's notes, the row it spells, and how it prints (`nil`: as
    /// written).
    static let forms: [(String, CommandName, String?)] = [
        ("/user alice", .apiSetActiveUser, nil), ("/u alice", .apiSetActiveUser, "/user alice"),
        ("/user 'Alice Smith' \"pass word\"", .apiSetActiveUser, nil), ("/hide user secret", .apiHideUser, nil),
        ("/unhide user secret", .apiUnhideUser, nil), ("/mute user", .apiMuteUser, nil),
        ("/unmute user", .apiUnmuteUser, nil), ("/delete user alice", .apiDeleteUser, nil),
        ("/profile alice", .apiUpdateProfile, nil), ("/p alice likes tea", .apiUpdateProfile, "/profile alice likes tea"),
        ("/set receipts contacts on", .apiSetUserContactReceipts, nil),
        ("/set receipts groups off clear_overrides=on", .apiSetUserGroupReceipts, nil),
        ("/set accept member contacts on", .apiSetUserAutoAcceptMemberContacts, nil),
        ("/_temp_folder /tmp", .apiSetAppFilePaths, nil), ("/_files_folder /tmp/f", .apiSetAppFilePaths, nil),
        ("/files_folder /tmp/f", .apiSetAppFilePaths, "/_files_folder /tmp/f"),
        ("/remote_hosts_folder /tmp/r", .apiSetAppFilePaths, nil), ("@alice hello", .apiSendMessages, nil),
        ("#team hello", .apiSendMessages, nil), ("#team(support) hello", .apiSendMessages, nil),
        ("#team (support:bob) hello", .apiSendMessages, "#team(support:bob) hello"), ("/* note", .apiSendMessages, nil),
        ("/report #team spam bad message", .apiReportMessage, nil),
        ("/report #team @bob profile bad message", .apiReportMessage, nil),
        ("/accept alice", .apiAcceptContact, "/accept @alice"), ("/ac i @alice", .apiAcceptContact, "/accept incognito @alice"),
        ("/reject alice", .apiRejectContact, "/reject @alice"), ("/rc @alice", .apiRejectContact, "/reject @alice"),
        ("/delete @alice", .apiDeleteChat, nil),
        ("/d alice entity notify=off", .apiDeleteChat, "/delete @alice entity notify=off"),
        ("/d #team", .apiDeleteChat, "/delete #team"), ("/clear @alice", .apiClearChat, nil),
        ("/clear #team", .apiClearChat, nil), ("/clear *", .apiClearChat, nil), ("/contacts", .apiListContacts, nil),
        ("/info @alice", .apiContactInfo, nil), ("/i @alice", .apiContactInfo, "/info @alice"),
        ("/group team", .apiNewGroup, "/group #team"), ("/g i #team for us", .apiNewGroup, "/group incognito #team for us"),
        ("/public group relays=1 #team", .apiNewPublicGroup, nil),
        ("/pg relays=1,2 #team", .apiNewPublicGroup, "/public group relays=1,2 #team"),
        ("/add #team @alice", .apiAddMember, nil), ("/a #team @alice admin", .apiAddMember, "/add #team @alice admin"),
        ("/join #team", .apiJoinGroup, nil), ("/j team", .apiJoinGroup, "/join #team"),
        ("/remove #team @alice,@bob", .apiRemoveMembers, nil),
        ("/rm #team alice messages=on", .apiRemoveMembers, "/remove #team @alice messages=on"),
        ("/leave #team", .apiLeaveGroup, nil), ("/l #team", .apiLeaveGroup, "/leave #team"),
        ("/members #team", .apiListMembers, nil), ("/ms #team", .apiListMembers, "/members #team"),
        ("/create link #team", .apiCreateGroupLink, nil), ("/create link #team observer", .apiCreateGroupLink, nil),
        ("/show link #team", .apiGetGroupLink, nil), ("/info #team", .apiGroupInfo, nil),
        ("/info #team @alice", .apiGroupMemberInfo, nil), ("/block #team @alice", .apiSetMemberSettings, nil),
        ("/unblock #team alice", .apiSetMemberSettings, "/unblock #team @alice"),
        ("/group allow #team", .apiAllowRelayGroup, nil), ("/call @alice", .apiSendCallInvitation, nil),
        ("/ttl week", .apiSetChatItemTTL, nil), ("/ttl", .apiGetChatItemTTL, nil),
        ("/ttl @alice default", .apiSetChatTTL, nil), ("/ttl * none", .apiSetChatTTL, nil),
        ("/network socks=on", .apiSetNetworkConfig, nil),
        (
            "/net socks=localhost:9050 host-mode=onion required-host-mode timeout=10 log=on", .apiSetNetworkConfig,
            "/network socks=localhost:9050 host-mode=onion required-host-mode timeout=10 log=on"
        ),
        ("/db export", .apiExportArchive, nil), ("/operators 1:on", .apiSetServerOperators, nil),
        ("/operators 1:on:smp=proxy,2:off", .apiSetServerOperators, nil),
        ("/smp test smp://a2V5@smp.example", .apiTestProtoServer, nil),
        ("/xftp test xftp://a2V5@x.example", .apiTestProtoServer, nil), ("/address", .apiCreateMyAddress, nil),
        ("/ad", .apiCreateMyAddress, "/address"), ("/delete_address", .apiDeleteMyAddress, nil),
        ("/da", .apiDeleteMyAddress, "/delete_address"), ("/show_address", .apiShowMyAddress, nil),
        ("/sa", .apiShowMyAddress, "/show_address"), ("/profile_address on", .apiSetProfileAddress, nil),
        ("/pa on", .apiSetProfileAddress, "/profile_address on"), ("/auto_accept on", .apiSetAddressSettings, nil),
        ("/auto_accept on business text Hello!", .apiSetAddressSettings, nil),
        ("/auto_accept off", .apiSetAddressSettings, nil), ("/code @alice", .apiGetContactCode, nil),
        ("/verify @alice 123", .apiVerifyContact, nil), ("/verify alice", .apiVerifyContact, "/verify @alice"),
        ("/groups", .apiListGroups, nil), ("/gs", .apiListGroups, "/groups"),
        ("/groups @alice team", .apiListGroups, nil),
    ]

    func testEveryHumanFormParsesAndPrintsAsItself() throws {
        for (line, name, printed) in Self.forms {
            let command = try parse(line)
            XCTAssertEqual(command.name, name, line)
            guard case .human = command else { return XCTFail("\(line) is not a human command: \(command)") }
            XCTAssertEqual(command.text, printed ?? line, line)
            XCTAssertEqual(try parse(command.text), command, line)
        }
    }

    /// The forms that carry everything the API form needs are that API command, printed as `/_…`.
    func testFormsThatAreAPICommands() throws {
        XCTAssertEqual(
            try parse("/create bot alice").text,
            #"/_create user {"profile":{"displayName":"alice","fullName":"","peerType":"bot","preferences":{"files":{"allow":"no"}}},"pastTimestamp":false}"#
        )
        XCTAssertEqual(
            try parse("/create bot files=on service=on 'Echo Bot' repeats").text,
            #"/_create user {"profile":{"displayName":"Echo Bot","fullName":"","shortDescr":"repeats","peerType":"bot"},"pastTimestamp":false,"clientService":true}"#
        )
        XCTAssertEqual(
            try parse("/create chat relay user relay1").text,
            #"/_create user {"profile":{"displayName":"relay1","fullName":""},"pastTimestamp":false,"userChatRelay":true}"#)
        XCTAssertEqual(
            try parse("/db encrypt k3y").text, #"/_db encryption {"currentKey":"","newKey":"k3y","keepKey":false}"#)
        XCTAssertEqual(
            try parse("/db key k3y n3w").text, #"/_db encryption {"currentKey":"k3y","newKey":"n3w","keepKey":false}"#)
        XCTAssertEqual(
            try parse("/db decrypt k3y").text, #"/_db encryption {"currentKey":"k3y","newKey":"","keepKey":false}"#)
    }

    /// The values: names, scopes, message texts (a JSON string is decoded), roles, periods.
    func testValues() throws {
        var send = HumanCommand.SendMessage()
        send.target = .group(groupName: "team", memberSupport: MemberSupportName(memberName: "Bob Smith"))
        send.text = "hi \"all\""
        XCTAssertEqual(try parse(#"#team(support:'Bob Smith') "hi \"all\"""#), .human(.sendMessage(send)))
        XCTAssertEqual(try parse(#"#team(support:'Bob Smith') hi "all""#), .human(.sendMessage(send)))

        send.target = .local
        send.text = "\"quoted\""
        XCTAssertEqual(try parse(#"/* "\"quoted\"""#), .human(.sendMessage(send)))
        XCTAssertEqual(ChatCommand.human(.sendMessage(send)).text, #"/* "\"quoted\"""#, "a text read as JSON is written as JSON")

        var user = HumanCommand.UserNamed()
        user.userName = "Alice Smith"
        user.viewPwd = "pass word"
        XCTAssertEqual(try parse(#"/u 'Alice Smith' "pass word""#), .human(.setActiveUser(user)))

        var add = HumanCommand.AddMember()
        add.groupName = "team"
        add.contactName = "alice"
        add.role = .admin
        XCTAssertEqual(try parse("/a team alice admin"), .human(.addMember(add)))

        var ttl = HumanCommand.ChatTTL()
        ttl.chat = .direct(contactName: "alice")
        ttl.seconds = 30 * 86400
        XCTAssertEqual(try parse("/ttl @alice month"), .human(.setChatTTL(ttl)))

        var accept = HumanCommand.AutoAccept()
        accept.settings = .on(incognito: true, autoReply: .text("hello"))
        XCTAssertEqual(try parse("/auto_accept on incognito=on text hello"), .human(.setAddressSettings(accept)))

        // `/group allow #team` is the relay's permission, not a group named "allow".
        XCTAssertEqual(try parse("/group allow #team").name, .apiAllowRelayGroup)
        XCTAssertEqual(try parse("/group allow").name, .apiNewGroup)
    }

    /// A group name read unquoted may hold `(` and `'` (it ends only at `(support`), and is written back unquoted:
    /// quoting it, as the writer once did for any `(`, cannot hold the `'`, and `text` trapped (found by the
    /// chat-command fuzzer, Tests/Fuzz/chat-command).
    func testUnquotedGroupNameWithParenthesisAndQuote() throws {
        func send(_ group: String, support: MemberSupportName? = nil, _ text: String) -> ChatCommand {
            var send = HumanCommand.SendMessage()
            send.target = .group(groupName: group, memberSupport: support)
            send.text = text
            return .human(.sendMessage(send))
        }
        let line = #"#taspemup(ort:'B)ob%Smith') hi "all""#
        XCTAssertEqual(try parse(line), send("taspemup(ort:'B)ob%Smith')", #"hi "all""#))
        XCTAssertEqual(send("taspemup(ort:'B)ob%Smith')", #"hi "all""#).text, line)
        XCTAssertEqual(send("a(b'c", support: MemberSupportName(memberName: nil), "hi").text, "#a(b'c(support) hi")
        XCTAssertEqual(try parse("#a(b'c(support) hi"), send("a(b'c", support: MemberSupportName(memberName: nil), "hi"))
        XCTAssertEqual(send("x(support", "hi").text, "#'x(support' hi")
    }

    /// A short description cut at 160 characters may end in whitespace, and one may start with non-ASCII
    /// whitespace: both print (`text` trapped on them; found by the chat-command fuzzer). The cut one reads back
    /// trimmed.
    func testShortDescriptionsThatPrint() throws {
        let long = "/group team " + String(repeating: "a", count: 159) + "\u{0C}\u{0C}tail"
        guard case .human(.newGroup(let group)) = try parse(long) else { return XCTFail("not /group") }
        XCTAssertEqual(group.shortDescr, String(repeating: "a", count: 159) + "\u{0C}")
        let again = try parse(ChatCommand.human(.newGroup(group)).text)
        XCTAssertEqual(try parse(again.text), again)
        let spaced = try parse("/group team \u{A0}likes tea")
        XCTAssertEqual(try parse(spaced.text), spaced)
    }

    /// `@alice,,@bob` names an empty member between the two, as the core reads it, and prints back (`text` trapped on
    /// it; found by the chat-command fuzzer).
    func testEmptyMemberNameBeforeAComma() throws {
        let command = try parse("/remove #tea @alice,,@bob")
        guard case .human(.removeMembers(let remove)) = command else { return XCTFail("not /remove") }
        XCTAssertEqual(remove.memberNames, ["alice", "", "bob"])
        XCTAssertEqual(try parse(command.text), command)
    }

    /// Malformed human forms say what was expected where.
    func testErrorMessages() {
        XCTAssertEqual(
            failure("/ttl fortnight"),
            ##"expected "day", "week", "month", "year", "none", @<contact>, #<group> or "*" after "/ttl ""##)
        XCTAssertEqual(failure("#team(support:bob hello"), ##"expected ")" after "#team(support:bob""##)
        XCTAssertEqual(failure("/add #team"), #"expected a space after "/add #team""#)
        XCTAssertEqual(failure("/profile_address maybe"), #"expected "on" or "off" after "/profile_address ""#)
        XCTAssertEqual(failure("/operators 1:maybe"), #"expected <operatorId>:on|off after "/operators ""#)
        XCTAssertEqual(failure("/smp test xftp://k@x.example"), #"expected a server address (smp://…) after "/smp test ""#)
        XCTAssertEqual(failure("@alice"), #"expected a space after "@alice""#)
        XCTAssertNotNil(failure("/ac ian"), "`i` is read as incognito, so a space must follow (as in the core)")
        XCTAssertNotNil(failure("/auto_accept off text hi"), "no reply when off")
    }
}
