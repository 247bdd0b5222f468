import SimplexNet
import XCTest

final class RoutesTests: XCTestCase {
    /// The kernel's format: little-endian hex addresses.
    private let table = """
        Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
        eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
        eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
        wg0\t0000000A\t00000000\t0001\t0\t0\t50\t000000FF\t0\t0\t0
        """

    func testMostSpecificRouteWins() {
        let routes = Routes.parse(table)
        XCTAssertEqual(routes.count, 3)
        XCTAssertEqual(Routes.interface(for: "192.168.1.20", in: routes), "eth0")
        XCTAssertEqual(Routes.interface(for: "10.1.2.3", in: routes), "wg0")
        XCTAssertEqual(Routes.interface(for: "8.8.8.8", in: routes), "eth0", "the default route")
        XCTAssertNil(Routes.interface(for: "8.8.8.8", in: Array(routes.dropFirst())))
        XCTAssertTrue(Routes.looksLikeVPN("wg0"))
        XCTAssertTrue(Routes.looksLikeVPN("tun0"))
        XCTAssertFalse(Routes.looksLikeVPN("eth0"))
        XCTAssertTrue(Routes.parse("garbage\nnot a route").isEmpty)
    }
}
