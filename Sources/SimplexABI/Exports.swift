// The C ABI of libsimplex (chat-api.md §9.2), declared in Sources/CLibSimplex/simplex.h. Each function only moves
// values across the boundary; the work is in ChatControl, CryptoFile and Utilities.
internal import ChatCore
internal import ChatStore
internal import Glibc

public typealias CString = UnsafeMutablePointer<CChar>

@_cdecl("hs_init_with_rtsopts")
public func hs_init_with_rtsopts(
    _ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) {}

@_cdecl("chat_migrate_init")
public func chat_migrate_init(
    _ path: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ confirm: UnsafePointer<CChar>?,
    _ ctrl: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> CString {
    chat_migrate_init_key(path, key, 0, confirm, 0, ctrl)
}

@_cdecl("chat_migrate_init_key")
public func chat_migrate_init_key(
    _ path: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ keepKey: Int32, _ confirm: UnsafePointer<CChar>?,
    _ background: Int32, _ ctrl: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> CString {
    let result: MigrationResult
    if let confirmation = CInput(confirm).flatMap({ $0.strictText }).flatMap(MigrationConfirmation.init(rawValue:)) {
        if let path = CInput(path)?.strictText, let ctrl {
            switch ChatControl.open(prefix: path, key: CInput(key)?.lenientText ?? "", confirmation: confirmation) {
            case .success(let control):
                ctrl.pointee = control.opaque
                result = .ok
            case .failure(let failure): result = failure
            }
        } else {
            result = .errorSQL(dbFile: "", ctrl == nil ? "ctrl is NULL" : "path is NULL or not valid UTF-8")
        }
    } else {
        result = .invalidConfirmation
    }
    return CBuffer.string(result.json.rendered)
}

@_cdecl("chat_close_store")
public func chat_close_store(_ ctrl: UnsafeMutableRawPointer?) -> CString {
    CBuffer.string(ChatControl.from(ctrl)?.close() ?? "chat controller is NULL")
}

@_cdecl("chat_reopen_store")
public func chat_reopen_store(_ ctrl: UnsafeMutableRawPointer?) -> CString {
    CBuffer.string(ChatControl.from(ctrl)?.reopen() ?? "chat controller is NULL")
}

@_cdecl("chat_send_cmd")
public func chat_send_cmd(_ ctrl: UnsafeMutableRawPointer?, _ cmd: UnsafePointer<CChar>?) -> CString {
    chat_send_cmd_retry(ctrl, cmd, 0)
}

@_cdecl("chat_send_cmd_retry")
public func chat_send_cmd_retry(_ ctrl: UnsafeMutableRawPointer?, _ cmd: UnsafePointer<CChar>?, _ retryNum: Int32) -> CString {
    guard let control = ChatControl.from(ctrl) else { return CBuffer.string(ChatControl.nullController.bytes) }
    return CBuffer.string(control.execute(CInput(cmd)).bytes)
}

@_cdecl("chat_send_remote_cmd")
public func chat_send_remote_cmd(_ ctrl: UnsafeMutableRawPointer?, _ remoteHostId: Int32, _ cmd: UnsafePointer<CChar>?)
    -> CString
{
    chat_send_remote_cmd_retry(ctrl, remoteHostId, cmd, 0)
}

@_cdecl("chat_send_remote_cmd_retry")
public func chat_send_remote_cmd_retry(
    _ ctrl: UnsafeMutableRawPointer?, _ remoteHostId: Int32, _ cmd: UnsafePointer<CChar>?, _ retryNum: Int32
) -> CString {
    guard let control = ChatControl.from(ctrl) else { return CBuffer.string(ChatControl.nullController.bytes) }
    return CBuffer.string(control.executeRemote(hostId: remoteHostId, CInput(cmd)))
}

@_cdecl("chat_recv_msg")
public func chat_recv_msg(_ ctrl: UnsafeMutableRawPointer?) -> CString {
    guard let control = ChatControl.from(ctrl) else { return CBuffer.string(ChatControl.nullController.bytes) }
    while true {
        if let event = control.nextEvent(waitMicroseconds: 3_600_000_000) { return CBuffer.string(event) }
    }
}

@_cdecl("chat_recv_msg_wait")
public func chat_recv_msg_wait(_ ctrl: UnsafeMutableRawPointer?, _ waitMicroseconds: Int32) -> CString {
    guard let control = ChatControl.from(ctrl) else { return CBuffer.string(ChatControl.nullController.bytes) }
    return CBuffer.string(control.nextEvent(waitMicroseconds: Int64(waitMicroseconds)) ?? [])
}

@_cdecl("chat_parse_markdown")
public func chat_parse_markdown(_ text: UnsafePointer<CChar>?) -> CString {
    CBuffer.string(Utilities.parseMarkdown(CInput(text)))
}

@_cdecl("chat_parse_server")
public func chat_parse_server(_ address: UnsafePointer<CChar>?) -> CString {
    CBuffer.string(Utilities.parseServer(CInput(address)))
}

@_cdecl("chat_parse_uri")
public func chat_parse_uri(_ uri: UnsafePointer<CChar>?, _ safe: Int32) -> CString {
    CBuffer.string(Utilities.parseURI(CInput(uri), safe: safe != 0))
}

@_cdecl("chat_password_hash")
public func chat_password_hash(_ password: UnsafePointer<CChar>?, _ salt: UnsafePointer<CChar>?) -> CString {
    CBuffer.string(Utilities.passwordHash(CInput(password), salt: CInput(salt)))
}

@_cdecl("chat_valid_name")
public func chat_valid_name(_ name: UnsafePointer<CChar>?) -> CString {
    CBuffer.string(CInput(name).map { ChatEngine.validDisplayName($0.lenientText) } ?? "")
}

@_cdecl("chat_json_length")
public func chat_json_length(_ s: UnsafePointer<CChar>?) -> Int32 {
    Utilities.jsonLength(CInput(s))
}

@_cdecl("chat_encrypt_media")
public func chat_encrypt_media(
    _ ctrl: UnsafeMutableRawPointer?, _ key: UnsafePointer<CChar>?, _ buf: UnsafeMutablePointer<UInt8>?, _ len: Int32
) -> CString {
    guard ctrl != nil else { return CBuffer.string("chat controller is NULL") }
    return CBuffer.string(MediaFrame.encrypt(key: CInput(key), frame: buf, length: len))
}

@_cdecl("chat_decrypt_media")
public func chat_decrypt_media(_ key: UnsafePointer<CChar>?, _ buf: UnsafeMutablePointer<UInt8>?, _ len: Int32) -> CString {
    CBuffer.string(MediaFrame.decrypt(key: CInput(key), frame: buf, length: len))
}

@_cdecl("chat_write_file")
public func chat_write_file(
    _ ctrl: UnsafeMutableRawPointer?, _ path: UnsafePointer<CChar>?, _ buf: UnsafePointer<UInt8>?, _ len: Int32
) -> CString {
    let result: Result<CryptoFileArgs, CryptoFileError>
    if ctrl == nil {
        result = .failure(.invalidArgs("chat controller is NULL"))
    } else if let path = CInput(path), len >= 0, buf != nil || len == 0 {
        result = Result { () throws(CryptoFileError) in
            try CryptoFile.write(UnsafeRawBufferPointer(start: buf, count: Int(len)), to: path)
        }
    } else {
        result = .failure(.invalidArgs(CInput(path) == nil ? "path is NULL" : "buffer is NULL or its length negative"))
    }
    return CBuffer.string(Utilities.writeFileResult(result))
}

@_cdecl("chat_read_file")
public func chat_read_file(_ path: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ nonce: UnsafePointer<CChar>?)
    -> UnsafeMutablePointer<UInt8>
{
    let result = Result { () throws(CryptoFileError) -> [UInt8] in
        guard let path = CInput(path) else { throw .invalidArgs("path is NULL") }
        return try CryptoFile.read(path, try CryptoFileArgs(key: CInput(key), nonce: CInput(nonce)))
    }
    return Utilities.readFileBuffer(result)
}

@_cdecl("chat_encrypt_file")
public func chat_encrypt_file(
    _ ctrl: UnsafeMutableRawPointer?, _ fromPath: UnsafePointer<CChar>?, _ toPath: UnsafePointer<CChar>?
) -> CString {
    let result = Result { () throws(CryptoFileError) -> CryptoFileArgs in
        guard ctrl != nil else { throw .invalidArgs("chat controller is NULL") }
        guard let from = CInput(fromPath), let to = CInput(toPath) else { throw .invalidArgs("path is NULL") }
        return try CryptoFile.encrypt(from: from, to: to)
    }
    return CBuffer.string(Utilities.writeFileResult(result))
}

@_cdecl("chat_decrypt_file")
public func chat_decrypt_file(
    _ fromPath: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ nonce: UnsafePointer<CChar>?,
    _ toPath: UnsafePointer<CChar>?
) -> CString {
    do throws(CryptoFileError) {
        guard let from = CInput(fromPath), let to = CInput(toPath) else { throw .invalidArgs("path is NULL") }
        try CryptoFile.decrypt(from: from, to: to, try CryptoFileArgs(key: CInput(key), nonce: CInput(nonce)))
        return CBuffer.string("")
    } catch {
        return CBuffer.string(error.message)
    }
}
