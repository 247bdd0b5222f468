import Foundation
import SimplexABI
import TestSupport
import XCTest

/// Encrypted local files (chat-api.md §9.3, §9.4) against simplexmq's format: files made with PyNaCl (committed
/// fixtures, scripts/fixtures/generate_cryptofile.py) open here, and files written here open with PyNaCl.
final class CryptoFileTests: XCTestCase {
    struct Case {
        let size: Int
        let key: [UInt8]
        let nonce: [UInt8]
        let file: [UInt8]?
        let fileSHA256: String
    }

    static func plaintext(_ size: Int) -> [UInt8] { (0..<size).map { UInt8(($0 * 7 + 3) % 251) } }

    func fixtures() throws -> [Case] {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures/cryptofile", withExtension: "json"))
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let cases = try XCTUnwrap(root["cases"] as? [[String: Any]])
        XCTAssertGreaterThan(cases.count, 10)
        return try cases.map { c in
            Case(
                size: try XCTUnwrap(c["size"] as? Int), key: hex(try XCTUnwrap(c["key"] as? String)),
                nonce: hex(try XCTUnwrap(c["nonce"] as? String)), file: (c["file"] as? String).map(hex),
                fileSHA256: try XCTUnwrap(c["fileSHA256"] as? String))
        }
    }

    func testFixtureFilesOpenWithReadAndDecrypt() throws {
        let folder = C.folder()
        for c in try fixtures() {
            let path = folder + "/fixture-\(c.size)"
            let plain = Self.plaintext(c.size)
            // Large cases are stored as their rule: remake them with the format's other implementation, then check
            // the bytes against the committed digest.
            let file = try c.file ?? python(["seal", path, b64(c.key), b64(c.nonce), String(c.size)])
            if c.file != nil { _ = FileManager.default.createFile(atPath: path, contents: Data(file)) }
            XCTAssertEqual(sha256Hex(path), c.fileSHA256, "size \(c.size)")

            XCTAssertEqual(try read(path, b64(c.key), b64(c.nonce)).get(), plain, "size \(c.size)")
            XCTAssertEqual(C.take(chat_decrypt_file(path, b64(c.key), b64(c.nonce), path + ".plain")), "")
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path + ".plain"))), plain)
        }
    }

    func testWrittenFilesOpenWithPyNaCl() throws {
        let folder = C.folder()
        let (_, ctrl) = C.open(folder + "/db")
        for size in [0, 33, 65536, 100_003] {
            let plain = Self.plaintext(size)
            let path = folder + "/written-\(size)"
            let args = try cryptoArgs(plain.withUnsafeBufferPointer { chat_write_file(ctrl, path, $0.baseAddress, Int32(size)) })
            XCTAssertEqual(try python(["open", path, args.key, args.nonce]), [], "PyNaCl opens it")
            XCTAssertEqual(try read(path, args.key, args.nonce).get(), plain)

            _ = FileManager.default.createFile(atPath: path + ".src", contents: Data(plain))
            let encrypted = try cryptoArgs(chat_encrypt_file(ctrl, path + ".src", path + ".enc"))
            XCTAssertEqual(try python(["open", path + ".enc", encrypted.key, encrypted.nonce]), [])
            XCTAssertEqual(C.take(chat_decrypt_file(path + ".enc", encrypted.key, encrypted.nonce, path + ".dec")), "")
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path + ".dec"))), plain)
        }
    }

    func testErrors() throws {
        let folder = C.folder()
        let (_, ctrl) = C.open(folder + "/db")
        let key = b64([UInt8](repeating: 1, count: 32))
        let nonce = b64([UInt8](repeating: 2, count: 24))
        let otherKey = b64([UInt8](repeating: 3, count: 32))

        let missing = folder + "/missing"
        XCTAssertEqual(read(missing, key, nonce).failure?.contains("No such file or directory"), true)
        XCTAssertTrue(C.take(chat_decrypt_file(missing, key, nonce, folder + "/out")).contains("No such file or directory"))
        XCTAssertEqual(C.json(chat_encrypt_file(ctrl, missing, folder + "/out"))["type"] as? String, "error")
        let unwritable = C.json(chat_write_file(ctrl, folder + "/no/such/folder/f", [1, 2, 3], 3))
        XCTAssertEqual(unwritable["type"] as? String, "error")
        XCTAssertTrue((unwritable["writeError"] as? String)?.contains("No such file or directory") ?? false)

        let path = folder + "/f"
        let args = try cryptoArgs(chat_write_file(ctrl, path, [1, 2, 3], 3))
        XCTAssertEqual(read(path, otherKey, args.nonce).failure, "FTCEInvalidAuthTag")
        XCTAssertEqual(C.take(chat_decrypt_file(path, otherKey, args.nonce, folder + "/g")), "FTCEInvalidAuthTag")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/g"), "no unauthenticated plaintext is left")
        XCTAssertEqual(read(path, "not base64!", nonce).failure, "invalid file key")
        XCTAssertEqual(read(path, key, b64([1, 2, 3])).failure, "invalid file nonce")
        XCTAssertEqual(read(path, key, nil).failure, "key or nonce is NULL")
        XCTAssertEqual(read(nil, key, nonce).failure, "path is NULL")

        _ = FileManager.default.createFile(atPath: folder + "/short", contents: Data([1, 2, 3]))
        XCTAssertEqual(read(folder + "/short", key, nonce).failure, "FTCEInvalidFileSize")

        XCTAssertEqual(C.json(chat_write_file(nil, path, [1], 1))["writeError"] as? String, "chat controller is NULL")
        XCTAssertEqual(C.json(chat_write_file(ctrl, path, nil, 5))["type"] as? String, "error")
        XCTAssertEqual(C.json(chat_write_file(ctrl, path, [1], -1))["type"] as? String, "error")
        XCTAssertEqual(C.json(chat_write_file(ctrl, nil, [1], 1))["writeError"] as? String, "path is NULL")
        XCTAssertEqual(C.json(chat_encrypt_file(nil, path, path + ".x"))["writeError"] as? String, "chat controller is NULL")
        XCTAssertEqual(C.take(chat_decrypt_file(nil, key, nonce, path)), "path is NULL")
    }

    /// A destination that is the source itself, by the same path, another spelling, a symbolic or a hard link, is
    /// refused as the official core's file locking refuses it, and the file is left whole: encrypting a file onto
    /// itself used to leave 16 bytes and answer keys, decrypting it onto itself deleted it.
    func testDestinationThatIsTheSourceIsRefused() throws {
        let folder = C.folder()
        let (_, ctrl) = C.open(folder + "/db")
        let plain = Self.plaintext(100_003)
        let path = folder + "/f"
        _ = FileManager.default.createFile(atPath: path, contents: Data(plain))
        try FileManager.default.createSymbolicLink(atPath: folder + "/symlink", withDestinationPath: path)
        try FileManager.default.linkItem(atPath: path, toPath: folder + "/hardlink")
        for same in [path, folder + "//./f", folder + "/symlink", folder + "/hardlink"] {
            let answer = C.json(chat_encrypt_file(ctrl, path, same))
            XCTAssertEqual(answer["type"] as? String, "error", same)
            XCTAssertEqual(answer["writeError"] as? String, same + ": withFile: resource busy (file is locked)")
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), plain, same)
        }

        let sealed = folder + "/sealed"
        let args = try cryptoArgs(
            plain.withUnsafeBufferPointer { chat_write_file(ctrl, sealed, $0.baseAddress, Int32(plain.count)) })
        let sealedBytes = try Data(contentsOf: URL(fileURLWithPath: sealed))
        try FileManager.default.createSymbolicLink(atPath: folder + "/sealed-link", withDestinationPath: sealed)
        for same in [sealed, folder + "/sealed-link"] {
            XCTAssertEqual(
                C.take(chat_decrypt_file(sealed, args.key, args.nonce, same)),
                same + ": withFile: resource busy (file is locked)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: sealed)), sealedBytes, same)
        }
        XCTAssertEqual(try read(sealed, args.key, args.nonce).get(), plain)
        XCTAssertEqual(try leftovers(folder), [])
    }

    /// A function that fails leaves an existing destination as it was, whatever the failure (a wrong key, a
    /// missing or short source); one that succeeds replaces it, keeping its permissions, and through a link replaces
    /// the file the link names. No temporary file is left either way.
    func testExistingDestinationIsReplacedOnlyOnSuccess() throws {
        let folder = C.folder()
        let (_, ctrl) = C.open(folder + "/db")
        let key = b64([UInt8](repeating: 1, count: 32))
        let nonce = b64([UInt8](repeating: 2, count: 24))
        let kept = Data("the destination's own content".utf8)
        let destination = folder + "/destination"
        func resetDestination() throws {
            _ = FileManager.default.createFile(atPath: destination, contents: kept)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: destination)
        }
        try resetDestination()

        let plain = Self.plaintext(70_000)
        let sealed = folder + "/sealed"
        let args = try cryptoArgs(
            plain.withUnsafeBufferPointer { chat_write_file(ctrl, sealed, $0.baseAddress, Int32(plain.count)) })
        let otherKey = b64([UInt8](repeating: 3, count: 32))
        XCTAssertEqual(C.take(chat_decrypt_file(sealed, otherKey, args.nonce, destination)), "FTCEInvalidAuthTag")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination)), kept, "a wrong key keeps the destination")
        XCTAssertTrue(C.take(chat_decrypt_file(folder + "/missing", key, nonce, destination)).contains("No such file"))
        XCTAssertEqual(C.json(chat_encrypt_file(ctrl, folder + "/missing", destination))["type"] as? String, "error")
        _ = FileManager.default.createFile(atPath: folder + "/short", contents: Data([1, 2, 3]))
        XCTAssertEqual(C.take(chat_decrypt_file(folder + "/short", key, nonce, destination)), "FTCEInvalidFileSize")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination)), kept)
        XCTAssertEqual(C.json(chat_write_file(ctrl, folder, [1], 1))["type"] as? String, "error", "a folder is no file")

        XCTAssertEqual(C.take(chat_decrypt_file(sealed, args.key, args.nonce, destination)), "")
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: destination))), plain)
        let permissions = try FileManager.default.attributesOfItem(atPath: destination)[.posixPermissions] as? Int
        XCTAssertEqual(permissions, 0o640)

        try resetDestination()
        let link = folder + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: destination)
        let encrypted = try cryptoArgs(chat_encrypt_file(ctrl, sealed, link))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), destination, "the link stays")
        let sealedBytes = Array(try Data(contentsOf: URL(fileURLWithPath: sealed)))
        XCTAssertEqual(try read(destination, encrypted.key, encrypted.nonce).get(), sealedBytes)
        XCTAssertEqual(try leftovers(folder), [])
    }

    /// Names in the folder that look like a function's temporary files.
    func leftovers(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }
    }

    // MARK: Helpers

    /// `chat_read_file`'s buffer (§9.3): the plaintext, or the error message.
    func read(_ path: String?, _ key: String?, _ nonce: String?) -> Result<[UInt8], ReadFailure> {
        let buffer = chat_read_file(path, key, nonce)
        defer { free(buffer) }
        if buffer[0] == 1 {
            return .failure(
                ReadFailure(message: String(cString: UnsafeRawPointer(buffer + 1).assumingMemoryBound(to: CChar.self))))
        }
        let length = UnsafeRawPointer(buffer + 1).loadUnaligned(as: UInt32.self)
        return .success(Array(UnsafeBufferPointer(start: buffer + 5, count: Int(length))))
    }

    struct ReadFailure: Error, Equatable { let message: String }

    func cryptoArgs(_ p: UnsafeMutablePointer<CChar>) throws -> (key: String, nonce: String) {
        let result = C.json(p)
        XCTAssertEqual(result["type"] as? String, "result", "\(result)")
        let args = try XCTUnwrap(result["cryptoArgs"] as? [String: String])
        return (try XCTUnwrap(args["fileKey"]), try XCTUnwrap(args["fileNonce"]))
    }

    /// Runs scripts/fixtures/cryptofile.py; for `open`, checks the plaintext it prints against the file's rule and
    /// returns [] on success; for `seal`, returns the file it wrote.
    func python(_ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = [Python.script("scripts/fixtures/cryptofile.py")] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "cryptofile.py \(arguments[0])")
        if arguments[0] == "seal" { return Array(try Data(contentsOf: URL(fileURLWithPath: arguments[1]))) }
        let plain = hex(String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        let size = Int(arguments[1].split(separator: "-").last.flatMap { Int($0.split(separator: ".")[0]) } ?? -1)
        XCTAssertEqual(plain, Self.plaintext(size))
        return []
    }

    func sha256Hex(_ path: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let out = Pipe()
        process.standardOutput = out
        try? process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: printed, as: UTF8.self).prefix(64))
    }
}

extension Result where Failure == CryptoFileTests.ReadFailure {
    var failure: String? {
        if case .failure(let f) = self { return f.message }
        return nil
    }
}

func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var it = s.utf8.makeIterator()
    while let a = it.next(), let b = it.next() {
        out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16) ?? 0)
    }
    return out
}

func b64(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
}
