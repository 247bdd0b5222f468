import SimplexHost
import XCTest

final class RemotePolicyTests: XCTestCase {
    func testCommandsThatStayOnTheHost() {
        let refused = [
            "/_start", "/_stop", "/_app suspend 1", "/_files_encrypt on", "/set device name x", "/_db delete",
            "/connect remote ctrl xrcp:/x", "/list remote ctrls", "/_temp_folder /t", "/files_folder /f", "/sql chat select 1",
            "/SQL agent select 1", "/quit", "/q", "/start remote host new", "/store remote file 1 /etc/passwd", "/network",
        ]
        for line in refused { XCTAssertNotNil(RemotePolicy.refusal(line), line) }
    }

    func testCommandsAControllerMayRun() {
        let allowed = ["/u", "/users", "/_get chats 1 pcc=on", "/get subs total 1", "/_ttl 1", "/qr", "/networks", "/sqlx"]
        for line in allowed { XCTAssertNil(RemotePolicy.refusal(line), line) }
    }
}
