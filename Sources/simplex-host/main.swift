// simplex-host: a Linux host for SimpleX Chat remote control. `simplex-host --help` for the subcommands and options.
// This file only dispatches: each subcommand lives in a file of its own.
import Foundation

// The controller role lives in Controller*.swift, with its own options.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "controller" {
    exit(await ControllerMode.run(Array(CommandLine.arguments.dropFirst(2))))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let options: Options
do {
    options = try Options(arguments)
} catch let request as Options.HelpRequest {
    print(Help.text(for: request.subcommand))
    exit(ExitCode.ok.rawValue)
} catch let error as Options.UsageError {
    let help = error.subcommand.map { "simplex-host \($0) --help" } ?? "simplex-host --help"
    Say.error(error.message, hint: "\(help) shows the usage")
    exit(ExitCode.usage.rawValue)
} catch {
    Say.error("\(error)", hint: "simplex-host --help shows the usage")
    exit(ExitCode.usage.rawValue)
}

let code: Int32
switch options.command {
case .scripting: code = await ScriptingMode.run(options)
case .interactive: code = await InteractiveMode.run(options)
case .connect(let link): code = await ConnectCommand.run(options, link: link)
case .find: code = await FindCommand.run(options)
case .controllers: code = await ControllersCommand.run(options)
case .forget(let id): code = await ForgetCommand.run(options, id: id)
case .name(let name): code = NameCommand.run(options, name: name)
case .status: code = await StatusCommand.run(options)
}
exit(code)
