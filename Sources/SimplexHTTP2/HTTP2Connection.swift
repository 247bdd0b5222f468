internal import CNGHTTP2

/// Why the HTTP/2 layer failed: nghttp2's error name, or a protocol error from the peer.
public enum HTTP2Error: Error, Equatable, Sendable {
    /// nghttp2 refused the peer's bytes or our call (its `nghttp2_strerror` text).
    case nghttp2(String)
    /// A stream id that is not open for this call.
    case unknownStream(Int32)
}

/// One header field.
public struct HeaderField: Hashable, Sendable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What the peer's bytes meant.
public enum HTTP2Event: Equatable, Sendable {
    /// A request (server) or response (client) header block.
    case headers(stream: Int32, fields: [HeaderField])
    /// A piece of a body.
    case data(stream: Int32, bytes: [UInt8])
    /// The peer finished sending on this stream.
    case endStream(stream: Int32)
    /// The stream is closed (error code 0 when it ended normally).
    case streamClosed(stream: Int32, errorCode: UInt32)
    /// The peer is closing the connection.
    case goAway(errorCode: UInt32)
}

/// An HTTP/2 session over memory buffers (nghttp2 `mem_recv` / `mem_send`): bytes in, events and bytes out,
/// no sockets. XRCP runs it with reversed roles: the TLS server (controller) is the HTTP/2 client (xrcp.md §9.1).
/// Not thread-safe: one owner (an actor per connection) drives it.
public final class HTTP2Connection {
    public enum Role: Sendable { case client, server }

    public let role: Role
    /// HTTP/2 `INTERNAL_ERROR` (RFC 9113 §7).
    public static let internalError: UInt32 = 2
    private let session: OpaquePointer
    /// Events gathered while nghttp2 calls back during `receive`.
    private var events: [HTTP2Event] = []
    /// Header fields of the header block being received, per stream.
    private var pendingHeaders: [Int32: [HeaderField]] = [:]
    /// Bodies we are sending, per stream: queued bytes and whether the body is complete.
    private var outgoing: [Int32: OutgoingBody] = [:]

    final class OutgoingBody {
        var buffer: [UInt8] = []
        var offset = 0
        var finished = false
        var deferred = false
    }

    /// The receive window this side grants, per stream and for the connection. HTTP/2's 65,535 bytes would make a
    /// file's sender wait for a WINDOW_UPDATE every 32 KiB; a mebibyte keeps a file streaming while its receiver still
    /// holds at most that much of it.
    public static let defaultWindow: Int32 = 1 << 20

    public init(role: Role, maxConcurrentStreams: UInt32 = 100, window: Int32 = HTTP2Connection.defaultWindow)
        throws(HTTP2Error)
    {
        self.role = role
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { throw .nghttp2("out of memory") }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameRecv)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        var s: OpaquePointer?
        // The session keeps an unretained pointer to self; self owns and frees the session.
        let rc: Int32
        switch role {
        case .client: rc = nghttp2_session_client_new(&s, callbacks, nil)
        case .server: rc = nghttp2_session_server_new(&s, callbacks, nil)
        }
        guard rc == 0, let s else { throw .nghttp2(Self.errorText(rc)) }
        session = s
        nghttp2_session_set_user_data(s, Unmanaged.passUnretained(self).toOpaque())
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(max(65535, window))),
        ]
        let submitted = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        guard submitted == 0 else { throw .nghttp2(Self.errorText(submitted)) }
        // The connection's window is not a setting: it grows by a WINDOW_UPDATE on stream 0.
        let widened = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, max(65535, window))
        guard widened == 0 else { throw .nghttp2(Self.errorText(widened)) }
    }

    deinit { nghttp2_session_del(session) }

    /// Feeds bytes from the transport; returns what they meant, in order.
    public func receive(_ bytes: [UInt8]) throws(HTTP2Error) -> [HTTP2Event] {
        let n = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        let out = events
        events = []
        guard n >= 0 else { throw .nghttp2(Self.errorText(Int32(n))) }
        return out
    }

    /// Bytes to write to the transport now (frames, including flow-control updates).
    public func takeOutgoing() throws(HTTP2Error) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &data)
            guard n >= 0 else { throw .nghttp2(Self.errorText(Int32(n))) }
            guard n > 0, let data else { return out }
            out.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
        }
    }

    /// Whether either side still wants to exchange frames.
    public var isActive: Bool { nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0 }

    /// Client: opens a stream with a request whose body follows through `send(_:on:)` and `finish(stream:)`.
    public func submitRequest(_ headers: [HeaderField]) throws(HTTP2Error) -> Int32 {
        precondition(role == .client, "only a client sends requests")
        let body = OutgoingBody()
        let id = try withHeaders(headers) { nva, count in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBodyCallback)
            return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        guard id > 0 else { throw .nghttp2(Self.errorText(id)) }
        outgoing[id] = body
        return id
    }

    /// Server: answers a request stream; the body follows through `send(_:on:)` and `finish(stream:)`.
    public func submitResponse(stream: Int32, headers: [HeaderField]) throws(HTTP2Error) {
        precondition(role == .server, "only a server sends responses")
        outgoing[stream] = OutgoingBody()
        let rc = try withHeaders(headers) { nva, count in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBodyCallback)
            return nghttp2_submit_response(session, stream, nva, count, &provider)
        }
        guard rc == 0 else {
            outgoing[stream] = nil
            throw .nghttp2(Self.errorText(rc))
        }
    }

    /// Queues body bytes on a stream we are sending on.
    public func send(_ bytes: [UInt8], on stream: Int32) throws(HTTP2Error) {
        guard let body = outgoing[stream], !body.finished else { throw .unknownStream(stream) }
        body.buffer.append(contentsOf: bytes)
        try resume(stream, body)
    }

    /// Body bytes queued on a stream and not yet framed: a sender waits while this is large, so that a file is held
    /// in memory a window at a time, not whole.
    public func pendingBytes(on stream: Int32) -> Int {
        guard let body = outgoing[stream] else { return 0 }
        return body.buffer.count - body.offset
    }

    /// Ends the body of a stream we are sending on.
    public func finish(stream: Int32) throws(HTTP2Error) {
        guard let body = outgoing[stream], !body.finished else { throw .unknownStream(stream) }
        body.finished = true
        try resume(stream, body)
    }

    /// Resets a stream (e.g. a request we refuse to read).
    public func reset(stream: Int32, errorCode: UInt32 = HTTP2Connection.internalError) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, errorCode)
        outgoing[stream] = nil
    }

    /// Sends GOAWAY; the connection ends once both sides are done.
    public func goAway(errorCode: UInt32 = 0) {
        _ = nghttp2_session_terminate_session(session, errorCode)
    }

    private func resume(_ stream: Int32, _ body: OutgoingBody) throws(HTTP2Error) {
        guard body.deferred else { return }
        body.deferred = false
        let rc = nghttp2_session_resume_data(session, stream)
        guard rc == 0 else { throw .nghttp2(Self.errorText(rc)) }
    }

    /// Calls `body` with an `nghttp2_nv` array for `headers` (nghttp2 copies names and values).
    private func withHeaders(_ headers: [HeaderField], _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Int32) throws(HTTP2Error)
        -> Int32
    {
        // All names and values in one buffer, so one pointer stays valid while nghttp2 copies them.
        var storage: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        for h in headers {
            let n = storage.count
            storage.append(contentsOf: h.name.utf8)
            let v = storage.count
            storage.append(contentsOf: h.value.utf8)
            spans.append((n..<v, v..<storage.count))
        }
        let flags = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        return storage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress
            let nva = spans.map { span in
                nghttp2_nv(
                    name: base.map { $0 + span.name.lowerBound }, value: base.map { $0 + span.value.lowerBound },
                    namelen: span.name.count, valuelen: span.value.count, flags: flags)
            }
            return nva.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        }
    }

    static func errorText(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }

    // MARK: Callback targets (called by nghttp2 during receive / takeOutgoing)

    fileprivate func beginHeaders(_ stream: Int32) { pendingHeaders[stream] = [] }

    fileprivate func header(_ stream: Int32, _ name: [UInt8], _ value: [UInt8]) {
        pendingHeaders[stream, default: []].append(
            HeaderField(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    fileprivate func frameReceived(type: UInt8, flags: UInt8, stream: Int32, goAwayCode: UInt32) {
        let endStream = flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(type) {
        case NGHTTP2_HEADERS.rawValue:
            events.append(.headers(stream: stream, fields: pendingHeaders.removeValue(forKey: stream) ?? []))
            if endStream { events.append(.endStream(stream: stream)) }
        case NGHTTP2_DATA.rawValue:
            if endStream { events.append(.endStream(stream: stream)) }
        case NGHTTP2_GOAWAY.rawValue:
            events.append(.goAway(errorCode: goAwayCode))
        default:
            break
        }
    }

    fileprivate func dataChunk(_ stream: Int32, _ bytes: [UInt8]) { events.append(.data(stream: stream, bytes: bytes)) }

    fileprivate func streamClosed(_ stream: Int32, _ code: UInt32) {
        outgoing[stream] = nil
        pendingHeaders[stream] = nil
        events.append(.streamClosed(stream: stream, errorCode: code))
    }

    /// Copies queued body bytes into nghttp2's buffer; defers when nothing is queued yet.
    fileprivate func readBody(
        _ stream: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ length: Int, _ flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let body = outgoing[stream] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let available = body.buffer.count - body.offset
        if available == 0 {
            if body.finished {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                return 0
            }
            body.deferred = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        let n = min(available, length)
        body.buffer.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + body.offset, count: n) }
        body.offset += n
        if body.offset == body.buffer.count {
            body.buffer.removeAll(keepingCapacity: true)
            body.offset = 0
            if body.finished { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        } else if body.offset >= 1 << 20 && body.offset * 2 >= body.buffer.count {
            // A body that is appended to while it is sent may never drain completely: drop what was framed.
            body.buffer.removeFirst(body.offset)
            body.offset = 0
        }
        return n
    }
}

private func connection(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection? {
    userData.map { Unmanaged<HTTP2Connection>.fromOpaque($0).takeUnretainedValue() }
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    if let frame { connection(userData)?.beginHeaders(frame.pointee.hd.stream_id) }
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, let name, let value else { return 0 }
    connection(userData)?.header(
        frame.pointee.hd.stream_id, Array(UnsafeBufferPointer(start: name, count: nameLength)),
        Array(UnsafeBufferPointer(start: value, count: valueLength)))
    return 0
}

private let onFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let hd = frame.pointee.hd
    let goAway = hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) ? frame.pointee.goaway.error_code : 0
    connection(userData)?.frameReceived(type: hd.type, flags: hd.flags, stream: hd.stream_id, goAwayCode: goAway)
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, userData in
    guard let data else { return 0 }
    connection(userData)?.dataChunk(stream, Array(UnsafeBufferPointer(start: data, count: length)))
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, code, userData in
    connection(userData)?.streamClosed(stream, code)
    return 0
}

private let readBodyCallback: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
    guard let buffer, let flags, let conn = connection(userData) else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    return conn.readBody(stream, buffer, length, flags)
}
