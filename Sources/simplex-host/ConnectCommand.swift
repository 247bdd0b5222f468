import Foundation

/// `simplex-host connect <xrcp link>`: connects to the desktop showing the link and asks to compare the session code.
enum ConnectCommand {
    static func run(_ options: Options, link: String) async -> Int32 {
        let console = Console()
        let runtime: HostRuntime
        do {
            runtime = try await HostRuntime(options: options, output: console.output)
            try await runtime.startChat(profile: options.profile)
        } catch { return Say.failure(error) }
        console.start()
        Say.line("Connecting to the desktop as \"\(runtime.deviceName)\"…")
        let response = await runtime.router.answer("/connect remote ctrl \(link)")
        if let (message, hint) = Say.envelopeError(response) {
            let again = response.reason == nil ? "copy the link again from SimpleX Desktop (Link a mobile)" : nil
            Say.error("cannot connect: \(message)", hint: hint ?? again)
            await runtime.shutdown()
            return ExitCode.failed.rawValue
        }
        return await follow(runtime, console, reconnect: options.reconnect)
    }

    /// Follows sessions until one ends (or, with `--reconnect`, until a signal); the exit code says how it went.
    static func follow(_ runtime: HostRuntime, _ console: Console, reconnect: Bool) async -> Int32 {
        var session = PersonSession(runtime: runtime)
        var everConnected = false
        for await input in console.inputs {
            var step = PersonSession.Step.none
            switch input {
            case .remoteEvent(let event): step = session.handle(event: event)
            case .automaticResponse(let answer): step = session.handle(verified: answer)
            case .line(let line): step = await session.answer(line) ?? .none
            case .endOfInput: step = await session.unanswered() ?? .none  // without a terminal the session goes on
            case .signal:
                Say.line("Stopping.")
                await runtime.shutdown()
                return ExitCode.ok.rawValue
            case .coreEvent(let envelope): Say.line(String(decoding: envelope, as: UTF8.self))
            case .controllerTooSlow(let bound):
                Say.error("the desktop stopped fetching events (\(bound) waiting), so its session was ended")
            }
            switch step {
            case .connected: everConnected = true
            case .ended(let wasConnected):
                everConnected = everConnected || wasConnected
                if reconnect && everConnected {
                    Say.line("Waiting for the desktop to come back (--reconnect)…")
                    continue
                }
                await runtime.shutdown()
                return everConnected ? ExitCode.ok.rawValue : ExitCode.failed.rawValue
            case .none: break
            }
        }
        await runtime.shutdown()
        return ExitCode.ok.rawValue
    }
}
