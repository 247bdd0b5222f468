public import ChatModel
public import SimplexEncoding

/// A reason a servers configuration cannot be saved (`UserServersError`); `user` names another user whose servers the
/// change would break (operators are shared by all users).
public enum UserServersError: Hashable, Sendable, JSONEncodable {
    /// No enabled server of the protocol.
    case noServers(ServerProtocol, user: User?)
    /// No enabled server of the protocol may store messages or files.
    case storageMissing(ServerProtocol, user: User?)
    /// No enabled server of the protocol may proxy.
    case proxyMissing(ServerProtocol, user: User?)
    /// Two servers of the protocol share a host.
    case duplicateServer(ServerProtocol, duplicateServer: String, duplicateHost: TransportHost)
    case duplicateChatRelayName(duplicateChatRelay: String)
    case duplicateChatRelayAddress(duplicateChatRelay: String, duplicateAddress: String)

    public var json: JSONValue {
        switch self {
        case .noServers(let p, let user): .tagged("noServers", ["protocol": .string(p.rawValue), "user": user?.json])
        case .storageMissing(let p, let user):
            .tagged("storageMissing", ["protocol": .string(p.rawValue), "user": user?.json])
        case .proxyMissing(let p, let user): .tagged("proxyMissing", ["protocol": .string(p.rawValue), "user": user?.json])
        case .duplicateServer(let p, let server, let host):
            .tagged(
                "duplicateServer",
                ["protocol": .string(p.rawValue), "duplicateServer": .string(server), "duplicateHost": .string(host.text)])
        case .duplicateChatRelayName(let name): .tagged("duplicateChatRelayName", ["duplicateChatRelay": .string(name)])
        case .duplicateChatRelayAddress(let name, let address):
            .tagged(
                "duplicateChatRelayAddress", ["duplicateChatRelay": .string(name), "duplicateAddress": .string(address)])
        }
    }

    /// The error as the core's derived `Show` writes it in "user servers validation error(s): …". A user is shown
    /// by id and name only: the core's full record show is not reproduced.
    var shown: String {
        func user(_ u: User?) -> String {
            u.map { "Just (User {userId = \($0.userId), localDisplayName = \(haskellShow($0.localDisplayName))})" }
                ?? "Nothing"
        }
        switch self {
        case .noServers(let p, let u): return "USENoServers {protocol = AProtocolType \(p.shown), user = \(user(u))}"
        case .storageMissing(let p, let u):
            return "USEStorageMissing {protocol = AProtocolType \(p.shown), user = \(user(u))}"
        case .proxyMissing(let p, let u): return "USEProxyMissing {protocol = AProtocolType \(p.shown), user = \(user(u))}"
        case .duplicateServer(let p, let server, let host):
            return "USEDuplicateServer {protocol = AProtocolType \(p.shown), duplicateServer = \(haskellShow(server)), "
                + "duplicateHost = \(host.shown)}"
        case .duplicateChatRelayName(let name): return "USEDuplicateChatRelayName {duplicateChatRelay = \(haskellShow(name))}"
        case .duplicateChatRelayAddress(let name, let address):
            return "USEDuplicateChatRelayAddress {duplicateChatRelay = \(haskellShow(name)), "
                + "duplicateAddress = \(haskellShow(address))}"
        }
    }
}

/// A servers configuration that can be saved but lacks something (`UserServersWarning`).
public enum UserServersWarning: Hashable, Sendable, JSONEncodable {
    /// No enabled chat relay: the user cannot create channels.
    case noChatRelays(user: User?)

    public var json: JSONValue {
        switch self {
        case .noChatRelays(let user): .tagged("noChatRelays", ["user": user?.json])
        }
    }
}

/// The core's `validateUserServers`: the user's new configuration in full, and the other users' configurations
/// as they would be with the operators it sets (operators are shared, servers are per user).
struct ServersValidation {
    var errors: [UserServersError] = []
    var warnings: [UserServersWarning] = []

    init(_ current: [UserOperatorServers], others: [(User, [UserOperatorServers])]) {
        for p in ServerProtocol.all { errors += Self.missing(p, nil, current) }
        for p in ServerProtocol.all { errors += Self.duplicates(p, current) }
        errors += Self.relayDuplicates(current)
        for (user, servers) in others {
            for p in ServerProtocol.all { errors += Self.missing(p, user, servers) }
        }
        warnings = ([(nil, current)] + others.map { ($0.0, $0.1) }).compactMap { (user: User?, servers) in
            Self.hasRelays(servers) ? nil : .noChatRelays(user: user)
        }
    }

    /// The message of the `commandError` that refuses to save.
    var message: String { "user servers validation error(s): [" + errors.map(\.shown).joined(separator: ",") + "]" }

    private static func operatorEnabled(_ s: UserOperatorServers) -> Bool { s.operator?.enabled ?? true }

    private static func missing(_ p: ServerProtocol, _ user: User?, _ all: [UserOperatorServers]) -> [UserServersError] {
        func none(_ include: (UserOperatorServers) -> Bool) -> Bool {
            !all.filter(include).flatMap { $0.servers(p) }.contains { $0.enabled && !$0.deleted }
        }
        if none(operatorEnabled) { return [.noServers(p, user: user)] }
        var errors: [UserServersError] = []
        if none({ $0.operator.map { op in op.enabled && op.roles(p).storage } ?? true }) {
            errors.append(.storageMissing(p, user: user))
        }
        if none({ $0.operator.map { op in op.enabled && op.roles(p).proxy } ?? true }) {
            errors.append(.proxyMissing(p, user: user))
        }
        return errors
    }

    /// Each server (not being deleted) that has a host another server also has, with the first such host.
    private static func duplicates(_ p: ServerProtocol, _ all: [UserOperatorServers]) -> [UserServersError] {
        let servers = all.flatMap { $0.servers(p) }.filter { !$0.deleted }
        let repeated = Self.repeated(servers.flatMap(\.server.hosts))
        return servers.compactMap { s in
            s.server.hosts.first(where: repeated.contains).map {
                .duplicateServer(p, duplicateServer: s.server.text, duplicateHost: $0)
            }
        }
    }

    private static func relayDuplicates(_ all: [UserOperatorServers]) -> [UserServersError] {
        let relays = all.flatMap(\.chatRelays).filter { !$0.deleted }
        let names = repeated(relays.map(\.name))
        let addresses = repeated(relays.map(\.address))
        return relays.flatMap { r -> [UserServersError] in
            (names.contains(r.name) ? [.duplicateChatRelayName(duplicateChatRelay: r.name)] : [])
                + (addresses.contains(r.address)
                    ? [.duplicateChatRelayAddress(duplicateChatRelay: r.name, duplicateAddress: r.address)] : [])
        }
    }

    private static func hasRelays(_ all: [UserOperatorServers]) -> Bool {
        all.filter(operatorEnabled).flatMap(\.chatRelays).contains { $0.enabled && !$0.deleted }
    }

    private static func repeated<T: Hashable>(_ items: [T]) -> Set<T> {
        var seen = Set<T>()
        var again = Set<T>()
        for item in items where !seen.insert(item).inserted { again.insert(item) }
        return again
    }
}
