/// A chat named by type and id in command text, `<chatRef>` (chat-api.md §3.1): `@<contactId>`,
/// `#<groupId>[<scope>]`, `*<noteFolderId>`, `:<connId>`.
public enum ChatRef: Hashable, Sendable {
    case direct(contactId: Int64)
    case group(groupId: Int64, scope: GroupChatScope?)
    case local(noteFolderId: Int64)
    case contactConnection(connId: Int64)
}

/// A group's support chat, `<scope>` (chat-api.md §3.1): `(_support)` is the user's own chat with the
/// admins, `(_support:<groupMemberId>)` a member's chat as moderators see it.
public enum GroupChatScope: Hashable, Sendable {
    case memberSupport(groupMemberId: Int64?)
}

/// Where a message is sent, `<sendRef>` (chat-api.md §3.1): `@<contactId>` or
/// `#<groupId>[<scope>][(as_group=on|off)]`; `asGroup` sends as the channel itself.
public enum SendRef: Hashable, Sendable {
    case direct(contactId: Int64)
    case group(groupId: Int64, scope: GroupChatScope?, asGroup: Bool)
}

extension ChatRef: TextArgument {
    static var lexeme: Lexeme<ChatRef> { chatRefLexeme }
}

extension SendRef: TextArgument {
    static var lexeme: Lexeme<SendRef> { sendRefLexeme }
}

private let chatRefLexeme = Lexeme<ChatRef>(
    expected: ["a chat reference (@<contactId>, #<groupId>, *<noteFolderId> or :<connId>)"],
    samples: ["@1", "#2", "#3(_support)", "#4(_support:5)", "*6", ":7"].map { SyntaxSample($0) },
    read: { scanner in
        guard let type = scanner.current else { return nil }
        scanner.position += 1
        switch type {
        case UInt8(ascii: "@"): return scanner.number("a contact id").map { .direct(contactId: $0) }
        case UInt8(ascii: "*"): return scanner.number("a note folder id").map { .local(noteFolderId: $0) }
        case UInt8(ascii: ":"): return scanner.number("a connection id").map { .contactConnection(connId: $0) }
        case UInt8(ascii: "#"):
            guard let groupId = scanner.number("a group id") else { return nil }
            return .group(groupId: groupId, scope: readScope(&scanner))
        default: return nil
        }
    },
    write: { ref, out in
        switch ref {
        case .direct(let id): out += "@\(id)"
        case .local(let id): out += "*\(id)"
        case .contactConnection(let id): out += ":\(id)"
        case .group(let id, let scope):
            out += "#\(id)"
            writeScope(scope, &out)
        }
        return true
    })

private let sendRefLexeme = Lexeme<SendRef>(
    expected: ["a chat reference (@<contactId> or #<groupId>)"],
    samples: ["@1", "#2", "#3(_support:4)", "#5(as_group=on)", "#6(_support)(as_group=on)"].map { SyntaxSample($0) }
        + [SyntaxSample("#7", alternate: "#7(as_group=off)")],
    read: { scanner in
        guard let type = scanner.current else { return nil }
        scanner.position += 1
        switch type {
        case UInt8(ascii: "@"): return scanner.number("a contact id").map { .direct(contactId: $0) }
        case UInt8(ascii: "#"):
            guard let groupId = scanner.number("a group id") else { return nil }
            let scope = readScope(&scanner)
            var asGroup = false
            let start = scanner.position
            if scanner.match(Array("(as_group=".utf8)) {
                if scanner.match(Array("on)".utf8)) {
                    asGroup = true
                } else if !scanner.match(Array("off)".utf8)) {
                    scanner.expected("\"on)\" or \"off)\"", at: scanner.position)
                    scanner.position = start
                }
            }
            return .group(groupId: groupId, scope: scope, asGroup: asGroup)
        default: return nil
        }
    },
    write: { ref, out in
        switch ref {
        case .direct(let id): out += "@\(id)"
        case .group(let id, let scope, let asGroup):
            out += "#\(id)"
            writeScope(scope, &out)
            if asGroup { out += "(as_group=on)" }
        }
        return true
    })

/// `(_support)` or `(_support:<groupMemberId>)`; like the core's `optional gcScopeP`, anything else
/// leaves the cursor where it was and means no scope.
private func readScope(_ scanner: inout CommandScanner) -> GroupChatScope? {
    let start = scanner.position
    guard scanner.match(Array("(_support".utf8)) else { return nil }
    var memberId: Int64?
    if scanner.match([UInt8(ascii: ":")]) {
        guard let id = scanner.number("a group member id") else {
            scanner.position = start
            return nil
        }
        memberId = id
    }
    guard scanner.match([UInt8(ascii: ")")]) else {
        scanner.expected("\")\"", at: scanner.position)
        scanner.position = start
        return nil
    }
    return .memberSupport(groupMemberId: memberId)
}

private func writeScope(_ scope: GroupChatScope?, _ out: inout String) {
    switch scope {
    case nil: break
    case .memberSupport(nil): out += "(_support)"
    case .memberSupport(let id?): out += "(_support:\(id))"
    }
}
