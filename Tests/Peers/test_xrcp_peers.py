#!/usr/bin/env python3
"""Self-test of the Python XRCP peers (no pytest): `python3 test_xrcp_peers.py`; last line `N passed, M failed`.

1. The xrcp.md §19.2 vectors that xrcp_controller.py covers.
2. Controller (CLI process) <-> host stub (CLI process) over 127.0.0.1: first pairing, send, empty recv, a queued
   chat event, storeFile + getFile of a 300 KB file with digest checks, with and without compression; a second session
   with the stored pairings (and one found by multicast on loopback); a few tamper modes and rejections.
"""
import hashlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.join(HERE, "..", "..", ".venv", "bin", "python")

try:
    import h2  # noqa: F401
    import nacl  # noqa: F401
    import zstandard  # noqa: F401
    from pqcrypto import sntrup_761  # noqa: F401
except ImportError:
    if os.path.exists(VENV_PY) and not os.environ.get("XRCP_PEERS_REEXEC"):
        os.environ["XRCP_PEERS_REEXEC"] = "1"
        os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])
    print("needs the packages of scripts/fixtures/requirements.txt and Tests/Peers/requirements.txt "
          "(e.g. the repository's .venv)", file=sys.stderr)
    raise

sys.dont_write_bytecode = True  # leave no __pycache__ beside the peers
sys.path.insert(0, HERE)
import xrcp_controller as x  # noqa: E402
from selftest import RESULTS, check, eq  # noqa: E402


# ---------------------------------------------------------------------------------------------------------------------
# §19.2 vectors

S1, S2, D3, D4 = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32, b"\x04" * 32
CA_FP = bytes(range(0x10, 0x30))
APP = x.controller_app_info("My Desktop", True)
INV_URI = ("xrcp:/EBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8=@192.168.1.10:45678#/?v=1&app=%7B%22appVersionRange%22%3A"
           "%7B%22maxVersion%22%3A%226.5.0.13%22%2C%22minVersion%22%3A%226.5.0.12%22%7D%2C%22compression%22%3Atrue%2C"
           "%22deviceName%22%3A%22My%20Desktop%22%7D&ts=1750000000&skey=MCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlB"
           "Ib83SIAbQPb1w%3D&idkey=MCowBQYDK2VwAyEAgTl3Dqh9F19Wo1Rmw0x-zMuNipG07jeiXfYPW4_Js5Q%3D&dh=MCowBQYDK2VuAyEAXf"
           "7dO2vUf2-ijuFdlp1bsOpTd01Ii9r53xxuASSz7yI%3D&ssig=WPhhfi1WLg0ZRzU3b17icO1HHSSflL8AfpRyZqKS-vedpOX8ascCTyf-nw"
           "uJhEJHrVrvJTtIKjqrAjVzZq4LCg==&idsig=dU-RfXp1hlQcTG7WDkDE6KYWDtwKnDqzCwOPpw8BLqV8xDGaGHfgDy3C67MXtSeQlGyQmN"
           "bneYo2vEPEVhawCQ==")
H = bytes.fromhex


def tv_pad():
    eq(x.pad(b"hello", 16).hex(), "000568656c6c6f232323232323232323", "pad")
    eq(x.unpad(x.pad(b"hello", 16)), b"hello", "unpad")
    for n in (16384, 12288, 900):
        eq(len(x.pad(b"a" * (n - 2), n)), n, f"pad {n}")
        try:
            x.pad(b"a" * (n - 1), n)
            raise AssertionError(f"pad({n - 1}, {n}) accepted")
        except x.XRCPError:
            pass
    try:
        x.unpad(b"\x00\x05abc")
        raise AssertionError("short unpad accepted")
    except x.XRCPError:
        pass


def tv_spki():
    eq(x.spki_ed25519(x.ed25519_pub(S1)).hex(),
       "302a300506032b65700321008a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c", "skey")
    eq(x.spki_ed25519(x.ed25519_pub(S2)).hex(),
       "302a300506032b65700321008139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394", "idkey")
    eq(x.spki_x25519(x.x25519_pub(D3)).hex(),
       "302a300506032b656e0321005dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22", "ctrlDh")
    eq(x.spki_x25519(x.x25519_pub(D4)).hex(),
       "302a300506032b656e032100ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10b", "hostDh")
    eq(x.len1(x.spki_x25519(x.x25519_pub(D4)))[0], 0x2c, "len1")
    eq(len(x.b64u(bytes(32))), 44, "b64u 32")
    eq(x.b64u_decode(x.b64u(b"\xff" * 64)), b"\xff" * 64, "b64u round trip")


def tv_inv():
    uri = x.render_invitation(CA_FP, "192.168.1.10", 45678, APP, 1750000000, S1, S2, x.x25519_pub(D3))
    eq(uri, INV_URI, "URI")
    eq(len(uri.encode()), 658, "length")
    unsigned = INV_URI[:INV_URI.index("&ssig=")]
    ssig = x.ed25519_sign(S1, unsigned.encode())
    eq(ssig.hex(), "58f8617e2d562e0d194735376f5ee270ed471d249f94bf007e947266a292faf79da4e5fc6ac7024f27fe9f0b89844247"
                   "ad5aef253b482a3aab02357366ae0b0a", "ssig")
    legacy = x.render_invitation(CA_FP, "192.168.1.10", 45678, APP, 1750000000, S1, S2, x.x25519_pub(D3),
                                 legacy_idsig=True)
    eq(x.b64u_decode(legacy[legacy.index("&idsig=") + 7:]).hex(),
       "f7fbadd4c2b8ba08ed3151506b536808a1cfb2a53075d0d3c1c93abce7f799435f88f180f13b16238969d337b5318313f8f29abbbcfa"
       "457a241d1f072511680b", "legacy idsig")
    inv = x.parse_invitation(uri)
    eq(inv["idsig"].hex(), "754f917d7a7586541c4c6ed60e40c4e8a6160edc0a9c3ab30b038fa70f012ea57cc4319a1877e00f2dc2ebb317"
                           "b52790946c9098d6e7798a36bc43c45616b009", "idsig")
    eq(inv["app"], APP, "app parse")
    try:
        x.parse_invitation(legacy)
        raise AssertionError("legacy idsig verified")
    except x.XRCPError:
        pass
    eq(x.aeson_json({"b": "a\"\\\n\r\t\x01/<\x7fé", "a": [1, True, None]}),
       '{"a":[1,true,null],"b":"a\\"\\\\\\n\\r\\t\\u0001/<\x7fé"}', "aeson escaping")
    eq(x.qenc("a b=~é"), "a%20b%3D~%C3%A9", "qenc")


def tv_dh():
    dh = x.x25519_dh(D3, x.x25519_pub(D4))
    eq(dh.hex(), "40e47a3f525bdcac491d418978d7db5af623ac7afe7623c6d78a5d4fce9d0f63", "dh")
    eq(x.x25519_dh(D4, x.x25519_pub(D3)), dh, "dh symmetric")
    eq(x.sx_key(dh).hex(), "2a7e61b6389226baa04c5738c81d23db39ecf157632f9d000c918f0ec66be83e", "HSalsa20")
    import nacl.bindings
    eq(nacl.bindings.crypto_box_beforenm(x.x25519_pub(D4), D3), x.sx_key(dh), "crypto_box_beforenm")


def tv_sxbox():
    k, n = b"\x11" * 32, b"\x22" * 24
    eq(x.sx_key(k).hex(), "ebe2ea9953a361619e3ba13000fe51dbf0d8da61064b4e93a6dd3acc6499d080", "HSalsa20")
    eq(x.sx_box(k, n, b"hello").hex(), "a3696edb209c402ad676213ab65f7d20ea048b5303", "sx_box")
    eq(x.sx_box_tt(k, n, b"hello").hex(), "ea048b5303a3696edb209c402ad676213ab65f7d20", "sx_box_tt")
    eq(x.sx_box(k, n, x.pad(b"hello", 32)).hex(),
       "f2d6a22bfd35ef987aa6f8ceb207998282648f5a0049316b52cf9907ef6cecb635497763e4440094f9a9792370545bf7", "padded")
    eq(x.sx_open_tt(k, n, H("ea048b5303a3696edb209c402ad676213ab65f7d20")), b"hello", "open tt")
    try:
        x.sx_open_tt(k, n, H("ea048b5303a3696edb209c402ad676213ab65f7d21"))
        raise AssertionError("bad tag accepted")
    except x.XRCPError as e:
        eq(e.tag, "decrypt", "tag")


def tv_mcast():
    pkt = x.announcement_packet(D3, x.x25519_pub(D4), INV_URI, bytes(range(0x40, 0x58)))
    eq(len(pkt), 985, "length")
    eq(hashlib.sha256(pkt).hexdigest(), "ae08f0cb3b988fa8ccf99487511da2ff271e5913d06614fdc90871a0185725a0", "SHA-256")
    eq(pkt[:80].hex(), "2c302a300506032b656e0321005dfedd3b6bd47f6fa28ee15d969d5bb0ea53774d488bdaf9df1c6e0124b3ef22"
                       "404142434445464748494a4b4c4d4e4f505152535455565724b0271e7ba307db124c53", "prefix")


def tv_hello():
    msg = x.host_hello_message(D4, x.x25519_pub(D3), b'{"v":1,"ca":"AAAA","app":{},"kem":"AAAA"}',
                               bytes(range(0x80, 0x98)))
    eq(len(msg), 12379, "message length")
    block = x.pad(msg, 16384)
    eq(block[:2 + 6 + 45 + 24].hex(),
       "305b48454c4c4f202c302a300506032b656e032100ac01b2209e86354fb853237b5de0f4fab13c7fcbf433a61c019369617fecf10b"
       "808182838485868788898a8b8c8d8e8f9091929394959697", "prefix")
    eq(hashlib.sha256(block).hexdigest(), "592297e8c079cac0ee56cb7f99955393fd757f3166dce272d70a0faf837d7374", "SHA-256")
    dh_pub, obj = x.parse_host_hello(block, D3)
    eq(dh_pub, x.x25519_pub(D4), "parsed key")
    eq(obj, {"v": 1, "ca": "AAAA", "app": {}, "kem": "AAAA"}, "parsed JSON")


def chains():
    dh = x.x25519_dh(D3, x.x25519_pub(D4))
    return x.chain_init(x.hybrid_secret(dh, bytes(range(0x60, 0x80))))


def tv_hybrid():
    dh = x.x25519_dh(D3, x.x25519_pub(D4))
    eq(x.hybrid_secret(dh, bytes(range(0x60, 0x80))).hex(),
       "98c8eeb05d50059b16b5ec6f7db8423f2993860d200ee8917e66a842d6598271", "hybrid")


def tv_chain():
    ck_a, ck_b = chains()
    eq(ck_a.hex(), "0b6b0978c56e08695ddb7fe5af08b83c9739cfa2c56be19dde39e442a1e39e7d", "ckA")
    eq(ck_b.hex(), "dd6b3469439198f751754c7690529e3aa4094e49573b4bda15b16ea4d59070e0", "ckB")
    a = x.Chain(ck_a)
    for i, (key, nonce, nxt) in enumerate([
            ("9161f32719544fb8c06dabbad15b43f604f1789fe4eea806d4fd7f1723621205",
             "3d22a39c0a65a6b09b4140d2b1d5f549fe44d7b036839ca7",
             "1982fc1a4bbe28740169181cddd971327c8ebd835ef99af1330ce815264f72a8"),
            ("7289cca0bf3dc7425e35f10aa7cf4a46e5c070d25a8a3c2aed7b85f000fb77d9",
             "37fefdae73a1e3a5110fa84f2670d9985b694deb7a5ee93b",
             "d7fd35bd91b29df6bfc2f8c5363c5ae42b4dcc05368b7ea12e5ded6dd919765a"),
            ("64da61bb8f67e738d05d6014e65f3cca114a36f7370a990758345b7f2d26f514",
             "6c9ccfec899195d9627a2ecefc0e2850a292db36bb69d120",
             "050ce3c0f99c06c23d9de75ff7ae1ddce722ef8e38c892287fea0fa93092cb75")]):
        k, n = a.step()
        eq((k.hex(), n.hex(), a.ck.hex()), (key, nonce, nxt), f"ckA step {i + 1}")
    b = x.Chain(ck_b)
    for i, (key, nonce, nxt) in enumerate([
            ("57044c91854af1f157076eb9456fdddfd761732d864ecc83f821127afc3bb5bc",
             "0d4c9bbe9d522efb5d6a04a59c0c7b6016905772df091f41",
             "92f3813796e172b603689664ca391349c5c6a6296c397a11a434dfffe8b20a0f"),
            ("22e36c9f833cc0be59e530bd526a1de6ef5be20f9c9e9f5ec0dba65668f7b577",
             "d19d661f9440c63a9d6a7c2bfddd4f90e293a1b3d4c48f49",
             "e21012d92360cb586f83890d05d68a02328f67b0e688d613117718cc25666c5c")]):
        k, n = b.step()
        eq((k.hex(), n.hex(), b.ck.hex()), (key, nonce, nxt), f"ckB step {i + 1}")


def tv_chello():
    ck_a, _ = chains()
    key, nonce = x.Chain(ck_a).step()
    enc = x.sx_box(key, nonce, x.pad(b"{}", 12288))
    eq(len(enc), 12304, "length")
    eq(enc[:16].hex(), "d3eaa1fad723f55dacd7b0fe23b3ecbe", "tag")
    eq(hashlib.sha256(enc).hexdigest(), "871637e83df8e3f1f8646703e676de1b0ba59599ad2f5084ab615f1337762cec", "SHA-256")
    msg = x.ctrl_hello_message(b"\xaa" * 1039, key, nonce)
    eq(len(msg), 13351, "message length")
    eq(x.pad(msg, 16384)[:2].hex(), "3427", "block prefix")


def tv_body():
    ck_a, _ = chains()
    send = x.SendChain(ck_a)
    send.chain.step()  # the controller HELLO took step 1
    corr, body_kn, _ = send.next()
    eq(corr, 1, "corrId")
    code = bytes(range(0xa0, 0xc0))
    cmd = {"type": "recv", "wait": 10000000}
    eq(x.len1(code) + x.compact_json(cmd), H("20a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                                            "7b2274797065223a2272656376222c2277616974223a31303030303030307d"), "plaintext")
    enc = x.enc_body(corr, body_kn, code, x.compact_json(cmd))
    body = enc + x.request_sigs(enc, S1, S2)
    expected = H("00000001" "00000050"
                 "698138d9ae4ec57b8161cde94a4a8351172b35e1ac11f5f77ba082922112f20f967435787c2c4637148183851397e4a355"
                 "b40491ce22634ad5bbbce51d10a00bdcc4033fdf1dac72f7f9d54c327a6bb6"
                 "40" "a48932a0427b89127b81102a633012a74529deb20346259c8e97af9d2d3331fc1e3fad8086f0f08e11578d38691ce41a"
                 "9c7731d2b2f6b45d15aba6922d66080a"
                 "40" "56de8fea16f92d0045be56eb8b8710dde25653e6504c849c8248235eb65f5b85100ff2a11f609bb11c226977bda18463"
                 "e53f1b2130d63032ce1e5b31f9036f09")
    eq(len(body), 218, "length")
    eq(body.hex(), expected.hex(), "body")
    # the receiver's parse
    recv = x.RecvChain(ck_a)
    recv.chain.step()
    c, enc2, ct, rest = x.split_enc_body(body)
    kn, _ = recv.keys_for(c)
    eq(x.open_body(ct, kn, code, False), cmd, "parsed")


def tv_counters():
    ck_a, ck_b = chains()
    send, recv = x.SendChain(ck_b), x.RecvChain(ck_b)
    keys = {}
    for _ in range(5):
        c, b, f = send.next()
        keys[c] = (b, f)
    eq(recv.keys_for(1), keys[1], "in order")
    eq(recv.keys_for(4), keys[4], "skip ahead")
    eq(recv.keys_for(2), keys[2], "saved")
    for bad, tag in ((4, "pREDuplicateId"), (2, "pREEarlierId"), (4 + 257, "manySkippedIds")):
        try:
            recv.keys_for(bad)
            raise AssertionError(f"{bad} accepted")
        except x.XRCPError as e:
            eq(e.tag, tag, f"corrId {bad}")
    eq(recv.keys_for(3), keys[3], "saved after errors")
    eq(recv.keys_for(5), keys[5], "next")
    eq(len(x.attachment(keys[1][1], b"abc")), 1 + 4 + 3 + 16, "attachment length")
    data = os.urandom(1000)
    digest = x.b64u(hashlib.sha512(data).digest())
    eq(x.open_attachment(x.attachment(keys[1][1], data), keys[1][1], 1000, digest), data, "attachment round trip")
    frame = x.zstd_compress(b'{"a":1}' * 10)
    eq(zstandard.frame_content_size(frame), 70, "zstd content size")
    eq(x.zstd_decompress(frame), b'{"a":1}' * 10, "zstd round trip")
    eq(x.zstd_decompress(zstandard.ZstdCompressor(write_content_size=False).compress(b"abc")), b"", "no size")


def tv_code():
    eq(x.session_code(bytes(range(32))),
       "17807 31860 62770 00449 60722 56837 65922 00742 32963 73031 99754 54759 83699 79440 671", "code 1")
    eq(x.session_code(bytes([0, 0]) + bytes(range(2, 32))),
       "13884 79584 93157 15377 42506 76336 73684 91484 57404 27580 79642 59921 68686 82089 5", "code 2")


def tv_certs():
    from cryptography import x509 as cx
    ca_seed, leaf_seed = os.urandom(32), os.urandom(32)
    ca = x.make_ca(ca_seed, 25)
    leaf = x.make_leaf(leaf_seed, ca, ca_seed)
    der = x.cert_der(ca)
    eq(ca.serial_number, 1, "serial")
    eq(ca.version, cx.Version.v3, "version")
    eq(len(ca.extensions), 0, "no extensions")
    eq(ca.subject.rfc4514_string(), "CN=ca", "CA subject")
    eq(leaf.subject.rfc4514_string(), "CN=localhost", "leaf subject")
    eq(leaf.issuer, ca.subject, "issuer")
    eq(b"\x0c\x02ca" in der, True, "UTF8String CN")
    eq(b"\x18\x0f" in der and b"\x17\x0d" in der, True, "UTCTime notBefore, GeneralizedTime notAfter")
    eq(x.leaf_signed_by(x.cert_der(leaf), der), True, "leaf signed by CA")
    eq(x.leaf_signed_by(x.cert_der(leaf), x.cert_der(x.make_ca(os.urandom(32), 25))), False, "other CA")
    age = time.time() - ca.not_valid_before_utc.timestamp()
    eq(25 * 3600 - 5 < age < 25 * 3600 + 5, True, "CA notBefore now-25h")
    eq(x.owsf_to_tagged({"result": {"_owsf": True, "cmdOk": {}}}), {"result": {"type": "cmdOk"}}, "owsf")
    eq(x.owsf_to_tagged({"_owsf": True, "protocolError": {"_owsf": True, "pRESessionCode": {}}}),
       {"type": "protocolError", "data": {"type": "pRESessionCode"}}, "owsf nested")


# ---------------------------------------------------------------------------------------------------------------------
# processes

class Proc:
    def __init__(self, argv, name):
        self.name = name
        self.p = subprocess.Popen([sys.executable] + argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1)
        self.q = queue.Queue()
        self.backlog = []
        self.eof_seen = False
        self.log = []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._err, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            try:
                obj = json.loads(line)
            except ValueError:
                obj = {"event": "_unparsed", "line": line}
            self.log.append(obj)
            self.q.put(obj)
        self.q.put({"event": "_eof"})

    def _err(self):
        for line in self.p.stderr:
            self.stderr.append(line)

    def send(self, obj):
        try:
            self.p.stdin.write(json.dumps(obj) + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def expect(self, pred, timeout=15, what=""):
        """The first not yet consumed event matching `pred` (events that do not match stay available)."""
        deadline = time.time() + timeout
        while True:
            for i, ev in enumerate(self.backlog):
                if pred(ev):
                    del self.backlog[i]
                    return ev
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError(f"{self.name}: timed out waiting for {what}; log={self.log[-8:]}; "
                                     f"stderr={''.join(self.stderr)[-2000:]}")
            try:
                ev = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if ev.get("event") == "_eof":
                self.q.put(ev)
                if self.eof_seen:
                    raise AssertionError(f"{self.name}: ended while waiting for {what}; log={self.log[-8:]}; "
                                         f"stderr={''.join(self.stderr)[-2000:]}")
                self.eof_seen = True
                continue
            self.backlog.append(ev)

    def event(self, name, timeout=15, **match):
        return self.expect(lambda e: e.get("event") == name and all(e.get(k) == v for k, v in match.items()),
                           timeout, f"{name} {match}")

    def wait(self, timeout=10):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError(f"{self.name} did not exit")

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


CTRL = os.path.join(HERE, "xrcp_controller.py")
STUB = os.path.join(HERE, "xrcp_host_stub.py")


def start_pair(work, compression="on", stub_compression="on", ctrl_extra=(), stub_extra=(), uri_hook=None):
    ctrl = Proc([CTRL, "--pairing", os.path.join(work, "ctrl.json"), "--device-name", "Test Desktop",
                 "--listen", "127.0.0.1", "--compression", compression, "--recv-wait", "300000",
                 "--timeout", "15"] + list(ctrl_extra), "controller")
    inv = ctrl.event("invitation")
    stub = Proc([STUB, "--pairing", os.path.join(work, "host.json"), "--uri", uri_hook(inv["uri"]) if uri_hook
                 else inv["uri"], "--compression", stub_compression, "--files", os.path.join(work, "hostfiles"),
                 "--max-wait-ms", "300"] + list(stub_extra), "host stub")
    return ctrl, stub, inv


def session(work, compression, first):
    ctrl, stub, inv = start_pair(work, compression=compression)
    try:
        eq(inv["newHost"], first, "newHost in invitation")
        c_code = ctrl.event("sessionCode")["code"]
        s_code = stub.event("sessionCode")["code"]
        eq(c_code, s_code, "session codes")
        eq(len(c_code.replace(" ", "")) >= 70, True, "code length")
        conn = ctrl.event("connected")
        eq(conn["compression"], compression == "on", "compression negotiated")
        eq(conn["newHost"], first, "newHost")
        eq(conn["hostApp"]["appVersion"], "6.5.0.13", "host app version")
        eq(stub.event("connected")["newController"], first, "newController")
        # the background long-poll returns empty after the stub's 300 ms
        ctrl.event("recvEmpty")
        ctrl.send({"id": "1", "send": "/v"})
        r = ctrl.event("response", id="1")
        eq(r["json"], {"type": "chatResponse", "chatResponse": {"result": {"type": "cmdOk"}}}, "send response")
        stub.expect(lambda e: e.get("event") == "request" and e["json"].get("type") == "send", what="send request")
        # an explicit recv that times out empty
        ctrl.send({"id": "2", "recv": 200000})
        eq(ctrl.event("response", id="2")["json"], {"type": "chatEvent"}, "empty recv")
        # a queued event arrives through the long poll
        ctrl.send({"id": "3", "send": "/_stub event"})
        ctrl.event("response", id="3")
        ev = ctrl.event("chatEvent")
        eq(ev["json"], {"result": {"type": "stubEvent", "n": 1}}, "chat event")
        # 300 KB up and down
        src = os.path.join(work, "up.bin")
        data = os.urandom(300 * 1024)
        with open(src, "wb") as f:
            f.write(data)
        ctrl.send({"id": "4", "storeFile": src})
        r = ctrl.event("response", id="4", timeout=30)
        eq(r["json"]["type"], "fileStored", "storeFile response")
        stored = os.path.join(work, "hostfiles", r["json"]["filePath"])
        with open(stored, "rb") as f:
            eq(hashlib.sha512(f.read()).digest(), hashlib.sha512(data).digest(), "stored file digest")
        dst = os.path.join(work, "down.bin")
        remote = {"userId": 1, "fileId": 7, "sent": False, "fileSource": {"filePath": r["json"]["filePath"]}}
        ctrl.send({"id": "5", "getFile": remote, "to": dst})
        r = ctrl.event("response", id="5", timeout=30)
        eq((r["json"]["type"], r["digestOk"], r["size"]), ("file", True, len(data)), "getFile response")
        with open(dst, "rb") as f:
            eq(f.read(), data, "downloaded file")
        eq(r["json"]["fileDigest"], x.b64u(hashlib.sha512(data).digest()), "announced digest")
        ctrl.send({"stop": True})
        ctrl.event("stopped", reason="user")
        eq(ctrl.wait(), 0, "controller exit code")
        stub.event("stopped")
        eq(stub.wait(), 0, "stub exit code")
    finally:
        ctrl.kill()
        stub.kill()


def e2e_sessions():
    for compression in ("on", "off"):
        work = tempfile.mkdtemp(prefix="xrcp-peers-")
        os.makedirs(os.path.join(work, "hostfiles"))
        try:
            session(work, compression, first=True)
            with open(os.path.join(work, "ctrl.json")) as f:
                stored = json.load(f)
            eq(bool(stored["hostFingerprint"] and stored["hostDhPub"]), True, "controller pairing stored")
            session(work, compression, first=False)  # the stored pairings
            with open(os.path.join(work, "ctrl.json")) as f:
                again = json.load(f)
            eq(again["caCert"], stored["caCert"], "same CA reused")
            eq(again["hostFingerprint"], stored["hostFingerprint"], "same host fingerprint")
            eq(again["hostDhPub"] != stored["hostDhPub"], True, "host DH key updated")
        finally:
            shutil.rmtree(work, ignore_errors=True)


def with_pair(fn, **kw):
    work = tempfile.mkdtemp(prefix="xrcp-peers-")
    os.makedirs(os.path.join(work, "hostfiles"))
    procs = []
    try:
        fn(work, procs, **kw)
    finally:
        for p in procs:
            p.kill()
        shutil.rmtree(work, ignore_errors=True)


def e2e_multicast(work, procs):
    # first pairing over the URI
    ctrl, stub, _ = start_pair(work)
    procs += [ctrl, stub]
    ctrl.event("connected")
    ctrl.send({"stop": True})
    ctrl.wait()
    stub.wait()
    # second session found by multicast on loopback (never leaves 127.0.0.1)
    port = 20000 + os.getpid() % 20000
    ctrl = Proc([CTRL, "--pairing", os.path.join(work, "ctrl.json"), "--listen", "127.0.0.1", "--no-poll",
                 "--announce", f"224.0.0.251:{port}", "--announce-from", "127.0.0.1", "--announce-interval", "0.2",
                 "--announce-count", "50"], "controller")
    procs.append(ctrl)
    stub = Proc([STUB, "--pairing", os.path.join(work, "host.json"), "--discover", f"224.0.0.251:{port}",
                 "--discover-iface", "127.0.0.1", "--discover-timeout", "10"], "host stub")
    procs.append(stub)
    inv = ctrl.event("invitation")
    eq(ctrl.event("announcing")["packetSize"], 985, "packet size")
    eq(stub.event("found")["uri"], inv["uri"], "announced invitation")
    eq(ctrl.event("connected")["newHost"], False, "known host")
    ctrl.send({"id": "1", "send": "/v"})
    ctrl.event("response", id="1")
    ctrl.send({"stop": True})
    eq(ctrl.wait(), 0, "exit")


def e2e_body_tampers(work, procs):
    ctrl, stub, _ = start_pair(work, ctrl_extra=["--no-poll"])
    procs += [ctrl, stub]
    ctrl.event("connected")

    def perr(rid):
        return ctrl.event("response", id=rid)["json"]

    ctrl.send({"id": "a", "send": "/v", "tamper": "wrong-session-key-signature"})
    eq(perr("a")["remoteProcotolError"], {"type": "pRERemoteControl", "rcError": {"type": "ctrlAuth"}}, "bad ssig")
    ctrl.send({"id": "b", "send": "/v", "tamper": "wrong-id-key-signature"})
    eq(perr("b")["remoteProcotolError"]["rcError"]["type"], "ctrlAuth", "bad idsig")
    ctrl.send({"id": "c", "send": "/v", "tamper": "replay"})
    # The two copies travel on two HTTP/2 streams at once and the host serves streams concurrently: whichever it
    # reads first is answered, the other is the duplicate.
    answers = [perr("c"), ctrl.event("response", id="c:2")["json"]]
    eq(sorted(a["type"] for a in answers), ["chatResponse", "protocolError"], "one copy answered")
    eq([a["remoteProcotolError"] for a in answers if "remoteProcotolError" in a], [{"type": "pREDuplicateId"}],
       "the other refused as a replay")
    ctrl.send({"id": "d", "send": "/v", "tamper": "reorder"})
    eq(perr("d")["type"], "chatResponse", "reordered 1")
    eq(ctrl.event("response", id="d:2")["json"]["type"], "chatResponse", "reordered 2")
    ctrl.send({"id": "e", "send": "/v", "tamper": "wrong-session-code"})
    eq(perr("e")["remoteProcotolError"], {"type": "pRESessionCode"}, "session code")
    ctrl.send({"id": "f", "send": "/v", "tamper": "corrupt-body"})
    eq(perr("f")["remoteProcotolError"]["rcError"]["type"], "decrypt", "corrupt")
    ctrl.send({"id": "g", "send": "/v", "tamper": "zstd-no-content-size"})
    eq(perr("g")["remoteProcotolError"]["type"], "invalidJSON", "zstd without size")
    src = os.path.join(work, "f.bin")
    with open(src, "wb") as f:
        f.write(os.urandom(5000))
    ctrl.send({"id": "h", "storeFile": src, "tamper": "wrong-file-digest"})
    eq(perr("h")["remoteProcotolError"], {"type": "fileDigest"}, "file digest")
    ctrl.send({"id": "h2", "storeFile": src, "tamper": "no-attachment"})
    eq(perr("h2")["remoteProcotolError"], {"type": "noFile"}, "no attachment")
    ctrl.send({"id": "h3", "storeFile": src, "tamper": "short-attachment"})
    eq(perr("h3")["remoteProcotolError"], {"type": "fileSize"}, "short attachment")
    ctrl.send({"id": "h4", "send": "/v", "tamper": "uncompressed"})
    eq(perr("h4")["remoteProcotolError"]["type"], "invalidBody", "uncompressed JSON while compression is on")
    ctrl.send({"id": "h5", "raw": {"type": "frobnicate"}})
    eq(perr("h5")["remoteProcotolError"]["type"], "invalidJSON", "unknown command")
    ctrl.send({"id": "h6", "send": "/v"})
    eq(perr("h6")["type"], "chatResponse", "still working after errors")
    ctrl.send({"id": "i", "send": "/v", "tamper": "skip-ids"})
    eq(perr("i")["remoteProcotolError"]["type"], "manySkippedIds", "skipped ids")
    ctrl.send({"id": "j", "replay": "a"})  # an earlier body whose keys were never derived... (ctrlAuth: bad sig)
    eq(perr("j")["remoteProcotolError"]["rcError"]["type"], "ctrlAuth", "replayed bad signature")
    ctrl.send({"id": "k", "replay": "c"})  # an earlier body whose keys were used
    eq(perr("k")["remoteProcotolError"]["type"], "pREEarlierId", "earlier id")
    ctrl.send({"stop": True})
    eq(ctrl.wait(), 0, "exit")


def fresh(work):
    sub = tempfile.mkdtemp(dir=work)
    os.makedirs(os.path.join(sub, "hostfiles"))
    return sub


def e2e_rejections(top, procs):
    # the stub (host) rejects tampered invitations before TLS / at TLS
    for mode, tag in (("legacy-idsig", "badInvitation"), ("wrong-ca-in-invitation", "identity")):
        ctrl, stub, _ = start_pair(fresh(top), ctrl_extra=["--tamper", mode])
        procs += [ctrl, stub]
        eq(stub.event("error")["tag"], tag, mode)
        eq(stub.wait(), 1, "stub exit")
        ctrl.send({"stop": True})
        ctrl.event("stopped")
        ctrl.wait()
    # the controller rejects a HELLO whose ca is not the TLS CA, and a too old app version
    for mode, tag in (("hello-wrong-ca", "identity"), ("old-app-version", "badVersion")):
        ctrl, stub, _ = start_pair(fresh(top), stub_extra=["--tamper", mode])
        procs += [ctrl, stub]
        eq(ctrl.event("error")["tag"], tag, mode)
        eq(ctrl.wait(), 1, "controller exit")
        stub.wait()
    # controller ERROR block -> host ctrlError; bad controller HELLO -> host decrypt
    for mode, tag in (("ctrl-error-block", "ctrlError"), ("bad-ctrl-hello", "decrypt")):
        ctrl, stub, _ = start_pair(fresh(top), ctrl_extra=["--tamper", mode])
        procs += [ctrl, stub]
        eq(stub.event("error")["tag"], tag, mode)
        ctrl.event("stopped", timeout=15)
        ctrl.wait()
    # a 16385-byte controller HELLO: the host takes 16384 bytes, then the extra '#' breaks the HTTP/2 preface
    ctrl, stub, _ = start_pair(fresh(top), ctrl_extra=["--tamper", "oversized-block"])
    procs += [ctrl, stub]
    stub.event("connected")
    eq("preamble" in stub.event("stopped")["reason"].lower(), True, "HTTP/2 preface error")
    ctrl.event("stopped", reason="disconnected")
    ctrl.wait()
    # a controller offering only AES-GCM: the handshake fails, the controller keeps waiting, then stops
    ctrl, stub, _ = start_pair(fresh(top), ctrl_extra=["--tamper", "aes-cipher"])
    procs += [ctrl, stub]
    eq(ctrl.event("error")["stage"], "tls", "TLS failure reported")
    eq(stub.wait(), 1, "stub fails")
    ctrl.send({"stop": True})
    ctrl.event("stopped", reason="user")
    eq(ctrl.wait(), 0, "controller exit")
    # compression advertised by the controller only: off on both sides
    ctrl, stub, _ = start_pair(fresh(top), stub_compression="off", ctrl_extra=["--no-poll"])
    procs += [ctrl, stub]
    eq(ctrl.event("connected")["compression"], False, "controller compression")
    eq(stub.event("connected")["compression"], False, "host compression")
    ctrl.send({"id": "1", "send": "/v"})
    eq(ctrl.event("response", id="1")["json"]["type"], "chatResponse", "uncompressed round trip")
    ctrl.send({"stop": True})
    ctrl.wait()
    # a swift-encoding host: the controller converts single-field JSON to tagged
    ctrl, stub, _ = start_pair(fresh(top), stub_extra=["--tamper", "swift-encoding"], ctrl_extra=["--no-poll"])
    procs += [ctrl, stub]
    eq(ctrl.event("connected")["hostApp"]["encoding"], "swift", "encoding")
    ctrl.send({"id": "1", "send": "/v"})
    eq(ctrl.event("response", id="1")["json"]["chatResponse"], {"result": {"type": "cmdOk"}}, "converted")
    ctrl.send({"stop": True})
    ctrl.wait()


def e2e_pinning(work, procs):
    """A known controller pairing rejects a host whose CA changed (unknown_ca), then accepts the right one."""
    ctrl, stub, _ = start_pair(work)
    procs += [ctrl, stub]
    ctrl.event("connected")
    ctrl.send({"stop": True})
    ctrl.wait()
    stub.wait()
    os.rename(os.path.join(work, "host.json"), os.path.join(work, "host.saved"))
    ctrl, stub, inv = start_pair(work)  # a host without the pairing: new CA
    procs += [ctrl, stub]
    eq("identity" in ctrl.event("error")["error"], True, "controller refuses the unknown CA")
    eq(stub.wait(), 1, "stub fails")
    os.rename(os.path.join(work, "host.saved"), os.path.join(work, "host.json"))
    stub = Proc([STUB, "--pairing", os.path.join(work, "host.json"), "--uri", inv["uri"],
                 "--files", os.path.join(work, "hostfiles")], "host stub 2")
    procs.append(stub)
    eq(ctrl.event("connected")["newHost"], False, "same invitation still accepts the right host")
    ctrl.send({"stop": True})
    eq(ctrl.wait(), 0, "exit")


def main():
    t0 = time.time()
    for name, fn in [("TV-PAD", tv_pad), ("TV-SPKI", tv_spki), ("TV-INV", tv_inv), ("TV-DH", tv_dh),
                     ("TV-SXBOX", tv_sxbox), ("TV-MCAST", tv_mcast), ("TV-HELLO", tv_hello), ("TV-HYBRID", tv_hybrid),
                     ("TV-CHAIN", tv_chain), ("TV-CHELLO", tv_chello), ("TV-BODY", tv_body),
                     ("counters/attachment/zstd", tv_counters), ("TV-CODE", tv_code), ("certificates/owsf", tv_certs)]:
        check(name, fn)
    check("e2e: pairing, send, recv, files, second session (compression on/off)", e2e_sessions)
    check("e2e: multicast announcement on loopback", lambda: with_pair(e2e_multicast))
    check("e2e: body tamper modes", lambda: with_pair(e2e_body_tampers))
    check("e2e: handshake rejections and swift encoding", lambda: with_pair(e2e_rejections))
    check("e2e: pinning of a known host", lambda: with_pair(e2e_pinning))
    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"total {time.time() - t0:.1f}s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
