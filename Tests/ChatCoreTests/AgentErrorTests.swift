import ChatCore
import SMP
import SMPClient
import SimplexCrypto
import SimplexNet
import SimplexTLS
import XCTest

/// The SMP client's errors as agent errors (chat-api.md §8.4), in simplexmq's JSON: the tags of its
/// `protocolClientError` mapping and of its `sumTypeJSON`/`enumJSON` instances.
final class AgentErrorTests: XCTestCase {
    private let server = try! SMPServer(parsing: "smp://AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=@127.0.0.1:5001")
    private let address = "smp://AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=@127.0.0.1:5001"

    private func json(_ e: SMPClientError, connecting: Bool = false) -> String {
        (connecting ? AgentError(connecting: e, server: server) : AgentError(e, server: server)).json.rendered
    }

    private func broker(_ err: String) -> String {
        #"{"type":"BROKER","brokerAddress":"\#(address)","brokerErr":\#(err)}"#
    }

    func testNetworkErrors() throws {
        XCTAssertEqual(
            json(.connect(.connectionRefused)),
            broker(#"{"type":"NETWORK","networkError":{"type":"connectError","connectError":"connection refused"}}"#))
        XCTAssertEqual(
            json(.connect(.timedOut)), broker(#"{"type":"NETWORK","networkError":{"type":"timeoutError"}}"#))
        XCTAssertEqual(json(.connectionLost), broker(#"{"type":"NETWORK","networkError":{"type":"failedError"}}"#))
        XCTAssertEqual(json(.hostNotServed("[::1]")), broker(#"{"type":"HOST"}"#))
    }

    func testAWrongIdentityIsAnUnknownCA() throws {
        let a = try CertificateFingerprint(rawRepresentation: [UInt8](repeating: 1, count: 32))
        let b = try CertificateFingerprint(rawRepresentation: [UInt8](repeating: 2, count: 32))
        XCTAssertEqual(
            json(.tls(.identity(expected: a, presented: b))),
            broker(#"{"type":"NETWORK","networkError":{"type":"unknownCAError"}}"#))
        XCTAssertEqual(
            json(.tls(.handshake("no shared cipher"))),
            broker(#"{"type":"NETWORK","networkError":{"type":"tLSError","tlsError":"no shared cipher"}}"#))
    }

    func testTimeoutsByStep() {
        // A response that does not come is the broker's TIMEOUT; while connecting it is the network's timeout.
        XCTAssertEqual(json(.timeout), broker(#"{"type":"TIMEOUT"}"#))
        XCTAssertEqual(
            json(.timeout, connecting: true), broker(#"{"type":"NETWORK","networkError":{"type":"timeoutError"}}"#))
    }

    func testTransportErrors() {
        let cases: [(TransportError, String)] = [
            (.block, #"{"type":"badBlock"}"#), (.version, #"{"type":"version"}"#), (.largeMsg, #"{"type":"largeMsg"}"#),
            (.session, #"{"type":"badSession"}"#), (.noAuth, #"{"type":"noServerAuth"}"#),
            (.handshake(.identity), #"{"type":"handshake","handshakeErr":{"type":"IDENTITY"}}"#),
            (.handshake(.badAuth), #"{"type":"handshake","handshakeErr":{"type":"BAD_AUTH"}}"#),
        ]
        for (e, expected) in cases {
            XCTAssertEqual(json(.transport(e)), broker(#"{"type":"TRANSPORT","transportErr":\#(expected)}"#))
        }
    }

    func testServerErrors() {
        let cases: [(SMPErrorType, String)] = [
            (.auth, #"{"type":"AUTH"}"#), (.quota, #"{"type":"QUOTA"}"#), (.noMsg, #"{"type":"NO_MSG"}"#),
            (.cmd(.noAuth), #"{"type":"CMD","cmdErr":{"type":"NO_AUTH"}}"#), (.store("io"), #"{"type":"STORE","storeErr":"io"}"#),
            (.blocked(BlockingInfo(reason: .spam)), #"{"type":"BLOCKED","blockInfo":{"reason":"spam"}}"#),
            (.duplicate, #"{"type":"DUPLICATE_"}"#),
        ]
        for (e, expected) in cases {
            XCTAssertEqual(json(.server(e)), #"{"type":"SMP","serverAddress":"\#(address)","smpErr":\#(expected)}"#)
        }
        XCTAssertEqual(json(.unexpectedResponse("PONG")), broker(#"{"type":"UNEXPECTED","respErr":"PONG"}"#))
        XCTAssertEqual(json(.invalidCommand("too large")), #"{"type":"INTERNAL","internalErr":"too large"}"#)
    }

    func testFailureRecord() {
        let f = ProtocolTestFailure(testStep: .createQueue, testError: AgentError(.server(.auth), server: server))
        XCTAssertEqual(
            f.json.rendered,
            #"{"testStep":"createQueue","testError":{"type":"SMP","serverAddress":"\#(address)","smpErr":{"type":"AUTH"}}}"#)
        XCTAssertEqual(
            ProtocolTestStep.allCases.map(\.rawValue), ["connect", "disconnect", "createQueue", "secureQueue", "deleteQueue"])
    }
}
