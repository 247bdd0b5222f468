#!/usr/bin/env python3
"""Self-test of the Python SMP peer (no pytest): `python3 test_smp_peer.py`; last line `N passed, M failed`.

1. The smp.md §8.2 vectors (Tests/SMPTests/Vectors: transport.json, commands.json, links.json, with their generator,
   which is run here and must reproduce the committed files, RatchetTests' ratchet.json and AgentProtocolTests' copies too): every value the peer's encoders and decoders can produce must
   match byte for byte. A missing vector file fails.
2. The peer's client against the peer's server on 127.0.0.1: the CLI scenario in separate processes, then the §3.8
   behaviours (END to a replaced subscriber, one message in flight until ACK, quota and the QUOTA marker, GET vs SUB,
   OFF, DEL and DELD, the error codes), every version 6..18, Ed448 and longer chains, and refusals (wrong
   fingerprint, no ALPN, a wrong-version hello, garbage blocks).
"""
import base64
import ctypes
import hashlib
import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.join(HERE, "..", "..", ".venv", "bin", "python")
# The one committed copy of the spec's vectors and their generator, which the Swift tests read too.
VECTORS = os.path.join(HERE, "..", "SMPTests", "Vectors")
RATCHET_VECTORS = os.path.join(HERE, "..", "RatchetTests", "Fixtures", "ratchet.json")
# AgentProtocolTests' copies of links.json and ratchet.json, checked against the same generator.
AGENT_VECTORS = os.path.join(HERE, "..", "AgentProtocolTests", "Fixtures")

try:
    import cryptography  # noqa: F401
    import nacl  # noqa: F401
    import h2  # noqa: F401  (imported by the XRCP peer whose helpers smp_peer reuses)
except ImportError:
    if os.path.exists(VENV_PY) and not os.environ.get("SMP_PEER_REEXEC"):
        os.environ["SMP_PEER_REEXEC"] = "1"
        os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])
    print("needs the packages of scripts/fixtures/requirements.txt and Tests/Peers/requirements.txt "
          "(e.g. the repository's .venv)", file=sys.stderr)
    raise

sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import smp_peer as smp  # noqa: E402
from selftest import RESULTS, check, eq  # noqa: E402

H = bytes.fromhex


def raises(tag, fn, what=""):
    try:
        fn()
    except smp.SMPError as e:
        eq(e.tag, tag, what)
        return e
    raise AssertionError(f"{what}: expected SMPError {tag}, nothing raised")


def err(resp, text, what=""):
    eq((resp.tag, resp.fields.get("error")), ("ERR", text), what)


def load(name):
    path = os.path.join(VECTORS, name)
    if not os.path.exists(path):
        raise AssertionError(f"vector file {path} is missing")
    with open(path) as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------------------------------------
# 1. vectors

def tv_generator():
    """The committed vectors are what the committed generator writes."""
    spec = importlib.util.spec_from_file_location("gen_vectors", os.path.join(VECTORS, "gen_vectors.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen._selftest()
    for name, fn in (("transport.json", gen.gen_transport), ("commands.json", gen.gen_commands),
                     ("links.json", gen.gen_links)):
        eq(json.loads(json.dumps(fn(), ensure_ascii=False)), load(name), name)
    with open(RATCHET_VECTORS) as f:
        eq(json.loads(json.dumps(gen.gen_ratchet(), ensure_ascii=False)), json.load(f), "ratchet.json (RatchetTests)")
    for name, fn in (("links.json", gen.gen_links), ("ratchet.json", gen.gen_ratchet)):
        with open(os.path.join(AGENT_VECTORS, name)) as f:
            eq(json.loads(json.dumps(fn(), ensure_ascii=False)), json.load(f), name + " (AgentProtocolTests)")


class CaptureSocket:
    def __init__(self, incoming=b""):
        self.sent = b""
        self.incoming = incoming

    def sendall(self, data):
        self.sent += data

    def recv(self, n):
        out, self.incoming = self.incoming[:n], self.incoming[n:]
        return out


def tv_transport():
    t = load("transport.json")
    sess = H(t["session_id"])
    for side in ("server", "client"):
        priv = smp.x25519.X25519PrivateKey.from_private_bytes(H(t[f"{side}_x25519_priv"]))
        eq(smp.public_raw(priv.public_key()).hex(), t[f"{side}_x25519_pub"], f"{side} hello key")
    eq(smp.x25519_dh(H(t["client_x25519_priv"]), H(t["server_x25519_pub"])).hex(), t["dh"], "client DH")
    eq(smp.x25519_dh(H(t["server_x25519_priv"]), H(t["client_x25519_pub"])).hex(), t["dh"], "server DH")
    ck1, ck2 = smp.sb_chain_init(sess, H(t["dh"]))
    eq((ck1 + ck2).hex(), t["sbcInit_out64"], "sbcInit")
    eq(ck1.hex(), t["ck1_server_send_client_recv"], "ck1")
    eq(ck2.hex(), t["ck2_client_send_server_recv"], "ck2")
    chain = smp.SbChain(ck2)
    for step in t["client_send_chain_steps"]:
        eq(chain.ck.hex(), step["chain_key_in"], f"step {step['i']} chain key in")
        sk, nonce = chain.next()
        eq((chain.ck.hex(), sk.hex(), nonce.hex()), (step["next_chain_key"], step["box_key"], step["nonce"]),
           f"step {step['i']}")
    b = t["first_client_block"]
    tr = smp.encode_client_transmission(18, sess, H(b["corrId"]), b"", b"PING")
    eq(tr.hex(), b["transmission"], "PING transmission")
    content = smp.encode_batch([tr])
    eq(content.hex(), b["batch_content"], "batch")
    cap = CaptureSocket()
    client = smp.Transport(cap)
    client.encrypt(ck2, ck1)
    client.send_block(content)
    eq(len(cap.sent), b["block_len"], "block length")
    eq(cap.sent[:64].hex(), b["block_first_64_hex"], "block start")
    eq(hashlib.sha256(cap.sent).hexdigest(), b["block_sha256"], "block SHA-256")
    eq(cap.sent, base64.b64decode(b["block_b64"]), "block bytes")
    server = smp.Transport(CaptureSocket(cap.sent))
    server.encrypt(ck1, ck2)
    eq(server.recv_block(), content, "server opens the block")
    eq(smp.parse_batch(server_content := content), [tr], "batch parse")
    parsed = smp.parse_client_transmission(18, sess, smp.parse_batch(server_content)[0])
    eq((parsed["corrId"].hex(), parsed["entity"], parsed["command"], parsed["auth"]), (b["corrId"], b"", b"PING", b""),
       "PING parse")
    h = t["client_hello_v18"]
    hello = smp.encode_client_hello(18, H(h["keyHash"]), H(t["client_x25519_pub"]))
    eq(hello.hex(), h["bytes_before_padding"], "client hello v18")
    eq(len(hello), h["len"], "client hello length")
    ph = smp.parse_client_hello(smp.unpad(smp.pad(hello, smp.BLOCK_SIZE)))
    eq((ph["version"], ph["keyHash"].hex(), ph["dhKey"].hex(), ph["proxy"], ph["service"]),
       (18, h["keyHash"], t["client_x25519_pub"], False, None), "client hello parse")


def tv_commands():
    c = load("commands.json")
    sess = H(c["session_id"])
    rk = smp.SignKey("ed25519", H(c["recipient_ed25519_seed"]))
    eq(smp.spki("ed25519", rk.public).hex(), c["recipient_ed25519_pub_spki"], "recipient key SPKI")
    rdh_pub = smp.public_raw(smp.x25519.X25519PrivateKey.from_private_bytes(H(c["recipient_x25519_priv"])).public_key())
    eq(smp.spki("x25519", rdh_pub).hex(), c["recipient_x25519_pub_spki"], "recipient DH SPKI")
    n = c["NEW_v18"]
    new = smp.cmd_new(18, rk, rdh_pub, subscribe=True, mode="M")
    eq(new.hex(), n["command"], "NEW v18 command")
    t18 = smp.encode_client_transmission(18, sess, H(n["corrId"]), b"", new, rk)
    eq(t18.hex(), n["transmission_v16plus"], "NEW v18 transmission")
    # the vector's v15 form carries the same command bytes in the v<16 transmission layout (no service slot)
    eq(smp.encode_client_transmission(15, sess, H(n["corrId"]), b"", new, rk).hex(), n["transmission_v15"], "NEW v15")
    eq(smp.encode_batch([t18]).hex(), n["block_content"], "NEW block content")
    p = smp.parse_client_transmission(18, sess, t18)
    eq(p["signed"].hex(), n["signed_bytes"], "NEW signed bytes")
    eq(p["auth"].hex(), n["signature"], "NEW signature")
    eq(p["command"], new, "NEW command parse")
    p15 = smp.parse_client_transmission(15, sess, H(n["transmission_v15"]))
    eq((p15["signed"].hex(), p15["service"]), (n["signed_bytes"], None), "NEW v15 parse")
    # the server's parser takes the vector NEW and answers IDS, which the client's parser reads
    srv = smp.SMPServer(end_interval=0)
    try:
        conn = smp.ServerConn(srv, None, None, 18, sess)
        ids = srv._command(conn, p)
        r = smp.parse_response(18, ids)
        eq((r.tag, len(r["rcvId"]), len(r["sndId"]), r["queueMode"], r["linkId"], r["serviceId"], r["ntfCreds"]),
           ("IDS", 24, 24, "M", None, None, None), "IDS")
        eq(conn.subs[r["rcvId"]].kind, "SUB", "subMode S subscribes the creating connection")
    finally:
        srv.stop()
    s = c["SUB"]
    sub = smp.encode_client_transmission(18, sess, H(s["corrId"]), H(s["rcvId"]), b"SUB", rk)
    eq(sub.hex(), s["transmission_v16plus"], "SUB")
    snd = smp.SignKey("ed25519", H(c["sender_ed25519_seed"]))
    k = c["SKEY"]
    skey = smp.encode_client_transmission(18, sess, H(k["corrId"]), H(k["sndId"]), smp.cmd_key(b"SKEY", snd), snd)
    eq(skey.hex(), k["transmission_v16plus"], "SKEY")
    e = c["SEND"]
    send = smp.cmd_send(H(e["body"]), notification=True)
    eq(smp.encode_client_transmission(18, sess, H(e["corrId"]), H(k["sndId"]), send, snd).hex(), e["signed_v16plus"],
       "SEND signed")
    eq(smp.encode_client_transmission(18, sess, H(e["corrId"]), H(k["sndId"]), send).hex(), e["unsigned"],
       "SEND unsigned")
    pu = smp.parse_client_transmission(18, sess, H(e["unsigned"]))
    eq((pu["auth"], pu["service"], pu["command"]), (b"", None, send), "unsigned SEND has no service slot")
    m = c["MSG_server_to_recipient"]
    srv_priv = smp.x25519.X25519PrivateKey.from_private_bytes(H(m["server_queue_x25519_priv"]))
    eq(smp.public_raw(srv_priv.public_key()).hex(), m["server_queue_x25519_pub"], "server queue key")
    secret = smp.x25519_dh(H(c["recipient_x25519_priv"]), H(m["server_queue_x25519_pub"]))
    eq(secret.hex(), m["rcvDhSecret"], "rcvDhSecret (recipient side)")
    eq(smp.x25519_dh(H(m["server_queue_x25519_priv"]), rdh_pub).hex(), m["rcvDhSecret"], "rcvDhSecret (server side)")
    msg_id = H(m["msgId (=nonce)"])
    plain = smp.i64(m["msgTs"]) + b"T" + b" " + H(e["body"])
    eq(plain.hex(), m["plaintext_before_pad"], "MSG plaintext")
    enc = smp.encrypt_msg(secret, msg_id, plain)
    eq(len(enc), m["encrypted_len"], "MSG length")
    eq(enc[:48].hex(), m["encrypted_first_48_hex"], "MSG start")
    eq(hashlib.sha256(enc).hexdigest(), m["encrypted_sha256"], "MSG SHA-256")
    tr = smp.encode_server_transmission(18, sess, b"", H(s["rcvId"]), b"MSG " + smp.len1(msg_id) + enc)
    eq(hashlib.sha256(tr).hexdigest(), m["MSG_transmission_sha256"], "MSG transmission SHA-256")
    pt = smp.parse_server_transmission(18, sess, tr)
    r = smp.parse_response(18, pt["response"], pt["corrId"], pt["entity"])
    eq((r.tag, r.corr_id, r.entity, r["msgId"]), ("MSG", b"", H(s["rcvId"]), msg_id), "MSG parse")
    eq(smp.decrypt_msg(secret, r["msgId"], r["body"]),
       {"kind": "message", "ts": m["msgTs"], "notification": True, "body": H(e["body"])}, "MSG decryption")
    quota = b"QUOTA " + smp.i64(m["msgTs"])
    eq(quota.hex(), m["quota_marker_plaintext"], "QUOTA marker")
    eq(smp.decrypt_msg(secret, msg_id, smp.encrypt_msg(secret, msg_id, quota)), {"kind": "quota", "ts": m["msgTs"]},
       "QUOTA marker decryption")


def tv_links():
    v = load("links.json")
    i = v["int64 (EncodingTests)"]
    eq(smp.i64(i["value"]).hex(), i["smp_hex"], "Int64")
    eq(smp.Parser(H(i["smp_hex"])).i64(), i["value"], "Int64 parse")
    t = v["systemtime (EncodingTests)"]
    eq(smp.i64(t["seconds"]).hex(), t["smp_hex"], "SystemTime")
    a = smp.parse_server_address(v["inputs"]["server"])
    eq((a["keyHash"][:4].hex(), a["hosts"], a["port"]),
       (v["inputs"]["server_keyHash_bytes_hex"], ["smp.simplex.im",
                                                  "jjbyvoemxysm7qxap7m5d5m35jzv5qq6gnlv7s4rsn7tdwwmuqciwpid.onion"],
        "5223"), "server address")


def tv_signed_key_and_hellos():
    """§2.4 layouts that have no vector file: the signed DH key DER shape and the server hello round trip."""
    certs, leaf = smp.make_chain(2, "ed25519")
    lk = smp.SignKey("ed25519", smp.private_raw(leaf))
    pub = bytes(range(32))
    der = smp.signed_dh_key(pub, lk)
    eq(der[:16].hex(), "3078302c302a300506032b656e032100", "signed key prefix")
    eq(der[48:55].hex(), "300506032b6570", "AlgorithmIdentifier without parameters")
    eq(der[55:58].hex(), "034100", "BIT STRING of a 64-byte signature")
    eq(len(der), 0x7A, "signed key length")
    eq(smp.verify_signed_dh_key(der, "ed25519", lk.public), pub, "signed key verifies")
    raises("HANDSHAKE BAD_AUTH", lambda: smp.verify_signed_dh_key(der[:-1] + bytes([der[-1] ^ 1]), "ed25519",
                                                                     lk.public), "tampered signature")
    ders = [smp.cert_der(c) for c in certs]
    hello = smp.encode_server_hello((6, 18), b"s" * 32, ders, der)
    ph = smp.parse_server_hello(hello + b"future")
    eq((ph["versions"], ph["sessionId"], ph["chain"], ph["signedKey"]), ((6, 18), b"s" * 32, ders, der), "server hello")
    eq(smp.parse_server_hello(smp.encode_server_hello((6, 6), b"s" * 32, ders, None))["chain"], None, "v6 hello")
    raises("HANDSHAKE PARSE", lambda: smp.parse_server_hello(b"\x00\x12\x00\x06"), "min > max")
    c448, l448 = smp.make_chain(4, "ed448")
    k448 = smp.SignKey("ed448", smp.private_raw(l448))
    d448 = smp.signed_dh_key(pub, k448)
    eq(smp.verify_signed_dh_key(d448, "ed448", k448.public), pub, "Ed448 signed key")
    smp.check_server_chain([smp.cert_der(c) for c in c448], smp.identity_fingerprint([smp.cert_der(c) for c in c448]))


def tv_chain_checks():
    def ders(certs):
        return [smp.cert_der(c) for c in certs]
    for n in (2, 3, 4):
        d = ders(smp.make_chain(n)[0])
        eq(len(smp.check_server_chain(d, smp.identity_fingerprint(d))), n, f"chain of {n}")
    d2 = ders(smp.make_chain(2, basic_constraints=False)[0])
    smp.check_server_chain(d2, smp.identity_fingerprint(d2))  # the identity certificate is the anchor
    d3 = ders(smp.make_chain(3, basic_constraints=False)[0])
    e = raises("HANDSHAKE IDENTITY", lambda: smp.check_server_chain(d3, smp.identity_fingerprint(d3)), "3-chain")
    assert "basicConstraints" in e.detail, e.detail
    d = ders(smp.make_chain(3)[0])
    raises("HANDSHAKE IDENTITY", lambda: smp.check_server_chain(d, hashlib.sha256(d[0]).digest()), "leaf hash")
    raises("HANDSHAKE IDENTITY", lambda: smp.check_server_chain(d[:1], smp.identity_fingerprint(d)), "1 cert")
    raises("HANDSHAKE IDENTITY", lambda: smp.check_server_chain(d + d[1:], smp.identity_fingerprint(d)), "5 certs")
    swapped = [d[0], d[2], d[1]]
    raises("HANDSHAKE IDENTITY", lambda: smp.check_server_chain(swapped, smp.identity_fingerprint(swapped)), "order")
    other = ders(smp.make_chain(2)[0])
    mixed = [other[0], d2[1]]
    raises("HANDSHAKE IDENTITY", lambda: smp.check_server_chain(mixed, smp.identity_fingerprint(mixed)), "signer")


def e2e_bad_transmissions(s):
    """Unparsable transmissions are answered ERR BLOCK with an empty corrId, a bad authorization size with the
    corrId (reference tDecodeServer); the connection stays up."""
    c = s.client()
    try:
        c.transport.send_block(smp.encode_batch([b"\x05ab"]))
        r = c.next_event()
        eq((r.tag, r["error"], r.corr_id, r.entity), ("ERR", "BLOCK", b"", b""), "unparsable transmission")
        corr = secrets.token_bytes(24)
        w = smp.queue.Queue()
        c.pending[corr] = w
        c.transport.send_block(smp.encode_batch([smp.len1(b"s" * 10) + b"0" + smp.len1(corr) + smp.len1(b"q" * 24) +
                                                 b"SUB"]))
        r = c.wait(w)
        eq((r.tag, r["error"], r.entity), ("ERR", "BLOCK", b""), "10-byte signature")
        c.transport.send_block(b"\x00")
        eq(c.next_event()["error"], "BLOCK", "empty batch")
        smp.expect(c.ping(), "PONG")
    finally:
        c.close()


def tv_decoders_never_trap():
    """Truncations of every vector transmission give a typed SMPError, never another exception."""
    c = load("commands.json")
    sess = H(c["session_id"])
    for t in (c["NEW_v18"]["transmission_v16plus"], c["SUB"]["transmission_v16plus"], c["SEND"]["unsigned"]):
        raw = H(t)
        for n in range(len(raw)):
            try:
                smp.parse_client_transmission(18, sess, raw[:n])
            except smp.SMPError:
                pass
    for data in (b"", b"IDS", b"IDS \x18", b"MSG ", b"MSG \x05ab", b"SOK", b"SOK 2", b"OKX", b"ERR", b"\xff"):
        try:
            smp.parse_response(18, data)
        except smp.SMPError:
            pass
    for content in (b"", b"\x00", b"\x02\x00\x01a", b"\x01\x00\x05ab"):
        raises("BLOCK", lambda: smp.parse_batch(content), f"batch {content!r}")
    raises("BLOCK", lambda: smp.unpad(b"\x00\x10abc"), "unpad")
    for cmd in (b"NEW ", b"NEW \x2c", b"KEY", b"ACK", b"ACK \x05", b"SEND", b"SEND X body", b"SUB x"):
        srv = None
        try:
            srv = smp.SMPServer(end_interval=0)
            conn = smp.ServerConn(srv, None, None, 18, sess)
            tr = {"auth": b"", "service": None, "corrId": b"c", "entity": b"e" if not cmd.startswith(b"NEW") else b"",
                  "command": cmd, "signed": b""}
            try:
                srv._command(conn, tr)
            except smp.SMPError:
                pass
        finally:
            if srv:
                srv.stop()


# ---------------------------------------------------------------------------------------------------------------------
# 2. client <-> server on 127.0.0.1

class Server:
    """An in-process SMPServer that records its JSON log."""

    def __init__(self, **kw):
        self.log = []
        self.server = smp.SMPServer(log=self.log.append, **{"end_interval": 0, **kw}).start()
        self.address = self.server.address

    def client(self, **kw):
        return smp.SMPClient(self.address, **kw)

    def connections(self):
        return [e for e in self.log if e.get("event") == "connection"]

    def stop(self):
        self.server.stop()


def with_server(fn, **kw):
    def run():
        s = Server(**kw)
        try:
            fn(s)
        finally:
            s.stop()
    return run


def no_event(client, within=0.3):
    try:
        e = client.next_event(timeout=within)
    except smp.SMPError as x:
        eq(x.tag, "TIMEOUT", "no event")
        return
    raise AssertionError(f"unexpected event {e}")


def e2e_cli():
    """The CLI scenario in separate processes: server prints its address, the client runs every step."""
    srv = subprocess.Popen([sys.executable, os.path.join(HERE, "smp_peer.py"), "server", "--end-interval", "0"],
                           stdout=subprocess.PIPE, text=True)
    try:
        first = json.loads(srv.stdout.readline())
        assert first["address"].startswith("smp://") and first["address"].endswith(f"@127.0.0.1:{first['port']}")
        eq(first["chainLength"], 2, "default chain")
        out = subprocess.run([sys.executable, os.path.join(HERE, "smp_peer.py"), "client", first["address"], "all"],
                             capture_output=True, text=True, timeout=60)
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        eq(out.returncode, 0, f"client exit status, output {out.stdout} {out.stderr}")
        steps = [line["step"] for line in lines if "step" in line]
        for want in ("TLS profile", "no ALPN: versions 6-6", "AES-GCM only: refused", "create queue",
                     "secure queue (SKEY)", "send", "receive", "ack", "delete queue", "secure queue (KEY)", "get"):
            assert want in steps, want
        assert all(line["ok"] for line in lines), lines
        conn = next(line for line in lines if line.get("step") == "connect recipient")
        eq((conn["tlsVersion"], conn["cipher"], conn["alpn"], conn["version"], conn["blockEncryption"]),
           ("TLSv1.3", "TLS_CHACHA20_POLY1305_SHA256", "smp/1", 18, True), "client view of the profile")
        p256 = next(line for line in lines if line.get("step") == "P-256 only (reported)")
        eq(p256["refused"], True, "the Python server offers X25519/X448 only")
        srv_conn = next(e for e in map(json.loads, iter(srv.stdout.readline, ""))
                        if e.get("event") == "connection" and e.get("sessionId") == conn["sessionId"])
        eq((srv_conn["alpn"], srv_conn["cipher"], srv_conn["sni"], srv_conn["sessionId"], srv_conn["version"]),
           ("smp/1", "TLS_CHACHA20_POLY1305_SHA256", None, conn["sessionId"], 18), "server view of the profile")
    finally:
        srv.terminate()
        srv.wait(timeout=10)
    eq(srv.returncode, 0, "server exit on SIGTERM")
    srv = subprocess.Popen([sys.executable, os.path.join(HERE, "smp_peer.py"), "server", "--ed448", "--chain", "4",
                            "--quiet"], stdout=subprocess.PIPE, text=True)
    try:
        first = json.loads(srv.stdout.readline())
        eq((first["certificateKey"], first["chainLength"]), ("ed448", 4), "Ed448 chain of 4")
        out = subprocess.run([sys.executable, os.path.join(HERE, "smp_peer.py"), "client", first["address"], "key"],
                             capture_output=True, text=True, timeout=60)
        eq(out.returncode, 0, f"client exit status, output {out.stdout} {out.stderr}")
        out = subprocess.run([sys.executable, os.path.join(HERE, "smp_peer.py"), "client", first["address"], "bad"],
                             capture_output=True, text=True, timeout=90)
        eq(out.returncode, 0, f"bad-input scenario, output {out.stdout} {out.stderr}")
        eq(len([line for line in out.stdout.splitlines() if '"ok": true' in line]), 6, "five steps and done")
        bad = subprocess.run([sys.executable, os.path.join(HERE, "smp_peer.py"), "client",
                              smp.server_address(b"\x01" * 32, "127.0.0.1", first["port"]), "key"],
                             capture_output=True, text=True, timeout=60)
        eq(bad.returncode, 1, "a wrong fingerprint fails the scenario")
        line = json.loads(bad.stdout.splitlines()[0])
        eq((line["step"], line["ok"], line["error"]), ("connect", False, "HANDSHAKE IDENTITY"), "failed step")
    finally:
        srv.terminate()
        rest = srv.communicate(timeout=10)[0]
    eq(rest, "", "--quiet prints only the address")


def e2e_session_and_profile(s):
    c = s.client()
    try:
        pong = smp.expect(c.ping(), "PONG")  # the server has logged the connection once it answers
        eq(pong.corr_id != b"", True, "PONG carries the corrId")
        srv = s.connections()[-1]
        # the client's SSL_get_finished (its own Finished) equals the server's SSL_get_peer_finished: both are the
        # client Finished, as §2.3 defines the session id for TLS 1.3
        eq(c.tls_info["sessionId"], srv["sessionId"], "both sides read the same tls-unique")
        eq(len(c.session_id), 32, "session id length (SHA-256 verify_data)")
        eq((srv["alpn"], srv["cipher"], srv["tlsVersion"], srv["sni"], srv["blockEncryption"]),
           ("smp/1", "TLS_CHACHA20_POLY1305_SHA256", "TLSv1.3", None, True), "server view")
        eq(c.tls_info["chainLength"], 2, "chain")
    finally:
        c.close()


def _finished_messages(conn, context):
    """(own Finished, peer's Finished) of a TLSConn, read with SSL_get_finished / SSL_get_peer_finished. CPython's
    _ssl socket object holds, after PyObject_HEAD, a weak reference to its socket and then its SSL pointer; that
    the pointer's SSL_CTX is the context's proves it is the right one."""
    lib = smp._xr._libssl
    for f in (lib.SSL_get_finished, lib.SSL_get_peer_finished):
        f.restype, f.argtypes = ctypes.c_size_t, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.SSL_get_SSL_CTX.restype, lib.SSL_get_SSL_CTX.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
    ssl_ptr = ctypes.c_void_p.from_address(id(conn.obj._sslobj) + object.__basicsize__ +
                                           ctypes.sizeof(ctypes.c_void_p)).value
    ctx_ptr = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if lib.SSL_get_SSL_CTX(ssl_ptr) != ctx_ptr:
        raise AssertionError("could not locate the SSL object")
    out = []
    for f in (lib.SSL_get_finished, lib.SSL_get_peer_finished):
        buf = ctypes.create_string_buffer(64)
        n = f(ssl_ptr, buf, 64)
        out.append(buf.raw[:n])
    return out


def e2e_tls_unique_is_client_finished():
    """§2.3 under TLS 1.3 in this Python/OpenSSL: get_channel_binding("tls-unique") is the client's Finished on both
    sides (the client's own, the server's peer Finished) and differs from the server's Finished."""
    srv = smp.SMPServer(end_interval=0)  # its context and listener only; no accept loop
    try:
        got = {}

        def accept():
            raw, _ = srv.listener.accept()
            conn = smp.TLSConn(raw, srv.context, True)
            got["server"] = (_finished_messages(conn, srv.context), smp.tls_unique(conn))
            conn.close()
        t = threading.Thread(target=accept)
        t.start()
        context = smp._tls_context(False, (smp.ALPN_SMP,))
        client = smp.TLSConn(socket.create_connection(("127.0.0.1", srv.port), timeout=10), context, False)
        t.join(10)
        (c_own, c_peer), c_unique = _finished_messages(client, context), smp.tls_unique(client)
        client.close()
        (s_own, s_peer), s_unique = got["server"]
        eq((len(c_own), len(s_own)), (32, 32), "verify_data lengths")
        eq((c_unique, s_unique, s_peer), (c_own, c_own, c_own), "tls-unique = client Finished on both sides")
        eq(c_peer, s_own, "the server's Finished")
        assert s_own != c_own, "client and server Finished differ"
    finally:
        srv.stop()


def e2e_end_to_replaced_subscriber(s):
    a, b = s.client(), s.client()
    try:
        q = a.create_queue(subscribe=True)
        smp.expect(b.sub(q), "SOK")
        end = smp.expect(a.next_event(), "END")
        eq(end.entity, q.rcv_id, "END entity")
        eq(end.corr_id, b"", "END is an event")
        smp.expect(b.send(q.snd_id, b"to the new subscriber"), "OK")
        eq(q.decrypt(smp.expect(b.next_event(), "MSG"))["body"], b"to the new subscriber", "delivered to B")
        no_event(a)
        smp.expect(b.sub(q), "SOK")  # a repeated SUB re-delivers the un-ACKed message
        msg = smp.expect(b.next_event(), "MSG")
        eq(q.decrypt(msg)["body"], b"to the new subscriber", "re-delivery")
        smp.expect(b.ack(q, msg["msgId"]), "OK")
    finally:
        a.close()
        b.close()


def e2e_delayed_end(s):
    """ENDs wait for the next tick of --end-interval and go out together (reference pendingENDInterval)."""
    a, b = s.client(), s.client()
    try:
        q1, q2 = a.create_queue(subscribe=True), a.create_queue(subscribe=True)
        t0 = time.time()
        for w in b.send_transmissions([(q.rcv_id, b"SUB", q.rcv_key) for q in (q1, q2)]):
            smp.expect(b.wait(w), "SOK")
        ends = {smp.expect(a.next_event(timeout=5), "END").entity for _ in range(2)}
        eq(ends, {q1.rcv_id, q2.rcv_id}, "END for both queues")
        eq(a.blocks[-1], ["END", "END"], "one block")
        assert time.time() - t0 < 0.3 + 2, "END within the interval"
    finally:
        a.close()
        b.close()


def e2e_one_in_flight(s):
    c = s.client()
    try:
        q = c.create_queue(subscribe=False)
        for i in range(3):
            smp.expect(c.send(q.snd_id, b"m%d" % i, notification=False), "OK")
        smp.expect(c.sub(q), "SOK")
        msg = smp.expect(c.next_event(), "MSG")
        eq(q.decrypt(msg)["body"], b"m0", "first")
        no_event(c)
        for i in (1, 2):
            nxt = smp.expect(c.ack(q, msg["msgId"]), "MSG")
            assert nxt.corr_id, "the next MSG answers the ACK"
            eq(q.decrypt(nxt)["body"], b"m%d" % i, f"message {i}")
            msg = nxt
        err(c.ack(q, b"x" * 24), "NO_MSG", "ACK of another id")
        smp.expect(c.ack(q, msg["msgId"]), "OK")
        err(c.ack(q, msg["msgId"]), "NO_MSG", "repeated ACK")
        smp.expect(c.send(q.snd_id, b"pushed"), "OK")
        eq(q.decrypt(smp.expect(c.next_event(), "MSG"))["body"], b"pushed", "SEND to an idle subscriber is pushed")
    finally:
        c.close()


def e2e_batched_sub_ping(s):
    """SUB + PING in one block with a message waiting: one block [SOK, PONG, MSG] (§9.5)."""
    c = s.client()
    try:
        q = c.create_queue(subscribe=False)
        smp.expect(c.send(q.snd_id, b"waiting"), "OK")
        w_sub, w_ping = c.send_transmissions([(q.rcv_id, b"SUB", q.rcv_key), (b"", b"PING", None)])
        smp.expect(c.wait(w_sub), "SOK")
        smp.expect(c.wait(w_ping), "PONG")
        smp.expect(c.next_event(), "MSG")
        eq(c.blocks[-1], ["SOK", "PONG", "MSG"], "one block")
    finally:
        c.close()


def e2e_quota(s):
    c = s.client()
    try:
        q = c.create_queue(subscribe=False)
        for i in range(3):
            smp.expect(c.send(q.snd_id, b"q%d" % i), "OK")
        err(c.send(q.snd_id, b"over"), "QUOTA", "first SEND over quota")
        err(c.send(q.snd_id, b"over"), "QUOTA", "queue stays closed")
        got = []
        msg = smp.expect(c.get(q), "MSG")
        while True:
            got.append(q.decrypt(msg))
            smp.expect(c.ack(q, msg["msgId"]), "OK")
            r = c.get(q)
            if r.tag == "OK":
                break
            msg = smp.expect(r, "MSG")
        eq([g.get("body") for g in got], [b"q0", b"q1", b"q2", None], "messages then the marker")
        eq(got[-1]["kind"], "quota", "QUOTA marker")
        smp.expect(c.send(q.snd_id, b"again"), "OK")
    finally:
        c.close()


def e2e_get_vs_sub(s):
    c = s.client()
    try:
        q = c.create_queue(subscribe=False)
        smp.expect(c.get(q), "OK")
        err(c.sub(q), "CMD PROHIBITED", "SUB after GET")
        q2 = c.create_queue(subscribe=True)
        err(c.get(q2), "CMD PROHIBITED", "GET while subscribed")
        other = s.client()
        try:
            smp.expect(other.get(q2), "OK")  # GET from another connection does not move the subscription
        finally:
            other.close()
        no_event(c)
    finally:
        c.close()


def e2e_errors(s):
    c = s.client()
    try:
        q = c.create_queue(subscribe=False)
        sk = smp.SignKey()
        err(c.send(q.snd_id, b"x", sk), "AUTH", "signed SEND to an unsecured queue")
        smp.expect(c.send(q.snd_id, b"unsigned ok"), "OK")
        smp.expect(c.secure_by_sender(q.snd_id, sk), "OK")
        smp.expect(c.secure_by_sender(q.snd_id, sk), "OK")  # idempotent retry
        err(c.secure_by_sender(q.snd_id, smp.SignKey()), "AUTH", "SKEY with another key")
        err(c.secure_by_recipient(q, smp.SignKey()), "AUTH", "KEY with another key")
        err(c.send(q.snd_id, b"x"), "AUTH", "unsigned SEND to a secured queue")
        err(c.send(q.snd_id, b"x", smp.SignKey()), "AUTH", "SEND with a wrong key")
        err(c.send(q.snd_id, b"x" * 16049, sk), "LARGE_MSG", "SEND over 16,048")
        smp.expect(c.send(q.snd_id, b"x" * 16048, sk), "OK")
        err(c.request(q.rcv_id, b"SUB"), "CMD NO_AUTH", "unsigned SUB")
        err(c.request(q.rcv_id, b"SUB", smp.SignKey()), "AUTH", "SUB with a wrong key")
        err(c.request(b"\x01" * 24, b"SUB", q.rcv_key), "AUTH", "unknown queue")
        err(c.request(b"", b"SUB", q.rcv_key), "CMD NO_AUTH", "SUB without an entity (reference checkCredentials)")
        err(c.request(b"", smp.cmd_key(b"SKEY", sk), sk), "CMD NO_AUTH", "SKEY without an entity")
        err(c.request(b"", smp.cmd_send(b"x")), "CMD NO_ENTITY", "SEND without an entity")
        err(c.request(q.snd_id, b"SEND T"), "CMD SYNTAX", "SEND without the space after the flags")
        err(c.request(b"", b"HELLO"), "CMD UNKNOWN", "unknown command")
        err(c.request(q.rcv_id, b"ACK", q.rcv_key), "CMD SYNTAX", "ACK without id")
        err(c.request(b"", b"PING", q.rcv_key), "CMD HAS_AUTH", "signed PING")
        rk = smp.SignKey()
        _, dh = smp.x25519_keypair()
        err(c.request(q.rcv_id, smp.cmd_new(18, rk, dh), rk), "CMD HAS_AUTH", "NEW with an entity")
        err(c.request(b"", smp.cmd_new(18, rk, dh)), "CMD NO_AUTH", "unsigned NEW")
        err(c.request(b"", smp.cmd_new(18, rk, dh), smp.SignKey()), "AUTH", "NEW signed by another key")
        err(c.request(q.rcv_id, b"LGET"), "CMD PROHIBITED", "short links are not served")  # unsigned, as LGET is
        contact = c.create_queue(subscribe=False, mode="C")
        err(c.secure_by_sender(contact.snd_id, smp.SignKey()), "AUTH", "SKEY on a contact queue")
        smp.expect(c.off(q), "OK")
        err(c.send(q.snd_id, b"x", sk), "AUTH", "SEND after OFF")
        smp.expect(c.get(q), "MSG")  # GET after OFF still delivers
        smp.expect(c.delete(q), "OK")
        err(c.get(q), "AUTH", "GET after DEL")
        q448 = c.create_queue(subscribe=False, key_kind="ed448")
        smp.expect(c.get(q448), "OK")  # Ed448 recipient keys verify too
        smp.expect(c.ping(), "PONG")
    finally:
        c.close()


def e2e_deld(s):
    a, b = s.client(), s.client()
    try:
        q = a.create_queue(subscribe=True)
        smp.expect(b.delete(q), "OK")
        d = smp.expect(a.next_event(), "DELD")
        eq(d.entity, q.rcv_id, "DELD entity")
    finally:
        a.close()
        b.close()


def e2e_versions(s):
    """Every version 6..18 end to end: the per-version NEW/IDS/SUB layouts, session id in v6 transmissions, block
    encryption from v11, the service slot from v16."""
    for v in range(6, 19):
        c = s.client(versions=(6, v))
        try:
            eq(c.version, v, "negotiated")
            eq(c.tls_info["blockEncryption"], v >= 11, f"v{v} block encryption")
            q = c.create_queue(subscribe=False)
            eq(q.queue_mode, "M" if v >= 9 else None, f"v{v} queue mode")
            sk = smp.SignKey()
            smp.expect(c.secure_by_recipient(q, sk) if v < 9 else c.secure_by_sender(q.snd_id, sk), "OK")
            smp.expect(c.send(q.snd_id, b"v%d" % v, sk), "OK")
            smp.expect(c.sub(q), "SOK" if v >= 16 else "OK")
            msg = smp.expect(c.next_event(), "MSG")
            eq(q.decrypt(msg)["body"], b"v%d" % v, f"v{v} message")
            smp.expect(c.ack(q, msg["msgId"]), "OK")
            smp.expect(c.delete(q), "OK")
        finally:
            c.close()
    eq([e["version"] for e in s.connections()][-13:], list(range(6, 19)), "server saw every version")


def e2e_chains():
    for kind, n in (("ed25519", 3), ("ed25519", 4), ("ed448", 2), ("ed448", 4)):
        s = Server(kind=kind, chain_length=n)
        try:
            c = s.client()
            try:
                eq(c.tls_info["chainLength"], n, f"{kind} chain of {n}")
                smp.expect(c.ping(), "PONG")
                q = c.create_queue()
                smp.expect(c.send(q.snd_id, b"x"), "OK")
                smp.expect(c.next_event(), "MSG")
            finally:
                c.close()
        finally:
            s.stop()


def e2e_refusals(s):
    wrong = smp.server_address(b"\x00" * 32, "127.0.0.1", s.server.port)
    raises("HANDSHAKE IDENTITY", lambda: smp.SMPClient(wrong), "wrong fingerprint")
    c = smp.SMPClient(s.address, alpn=())
    try:
        eq((c.tls_info["alpn"], c.server_versions, c.version), (None, (6, 6), 6), "no ALPN: version 6 only")
        smp.expect(c.ping(), "PONG")
    finally:
        c.close()
    raises("VERSION", lambda: smp.SMPClient(s.address, alpn=(), versions=(7, 18)), "no ALPN, no v6")
    # a client hello with a version outside the server's range: the connection is closed
    raw = socket.create_connection(("127.0.0.1", s.server.port), timeout=10)
    tls = smp.TLSConn(raw, smp._tls_context(False, (smp.ALPN_SMP,)), False)
    t = smp.Transport(tls)
    t.recv_block()
    t.send_block(smp.encode_client_hello(99, s.server.key_hash, None))
    raises("CLOSED", t.recv_block, "wrong-version hello closes")
    tls.close()
    # the server's SNI report is real: a client that sends one is seen (SMP clients do not, §2.1)
    raw = socket.create_connection(("127.0.0.1", s.server.port), timeout=10)
    tls = smp.TLSConn(raw, smp._tls_context(False, (smp.ALPN_SMP,)), False, sni="smp.example")
    t = smp.Transport(tls)
    t.recv_block()
    t.send_block(smp.encode_client_hello(18, s.server.key_hash, None))
    t.send_block(smp.encode_batch([smp.encode_client_transmission(18, b"", b"c" * 24, b"", b"PING")]))
    t.recv_block()
    tls.close()
    eq(s.connections()[-1]["sni"], "smp.example", "SNI seen by the server")
    eq(s.connections()[-1]["blockEncryption"], False, "no client key, no block encryption")
    # garbage, truncated blocks: that connection closes, the others are served
    good = s.client()
    try:
        for junk in (secrets.token_bytes(smp.BLOCK_SIZE), b"\x01" * 100):
            bad = s.client()
            with bad.transport.lock:
                bad.tls.sendall(junk)
            if len(junk) < smp.BLOCK_SIZE:
                bad.tls.shutdown(socket.SHUT_WR)
            raises("CLOSED", lambda: bad.next_event(timeout=5), "server closes after a bad block")
            bad.close()
        smp.expect(good.ping(), "PONG")
    finally:
        good.close()
    reasons = [e["reason"] for e in s.log if e.get("event") == "closed"]
    assert any(r.startswith("VERSION") for r in reasons), reasons
    assert any(r.startswith("BLOCK") for r in reasons), reasons


def e2e_basic_auth(s):
    addr = s.address
    assert ":secret@" in addr, addr
    c = s.client()
    try:
        err(c.request(b"", *(lambda rk: (smp.cmd_new(18, rk, smp.x25519_keypair()[1]), rk))(smp.SignKey())),
            "AUTH", "NEW without the password")
        q = c.create_queue(basic_auth="secret")
        eq(len(q.rcv_id), 24, "NEW with the password")
        raises("AUTH", lambda: c.create_queue(basic_auth="wrong"), "wrong password")
    finally:
        c.close()


def main():
    check("vectors: the generator reproduces the committed files", tv_generator)
    check("vectors: transport (DH, sbcInit, chain steps, first encrypted block, client hello)", tv_transport)
    check("vectors: commands (NEW v18/v15, SUB, SKEY, SEND, MSG encryption, QUOTA marker)", tv_commands)
    check("vectors: links (Int64, SystemTime, server address)", tv_links)
    check("signed DH key and server hello layouts (Ed25519, Ed448)", tv_signed_key_and_hellos)
    check("server chain checks (2..4, fingerprint, order, signer, basicConstraints)", tv_chain_checks)
    check("decoders give typed errors on truncated input", tv_decoders_never_trap)
    check("CLI: server and client processes, full scenario", e2e_cli)
    check("TLS profile and session id", with_server(e2e_session_and_profile))
    check("tls-unique is the client Finished (TLS 1.3)", e2e_tls_unique_is_client_finished)
    check("END to the replaced subscriber, re-delivery on a repeated SUB", with_server(e2e_end_to_replaced_subscriber))
    check("END batched on --end-interval", with_server(e2e_delayed_end, end_interval=0.3))
    check("one message in flight until ACK", with_server(e2e_one_in_flight))
    check("SUB + PING answered in one block", with_server(e2e_batched_sub_ping))
    check("quota, QUOTA marker, writing resumes", with_server(e2e_quota, quota=3))
    check("GET vs SUB", with_server(e2e_get_vs_sub))
    check("error codes", with_server(e2e_errors))
    check("unparsable transmissions and bad authorization sizes", with_server(e2e_bad_transmissions))
    check("DELD to the subscriber", with_server(e2e_deld))
    check("versions 6..18", with_server(e2e_versions))
    check("Ed25519/Ed448 chains of 2..4", e2e_chains)
    check("refusals: fingerprint, ALPN, version, bad blocks", with_server(e2e_refusals))
    check("basic auth for NEW", with_server(e2e_basic_auth, password="secret"))
    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
