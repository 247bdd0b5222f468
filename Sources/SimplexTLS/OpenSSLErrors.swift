internal import COpenSSL

/// OpenSSL's thread-local error queue, read and emptied in one place.
///
/// Every libssl call in this module starts with `ERR_clear_error()` (OpenSSL's `SSL_get_error` looks at the
/// queue, so it must hold only what the call just added) and ends by draining or clearing the queue.
struct OpenSSLErrorQueue {
    /// The `ERR_error_string_n` texts, oldest first.
    let reasons: [String]
    /// A fatal alert the peer sent, if OpenSSL reported one (libssl reason `SSL_AD_REASON_OFFSET + code`).
    let receivedAlert: TLSAlert?
    /// The libssl reason codes (`SSL_R_…`), oldest first.
    let sslReasons: [Int32]

    /// Reads and empties the queue.
    static func drain() -> OpenSSLErrorQueue {
        var reasons: [String] = []
        var alert: TLSAlert?
        var sslReasons: [Int32] = []
        while case let code = ERR_get_error(), code != 0 {
            let reason = ERR_GET_REASON(code)
            if ERR_GET_LIB(code) == ERR_LIB_SSL {
                sslReasons.append(reason)
                // SSL_AD_REASON_OFFSET (1000) + AlertDescription: how libssl reports a received alert.
                if reason >= 1000, reason <= 1255, alert == nil { alert = TLSAlert(code: UInt8(reason - 1000)) }
            }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLErrorQueue(reasons: reasons, receivedAlert: alert, sslReasons: sslReasons)
    }

    /// The reasons as one line, or `fallback` when OpenSSL queued nothing.
    func text(or fallback: String) -> String {
        reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }
}

/// OpenSSL's long name of an alert description, e.g. "unknown CA".
func alertName(_ code: UInt8) -> String {
    guard let name = SSL_alert_desc_string_long(Int32(code)) else { return "unknown" }
    return String(cString: name)
}
