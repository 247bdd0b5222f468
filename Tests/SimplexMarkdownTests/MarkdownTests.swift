import XCTest

@testable import SimplexMarkdown

/// The markdown against cases taken as facts from the official core's markdown tests: each input with the formatted
/// texts it must give, or nil for text without markdown.
final class MarkdownTests: XCTestCase {
    static func plain(_ s: String) -> FormattedText { FormattedText(s) }
    static func bold(_ s: String) -> FormattedText { FormattedText(s, .bold) }
    static func secret(_ s: String) -> FormattedText { FormattedText(s, .secret) }
    static func red(_ s: String) -> FormattedText { FormattedText(s, .colored(.red)) }
    static func uri(_ s: String) -> FormattedText { FormattedText(s, .uri) }
    static func email(_ s: String) -> FormattedText { FormattedText(s, .email) }
    static func phone(_ s: String) -> FormattedText { FormattedText(s, .phone) }
    static func mention(_ name: String, _ s: String) -> FormattedText { FormattedText(s, .mention(memberName: name)) }
    static func command(_ cmd: String, _ s: String) -> FormattedText { FormattedText(s, .command(commandStr: cmd)) }
    static func web(_ text: String, _ uri: String) -> FormattedText {
        FormattedText("[\(text)](\(uri))", .hyperLink(showText: text, linkUri: uri))
    }

    static let cases: [(String, [FormattedText]?)] = [
        // bold
        ("this is *bold formatted* text", [plain("this is "), bold("bold formatted"), plain(" text")]),
        ("*bold formatted* text", [bold("bold formatted"), plain(" text")]),
        ("this is *bold*", [plain("this is "), bold("bold")]),
        (" *bold* text", [plain(" "), bold("bold"), plain(" text")]),
        ("   *bold* text", [plain("   "), bold("bold"), plain(" text")]),
        ("this is *bold* ", [plain("this is "), bold("bold"), plain(" ")]),
        ("this is *bold*   ", [plain("this is "), bold("bold"), plain("   ")]),
        ("this is * unformatted * text", nil),
        ("this is *unformatted * text", nil),
        ("this is * unformatted* text", nil),
        ("this is **unformatted** text", nil),
        ("this is*unformatted* text", nil),
        ("this is *unformatted text", nil),
        ("*this* is *unformatted text", [bold("this"), plain(" is *unformatted text")]),
        ("this is *long _bold_ (not italic)* text", [plain("this is "), bold("long _bold_ (not italic)"), plain(" text")]),
        ("snippet: `this is *bold text*`", [plain("snippet: "), FormattedText("this is *bold text*", .snippet)]),
        ("_italic_ ~strike~", [FormattedText("italic", .italic), plain(" "), FormattedText("strike", .strikeThrough)]),
        // secret
        ("this is #black_secret# text", [plain("this is "), secret("black_secret"), plain(" text")]),
        ("##black_secret### text", [secret("#black_secret##"), plain(" text")]),
        ("this is #black secret# text", [plain("this is "), secret("black secret"), plain(" text")]),
        ("##black secret### text", [secret("#black secret##"), plain(" text")]),
        ("this is #secret#", [plain("this is "), secret("secret")]),
        ("   #secret# text", [plain("   "), secret("secret"), plain(" text")]),
        ("this is #secret#   ", [plain("this is "), secret("secret"), plain("   ")]),
        ("this is # unformatted # text", nil),
        ("this is #unformatted # text", nil),
        ("this is # unformatted# text", nil),
        ("this is ## unformatted ## text", nil),
        ("this is#unformatted# text", nil),
        ("this is #unformatted text", nil),
        ("*this* is #unformatted text", [bold("this"), plain(" is #unformatted text")]),
        ("snippet: `this is #secret_text#`", [plain("snippet: "), FormattedText("this is #secret_text#", .snippet)]),
        // colors
        ("this is !1 red color! text", [plain("this is "), red("red color"), plain(" text")]),
        ("!1 red! text", [red("red"), plain(" text")]),
        ("this is !1 red!", [plain("this is "), red("red")]),
        (" !1 red! text", [plain(" "), red("red"), plain(" text")]),
        ("this is !1 red!   ", [plain("this is "), red("red"), plain("   ")]),
        (
            "!red red! !g green! !blue blue! !6 magenta!",
            [
                red("red"), plain(" "), FormattedText("green", .colored(.green)), plain(" "),
                FormattedText("blue", .colored(.blue)),
                plain(" "), FormattedText("magenta", .colored(.magenta)),
            ]
        ),
        ("this is !1 unformatted ! text", nil),
        ("this is !1  unformatted! text", nil),
        ("this is!1 unformatted! text", nil),
        ("this is !1 unformatted text", nil),
        ("this is !7 unformatted! text", nil),
        ("*this* is !1 unformatted text", [bold("this"), plain(" is !1 unformatted text")]),
        ("this is !1 long *red* (not bold)! text", [plain("this is "), red("long *red* (not bold)"), plain(" text")]),
        ("snippet: `this is !1 red text!`", [plain("snippet: "), FormattedText("this is !1 red text!", .snippet)]),
        // web links
        ("https://simplex.chat", [uri("https://simplex.chat")]),
        ("https://simplex.chat.", [uri("https://simplex.chat"), plain(".")]),
        ("https://simplex.chat, hello", [uri("https://simplex.chat"), plain(", hello")]),
        ("http://simplex.chat", [uri("http://simplex.chat")]),
        ("this is https://simplex.chat", [plain("this is "), uri("https://simplex.chat")]),
        ("https://simplex.chat site", [uri("https://simplex.chat"), plain(" site")]),
        (
            "SimpleX on GitHub: https://github.com/simplex-chat/",
            [plain("SimpleX on GitHub: "), uri("https://github.com/simplex-chat/")]
        ),
        (
            "SimpleX on GitHub: https://github.com/simplex-chat.",
            [plain("SimpleX on GitHub: "), uri("https://github.com/simplex-chat"), plain(".")]
        ),
        (
            "https://github.com/simplex-chat/ - SimpleX on GitHub",
            [uri("https://github.com/simplex-chat/"), plain(" - SimpleX on GitHub")]
        ),
        ("https://en.m.wikipedia.org/wiki/Servo_(software)", [uri("https://en.m.wikipedia.org/wiki/Servo_(software)")]),
        ("example.com", [uri("example.com")]),
        ("example.com.", [uri("example.com"), plain(".")]),
        ("example.com...", [uri("example.com"), plain("...")]),
        ("www.example.com", [uri("www.example.com")]),
        ("example.academy", [uri("example.academy")]),
        ("this is example.com", [plain("this is "), uri("example.com")]),
        ("x.com", [uri("x.com")]),
        ("_https://simplex.chat", nil),
        ("this is _https://simplex.chat", nil),
        ("this is https://", nil),
        ("example.c", nil),
        ("www.www.example.com", nil),
        ("www.example1.com", nil),
        ("www.", nil),
        (".com", nil),
        ("example.academytoolong", nil),
        ("simplex:/example", nil),
        ("https://localhost/page", nil),
        // hyperlinks
        ("[click here](https://example.com)", [web("click here", "https://example.com")]),
        ("For details [click here](https://example.com)", [plain("For details "), web("click here", "https://example.com")]),
        ("[example.com](https://example.com)", [web("example.com", "https://example.com")]),
        ("[example.com/page](https://example.com/page)", [web("example.com/page", "https://example.com/page")]),
        ("[https://example.com](https://another.com)", nil),
        ("[example.com/page](https://another.com/page)", nil),
        ("[click here](example.com)", nil),
        ("[click here](https://example.com )", nil),
        // emails
        ("chat@simplex.chat", [email("chat@simplex.chat")]),
        ("test chat@simplex.chat", [plain("test "), email("chat@simplex.chat")]),
        ("test chat+123@simplex.chat", [plain("test "), email("chat+123@simplex.chat")]),
        ("test chat.chat+123@simplex.chat", [plain("test "), email("chat.chat+123@simplex.chat")]),
        ("chat@simplex.chat test", [email("chat@simplex.chat"), plain(" test")]),
        ("test1 chat@simplex.chat test2", [plain("test1 "), email("chat@simplex.chat"), plain(" test2")]),
        ("test chat@simplex.chat.", [plain("test "), email("chat@simplex.chat"), plain(".")]),
        ("test chat@simplex.chat...", [plain("test "), email("chat@simplex.chat"), plain("...")]),
        ("chat @simplex.chat", [plain("chat "), mention("simplex.chat", "@simplex.chat")]),
        ("this is chat@ simplex.chat", [plain("this is chat@ "), uri("simplex.chat")]),
        ("this is chat @ simplex.chat", [plain("this is chat @ "), uri("simplex.chat")]),
        ("*this* is chat @ simplex.chat", [bold("this"), plain(" is chat @ "), uri("simplex.chat")]),
        // phones
        ("07777777777", [phone("07777777777")]),
        ("test 07777777777", [plain("test "), phone("07777777777")]),
        ("07777777777 test", [phone("07777777777"), plain(" test")]),
        ("test 07777 777 777 test", [plain("test "), phone("07777 777 777"), plain(" test")]),
        ("test +447777777777 test", [plain("test "), phone("+447777777777"), plain(" test")]),
        ("test +44 (0) 7777 777 777 test", [plain("test "), phone("+44 (0) 7777 777 777"), plain(" test")]),
        ("test +44-7777-777-777 test", [plain("test "), phone("+44-7777-777-777"), plain(" test")]),
        (
            "test +44 (0) 7777.777.777 https://simplex.chat test",
            [plain("test "), phone("+44 (0) 7777.777.777"), plain(" "), uri("https://simplex.chat"), plain(" test")]
        ),
        ("test 077777 test", nil),
        ("test 07777  777  777 test", nil),
        ("*test* 07777  777  777 test", [bold("test"), plain(" 07777  777  777 test")]),
        // mentions
        ("@alice", [mention("alice", "@alice")]),
        ("hello @alice", [plain("hello "), mention("alice", "@alice")]),
        ("hello @alice !", [plain("hello "), mention("alice", "@alice"), plain(" !")]),
        ("hello @alice!", [plain("hello "), mention("alice", "@alice"), plain("!")]),
        ("hello @alice...", [plain("hello "), mention("alice", "@alice"), plain("...")]),
        ("hello @alice@example.com", [plain("hello "), mention("alice@example.com", "@alice@example.com")]),
        ("hello @'alice @ example.com'", [plain("hello "), mention("alice @ example.com", "@'alice @ example.com'")]),
        ("@'alice jones'", [mention("alice jones", "@'alice jones'")]),
        ("hello @'alice jones'!", [plain("hello "), mention("alice jones", "@'alice jones'"), plain("!")]),
        ("hello @'a.j.'!", [plain("hello "), mention("a.j.", "@'a.j.'"), plain("!")]),
        ("hello @'alice jones!", nil),
        ("hello @bob @'alice jones!", [plain("hello "), mention("bob", "@bob"), plain(" @'alice jones!")]),
        ("hello @ alice!", nil),
        ("hello @bob @ alice!", [plain("hello "), mention("bob", "@bob"), plain(" @ alice!")]),
        ("hello @bob @", [plain("hello "), mention("bob", "@bob"), plain(" @")]),
        // commands
        ("/start", [command("start", "/start")]),
        ("send /help", [plain("send "), command("help", "/help")]),
        ("send /help !", [plain("send "), command("help", "/help"), plain(" !")]),
        ("send /help!", [plain("send "), command("help", "/help"), plain("!")]),
        ("send /help...", [plain("send "), command("help", "/help"), plain("...")]),
        ("send /'filter 1'", [plain("send "), command("filter 1", "/'filter 1'")]),
        ("/'filter 1'", [command("'filter 1'", "/'filter 1'")]),
        ("send /'filter 1'.", [plain("send "), command("filter 1", "/'filter 1'"), plain(".")]),
        ("send /'filter 1.'!", [plain("send "), command("filter 1.", "/'filter 1.'"), plain("!")]),
        ("send /'filter 1", nil),
        ("send /help /'filter 1", [plain("send "), command("help", "/help"), plain(" /'filter 1")]),
        ("send / help!", nil),
        ("send /help / filter", [plain("send "), command("help", "/help"), plain(" / filter")]),
        ("send /help /", [plain("send "), command("help", "/help"), plain(" /")]),
        ("send /he?lp", nil),
        // a single line starting with `/` is one command, arguments and all
        ("/filter 1", [command("filter 1", "/filter 1")]),
        ("/link 1", [command("link 1", "/link 1")]),
        (" /link 1", [command("link 1", " /link 1")]),
        ("/", nil),
        // several lines
        (
            "http://simplex.chat\nhttp://app.simplex.chat",
            [uri("http://simplex.chat"), plain("\n"), uri("http://app.simplex.chat")]
        ),
        (
            "http://simplex.chat\ntext 1\ntext 2\nhttp://app.simplex.chat",
            [uri("http://simplex.chat"), plain("\ntext 1\ntext 2\n"), uri("http://app.simplex.chat")]
        ),
        ("not a\nmarkdown", nil),
        ("/help\n*bold*", [command("help", "/help"), plain("\n"), bold("bold")]),
        ("*bold*\n", [bold("bold")]),
        ("", nil),
        ("\n", nil),
        ("plain text", nil),
    ]

    func testCases() {
        for (input, expected) in Self.cases {
            XCTAssertEqual(Markdown.parse(input), expected, input)
        }
    }

    func testSimplexLinks() throws {
        let inv =
            "/invitation#/?v=1&smp=smp%3A%2F%2F1234-w%3D%3D%40smp.simplex.im%3A5223%2F3456-w%3D%3D%23%2F%3Fv%3D1-2%26dh%3DMCowBQYDK2VuAyEAjiswwI3O_NlS8Fk3HJUW870EY2bAwmttMBsvRB9eV3o%253D&e2e=v%3D2%26x3dh%3DMEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U%3D%2CMEIwBQYDK2VvAzkAmKuSYeQ_m0SixPDS8Wq8VBaTS1cW-Lp0n0h4Diu-kUpR-qXx4SDJ32YGEFoGFGSbGPry5Ychr6U%3D"
        let ct =
            "/contact#/?v=2&smp=smp%3A%2F%2F1234-w%3D%3D%40smp.simplex.im%3A5223%2F3456-w%3D%3D%23%2F%3Fv%3D1-2%26dh%3DMCowBQYDK2VuAyEAjiswwI3O_NlS8Fk3HJUW870EY2bAwmttMBsvRB9eV3o%253D"
        let gr =
            "/contact#/?v=2&smp=smp%3A%2F%2Fu2dS9sG8nMNURyZwqASV4yROM28Er0luVTx5X1CsMrU%3D%40smp4.simplex.im%2FWHV0YU1sYlU7NqiEHkHDB6gxO1ofTync%23%2F%3Fv%3D1-2%26dh%3DMCowBQYDK2VuAyEAWbebOqVYuBXaiqHcXYjEHCpYi6VzDlu6CVaijDTmsQU%253D%26srv%3Do5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion&data=%7B%22type%22%3A%22group%22%2C%22groupLinkId%22%3A%22mL-7Divb94GGmGmRBef5Dg%3D%3D%22%7D"
        let onion = "o5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion"
        let cases: [(String, SimplexLinkType, String, [String])] = [
            ("https://simplex.chat" + inv, .invitation, "simplex:" + inv, ["smp.simplex.im"]),
            ("simplex:" + inv, .invitation, "simplex:" + inv, ["smp.simplex.im"]),
            ("https://example.com" + inv, .invitation, "simplex:" + inv, ["smp.simplex.im"]),
            ("https://simplex.chat" + ct, .contact, "simplex:" + ct, ["smp.simplex.im"]),
            ("simplex:" + ct, .contact, "simplex:" + ct, ["smp.simplex.im"]),
            ("https://simplex.chat" + gr, .group, "simplex:" + gr, ["smp4.simplex.im", onion]),
            ("simplex:" + gr, .group, "simplex:" + gr, ["smp4.simplex.im", onion]),
        ]
        for (text, type, uri, hosts) in cases {
            let format = Format.simplexLink(showText: nil, linkType: type, simplexUri: uri, smpHosts: hosts)
            XCTAssertEqual(Markdown.parse(text), [FormattedText(text, format)], text)
            XCTAssertEqual(Markdown.parse(text + "\ntext"), [FormattedText(text, format), FormattedText("\ntext")], text)
        }

        let key = "lrdvu2d8A1GumSmoKb2krQmtKhWXq-tyGpHuM7aMwsw"
        let addr = "https://smp6.simplex.im/a#" + key
        let contact = Format.simplexLink(
            showText: "Connect to me", linkType: .contact, simplexUri: "simplex:/a#\(key)?h=smp6.simplex.im",
            smpHosts: ["smp6.simplex.im"])
        XCTAssertEqual(Markdown.parse("[Connect to me](\(addr))"), [FormattedText("[Connect to me](\(addr))", contact)])
        XCTAssertNil(Markdown.parse("[Connect.to.me](\(addr))"), "punctuation in the text of a link")
        XCTAssertNil(Markdown.parse("[Connect to me](simplex:\(ct))"), "a full link behind text")
        for (char, type) in [("a", SimplexLinkType.contact), ("g", .group), ("c", .channel), ("r", .relay)] {
            let short = "simplex:/\(char)#\(key)?h=smp6.simplex.im"
            let format = Format.simplexLink(showText: nil, linkType: type, simplexUri: short, smpHosts: ["smp6.simplex.im"])
            XCTAssertEqual(Markdown.parse(short), [FormattedText(short, format)], short)
        }
    }

    /// The JSON of each format, as the official types have it: `format` before `text`, absent without a format.
    func testJSON() {
        let cases: [(FormattedText, String)] = [
            (FormattedText("a"), #"{"text":"a"}"#),
            (FormattedText("a", .bold), #"{"format":{"type":"bold"},"text":"a"}"#),
            (FormattedText("a", .italic), #"{"format":{"type":"italic"},"text":"a"}"#),
            (FormattedText("a", .strikeThrough), #"{"format":{"type":"strikeThrough"},"text":"a"}"#),
            (FormattedText("a", .snippet), #"{"format":{"type":"snippet"},"text":"a"}"#),
            (FormattedText("a", .secret), #"{"format":{"type":"secret"},"text":"a"}"#),
            (FormattedText("a", .small), #"{"format":{"type":"small"},"text":"a"}"#),
            (FormattedText("a", .colored(.cyan)), #"{"format":{"type":"colored","color":"cyan"},"text":"a"}"#),
            (FormattedText("x.com", .uri), #"{"format":{"type":"uri"},"text":"x.com"}"#),
            (
                FormattedText("[a](https://x.com)", .hyperLink(showText: "a", linkUri: "https://x.com")),
                #"{"format":{"type":"hyperLink","showText":"a","linkUri":"https://x.com"},"text":"[a](https://x.com)"}"#
            ),
            (
                FormattedText("l", .simplexLink(showText: nil, linkType: .group, simplexUri: "simplex:/g#k", smpHosts: ["h"])),
                #"{"format":{"type":"simplexLink","linkType":"group","simplexUri":"simplex:/g#k","smpHosts":["h"]},"text":"l"}"#
            ),
            (
                FormattedText(
                    "n", .simplexName(.init(nameType: .publicGroup, nameTLD: .simplex, domain: "d", subDomain: ["s"]))),
                #"{"format":{"type":"simplexName","nameInfo":{"nameType":"publicGroup","nameDomain":{"nameTLD":"simplex","domain":"d","subDomain":["s"]}}},"text":"n"}"#
            ),
            (FormattedText("/a", .command(commandStr: "a")), #"{"format":{"type":"command","commandStr":"a"},"text":"/a"}"#),
            (FormattedText("@a", .mention(memberName: "a")), #"{"format":{"type":"mention","memberName":"a"},"text":"@a"}"#),
            (FormattedText("a@b.c", .email), #"{"format":{"type":"email"},"text":"a@b.c"}"#),
            (FormattedText("\"1\"\n", .phone), #"{"format":{"type":"phone"},"text":"\"1\"\n"}"#),
        ]
        for (value, json) in cases {
            XCTAssertEqual(value.json.rendered, json)
        }
        XCTAssertEqual(
            Markdown.parse("hi *you*")?.json.rendered,
            #"[{"text":"hi "},{"format":{"type":"bold"},"text":"you"}]"#)
    }

    func testHasLink() {
        XCTAssertTrue(Markdown.hasLink("see https://simplex.chat"))
        XCTAssertTrue(Markdown.hasLink("see [this](https://simplex.chat)"))
        XCTAssertFalse(Markdown.hasLink("*bold* and chat@simplex.chat"))
        XCTAssertFalse(Markdown.hasLink("plain"))
    }
}
