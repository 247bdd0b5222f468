import Synchronization

/// The chat item expiry's timers and passes, the same behind both engines (`ChatEngine` for tasks,
/// `BlockingChatEngine` for the C ABI's threads): after each command the engine hands over the controller, and the
/// driver starts what the command asked — periodic expiries, passes to run now, passes that were waiting for the chat
/// to start or wake up. A pass runs off the engine, each batch one short hold of the controller through the engine's
/// `Access`, so that commands are served between two batches.
final class ExpiryDriver: Sendable {
    /// One step of a pass, run while the engine holds the controller.
    enum Step: Sendable {
        /// The pass goes on from here.
        case pass(ExpiryPass)
        /// The pass may not run or go on now.
        case stop
        /// A failure to report; the pass goes on from here (the failing chat skipped, as the core skips it).
        case failed(ChatError, ExpiryPass)
    }

    /// Runs `body` on the controller while no command runs; nil when the engine is gone.
    typealias Access = @Sendable (_ body: @escaping @Sendable (ChatController) -> Step) async -> Step?

    private struct State {
        /// Each user's periodic expiry: waiting for its next pass, or running it.
        var tasks: [Int64: Task<Void, Never>] = [:]
        /// Users whose periodic pass came due while it could not run (chat stopped or suspended, switch off): it runs
        /// as soon as a command makes it possible, as the core's expiry threads wait for their flag.
        var waiting: Set<Int64> = []
    }

    private let state = Mutex(State())
    private let configuration: ItemExpiryConfiguration
    private let events: EventQueue

    init(configuration: ItemExpiryConfiguration, events: EventQueue) {
        self.configuration = configuration
        self.events = events
    }

    /// Carries out what the last command asked of the expiry. Called by the engine right after the command, while it
    /// still holds `controller`.
    func afterCommand(_ controller: ChatController, access: @escaping Access) {
        let (start, immediate) = controller.expiry.takeRequests()
        let resumed = state.withLock { state in
            let ready = state.waiting.filter { controller.expiryAllowed(userId: $0, periodic: true) }
            state.waiting.subtract(ready)
            return ready
        }
        for userId in start {
            schedule(userId, after: configuration.initialDelay, access: access)
        }
        for scope in immediate {
            _ = task(scope, periodic: false, after: .zero, access: access)
        }
        for userId in resumed {
            schedule(userId, after: .zero, access: access)
        }
    }

    /// The user's periodic pass after `delay`. Made under the lock, so that a pass which ends at once and schedules
    /// the next cannot be outrun by its own handle being stored.
    private func schedule(_ userId: Int64, after delay: Duration, access: @escaping Access) {
        state.withLock { state in
            state.tasks[userId] = task(.user(userId: userId), periodic: true, after: delay, access: access)
        }
    }

    /// A pass after `delay`; a periodic one schedules the next when it ends. It ends early when the engine is gone
    /// (`access` gives nil) or cancels it.
    private func task(_ scope: ExpiryScope, periodic: Bool, after delay: Duration, access: @escaping Access) -> Task<
        Void, Never
    > {
        let batchSize = max(1, configuration.batchSize)
        return Task.detached(priority: .utility) { [self] in
            if delay > .zero {
                do { try await Task.sleep(for: delay) } catch { return }
            }
            // A pass that may not start now ends here: a periodic one waits (in `waiting`) for a command to resume it.
            guard var step = await access({ controller in self.begin(controller, scope, periodic: periodic) }) else {
                return
            }
            if case .stop = step { return }
            passing: while !Task.isCancelled {
                switch step {
                case .stop:
                    break passing
                case .failed(let error, let pass):
                    await events.put(.error(error))
                    step = .pass(pass)
                case .pass(let pass):
                    guard let next = await access({ controller in Self.batch(controller, pass, batchSize: batchSize) })
                    else { return }
                    step = next
                }
            }
            if periodic, !Task.isCancelled {
                schedule(scope.userId, after: configuration.interval, access: access)
            }
        }
    }

    /// Stops every pass and timer: the engine is going away.
    func cancelAll() {
        state.withLock { state in
            for task in state.tasks.values { task.cancel() }
        }
    }

    /// The pass's chats, or `stop` when it cannot run now (a periodic pass then waits for its switch).
    private func begin(_ controller: ChatController, _ scope: ExpiryScope, periodic: Bool) -> Step {
        guard controller.expiryAllowed(userId: scope.userId, periodic: periodic) else {
            if periodic { state.withLock { _ = $0.waiting.insert(scope.userId) } }
            return .stop
        }
        do {
            return .pass(try controller.beginExpiryPass(scope, periodic: periodic))
        } catch {
            return .failed(error, ExpiryPass(scope: scope, periodic: periodic, groupIds: [], current: nil))
        }
    }

    /// One batch of a pass; `stop` when it is finished or may not go on.
    private static func batch(_ controller: ChatController, _ pass: ExpiryPass, batchSize: Int) -> Step {
        guard !pass.isFinished, controller.expiryAllowed(userId: pass.scope.userId, periodic: pass.periodic) else {
            return .stop
        }
        var pass = pass
        do {
            try controller.expiryStep(&pass, batchSize: batchSize)
        } catch {
            pass.current = nil
            return .failed(error, pass)
        }
        return .pass(pass)
    }
}
