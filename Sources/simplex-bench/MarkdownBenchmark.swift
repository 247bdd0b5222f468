import Foundation
import SimplexABI
import SimplexMarkdown

/// Markdown parse time for a long line of each character the parser treats specially, beside plain text of the same
/// size: through the Swift API (`Markdown.parse`, formatted texts to JSON as items carry them) and through
/// libsimplex's `chat_parse_markdown`. Each figure is the best of `rounds` runs.
enum MarkdownBenchmark {
    /// The name printed and the text repeated to fill the size: the markers, what starts mentions, commands, links
    /// and phone numbers, spaces and letters, two hostile mixes, and prose.
    static let inputs: [(name: String, unit: String)] = [
        ("*", "*"), ("_", "_"), ("~", "~"), ("`", "`"), ("#", "#"), ("!", "!"), ("[", "["), ("@", "@"), ("/", "/"),
        ("digits", "7"), ("spaces", " "), ("letters", "a"), ("'1 '", "1 "), ("'[a](x '", "[a](x "),
        ("plain text", "lorem ipsum dolor sit amet, "),
    ]

    static func run(megabytes: Int, rounds: Int) {
        let size = megabytes * 1_000_000
        print("markdown of \(megabytes) MB of one character (best of \(rounds)), beside plain text of the same size")
        print(pad("input", 12, left: true) + pad("Swift ms", 11) + pad("C ABI ms", 11) + "   runs")
        for input in inputs {
            let text = String(String(repeating: input.unit, count: size / input.unit.utf8.count + 1).utf8.prefix(size)) ?? ""
            var swift = Double.infinity
            var abi = Double.infinity
            var runs = 0
            for _ in 0..<rounds {
                var start = now()
                let parsed = Markdown.parse(text)
                _ = parsed?.json.rendered
                runs = parsed?.count ?? 0
                swift = min(swift, now() - start)
                start = now()
                free(chat_parse_markdown(text))
                abi = min(abi, now() - start)
            }
            print(
                pad(input.name, 12, left: true) + pad(String(format: "%.1f", swift * 1000), 11)
                    + pad(String(format: "%.1f", abi * 1000), 11) + "   \(runs)")
        }
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}
