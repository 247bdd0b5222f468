internal import CLibSimplex
internal import Foundation
public import SimplexEncoding
import Synchronization

/// A libsimplex loaded at run time (`simplex-host --core-lib PATH`) as the host's core: the official library or ours,
/// through the C ABI of chat-api.md §9 only.
///
/// The library's calls block their thread (and a Haskell core's may wait on its own runtime), so they never run on
/// Swift's cooperative pool: commands go to threads of this backend, and one more thread polls `chat_recv_msg_wait`
/// for each `nextEvent`. The library is opened `RTLD_LOCAL`: its symbols — for our own libsimplex, a second copy of the
/// core's Swift modules — stay out of the process's global namespace, so neither copy binds to the other's.
public final class LibraryCore: ChatBackend {
    /// Why a library cannot serve as the core, in a person's words.
    public enum LoadError: Error, Equatable, CustomStringConvertible {
        /// `dlopen` failed: the file is missing, unreadable or not a shared library for this machine.
        case notLoadable(path: String, reason: String)
        /// The library lacks a function of the C ABI: it is not a libsimplex.
        case missingFunction(path: String, name: String)
        /// `chat_migrate_init` answered a DBMigrationResult other than ok (chat-api.md §9.6): its type and JSON.
        case migration(type: String, result: String)

        public var description: String {
            switch self {
            case .notLoadable(let path, let reason): return "cannot load the core library \(path): \(reason)"
            case .missingFunction(let path, let name): return "\(path) is not a libsimplex: it has no \(name)"
            case .migration(let type, let result): return "the core library cannot open the databases: \(type) \(result)"
            }
        }
    }

    /// The functions of §9.2 the host calls, resolved once.
    private struct Functions: @unchecked Sendable {
        // @unchecked: C function pointers, which the library keeps valid while it is loaded (it is never unloaded).
        let initRuntime: hs_init_with_rtsopts_fn
        let migrateInit: chat_migrate_init_fn
        let sendCommand: chat_send_cmd_fn
        let receiveEvent: chat_recv_msg_wait_fn
    }

    /// The `chat_ctrl` the library made; the library never frees it.
    private struct Controller: @unchecked Sendable {
        // @unchecked: an opaque handle the library allows every thread to use at once (§9.1).
        let pointer: UnsafeMutableRawPointer
    }

    private let functions: Functions
    private let controller: Controller
    private let commandThreads: CallerThreads
    private let eventThread: CallerThreads

    private init(functions: Functions, controller: Controller, commandThreads: CallerThreads) {
        self.functions = functions
        self.controller = controller
        self.commandThreads = commandThreads
        eventThread = CallerThreads(count: 1, name: "libsimplex events")
    }

    /// Loads the library at `path`, starts its runtime and opens `<prefix>_chat.db` and `<prefix>_agent.db` through it,
    /// encrypted with `key` unless it is empty, migrating them as the embedded core does (`yesUp`).
    public static func load(path: String, prefix: String, key: String = "") async throws(LoadError) -> LibraryCore {
        let functions = try resolve(path: path)
        let commandThreads = CallerThreads(count: commandThreadCount, name: "libsimplex commands")
        let opened = await commandThreads.run { () -> Result<Controller, LoadError> in
            startRuntime(functions.initRuntime)
            var pointer: UnsafeMutableRawPointer?
            let answer = take(functions.migrateInit(prefix, key, "yesUp", &pointer)) ?? []
            let json = try? CanonicalJSON.parse(answer)
            let type = json?["type"]?.stringValue ?? "unreadable"
            guard type == "ok", let pointer else {
                return .failure(.migration(type: type, result: String(decoding: answer, as: UTF8.self)))
            }
            return .success(Controller(pointer: pointer))
        }
        return LibraryCore(functions: functions, controller: try opened.get(), commandThreads: commandThreads)
    }

    /// Commands may take long in a networked core; a few threads keep one slow command from holding up the rest.
    private static let commandThreadCount = 4

    public func execute(_ line: String) async -> [UInt8] {
        let functions = functions
        let controller = controller
        return await commandThreads.run {
            Self.take(functions.sendCommand(controller.pointer, line)) ?? Self.nullAnswer
        }
    }

    public func nextEvent(waitMicroseconds: Int64) async -> [UInt8]? {
        let functions = functions
        let controller = controller
        let wait = Int32(clamping: max(0, waitMicroseconds))
        let event = await eventThread.run { Self.take(functions.receiveEvent(controller.pointer, wait)) }
        // "" is the library's timeout.
        guard let event, !event.isEmpty else { return nil }
        return event
    }

    /// `getFile`: the library keeps the file records; they are read through its command API (`RecordedFiles`), and the
    /// path is relative to the files folder the host gave it (`/set file paths`).
    public func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) async -> Result<
        String, ChatErrorEnvelope
    > {
        await RecordedFiles(execute: { [self] in await execute($0) }).path(
            userId: userId, fileId: fileId, sent: sent, fileSource: fileSource)
    }

    /// What a command answers if the library breaks its promise never to return NULL.
    private static let nullAnswer = Envelope.error(
        .error(type: "exception", fields: ["message": .string("the core library answered NULL")]))

    // MARK: Loading

    private static func resolve(path: String) throws(LoadError) -> Functions {
        // A path without a slash would be searched for in the library path; the user means a file.
        let file = path.contains("/") ? path : "./" + path
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            var reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            // dlerror names the file first; the message names it already.
            if reason.hasPrefix(file + ": ") { reason.removeFirst(file.count + 2) }
            throw .notLoadable(path: path, reason: reason)
        }
        func symbol<F>(_ name: String, as type: F.Type) throws(LoadError) -> F {
            guard let address = dlsym(handle, name) else { throw .missingFunction(path: path, name: name) }
            return unsafeBitCast(address, to: type)
        }
        return Functions(
            initRuntime: try symbol("hs_init_with_rtsopts", as: hs_init_with_rtsopts_fn.self),
            migrateInit: try symbol("chat_migrate_init", as: chat_migrate_init_fn.self),
            sendCommand: try symbol("chat_send_cmd", as: chat_send_cmd_fn.self),
            receiveEvent: try symbol("chat_recv_msg_wait", as: chat_recv_msg_wait_fn.self))
    }

    /// Starts a Haskell core's runtime with the options the official Python client passes: the signals stay the host's.
    /// The arguments live as long as the process, as the runtime may keep them.
    private static func startRuntime(_ initRuntime: hs_init_with_rtsopts_fn) {
        let words = ["simplex", "+RTS", "-A64m", "-H64m", "-xn", "--install-signal-handlers=no", "-RTS"]
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: words.count + 1)
        for (i, word) in words.enumerated() { argv[i] = strdup(word) }
        argv[words.count] = nil
        var argc = Int32(words.count)
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        initRuntime(&argc, &arguments)
    }

    /// The bytes of an answer, which is freed; nil for NULL.
    private static func take(_ answer: UnsafeMutablePointer<CChar>?) -> [UInt8]? {
        guard let answer else { return nil }
        defer { free(answer) }
        return Array(UnsafeRawBufferPointer(start: answer, count: strlen(answer)))
    }
}

/// Threads of the host's own that run jobs in the order they are given, for calls that block their thread.
public final class CallerThreads: Sendable {
    private let jobs = Mutex(Jobs())
    private let waiting = DispatchSemaphore(value: 0)

    private struct Jobs {
        var items: [@Sendable () -> Void] = []
        var head = 0

        mutating func take() -> (@Sendable () -> Void)? {
            guard head < items.count else { return nil }
            let job = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    /// Starts `count` threads, which live as long as the process.
    public init(count: Int, name: String) {
        for i in 0..<count {
            let thread = Thread { [self] in
                while true {
                    waiting.wait()
                    jobs.withLock { $0.take() }?()
                }
            }
            thread.name = count == 1 ? name : "\(name) \(i + 1)"
            thread.start()
        }
    }

    /// Runs `body` on one of the threads; the task waits without holding a thread of the pool.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            jobs.withLock { $0.items.append { continuation.resume(returning: body()) } }
            waiting.signal()
        }
    }
}
