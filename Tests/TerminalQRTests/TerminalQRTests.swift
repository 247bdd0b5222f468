import Foundation
import TerminalQR
import XCTest

/// QR codes read back by zbar (Debian's zbar-tools), an independent decoder.
final class TerminalQRTests: XCTestCase {
    private let invitation =
        "xrcp:/EBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8=@192.168.1.10:45678#/?v=1&app=%7B%22appVersionRange%22%3A%7B%22maxVersion%22%3A%226.5.0.13%22%2C%22minVersion%22%3A%226.5.0.12%22%7D%2C%22compression%22%3Atrue%2C%22deviceName%22%3A%22My%20Desktop%22%7D&ts=1750000000&skey=MCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w%3D&idkey=MCowBQYDK2VwAyEAgTl3Dqh9F19Wo1Rmw0x-zMuNipG07jeiXfYPW4_Js5Q%3D&dh=MCowBQYDK2VuAyEAXf7dO2vUf2-ijuFdlp1bsOpTd01Ii9r53xxuASSz7yI%3D&ssig=WPhhfi1WLg0ZRzU3b17icO1HHSSflL8AfpRyZqKS-vedpOX8ascCTyf-nwuJhEJHrVrvJTtIKjqrAjVzZq4LCg==&idsig=dU-RfXp1hlQcTG7WDkDE6KYWDtwKnDqzCwOPpw8BLqV8xDGaGHfgDy3C67MXtSeQlGyQmNbneYo2vEPEVhawCQ=="

    /// Decodes a PBM image with `zbarimg`; fails (never skips) when zbar is missing.
    private func zbar(_ pbm: String) throws -> String { try zbar(Array(pbm.utf8), extension: "pbm") }

    /// Decodes an image file's bytes with `zbarimg`.
    private func zbar(_ image: [UInt8], extension ext: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).\(ext)")
        try Data(image).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        p.arguments = ["--raw", "-q", "-Sbinary", file.path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "zbarimg found no code")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    func testTheImageDecodesToTheInvitation() throws {
        let code = try QRCode(encoding: invitation)
        XCTAssertEqual(try zbar(code.pbm()), invitation)
    }

    /// What the terminal shows, turned back into pixels, decodes too: each glyph is two stacked modules.
    func testTheTerminalRenderingDecodesToTheInvitation() throws {
        let code = try QRCode(encoding: invitation)
        for style in [TerminalRendering.Style.ansi, .darkOnLight, .lightOnDark] {
            let text = TerminalRendering(style: style, quietZone: 2).render(code)
            let stripped = text.replacingOccurrences(of: "\u{1B}[30;47m", with: "").replacingOccurrences(
                of: "\u{1B}[0m", with: "")
            var rows: [[Bool]] = []
            for line in stripped.split(separator: "\n") {
                var top: [Bool] = []
                var bottom: [Bool] = []
                for ch in line {
                    var (t, b): (Bool, Bool)
                    switch ch {
                    case "\u{2588}": (t, b) = (true, true)
                    case "\u{2580}": (t, b) = (true, false)
                    case "\u{2584}": (t, b) = (false, true)
                    default: (t, b) = (false, false)
                    }
                    if style == .lightOnDark { (t, b) = (!t, !b) }
                    top.append(t)
                    bottom.append(b)
                }
                rows += [top, bottom]
            }
            let size = code.width + 4
            XCTAssertEqual(rows.first?.count, size)
            let modules = (0..<code.width).flatMap { y in (0..<code.width).map { x in rows[y + 2][x + 2] } }
            let parsed = QRCode(width: code.width, modules: modules)
            XCTAssertEqual(parsed, code)
            XCTAssertEqual(try zbar(parsed.pbm()), invitation)
        }
        // An invitation of ~650 bytes needs about 93 columns and 47 lines with a quiet zone of 2.
        XCTAssertLessThanOrEqual(code.width + 4, 100)
    }

    /// The file forms offered when the terminal is too small, in both polarities.
    func testPNGAndSVGDecodeToTheInvitation() throws {
        let code = try QRCode(encoding: invitation)
        XCTAssertEqual(try zbar(code.png(), extension: "png"), invitation)
        XCTAssertEqual(try zbar(Array(code.svg().utf8), extension: "svg"), invitation)
        // zbar reads light-on-dark codes only when told to: the inverted forms are checked through their negative.
        let inverted = code.png(inverted: true)
        let negative = code.png()
        XCTAssertEqual(inverted.count, negative.count)
        XCTAssertNotEqual(inverted, negative)
    }

    /// A typical invitation is a version-18 code at level L: 97 columns by 49 lines with the 4-module quiet zone.
    func testTypicalInvitationSize() throws {
        let code = try QRCode(encoding: invitation)
        XCTAssertEqual(code.width, 89)
        XCTAssertEqual(TerminalRendering().size(width: code.width).columns, 97)
        XCTAssertEqual(TerminalRendering().size(width: code.width).lines, 49)
        XCTAssertEqual(TerminalRendering(blocks: .full).size(width: code.width).columns, 194)
        let drawn = TerminalRendering().render(code).split(separator: "\n")
        XCTAssertEqual(drawn.count, 49)
        let full = TerminalRendering(style: .darkOnLight, blocks: .full).render(code).split(separator: "\n")
        XCTAssertEqual(full.count, 97)
        XCTAssertEqual(full.first?.count, 194)
    }

    func testTooLongIsAnError() {
        XCTAssertThrowsError(try QRCode(encoding: String(repeating: "x", count: 4000))) { error in
            XCTAssertEqual(error as? QRCode.Error, .tooLong(4000))
        }
    }
}
