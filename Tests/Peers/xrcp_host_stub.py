#!/usr/bin/env python3
"""A minimal XRCP *host* (the mobile role) in Python, used ONLY to test xrcp_controller.py end to end.

It verifies the invitation over the received bytes and also requires the canonical rendering (as reference hosts do),
connects as TLS client with [leaf, CA], pins the controller CA, sends the host HELLO, decapsulates the controller's
KEM ciphertext and serves HTTP/2 on the same TLS stream:

  send       -> {"type":"chatResponse","chatResponse":{"result":{"type":"cmdOk"}}}   (the command "/_stub event"
                also queues a chat event for the next recv)
  recv       -> waits min(wait, --max-wait-ms) for a queued event, else {"type":"chatEvent"}
  storeFile  -> receives and checks the attachment, stores it under --files, {"type":"fileStored","filePath":name}
  getFile    -> {"type":"file","fileSize":n,"fileDigest":..} + the attachment of --files/<fileSource.filePath>
  failures   -> {"type":"protocolError","remoteProcotolError":{..}}

  xrcp_host_stub.py --pairing FILE (--uri URI | --discover GROUP:PORT [--discover-iface IPV4])
                    [--device-name NAME] [--compression on|off] [--files DIR] [--max-wait-ms N]
                    [--tamper hello-wrong-ca|old-app-version|swift-encoding]

stdout: JSON lines {"event":"found"|"sessionCode"|"connected"|"request"|"error"|"stopped",...};
stdin (optional): {"queueEvent":{Result}} queues a chat event, {"stop":true} closes the session.
"""
import argparse
import hashlib
import json
import os
import queue
import socket
import ssl
import struct
import sys
import threading
import time
import datetime

sys.dont_write_bytecode = True  # leave no __pycache__ beside the peers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xrcp_controller as x  # noqa: E402  (shared primitives; the host logic below is separate)
from cryptography import x509  # noqa: E402
from pqcrypto import sntrup_761  # noqa: E402

HOST_APP_VERSION = "6.5.0.13"
HOST_APP_MIN = "6.5.0.12"


def protocol_error(e: x.XRCPError):
    tag = e.tag
    if tag in ("ctrlAuth", "decrypt", "encrypt", "identity"):
        err = {"type": "pRERemoteControl", "rcError": {"type": tag}}
    elif tag in ("pREEarlierId", "manySkippedIds"):
        err = {"type": tag, "data": int(e.detail)}
    elif tag in ("invalidBody", "invalidJSON"):
        err = {"type": tag, tag: e.detail}
    elif tag in ("pREDuplicateId", "pRESessionCode", "invalidSize", "noFile", "fileSize", "fileDigest"):
        err = {"type": tag}
    else:
        err = {"type": "exception", "someException": str(e)}
    return {"type": "protocolError", "remoteProcotolError": err}


class HostPairing:
    def __init__(self, path):
        self.path = path
        data = {}
        if path and os.path.exists(path):
            with open(path) as f:
                data = json.load(f)
        self.ca_seed = x.seed_from_pkcs8(bytes.fromhex(data["caKey"])) if data.get("caKey") else None
        self.ca_der = bytes.fromhex(data["caCert"]) if data.get("caCert") else None
        self.controllers = data.get("controllers", [])

    def find(self, ca_fp: bytes):
        for c in self.controllers:
            if c["ctrlFingerprint"] == x.b64u(ca_fp):
                return c
        return None

    def save(self):
        data = {"caKey": x.pkcs8(self.ca_seed).hex() if self.ca_seed else None,
                "caCert": self.ca_der.hex() if self.ca_der else None, "controllers": self.controllers}
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, self.path)


class HostStub:
    def __init__(self, pairing: HostPairing, emit, device_name="Stub Phone", compression=True, files_dir=None,
                 max_wait_ms=1000, tamper=()):
        self.pairing = pairing
        self.emit = emit
        self.device_name = device_name
        self.own_compression = compression
        self.files_dir = files_dir or os.getcwd()
        self.max_wait = max_wait_ms / 1000.0
        self.tamper = set(tamper)
        self.events = queue.Queue()
        self.send_lock = threading.Lock()
        self.recv_lock = threading.Lock()
        self.pump = None

    # -- discovery (§6.3)

    def discover(self, group: str, port: int, iface: str, timeout=30.0) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((group, port))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                        socket.inet_aton(group) + socket.inet_aton(iface))
        deadline = time.time() + timeout
        try:
            while time.time() < deadline:
                sock.settimeout(max(0.05, deadline - time.time()))
                try:
                    data, src = sock.recvfrom(2048)
                except socket.timeout:
                    break
                try:
                    if len(data) < 69 or data[0] != 44:
                        raise x.XRCPError("syntax", "bad packet")
                    pub = x.parse_spki(data[1:45], "x25519")
                    nonce, enc = data[45:69], data[69:]
                    uri = None
                    for c in self.pairing.controllers:
                        for k in (c.get("dhPriv"), c.get("prevDhPriv")):
                            if not k or uri:
                                continue
                            try:
                                uri = x.unpad(x.sx_open(x.x25519_dh(bytes.fromhex(k), pub), nonce, enc)).decode()
                            except x.XRCPError:
                                pass
                    if uri is None:
                        raise x.XRCPError("ctrlNotFound")
                    inv = x.parse_invitation(uri)
                    if inv["dh"] != pub:
                        raise x.XRCPError("invitation", "dh differs from the packet key")
                    if src[0] != inv["host"]:
                        raise x.XRCPError("invitation", f"source {src[0]} is not {inv['host']}")
                    self.emit({"event": "found", "uri": uri, "packetSize": len(data), "from": src[0]})
                    return uri
                except (x.XRCPError, ValueError) as e:
                    self.emit({"event": "error", "stage": "discover", "error": str(e)})
        finally:
            sock.close()
        raise x.XRCPError("notDiscovered")

    # -- session

    def check_canonical(self, inv, uri):
        """Reference hosts re-render the invitation and verify over the rendering (§5.5)."""
        unsigned = (f"xrcp:/{x.b64u(inv['ca'])}@{inv['host']}:{inv['port']}#/?v="
                    f"{x.qenc('1' if inv['versionRange'][0] == inv['versionRange'][1] else '%d-%d' % inv['versionRange'])}"
                    f"&app={x.qenc(x.aeson_json(inv['app']))}&ts={x.qenc(str(inv['ts']))}"
                    f"&skey={x.qenc(x.b64u(x.spki_ed25519(inv['skey'])))}"
                    f"&idkey={x.qenc(x.b64u(x.spki_ed25519(inv['idkey'])))}"
                    f"&dh={x.qenc(x.b64u(x.spki_x25519(inv['dh'])))}")
        if unsigned != inv["unsigned"]:
            raise x.XRCPError("badInvitation", "not the canonical rendering")

    def connect(self, uri: str):
        inv = x.parse_invitation(uri)
        self.check_canonical(inv, uri)
        self.inv = inv
        vmin, vmax = inv["versionRange"]
        if not (vmin <= 1 <= vmax):
            raise x.XRCPError("version")
        app = inv["app"]
        cmin = x.app_version_tuple(app["appVersionRange"]["minVersion"])
        cmax_s = app["appVersionRange"]["maxVersion"]
        cmax = x.app_version_tuple(cmax_s)
        hmin, hmax = x.app_version_tuple(HOST_APP_MIN), x.app_version_tuple(HOST_APP_VERSION)
        if not (hmin <= cmax and cmin <= hmax):
            raise x.XRCPError("badVersion", cmax_s)
        app_version = HOST_APP_VERSION if hmax <= cmax else cmax_s
        known = self.pairing.find(inv["ca"])
        if known is not None and known["idPub"] != x.spki_ed25519(inv["idkey"]).hex():
            raise x.XRCPError("identity", "stored id key differs from the invitation's")
        if self.pairing.ca_seed is None or known is None:
            self.pairing.ca_seed = os.urandom(32)  # a new CA per controller (§5.8)
            self.pairing.ca_der = x.cert_der(x.make_ca(self.pairing.ca_seed, 1))
        dh_priv = os.urandom(32)
        leaf_seed = os.urandom(32)
        ca_cert = x509.load_der_x509_certificate(self.pairing.ca_der)
        leaf_der = x.cert_der(x.make_leaf(leaf_seed, ca_cert, self.pairing.ca_seed))
        def pin(ders):  # inside the handshake, so that the controller sees the unknown_ca alert (§4.3)
            if len(ders) != 2:
                return f"controller chain has {len(ders)} certificates"
            if x.fingerprint(ders[1]) != inv["ca"]:
                return "controller CA does not match the invitation"
            return None

        context = x.make_tls_context(False, [leaf_der, self.pairing.ca_der], leaf_seed, check_chain=pin)
        raw = socket.create_connection((inv["host"], inv["port"]), timeout=15)
        try:
            tls = context.wrap_socket(raw)
        except ssl.SSLError:
            raw.close()
            if context.xrcp_rejection:
                raise x.XRCPError("identity", context.xrcp_rejection) from None
            raise
        ders = x.peer_chain_ders(tls)
        if len(ders) != 2 or x.fingerprint(ders[1]) != inv["ca"]:
            tls.close()
            raise x.XRCPError("identity", "controller CA does not match the invitation")
        leaf = x509.load_der_x509_certificate(ders[0])
        now = datetime.datetime.now(datetime.timezone.utc)
        if not x.leaf_signed_by(ders[0], ders[1]) or leaf.version != x509.Version.v3 \
                or not (leaf.not_valid_before_utc <= now <= leaf.not_valid_after_utc):
            tls.close()
            raise x.XRCPError("identity", "controller leaf certificate is not valid")
        self.tls = tls
        self.tls_unique = x.tls_unique(tls)
        self.emit({"event": "sessionCode", "code": x.session_code(self.tls_unique), "tlsUnique": self.tls_unique.hex()})
        # HELLO (§7.3)
        kem_pk, kem_sk = sntrup_761.keygen()
        ca_fp = x.fingerprint(self.pairing.ca_der)
        if "hello-wrong-ca" in self.tamper:
            ca_fp = os.urandom(32)
        encoding = "swift" if "swift-encoding" in self.tamper else "kotlin"
        host_app = {"appVersion": "6.4.0.0" if "old-app-version" in self.tamper else app_version,
                    "compression": self.own_compression, "deviceName": self.device_name, "encoding": encoding,
                    "encryptFiles": False}
        hello = ('{"v":1,"ca":' + x.aeson_json(x.b64u(ca_fp)) + ',"app":' + x.aeson_json(host_app)
                 + ',"kem":' + x.aeson_json(x.b64u(kem_pk)) + "}").encode()
        msg = x.host_hello_message(dh_priv, inv["dh"], hello, os.urandom(24))
        tls.settimeout(30)
        tls.sendall(x.pad(msg, x.BLOCK_SIZE))
        block = x.read_exact(tls, x.BLOCK_SIZE)
        reply = x.unpad(block)
        tag = reply.split(b" ", 1)[0]
        dh = x.x25519_dh(dh_priv, inv["dh"])
        if tag == b"ERROR":
            text = x.unpad(x.sx_open(dh, reply[6:30], reply[30:])).decode("utf-8", "replace")
            raise x.XRCPError("ctrlError", text)
        if tag != b"HELLO":
            raise x.XRCPError("syntax", f"controller block tag {tag!r}")
        (n,) = struct.unpack(">H", reply[6:8])
        kem_ct = reply[8:8 + n]
        if n != x.KEM_CT_LEN:
            raise x.XRCPError("syntax", f"kem ciphertext of {n} bytes")
        kem_ss = sntrup_761.decaps(kem_sk, kem_ct)
        ck_a, ck_b = x.chain_init(x.hybrid_secret(dh, kem_ss))
        recv_chain = x.Chain(ck_a)
        key1, nonce1 = recv_chain.step()
        body = x.unpad(x.sx_open(key1, nonce1, reply[8 + n:]))
        try:
            if not isinstance(json.loads(body), dict):
                raise ValueError("not an object")
        except ValueError as e:
            raise x.XRCPError("syntax", str(e)) from None
        self.recv = x.RecvChain(recv_chain.ck)
        self.send = x.SendChain(ck_b)
        self.encoding = encoding
        self.compression = bool(app.get("compression") is True and self.own_compression)
        # store the pairing (§2.2)
        ctrl_fp = x.b64u(inv["ca"])
        if known is None:
            self.pairing.controllers.append({"ctrlFingerprint": ctrl_fp, "idPub": x.spki_ed25519(inv["idkey"]).hex(),
                                             "dhPriv": dh_priv.hex(), "prevDhPriv": None,
                                             "ctrlDeviceName": app.get("deviceName")})
        else:
            known["prevDhPriv"], known["dhPriv"] = known["dhPriv"], dh_priv.hex()
            known["ctrlDeviceName"] = app.get("deviceName")
        self.pairing.save()
        self.closed = threading.Event()
        self.pump = x.H2Pump(tls, client_side=False, on_request=self.on_request,
                             on_close=lambda reason: self.closed.set())
        self.pump.start()
        self.emit({"event": "connected", "compression": self.compression, "newController": known is None,
                   "ctrlApp": app, "appVersion": host_app["appVersion"]})

    # -- requests (§9.4, §11.3)

    def on_request(self, stream):
        attach = None
        try:
            corr, enc, ct, rest = x.split_enc_body(bytes(stream.body))
            if len(rest) < 130 or rest[0] != 64 or rest[65] != 64:
                raise x.XRCPError("invalidBody", "bad signatures")
            ssig, idsig, att = rest[1:65], rest[66:130], rest[130:]
            if not x.ed25519_verify(self.inv["skey"], ssig, hashlib.sha512(enc).digest()) or \
                    not x.ed25519_verify(self.inv["idkey"], idsig, hashlib.sha512(enc + ssig).digest()):
                raise x.XRCPError("ctrlAuth")
            with self.recv_lock:
                body_kn, file_kn = self.recv.keys_for(corr)
            obj = x.open_body(ct, body_kn, self.tls_unique, self.compression)
            self.emit({"event": "request", "corrId": corr, "json": obj, "attachment": len(att)})
            resp, attach = self.dispatch(obj, att, file_kn)
        except x.XRCPError as e:
            self.emit({"event": "error", "stage": "request", "error": str(e), "tag": e.tag})
            resp = protocol_error(e)
        except Exception as e:  # noqa: BLE001 -- a malformed command still gets an answer
            self.emit({"event": "error", "stage": "request", "error": repr(e), "tag": "exception"})
            resp = protocol_error(x.XRCPError("exception", repr(e)))
        payload = x.compact_json(resp)
        if self.compression:
            payload = x.zstd_compress(payload)
        with self.send_lock:
            corr2, body_kn2, file_kn2 = self.send.next()
            out = x.enc_body(corr2, body_kn2, self.tls_unique, payload)
            if attach is not None:
                out += x.attachment(file_kn2, attach)
        self.pump.respond(stream.stream_id, out)

    def result(self, inner):
        if self.encoding == "swift":
            return {"result": {"_owsf": True, inner["type"]: {k: v for k, v in inner.items() if k != "type"}}}
        return {"result": inner}

    def dispatch(self, obj, att, file_kn):
        t = obj.get("type")
        if t == "send" and isinstance(obj.get("command"), str) and isinstance(obj.get("retryNumber"), int):
            if obj["command"] == "/_stub event":
                self.events.put(self.result({"type": "stubEvent", "n": 1}))
            return {"type": "chatResponse", "chatResponse": self.result({"type": "cmdOk"})}, None
        if t == "recv" and isinstance(obj.get("wait"), int):
            try:
                ev = self.events.get(timeout=min(obj["wait"] / 1e6, self.max_wait))
                return {"type": "chatEvent", "chatEvent": ev}, None
            except queue.Empty:
                return {"type": "chatEvent"}, None
        if t == "storeFile":
            data = x.open_attachment(att, file_kn, obj["fileSize"], obj["fileDigest"])
            base = os.path.basename(obj["fileName"]) or "file"
            stem, ext = os.path.splitext(base)
            name, i = base, 0
            while os.path.exists(os.path.join(self.files_dir, name)):
                i += 1
                name = f"{stem}_{i}{ext}"
            with open(os.path.join(self.files_dir, name), "wb") as f:
                f.write(data)
            return {"type": "fileStored", "filePath": name}, None
        if t == "getFile":
            path = os.path.join(self.files_dir, os.path.basename(obj["file"]["fileSource"]["filePath"]))
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                return {"type": "chatResponse", "chatResponse": {"error": {
                    "type": "errorStore", "storeError": {"type": "fileNotFound", "fileId": obj["file"].get("fileId")}}}}, None
            return {"type": "file", "fileSize": len(data), "fileDigest": x.b64u(hashlib.sha512(data).digest())}, data
        raise x.XRCPError("invalidJSON", f"unknown command {x.compact_json(obj)[:80]!r}")


def main(argv=None):
    p = argparse.ArgumentParser(description="minimal XRCP host for testing the controller peer")
    p.add_argument("--pairing", required=True)
    p.add_argument("--uri")
    p.add_argument("--discover")
    p.add_argument("--discover-iface", default="127.0.0.1")
    p.add_argument("--discover-timeout", type=float, default=30.0)
    p.add_argument("--device-name", default="Stub Phone")
    p.add_argument("--compression", choices=["on", "off"], default="on")
    p.add_argument("--files", default=None)
    p.add_argument("--max-wait-ms", type=int, default=1000)
    p.add_argument("--tamper", action="append", default=[])
    a = p.parse_args(argv)
    emit = x.Emitter()
    stub = HostStub(HostPairing(a.pairing), emit, a.device_name, a.compression == "on", a.files, a.max_wait_ms,
                    a.tamper)
    try:
        if a.discover:
            g, gp = x._hostport(a.discover, 5227)
            uri = stub.discover(g, gp, a.discover_iface, a.discover_timeout)
        else:
            uri = a.uri
        stub.connect(uri)
    except (x.XRCPError, OSError, ssl.SSLError, ValueError, KeyError) as e:
        emit({"event": "error", "stage": "connect", "error": str(e), "tag": getattr(e, "tag", "exception")})
        emit({"event": "stopped", "reason": "failed"})
        return 1

    def stdin_reader():
        for line in sys.stdin:
            try:
                cmd = json.loads(line)
            except ValueError:
                continue
            if cmd.get("stop"):
                stub.pump.close("user")
                return
            if "queueEvent" in cmd:
                stub.events.put(cmd["queueEvent"])

    threading.Thread(target=stdin_reader, daemon=True).start()
    stub.closed.wait()
    emit({"event": "stopped", "reason": stub.pump.close_reason})
    return 0


if __name__ == "__main__":
    sys.exit(main())
