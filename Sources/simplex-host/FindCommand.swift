import Foundation

/// `simplex-host find`: waits for a known desktop to announce itself, connects and confirms it without asking.
enum FindCommand {
    static func run(_ options: Options) async -> Int32 {
        var automatic = options
        automatic.reconnect = true  // finding, confirming and verifying a known desktop is the reconnector's job
        let console = Console()
        let runtime: HostRuntime
        do {
            runtime = try await HostRuntime(options: automatic, output: console.output)
            try await runtime.startChat(profile: options.profile)
        } catch { return Say.failure(error) }
        let known = Say.items((try? await runtime.remoteControl.list())?["remoteCtrls"])
        guard !known.isEmpty else {
            Say.error("no desktop is paired yet", hint: "pair one first with simplex-host connect '<xrcp link>'")
            await runtime.shutdown()
            return ExitCode.failed.rawValue
        }
        console.start()
        Say.line(
            "Waiting for a known desktop to announce itself (SimpleX Desktop: Link a mobile, then choose \"\(runtime.deviceName)\")…"
        )
        await runtime.reconnector?.start()
        return await ConnectCommand.follow(runtime, console, reconnect: options.reconnect)
    }
}
