import SimplexCrypto
import SimplexEncoding
import TestSupport
import XCTest

@testable import XRCP

final class RemoteMessageTests: XCTestCase {
    func testCommandsOfTheSpec() throws {
        let digest = Digest.sha512(Array("photo".utf8))
        let examples: [(String, RemoteCommand)] = [
            (
                #"{"type":"send","command":"/_get chats 1 pcc=on","retryNumber":0}"#,
                .send(command: "/_get chats 1 pcc=on", retryNumber: 0)
            ),
            (#"{"type":"recv","wait":10000000}"#, .recv(wait: 10_000_000)),
            (
                #"{"type":"storeFile","fileName":"photo.jpg","fileSize":482113,"fileDigest":""# + Base64.encode(digest) + #""}"#,
                .storeFile(fileName: "photo.jpg", fileSize: 482113, fileDigest: digest)
            ),
            (
                #"{"type":"getFile","file":{"userId":1,"fileId":42,"sent":false,"fileSource":{"filePath":"IMG_0042.jpg"}}}"#,
                .getFile(
                    RemoteFile(userId: 1, fileId: 42, sent: false, fileSource: .object(["filePath": .string("IMG_0042.jpg")])))
            ),
        ]
        for (text, command) in examples {
            XCTAssertEqual(try RemoteCommand(json: Array(text.utf8)), command)
            XCTAssertEqual(try RemoteCommand(json: Array(command.json.rendered.utf8)), command)
        }
        // `send` without retryNumber is refused, as current hosts do.
        XCTAssertEqual(
            thrown { try RemoteCommand(json: Array(#"{"type":"send","command":"/v"}"#.utf8)) } as? RemoteProtocolError,
            .invalidJSON("missing or invalid retryNumber"))
        XCTAssertThrowsError(
            try RemoteCommand(json: Array(#"{"type":"storeFile","fileName":"a","fileSize":-1,"fileDigest":"AA=="}"#.utf8)))
        XCTAssertThrowsError(try RemoteCommand(json: Array(#"{"type":"rm"}"#.utf8)))
        XCTAssertThrowsError(try RemoteCommand(json: Array("not json".utf8)))
    }

    func testResponsesOfTheSpec() throws {
        XCTAssertEqual(
            String(
                decoding: RemoteResponse.chatResponse(rawJSON: Array(#"{"result":{"type":"cmdOk"}}"#.utf8)).encoded, as: UTF8.self
            ),
            #"{"type":"chatResponse","chatResponse":{"result":{"type":"cmdOk"}}}"#)
        XCTAssertEqual(String(decoding: RemoteResponse.chatEvent(rawJSON: nil).encoded, as: UTF8.self), #"{"type":"chatEvent"}"#)
        XCTAssertEqual(
            String(decoding: RemoteResponse.fileStored(filePath: "photo_1.jpg").encoded, as: UTF8.self),
            #"{"filePath":"photo_1.jpg","type":"fileStored"}"#)
        XCTAssertEqual(
            String(decoding: RemoteResponse.protocolError(.sessionCode).encoded, as: UTF8.self),
            #"{"remoteProcotolError":{"type":"pRESessionCode"},"type":"protocolError"}"#)
        let digest = Digest.sha512([1, 2, 3])
        for response in [
            RemoteResponse.chatResponse(rawJSON: Array(#"{"error":{"type":"error","errorType":{"type":"noActiveUser"}}}"#.utf8)),
            .chatEvent(rawJSON: nil), .chatEvent(rawJSON: Array(#"{"result":{"type":"chatSuspended"}}"#.utf8)),
            .fileStored(filePath: "a.txt"), .file(fileSize: 3, fileDigest: digest),
        ] {
            // Chat JSON comes back with the same content (key order is not significant).
            XCTAssertEqual(try canonical(RemoteResponse(json: response.encoded)), try canonical(response))
        }
    }

    private func canonical(_ r: RemoteResponse) throws -> RemoteResponse {
        switch r {
        case .chatResponse(let raw): return .chatResponse(rawJSON: Array(try CanonicalJSON.parse(raw).rendered.utf8))
        case .chatEvent(let raw): return .chatEvent(rawJSON: try raw.map { Array(try CanonicalJSON.parse($0).rendered.utf8) })
        default: return r
        }
    }
}
