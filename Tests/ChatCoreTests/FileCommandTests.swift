import ChatCore
import Foundation
import XCTest

/// Files, chat-api.md §4.7, through command lines. The embedded core's files are all local (of notes and of local
/// groups' items): none was received or is being sent, so nothing is to be received or cancelled; file description
/// links are read without the network.
final class FileCommandTests: XCTestCase {
    func testNothingIsReceivedOrCancelled() async throws {
        let h = try EngineHarness()
        await h.chatError("/_set_file_to_receive 5", "noActiveUser")
        await h.chatError("/fcancel 5", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/_set_file_to_receive 5", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        // The core's update touches no received file and answers cmdOk, without a user.
        await h.expect("/_set_file_to_receive 5", #"{"result":{"type":"cmdOk"}}"#)
        await h.expect("/_set_file_to_receive 5 approved_relays=on encrypt=on", #"{"result":{"type":"cmdOk"}}"#)
        await h.expect(
            "/fcancel 5", #"{"error":{"type":"errorStore","storeError":{"type":"fileNotFound","fileId":5}}}"#)
        // A note's file is a local one, with no transfer.
        let files = h.folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let temp = h.folder.appendingPathComponent("temp").path
        await h.result(
            #"/set file paths {"appFilesFolder":"\#(files.path)","appTempFolder":"\#(temp)","appAssetsFolder":"\#(temp)"}"#,
            "cmdOk")
        try Data("bytes".utf8).write(to: files.appendingPathComponent("a.txt"))
        let created = await h.result(
            #"/_create *1 json [{"fileSource":{"filePath":"a.txt"},"msgContent":{"type":"file","text":""}}]"#,
            "newChatItems")
        let fileId = try XCTUnwrap(created["chatItems"]?.arrayValue?.first?["chatItem"]?["file"]?["fileId"]?.integerValue)
        for line in ["/fcancel \(fileId)", "/fc \(fileId)"] {
            await h.expect(
                line,
                #"{"error":{"type":"errorStore","storeError":{"type":"localFileNoTransfer","fileId":\#(fileId)}}}"#)
        }
        // Another user's file is not this user's.
        await h.createUser("bob")
        await h.expect(
            "/fcancel \(fileId)",
            #"{"error":{"type":"errorStore","storeError":{"type":"fileNotFound","fileId":\#(fileId)}}}"#)
    }

    func testFileDescriptionLinksAreReadWithoutAUser() async throws {
        let h = try EngineHarness()
        let desc = "desc=-%20party%3A%20recipient%0A"
        let data = "data=%7B%22name%22%3A%22photo.jpg%22%2C%22size%22%3A12%7D"
        await h.expect(
            "/_download info simplex:/file#/?\(desc)&\(data)",
            #"{"result":{"type":"standaloneFileInfo","fileMeta":{"name":"photo.jpg","size":12}}}"#)
        await h.expect(
            "/_download info https://files.example.com:8443/file/#/?\(data);\(desc)",
            #"{"result":{"type":"standaloneFileInfo","fileMeta":{"name":"photo.jpg","size":12}}}"#)
        // Without data, or with data that is no JSON object, there is no file meta.
        await h.expect("/_download info simplex:/file#/?\(desc)", #"{"result":{"type":"standaloneFileInfo"}}"#)
        await h.expect("/_download info simplex:/file#/?\(desc)&data=%5B1%5D", #"{"result":{"type":"standaloneFileInfo"}}"#)
        await h.expect("/_download info simplex:/file#/?\(desc)&data=not+json", #"{"result":{"type":"standaloneFileInfo"}}"#)
        // A link without a description, or not a file link, is refused as the core's parser refuses it.
        for link in [
            "simplex:/file#/?\(data)", "simplex:/contact#/?\(desc)", "ftp://x/file#/?\(desc)", "https:///file#/?\(desc)",
        ] {
            let e = await h.chatError("/_download info \(link)", "commandError")
            XCTAssertEqual(e["message"]?.stringValue, "Failed reading: invalid file description link", link)
        }
    }
}
