// The grammars of the human (CLI) forms that become `HumanCommand`s, and the pieces only they use. The core's parser
// tries them among its API forms; they are tried after every catalog row here, which reads the same lines because no
// line is accepted by both.

extension HumanCommand {
    private typealias H = HumanCommand

    /// Every human form, in the order they are tried (`/group allow` before `/group`, which would read it as a
    /// group named "allow").
    static let grammars: [CommandGrammar] = [
        // §4.1
        .human(
            .apiSetActiveUser,
            [.literal("/user ", aliases: ["/u "]), .param(\.userName, .displayName), .optional(.space, \.viewPwd, .password)]
                as Syntax<UserNamed>, H.setActiveUser
        ) { if case .setActiveUser(let a) = $0 { a } else { nil } },
        .human(.apiHideUser, ["/hide user ", .param(\.viewPwd, .password)] as Syntax<Password>, H.hideUser) {
            if case .hideUser(let a) = $0 { a } else { nil }
        },
        .human(.apiUnhideUser, ["/unhide user ", .param(\.viewPwd, .password)] as Syntax<Password>, H.unhideUser) {
            if case .unhideUser(let a) = $0 { a } else { nil }
        },
        .constant(.human(.muteUser), "/mute user"),
        .constant(.human(.unmuteUser), "/unmute user"),
        .human(
            .apiDeleteUser,
            ["/delete user ", .param(\.userName, .displayName), .optional(.space, \.viewPwd, .password)] as Syntax<UserNamed>,
            H.deleteUser
        ) { if case .deleteUser(let a) = $0 { a } else { nil } },
        .human(
            .apiUpdateProfile,
            [
                .literal("/profile ", aliases: ["/p "]), .param(\.displayName, .displayName),
                .optional(.space, \.shortDescr, .shortDescription),
            ] as Syntax<ProfileName>, H.updateProfile
        ) { if case .updateProfile(let a) = $0 { a } else { nil } },
        .human(.apiSetUserContactReceipts, receipts("/set receipts contacts "), H.setUserContactReceipts) {
            if case .setUserContactReceipts(let a) = $0 { a } else { nil }
        },
        .human(.apiSetUserGroupReceipts, receipts("/set receipts groups "), H.setUserGroupReceipts) {
            if case .setUserGroupReceipts(let a) = $0 { a } else { nil }
        },
        .human(
            .apiSetUserAutoAcceptMemberContacts, ["/set accept member contacts ", .param(\.enable)] as Syntax<OnOff>,
            H.setUserAutoAcceptMemberContacts
        ) { if case .setUserAutoAcceptMemberContacts(let a) = $0 { a } else { nil } },
        // §4.2
        .human(.apiSetAppFilePaths, ["/_temp_folder ", .param(\.path, .text)] as Syntax<FolderPath>, H.setTempFolder) {
            if case .setTempFolder(let a) = $0 { a } else { nil }
        },
        .human(
            .apiSetAppFilePaths,
            [.literal("/_files_folder ", aliases: ["/files_folder "]), .param(\.path, .text)] as Syntax<FolderPath>,
            H.setFilesFolder
        ) { if case .setFilesFolder(let a) = $0 { a } else { nil } },
        .human(
            .apiSetAppFilePaths, ["/remote_hosts_folder ", .param(\.path, .text)] as Syntax<FolderPath>,
            H.setRemoteHostsFolder
        ) { if case .setRemoteHostsFolder(let a) = $0 { a } else { nil } },
        // §4.3
        .human(
            .apiSendMessages, [.param(\.target, .sendName), .space, .param(\.text, .messageText)] as Syntax<SendMessage>,
            H.sendMessage
        ) { if case .sendMessage(let a) = $0 { a } else { nil } },
        .human(
            .apiReportMessage,
            [
                "/report #", .param(\.groupName, .displayName), .optional(" @", \.memberName, .displayName), .space,
                .param(\.reason), .space, .param(\.reportedText, .messageText),
            ] as Syntax<ReportMessage>, H.reportMessage
        ) { if case .reportMessage(let a) = $0 { a } else { nil } },
        // §4.4
        .human(
            .apiAcceptContact,
            [
                .literal("/accept", aliases: ["/ac"]), .marker(.literal(" incognito", aliases: [" i"]), \.incognito), .space,
                .mark("@"),
                .param(\.contactName, .displayName),
            ] as Syntax<ContactRequest>, H.acceptContact
        ) { if case .acceptContact(let a) = $0 { a } else { nil } },
        .human(.apiRejectContact, contactNamed(.literal("/reject ", aliases: ["/rc "])), H.rejectContact) {
            if case .rejectContact(let a) = $0 { a } else { nil }
        },
        .human(.apiDeleteChat, groupNamed(.literal("/delete #", aliases: ["/d #"]), mark: false), H.deleteGroup) {
            if case .deleteGroup(let a) = $0 { a } else { nil }
        },
        .human(
            .apiDeleteChat,
            [
                .literal("/delete ", aliases: ["/d "]), .mark("@"), .param(\.contactName, .displayName),
                .flag("", \.mode, ChatDeleteMode.lexeme, default: .default),
            ] as Syntax<DeleteContact>, H.deleteContact
        ) { if case .deleteContact(let a) = $0 { a } else { nil } },
        .constant(.human(.clearNoteFolder), "/clear *"),
        .human(.apiClearChat, groupNamed("/clear #", mark: false), H.clearGroup) {
            if case .clearGroup(let a) = $0 { a } else { nil }
        },
        .human(.apiClearChat, contactNamed("/clear "), H.clearContact) {
            if case .clearContact(let a) = $0 { a } else { nil }
        },
        .constant(.human(.listContacts), "/contacts"),
        // §4.5 (and `/info #<group>`, `/info #<group> @<member>` before `/info @<contact>`)
        .human(.apiGroupMemberInfo, groupMember(.literal("/info #", aliases: ["/i #"])), H.groupMemberInfo) {
            if case .groupMemberInfo(let a) = $0 { a } else { nil }
        },
        .human(.apiGroupInfo, groupNamed(.literal("/info #", aliases: ["/i #"]), mark: false), H.groupInfo) {
            if case .groupInfo(let a) = $0 { a } else { nil }
        },
        .human(.apiContactInfo, contactNamed(.literal("/info ", aliases: ["/i "])), H.contactInfo) {
            if case .contactInfo(let a) = $0 { a } else { nil }
        },
        .human(.apiAllowRelayGroup, groupNamed("/group allow #", mark: false), H.allowRelayGroup) {
            if case .allowRelayGroup(let a) = $0 { a } else { nil }
        },
        .human(
            .apiNewGroup,
            [
                .literal("/group", aliases: ["/g"]), .marker(.literal(" incognito", aliases: [" i"]), \.incognito), .space,
                .mark("#"),
                .param(\.displayName, .displayName), .optional(.space, \.shortDescr, .shortDescription),
            ] as Syntax<NewGroup>, H.newGroup
        ) { if case .newGroup(let a) = $0 { a } else { nil } },
        .human(
            .apiNewPublicGroup,
            [
                .literal("/public group", aliases: ["/pg"]), .marker(.literal(" incognito", aliases: [" i"]), \.incognito),
                " relays=",
                .param(\.relayIds, .ids), .space, .mark("#"), .param(\.displayName, .displayName),
                .optional(.space, \.shortDescr, .shortDescription),
            ] as Syntax<NewPublicGroup>, H.newPublicGroup
        ) { if case .newPublicGroup(let a) = $0 { a } else { nil } },
        .human(
            .apiAddMember,
            [
                .literal("/add ", aliases: ["/a "]), .mark("#"), .param(\.groupName, .displayName), .space, .mark("@"),
                .param(\.contactName, .displayName), .flag(.space, \.role, default: .member),
            ] as Syntax<AddMember>, H.addMember
        ) { if case .addMember(let a) = $0 { a } else { nil } },
        .human(.apiJoinGroup, groupNamed(.literal("/join ", aliases: ["/j "]), mark: true), H.joinGroup) {
            if case .joinGroup(let a) = $0 { a } else { nil }
        },
        .human(
            .apiRemoveMembers,
            [
                .literal("/remove ", aliases: ["/rm "]), .mark("#"), .param(\.groupName, .displayName), .space,
                .param(\.memberNames, .memberNames), .flag(" messages=", \.withMessages, default: false),
            ] as Syntax<RemoveMembers>, H.removeMembers
        ) { if case .removeMembers(let a) = $0 { a } else { nil } },
        .human(.apiLeaveGroup, groupNamed(.literal("/leave ", aliases: ["/l "]), mark: true), H.leaveGroup) {
            if case .leaveGroup(let a) = $0 { a } else { nil }
        },
        .human(.apiListMembers, groupNamed(.literal("/members ", aliases: ["/ms "]), mark: true), H.listMembers) {
            if case .listMembers(let a) = $0 { a } else { nil }
        },
        .human(
            .apiCreateGroupLink,
            ["/create link #", .param(\.groupName, .displayName), .flag(.space, \.role, default: .member)]
                as Syntax<CreateGroupLink>, H.createGroupLink
        ) { if case .createGroupLink(let a) = $0 { a } else { nil } },
        .human(.apiGetGroupLink, groupNamed("/show link #", mark: false), H.showGroupLink) {
            if case .showGroupLink(let a) = $0 { a } else { nil }
        },
        .human(.apiSetMemberSettings, groupMember("/block #"), H.blockMember) {
            if case .blockMember(let a) = $0 { a } else { nil }
        },
        .human(.apiSetMemberSettings, groupMember("/unblock #"), H.unblockMember) {
            if case .unblockMember(let a) = $0 { a } else { nil }
        },
        // §4.8
        .human(.apiSendCallInvitation, contactNamed("/call "), H.sendCallInvitation) {
            if case .sendCallInvitation(let a) = $0 { a } else { nil }
        },
        // §4.10
        .human(.apiSetChatItemTTL, ["/ttl ", .param(\.seconds, .ttlPeriod)] as Syntax<ChatItemTTL>, H.setChatItemTTL) {
            if case .setChatItemTTL(let a) = $0 { a } else { nil }
        },
        .constant(.human(.getChatItemTTL), "/ttl"),
        .human(
            .apiSetChatTTL,
            ["/ttl ", .param(\.chat, .chatName), .space, .param(\.seconds, .ttlPeriodOrDefault)] as Syntax<ChatTTL>,
            H.setChatTTL
        ) { if case .setChatTTL(let a) = $0 { a } else { nil } },
        .human(
            .apiSetNetworkConfig,
            [
                .literal("/network ", aliases: ["/net "]), "socks=", .param(\.socksProxy, .word),
                .optional(" socks-mode=", \.socksMode, .word), .optional(" host-mode=", \.hostMode, .word),
                .marker(" required-host-mode", \.requiredHostMode), .optional(" smp-proxy=", \.smpProxyMode, .word),
                .optional(" smp-proxy-fallback=", \.smpProxyFallback, .word),
                .optional(" smp-web-port-servers=", \.smpWebPortServers, .word),
                .marker(" smp-web-port", \.allWebPortServers), .optional(" timeout=", \.tcpTimeout),
                .flag(" log=", \.logTLSErrors, default: false),
            ] as Syntax<NetworkSettings>, H.setNetworkConfig
        ) { if case .setNetworkConfig(let a) = $0 { a } else { nil } },
        // §4.11
        .constant(.human(.exportArchive), "/db export"),
        // §4.12
        .human(
            .apiSetServerOperators, ["/operators ", .param(\.operators, .operatorsRoles)] as Syntax<OperatorsRoles>,
            H.setServerOperators
        ) { if case .setServerOperators(let a) = $0 { a } else { nil } },
        testServer(.smp, "/smp test ", sample: "smp://a2V5@smp.example"),
        testServer(.xftp, "/xftp test ", sample: "xftp://a2V5@xftp.example:443"),
        // §4.16
        .constant(.human(.createMyAddress), .literal("/address", aliases: ["/ad"])),
        .constant(.human(.deleteMyAddress), .literal("/delete_address", aliases: ["/da"])),
        .constant(.human(.showMyAddress), .literal("/show_address", aliases: ["/sa"])),
        .human(
            .apiSetProfileAddress,
            [.literal("/profile_address ", aliases: ["/pa "]), .param(\.enable)] as Syntax<OnOff>, H.setProfileAddress
        ) { if case .setProfileAddress(let a) = $0 { a } else { nil } },
        .human(
            .apiSetAddressSettings, ["/auto_accept ", .param(\.settings, .autoAccept)] as Syntax<AutoAccept>,
            H.setAddressSettings
        ) { if case .setAddressSettings(let a) = $0 { a } else { nil } },
        // §4.17
        .human(.apiGetContactCode, contactNamed("/code "), H.getContactCode) {
            if case .getContactCode(let a) = $0 { a } else { nil }
        },
        .human(
            .apiVerifyContact,
            ["/verify ", .mark("@"), .param(\.contactName, .displayName), .optional(.space, \.code, .verifyCode)]
                as Syntax<VerifyContact>, H.verifyContact
        ) { if case .verifyContact(let a) = $0 { a } else { nil } },
        // §4.19
        .human(
            .apiListGroups,
            [
                .literal("/groups", aliases: ["/gs"]), .optional(" @", \.contactName, .displayName),
                .optional(.space, \.search, .text),
            ] as Syntax<ListGroups>, H.listGroups
        ) { if case .listGroups(let a) = $0 { a } else { nil } },
    ]

    private static func receipts(_ prefix: String) -> Syntax<ReceiptSettings> {
        [.literal(prefix), .param(\.enable), .flag(" clear_overrides=", \.clearOverrides, default: false)]
    }

    /// `<prefix>[@]<contact>`.
    private static func contactNamed(_ prefix: Syntax<ContactNamed>) -> Syntax<ContactNamed> {
        [prefix, .mark("@"), .param(\.contactName, .displayName)]
    }

    /// `<prefix><group>`, with an optional `#` first when `mark`.
    private static func groupNamed(_ prefix: Syntax<GroupNamed>, mark: Bool) -> Syntax<GroupNamed> {
        mark ? [prefix, .mark("#"), .param(\.groupName, .displayName)] : [prefix, .param(\.groupName, .displayName)]
    }

    /// `<prefix><group> [@]<member>`.
    private static func groupMember(_ prefix: Syntax<GroupMemberNamed>) -> Syntax<GroupMemberNamed> {
        [prefix, .param(\.groupName, .displayName), .space, .mark("@"), .param(\.memberName, .displayName)]
    }

    private static func testServer(_ serverProtocol: ServerProtocol, _ prefix: String, sample: String) -> CommandGrammar {
        let scheme = serverProtocol.rawValue + "://"
        let server = Lexeme<String>.token("a server address (\(scheme)…)", sample: sample) { $0.hasPrefix(scheme) }
        return .human(.apiTestProtoServer, [.literal(prefix), .param(\.server, server)] as Syntax<TestServer>) {
            var a = $0
            a.serverProtocol = serverProtocol
            return .testProtoServer(a)
        } _: {
            if case .testProtoServer(let a) = $0, a.serverProtocol == serverProtocol { a } else { nil }
        }
    }
}

extension Syntax {
    /// A character that may be left out (the core's `char_`), as the `@` before a contact's name; written always.
    static func mark(_ character: String) -> Syntax {
        let encoded = Array(character.utf8)
        return Syntax(
            read: { scanner, _ in
                _ = scanner.match(encoded)
                return true
            },
            write: { _, out in
                out += character
                return true
            },
            samples: { [SyntaxSample(character, alternate: "")] },
            minimal: { SyntaxSample(character) })
    }
}

extension Lexeme where Value == String {
    /// A name written unquoted when it reads back the same, else in single quotes (`nil`: it has no text form).
    fileprivate static func writeName(_ name: String, _ out: inout String, quoteIf: (String) -> Bool = { _ in false }) -> Bool {
        guard !quoteIf(name) else {
            guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: "'")) else { return false }
            out += "'\(name)'"
            return true
        }
        return displayName.write(name, &out)
    }
}

extension Lexeme where Value == [String] {
    /// `[@]<member>[,[@]<member>…]`.
    static let memberNames = Lexeme(
        expected: ["member names"],
        samples: [SyntaxSample("@alice"), SyntaxSample("@alice,@'Bob Smith'", alternate: "alice,'Bob Smith'")],
        read: { scanner in
            var names: [String] = []
            repeat {
                _ = scanner.match([UInt8(ascii: "@")])
                guard let name = Lexeme<String>.displayName.read(&scanner) else { return nil }
                names.append(name)
            } while scanner.match([UInt8(ascii: ",")])
            return names
        },
        write: { names, out in
            guard !names.isEmpty else { return false }
            for (i, name) in names.enumerated() {
                out += i == 0 ? "@" : ",@"
                // A name token may start with a comma, so `@a,,@b` holds an empty name, as in the core; written as
                // nothing, it reads back wherever a comma follows.
                if name.isEmpty, i < names.count - 1 { continue }
                guard Lexeme<String>.displayName.write(name, &out) else { return false }
            }
            return true
        })
}

extension Lexeme where Value == SendName {
    /// `@<contact>`, `#<group>[(support[:<member>])]` or `/*` (the core's `sendNameP`). A scope that begins
    /// `(support` must be whole: a malformed one fails the line rather than sending to the whole group.
    static let sendName = Lexeme(
        expected: ["@<contact>", "#<group>", "\"/*\""],
        samples: [
            SyntaxSample("@alice"), SyntaxSample("#team"), SyntaxSample("#team(support)", alternate: "#team (support)"),
            SyntaxSample("#'Our Team'(support:bob)", alternate: "#'Our Team'(support: bob)"),
            SyntaxSample("#team(support:'Bob Smith')"), SyntaxSample("/*"),
        ],
        read: { scanner in
            if scanner.match([UInt8(ascii: "@")]) {
                return Lexeme<String>.displayName.read(&scanner).map { .direct(contactName: $0) }
            }
            if scanner.match(Array("/*".utf8)) { return .local }
            guard scanner.match([UInt8(ascii: "#")]), let name = groupName(&scanner) else { return nil }
            let start = scanner.position
            _ = scanner.take(while: CommandScanner.isSpace)
            guard scanner.match(Array("(support".utf8)) else {
                scanner.position = start
                return .group(groupName: name, memberSupport: nil)
            }
            var member: String?
            if scanner.match([UInt8(ascii: ":")]) {
                _ = scanner.take(while: CommandScanner.isSpace)
                guard let m = memberName(&scanner) else { return nil }
                member = m
            }
            guard scanner.match([UInt8(ascii: ")")]) else {
                scanner.expected("\")\"", at: scanner.position)
                return nil
            }
            return .group(groupName: name, memberSupport: MemberSupportName(memberName: member))
        },
        write: { target, out in
            switch target {
            case .direct(let name):
                out += "@"
                return Lexeme<String>.displayName.write(name, &out)
            case .local:
                out += "/*"
                return true
            case .group(let name, let support):
                out += "#"
                // Unquoted, a name ends only where `(support` begins, so only a name holding that needs quotes.
                guard Lexeme<String>.writeName(name, &out, quoteIf: { $0.contains("(support") }) else { return false }
                guard let support else { return true }
                out += "(support"
                if let member = support.memberName {
                    out += ":"
                    let special = { (m: String) in m.utf8.contains { CommandScanner.isSpace($0) || $0 == 0x2C || $0 == 0x29 } }
                    guard Lexeme<String>.writeName(member, &out, quoteIf: special) else { return false }
                }
                out += ")"
                return true
            }
        })

    /// A group name that ends where an unquoted name meets `(support`, so `#team(support)` names the group "team".
    private static func groupName(_ scanner: inout CommandScanner) -> String? {
        let start = scanner.position
        guard let name = Lexeme<String>.displayName.read(&scanner) else { return nil }
        guard scanner.bytes[start] != UInt8(ascii: "'") else { return name }
        let support = Array("(support".utf8)
        var cut = start
        while cut + support.count <= scanner.position {
            if scanner.bytes[cut..<cut + support.count].elementsEqual(support) {
                guard cut > start else { return nil }
                scanner.position = cut
                return CommandScanner.text(scanner.bytes[start..<cut])
            }
            cut += 1
        }
        return name
    }

    /// A member's name inside `(support:…)`: quoted, or up to a space, comma or the closing parenthesis.
    private static func memberName(_ scanner: inout CommandScanner) -> String? {
        if scanner.current == UInt8(ascii: "'") { return Lexeme<String>.displayName.read(&scanner) }
        guard let first = scanner.current, first > 0x20, first != UInt8(ascii: "#"), first != UInt8(ascii: "@") else {
            return nil
        }
        let name = scanner.take { !CommandScanner.isSpace($0) && $0 != 0x2C && $0 != 0x29 }
        return name.isEmpty ? nil : CommandScanner.text(name)
    }
}

extension Lexeme where Value == ChatName {
    /// `@<contact>`, `#<group>` or `*` (the core's `chatNameP`).
    static let chatName = Lexeme(
        expected: ["@<contact>", "#<group>", "\"*\""],
        samples: [SyntaxSample("@alice"), SyntaxSample("#'Our Team'"), SyntaxSample("*")],
        read: { scanner in
            guard let type = scanner.current else { return nil }
            scanner.position += 1
            switch type {
            case UInt8(ascii: "@"): return Lexeme<String>.displayName.read(&scanner).map { .direct(contactName: $0) }
            case UInt8(ascii: "#"): return Lexeme<String>.displayName.read(&scanner).map { .group(groupName: $0) }
            case UInt8(ascii: "*"): return .local
            default: return nil
            }
        },
        write: { chat, out in
            switch chat {
            case .direct(let name):
                out += "@"
                return Lexeme<String>.displayName.write(name, &out)
            case .group(let name):
                out += "#"
                return Lexeme<String>.displayName.write(name, &out)
            case .local:
                out += "*"
                return true
            }
        })
}

extension Lexeme where Value == Int64 {
    /// `day`, `week`, `month`, `year` or `none` (0: never) as seconds (the core's `ciTTL`).
    static let ttlPeriod = Lexeme.words(ttlPeriods)
}

extension Lexeme where Value == Int64? {
    /// A period or `default` (`nil`: the user's setting).
    static let ttlPeriodOrDefault = Lexeme.words([("default", nil)] + ttlPeriods.map { ($0.0, Optional($0.1)) })
}

private let ttlPeriods: [(String, Int64)] = [
    ("day", 86400), ("week", 7 * 86400), ("month", 30 * 86400), ("year", 365 * 86400), ("none", 0),
]

extension Lexeme where Value == [OperatorRoles] {
    /// `<id>:on|off[:smp=<roles>][:xftp=<roles>]` separated by commas; roles are `on`, `off`, `storage` or `proxy`
    /// (the core's `operatorRolesP`).
    static let operatorsRoles = Lexeme(
        expected: ["<operatorId>:on|off"],
        samples: [SyntaxSample("1:on"), SyntaxSample("1:off:smp=proxy,2:on:smp=storage:xftp=off")],
        read: { scanner in
            var list: [OperatorRoles] = []
            repeat {
                guard let id = scanner.decimal(), scanner.match([UInt8(ascii: ":")]),
                    let enabled = Lexeme<Bool>.onOff.read(&scanner)
                else { return nil }
                var roles = OperatorRoles(operatorId: id, enabled: enabled)
                if scanner.match(Array(":smp=".utf8)) {
                    guard let r = serverRoles(&scanner) else { return nil }
                    roles.smpRoles = r
                }
                if scanner.match(Array(":xftp=".utf8)) {
                    guard let r = serverRoles(&scanner) else { return nil }
                    roles.xftpRoles = r
                }
                list.append(roles)
            } while scanner.match([UInt8(ascii: ",")])
            return list
        },
        write: { list, out in
            guard !list.isEmpty else { return false }
            for (i, roles) in list.enumerated() {
                guard roles.operatorId >= 0 else { return false }
                out += (i > 0 ? "," : "") + "\(roles.operatorId):" + (roles.enabled ? "on" : "off")
                if let r = roles.smpRoles { out += ":smp=" + r }
                if let r = roles.xftpRoles { out += ":xftp=" + r }
            }
            return true
        })

    private static func serverRoles(_ scanner: inout CommandScanner) -> String? {
        let word = CommandScanner.text(scanner.take { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: ",") })
        return ["on", "off", "storage", "proxy"].contains(word) ? word : nil
    }
}

extension Lexeme where Value == AutoAcceptSettings {
    /// `on[ incognito=on|off| business][ text <text>|json <json>]` or `off` (the core's `autoAcceptP`).
    static let autoAccept = Lexeme(
        expected: ["\"on\"", "\"off\""],
        samples: [
            SyntaxSample("off"), SyntaxSample("on", alternate: "on incognito=off"), SyntaxSample("on incognito=on"),
            SyntaxSample("on business text Welcome! Someone will reply soon."),
            SyntaxSample(#"on incognito=on json {"type":"text","text":"hi"}"#),
        ],
        read: { scanner in
            if scanner.match(Array("off".utf8)) { return .off }
            guard scanner.match(Array("on".utf8)) else { return nil }
            if scanner.match(Array(" business".utf8)) { return .business(autoReply: autoReply(&scanner)) }
            var incognito = false
            let start = scanner.position
            if scanner.match(Array(" incognito=".utf8)) {
                if let on = Lexeme<Bool>.onOff.read(&scanner) {
                    incognito = on
                } else {
                    scanner.position = start
                }
            }
            return .on(incognito: incognito, autoReply: autoReply(&scanner))
        },
        write: { settings, out in
            func reply(_ r: TextOrJSON?) -> Bool {
                guard let r else { return true }
                out += " "
                return Lexeme<TextOrJSON>.msgContent(.object).write(r, &out)
            }
            switch settings {
            case .off:
                out += "off"
                return true
            case .on(let incognito, let r):
                out += incognito ? "on incognito=on" : "on"
                return reply(r)
            case .business(let r):
                out += "on business"
                return reply(r)
            }
        })

    /// ` text <text>` or ` json <json>`, or nothing.
    private static func autoReply(_ scanner: inout CommandScanner) -> TextOrJSON? {
        let start = scanner.position
        if scanner.whitespace(), let reply = Lexeme<TextOrJSON>.msgContent(.object).read(&scanner) { return reply }
        scanner.position = start
        return nil
    }
}
