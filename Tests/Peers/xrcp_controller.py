#!/usr/bin/env python3
"""An independent XRCP *controller* (the SimpleX Desktop role), written from the XRCP specification (xrcp.md) alone.

It is a test peer for simplex-host: it shares no code with the Swift implementation. Only the Python 3.11 standard
library and the pinned packages `pynacl`, `cryptography`, `pqcrypto`, `h2` and `zstandard` are used.

Library: the primitives (§1), certificates (§3), TLS helpers (§4), invitation (§5), announcement (§6), HELLO blocks
(§7), key schedule (§8), bodies and attachments (§9, §10) and a small HTTP/2 pump over a TLS socket are importable.

CLI (line-oriented, for a test harness) -- events, commands, exit codes and tamper modes: `--help`:

    xrcp_controller.py --pairing FILE --device-name NAME --listen HOST[:PORT] [--address IPV4]
                       [--compression on|off] [--timeout SECONDS] [--recv-wait MICROSECONDS] [--no-poll]
                       [--announce GROUP:PORT --announce-from IPV4 [--announce-count N] [--announce-interval S]]
                       [--tamper MODE]...

stdout: one JSON object per line ("event" key); stdin: one JSON object per line (commands).
"""
import argparse
import base64
import ctypes
import ctypes.util
import datetime
import hashlib
import json
import os
import queue
import select
import socket
import ssl
import struct
import sys
import tempfile
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import nacl.bindings
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.x509.oid import NameOID

try:  # optional at import time (the test vectors do not need it); required when compression is negotiated
    import zstandard
except ImportError:  # pragma: no cover
    zstandard = None

try:
    from pqcrypto import sntrup_761
except ImportError:  # pragma: no cover
    sntrup_761 = None

XRCP_VERSION = 1
APP_MIN_VERSION = "6.5.0.12"
APP_MAX_VERSION = "6.5.0.13"
BLOCK_SIZE = 16384
HELLO_PAD = 12288
ANNOUNCE_PAD = 900
RECV_WAIT_US = 10_000_000
MAX_SKIP = 256
KEM_PK_LEN, KEM_CT_LEN = 1158, 1039


class XRCPError(Exception):
    """An error with a tag in the spirit of RCErrorType / RemoteProtocolError (e.g. "identity", "pREDuplicateId")."""

    def __init__(self, tag, detail=""):
        super().__init__(f"{tag}: {detail}" if detail else tag)
        self.tag = tag
        self.detail = detail


# ---------------------------------------------------------------------------------------------------------------------
# §1 encodings

def b64u(data: bytes) -> str:
    """RFC 4648 §5 base64url with '=' padding."""
    return base64.urlsafe_b64encode(data).decode("ascii")


def b64u_decode(text: str) -> bytes:
    text = text.strip()
    if not text:
        raise ValueError("empty base64url")
    body = text.rstrip("=")
    if any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in body):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def qenc(value: str) -> str:
    """http-types `urlEncode True`: everything but A-Z a-z 0-9 - _ . ~ becomes %XX (upper-case hex)."""
    safe = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~"
    return "".join(chr(b) if b in safe else "%%%02X" % b for b in value.encode("utf-8"))


def qdec(value: str) -> str:
    """One URL decoding: '+' -> space, %XX -> byte (invalid escapes are kept literally)."""
    raw = value.replace("+", " ").encode("utf-8")
    hexdigits = b"0123456789abcdefABCDEF"
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25 and i + 2 < len(raw) + 1 and len(raw[i + 1:i + 3]) == 2 \
                and all(c in hexdigits for c in raw[i + 1:i + 3]):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", errors="replace")


def aeson_string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def aeson_json(value, sort_keys=True) -> str:
    """Compact JSON as Haskell aeson writes it (keys sorted byte-wise when sort_keys)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, str):
        return aeson_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(aeson_json(v, sort_keys) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8")) if sort_keys else list(value)
        return "{" + ",".join(aeson_string(k) + ":" + aeson_json(value[k], sort_keys) for k in keys) + "}"
    raise TypeError(f"cannot encode {type(value)}")


def compact_json(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def pad(msg: bytes, n: int) -> bytes:
    if len(msg) > min(65533, n - 2):
        raise XRCPError("blockSize", f"message of {len(msg)} bytes does not fit {n}")
    return struct.pack(">H", len(msg)) + msg + b"#" * (n - 2 - len(msg))


def unpad(p: bytes) -> bytes:
    if len(p) < 2:
        raise XRCPError("blockSize", "padded message shorter than 2 bytes")
    (n,) = struct.unpack(">H", p[:2])
    if len(p) < 2 + n:
        raise XRCPError("blockSize", f"length {n} exceeds padded message")
    return p[2:2 + n]


ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
X25519_SPKI_PREFIX = bytes.fromhex("302a300506032b656e032100")


def spki_ed25519(pub: bytes) -> bytes:
    return ED25519_SPKI_PREFIX + pub


def spki_x25519(pub: bytes) -> bytes:
    return X25519_SPKI_PREFIX + pub


def parse_spki(spki: bytes, kind: str) -> bytes:
    prefix = X25519_SPKI_PREFIX if kind == "x25519" else ED25519_SPKI_PREFIX
    if len(spki) != 44 or spki[:12] != prefix:
        raise XRCPError("syntax", f"not an {kind} SubjectPublicKeyInfo")
    return spki[12:]


def len1(x: bytes) -> bytes:
    if len(x) > 255:
        raise ValueError("len1 value too long")
    return bytes([len(x)]) + x


def len2(x: bytes) -> bytes:
    return struct.pack(">H", len(x)) + x


def u32(n: int) -> bytes:
    return struct.pack(">I", n)


# ---------------------------------------------------------------------------------------------------------------------
# §1.6 sx_box, §1.7 hashes and HKDF

def _rotl(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def hsalsa20(key: bytes, inp: bytes) -> bytes:
    """HSalsa20 core (pure Python): 20 rounds of Salsa20 on key/input, output words 0,5,10,15,6,7,8,9."""
    assert len(key) == 32 and len(inp) == 16
    c = struct.unpack("<4I", b"expand 32-byte k")
    k = struct.unpack("<8I", key)
    n = struct.unpack("<4I", inp)
    x = [c[0], k[0], k[1], k[2], k[3], c[1], n[0], n[1], n[2], n[3], c[2], k[4], k[5], k[6], k[7], c[3]]

    def qr(a, b, cc, d):
        x[b] ^= _rotl((x[a] + x[d]) & 0xFFFFFFFF, 7)
        x[cc] ^= _rotl((x[b] + x[a]) & 0xFFFFFFFF, 9)
        x[d] ^= _rotl((x[cc] + x[b]) & 0xFFFFFFFF, 13)
        x[a] ^= _rotl((x[d] + x[cc]) & 0xFFFFFFFF, 18)

    for _ in range(10):
        qr(0, 4, 8, 12); qr(5, 9, 13, 1); qr(10, 14, 2, 6); qr(15, 3, 7, 11)  # columns
        qr(0, 1, 2, 3); qr(5, 6, 7, 4); qr(10, 11, 8, 9); qr(15, 12, 13, 14)  # rows
    return struct.pack("<8I", x[0], x[5], x[10], x[15], x[6], x[7], x[8], x[9])


def sx_key(k: bytes) -> bytes:
    return hsalsa20(k, bytes(16))


def sx_box(k: bytes, nonce: bytes, m: bytes) -> bytes:
    """tag(16) || ciphertext, XSalsa20-Poly1305 with the HSalsa20 pre-step on K."""
    return nacl.bindings.crypto_secretbox(m, nonce, sx_key(k))


def sx_open(k: bytes, nonce: bytes, c: bytes) -> bytes:
    if len(c) < 16:
        raise XRCPError("decrypt", "ciphertext shorter than the tag")
    try:
        return nacl.bindings.crypto_secretbox_open(c, nonce, sx_key(k))
    except Exception as e:  # nacl.exceptions.CryptoError
        raise XRCPError("decrypt", str(e)) from None


def sx_box_tt(k: bytes, nonce: bytes, m: bytes) -> bytes:
    """ciphertext || tag (tail tag, no padding) -- bodies and attachments."""
    c = sx_box(k, nonce, m)
    return c[16:] + c[:16]


def sx_open_tt(k: bytes, nonce: bytes, c: bytes) -> bytes:
    if len(c) < 16:
        raise XRCPError("decrypt", "ciphertext shorter than the tag")
    return sx_open(k, nonce, c[-16:] + c[:-16])


def hkdf512(ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA512(), length=length, salt=b"", info=info).derive(ikm)


def x25519_dh(priv: bytes, pub: bytes) -> bytes:
    return x25519.X25519PrivateKey.from_private_bytes(priv).exchange(x25519.X25519PublicKey.from_public_bytes(pub))


def x25519_pub(priv: bytes) -> bytes:
    return x25519.X25519PrivateKey.from_private_bytes(priv).public_key().public_bytes_raw()


def ed25519_pub(seed: bytes) -> bytes:
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()


def ed25519_sign(seed: bytes, msg: bytes) -> bytes:
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed).sign(msg)


def ed25519_verify(pub: bytes, sig: bytes, msg: bytes) -> bool:
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
        return True
    except (InvalidSignature, ValueError):
        return False


def session_code(tls_unique: bytes) -> str:
    s = str(int.from_bytes(tls_unique, "big"))
    return " ".join(s[i:i + 5] for i in range(0, len(s), 5))


# ---------------------------------------------------------------------------------------------------------------------
# §8 key schedule

def hybrid_secret(dh: bytes, kem_shared: bytes) -> bytes:
    return hashlib.sha3_256(dh + kem_shared).digest()


def chain_init(hybrid: bytes):
    """(ckA, ckB): ckA = controller -> host, ckB = host -> controller."""
    out = hkdf512(hybrid, b"SimpleXSbChainInit", 64)
    return out[:32], out[32:]


class Chain:
    """One direction's chain key; `step()` returns (key, nonce) and advances (§8.3)."""

    def __init__(self, ck: bytes):
        self.ck = ck

    def step(self):
        out = hkdf512(self.ck, b"SimpleXSbChain", 88)
        self.ck = out[:32]
        return out[32:64], out[64:88]


class SendChain:
    """Send counter + chain: every message takes two steps (body, attachment) (§8.4, §9.3)."""

    def __init__(self, ck: bytes, counter=0):
        self.chain = Chain(ck)
        self.counter = counter

    def next(self):
        self.counter += 1
        body = self.chain.step()
        file = self.chain.step()
        return self.counter, body, file


class RecvChain:
    """Receive counter + chain with the skipped-key store of §9.4."""

    def __init__(self, ck: bytes, max_skip=MAX_SKIP):
        self.chain = Chain(ck)
        self.counter = 0
        self.skipped = {}
        self.max_skip = max_skip

    def keys_for(self, corr_id: int):
        if corr_id > self.counter + self.max_skip:
            raise XRCPError("manySkippedIds", str(corr_id - self.counter))
        if corr_id == self.counter:
            raise XRCPError("pREDuplicateId")
        if corr_id < self.counter:
            keys = self.skipped.pop(corr_id, None)
            if keys is None:
                raise XRCPError("pREEarlierId", str(self.counter - corr_id))
            return keys
        for i in range(self.counter + 1, corr_id):
            self.skipped[i] = (self.chain.step(), self.chain.step())
        keys = (self.chain.step(), self.chain.step())
        self.counter = corr_id
        return keys


# ---------------------------------------------------------------------------------------------------------------------
# §3 certificates

# Test hook: pretend this controller's clock is off by so many hours (certificates and invitation time alike), to
# reproduce clock-skew faults on a host.
CLOCK_SKEW_SECONDS = float(os.environ.get("XRCP_PEER_CLOCK_SKEW_HOURS", "0")) * 3600


def _utc_now_seconds():
    now = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=CLOCK_SKEW_SECONDS)
    return now.replace(microsecond=0)


def make_certificate(subject_cn: str, key_seed: bytes, issuer_name, signer_seed: bytes, hours_before: int):
    """X.509 v3, serial 1, CN as UTF8String, no extensions, Ed25519; notAfter = now + 23 999 976 h (§3.1)."""
    now = _utc_now_seconds()
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject_cn)])
    key = ed25519.Ed25519PrivateKey.from_private_bytes(key_seed)
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer_name if issuer_name is not None else subject)
               .public_key(key.public_key())
               .serial_number(1)
               .not_valid_before(now - datetime.timedelta(hours=hours_before))
               .not_valid_after(now + datetime.timedelta(hours=23_999_976)))
    return builder.sign(ed25519.Ed25519PrivateKey.from_private_bytes(signer_seed), None)


def make_ca(seed: bytes, hours_before: int):
    return make_certificate("ca", seed, None, seed, hours_before)


def make_leaf(leaf_seed: bytes, ca_cert, ca_seed: bytes):
    return make_certificate("localhost", leaf_seed, ca_cert.subject, ca_seed, 1)


def cert_der(cert) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


def fingerprint(der: bytes) -> bytes:
    return hashlib.sha256(der).digest()


def pkcs8(seed: bytes) -> bytes:
    """RFC 8410 PKCS#8 without public key (48 bytes), as kept at rest by the reference (§1.4)."""
    return bytes.fromhex("302e020100300506032b657004220420") + seed


def seed_from_pkcs8(der: bytes) -> bytes:
    if len(der) != 48 or not der.startswith(bytes.fromhex("302e020100300506032b6570")):
        raise ValueError("not an Ed25519 PKCS#8 key")
    return der[16:]


def leaf_signed_by(leaf_der: bytes, ca_der: bytes) -> bool:
    leaf = x509.load_der_x509_certificate(leaf_der)
    ca = x509.load_der_x509_certificate(ca_der)
    try:
        ca.public_key().verify(leaf.signature, leaf.tbs_certificate_bytes)
    except (InvalidSignature, TypeError, ValueError):
        return False
    return leaf.issuer == ca.subject


# ---------------------------------------------------------------------------------------------------------------------
# §4 TLS (Python ssl + a few OpenSSL calls through ctypes)
#
# OpenSSL's chain verification rejects SimpleX CAs (no basicConstraints, §20.35) and Python's ssl has no verify
# callback, ciphersuite (TLS 1.3), groups or sigalgs setters: they are installed on the SSL_CTX with ctypes. CPython's
# SSLContext object starts with PyObject_HEAD followed by its SSL_CTX pointer; reading the verify mode back through
# that pointer proves it is the context's before anything is written.

SSL_VERIFY_PEER = 0x01
SSL_VERIFY_FAIL_IF_NO_PEER_CERT = 0x02
X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT = 2  # OpenSSL maps it to the unknown_ca alert
SSL_CTRL_SET_GROUPS_LIST = 92
SSL_CTRL_SET_SIGALGS_LIST = 98
SSL_CTRL_SET_CLIENT_SIGALGS_LIST = 102

_libssl = ctypes.CDLL(ctypes.util.find_library("ssl") or "libssl.so.3")
_libcrypto = ctypes.CDLL(ctypes.util.find_library("crypto") or "libcrypto.so.3")
_libssl.SSL_CTX_get_verify_mode.restype = ctypes.c_int
_libssl.SSL_CTX_get_verify_mode.argtypes = [ctypes.c_void_p]
VERIFY_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
_libssl.SSL_CTX_set_verify.restype = None
_libssl.SSL_CTX_set_verify.argtypes = [ctypes.c_void_p, ctypes.c_int, VERIFY_CALLBACK]
_libssl.SSL_CTX_set_ciphersuites.restype = ctypes.c_int
_libssl.SSL_CTX_set_ciphersuites.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_libssl.SSL_CTX_ctrl.restype = ctypes.c_long
_libssl.SSL_CTX_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_long, ctypes.c_char_p]
_libssl.OpenSSL_version.restype = ctypes.c_char_p
_libssl.OpenSSL_version.argtypes = [ctypes.c_int]
_libcrypto.X509_STORE_CTX_get0_untrusted.restype = ctypes.c_void_p
_libcrypto.X509_STORE_CTX_get0_untrusted.argtypes = [ctypes.c_void_p]
_libcrypto.X509_STORE_CTX_set_error.restype = None
_libcrypto.X509_STORE_CTX_set_error.argtypes = [ctypes.c_void_p, ctypes.c_int]
_libcrypto.OPENSSL_sk_num.restype = ctypes.c_int
_libcrypto.OPENSSL_sk_num.argtypes = [ctypes.c_void_p]
_libcrypto.OPENSSL_sk_value.restype = ctypes.c_void_p
_libcrypto.OPENSSL_sk_value.argtypes = [ctypes.c_void_p, ctypes.c_int]
_libcrypto.i2d_X509.restype = ctypes.c_int
_libcrypto.i2d_X509.argtypes = [ctypes.c_void_p, ctypes.c_void_p]


def _x509_der(ptr) -> bytes:
    n = _libcrypto.i2d_X509(ptr, None)
    if n <= 0:
        raise ValueError("i2d_X509 failed")
    buf = ctypes.create_string_buffer(n)
    p = ctypes.c_void_p(ctypes.addressof(buf))
    _libcrypto.i2d_X509(ptr, ctypes.byref(p))
    return buf.raw


def _ssl_ctx_pointer(context, mode):
    if _libssl.OpenSSL_version(0).decode() != ssl.OPENSSL_VERSION:
        raise RuntimeError(f"ctypes libssl {_libssl.OpenSSL_version(0)} is not the one ssl uses ({ssl.OPENSSL_VERSION})")
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if _libssl.SSL_CTX_get_verify_mode(pointer) != mode:
        raise RuntimeError("could not locate the SSL_CTX of the Python SSLContext")
    return pointer


def make_tls_context(server: bool, chain_ders, leaf_seed: bytes, check_chain=None,
                     ciphersuites="TLS_CHACHA20_POLY1305_SHA256"):
    """TLS 1.3 context with the SimpleX parameters (§4.1) and certificate chain [leaf, CA].

    check_chain(list_of_der) -> None or an error string: called from OpenSSL's verify callback with the peer's chain as
    sent; an error makes OpenSSL abort the handshake with the unknown_ca alert (§4.2). Without it every chain is
    accepted (checks are then done after the handshake)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server else ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.maximum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED  # a server then sends CertificateRequest
    if server:
        context.num_tickets = 0
    tmp = tempfile.mkdtemp(prefix="xrcp-tls-")
    try:
        chain_path, key_path = os.path.join(tmp, "chain.pem"), os.path.join(tmp, "key.pem")
        with open(chain_path, "w") as f:
            for der in chain_ders:
                f.write(ssl.DER_cert_to_PEM_cert(der))
        with open(key_path, "wb") as f:
            f.write(ed25519.Ed25519PrivateKey.from_private_bytes(leaf_seed).private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        context.load_cert_chain(chain_path, key_path)
    finally:
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)
    mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
    ctx = _ssl_ctx_pointer(context, mode)
    if _libssl.SSL_CTX_set_ciphersuites(ctx, ciphersuites.encode()) != 1:
        raise RuntimeError("SSL_CTX_set_ciphersuites failed")
    if _libssl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_GROUPS_LIST, 0, b"X25519:X448") != 1:
        raise RuntimeError("setting groups failed")
    for ctrl in (SSL_CTRL_SET_SIGALGS_LIST, SSL_CTRL_SET_CLIENT_SIGALGS_LIST):
        if _libssl.SSL_CTX_ctrl(ctx, ctrl, 0, b"ed25519:ed448") != 1:
            raise RuntimeError("setting signature algorithms failed")

    def verify(preverify_ok, store_ctx):
        if check_chain is None:
            return 1
        try:
            stack = _libcrypto.X509_STORE_CTX_get0_untrusted(store_ctx)
            ders = [_x509_der(_libcrypto.OPENSSL_sk_value(stack, i)) for i in range(_libcrypto.OPENSSL_sk_num(stack))] \
                if stack else []
            problem = check_chain(ders)
        except Exception as e:  # never let an exception cross into OpenSSL
            problem = f"verify callback failed: {e}"
        if problem:
            context.xrcp_rejection = problem
            _libcrypto.X509_STORE_CTX_set_error(store_ctx, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT)
            return 0
        return 1

    context.xrcp_verify_callback = VERIFY_CALLBACK(verify)  # keep it alive as long as the context
    context.xrcp_rejection = None
    _libssl.SSL_CTX_set_verify(ctx, mode, context.xrcp_verify_callback)
    return context


def peer_chain_ders(tls) -> list:
    """The peer's certificates as sent: CPython puts the peer leaf first on both sides."""
    get_chain = getattr(tls, "get_unverified_chain", None) or tls._sslobj.get_unverified_chain  # public from 3.13
    chain = get_chain() or []
    return [c.public_bytes(ssl._ssl.ENCODING_DER) if hasattr(c, "public_bytes") else c for c in chain]


def tls_unique(tls) -> bytes:
    """CPython's `tls-unique` is the client Finished on both sides (SSL_get_finished / SSL_get_peer_finished)."""
    value = tls.get_channel_binding("tls-unique")
    if not value:
        raise XRCPError("internal", "no tls-unique")
    return value


def read_exact(tls, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = tls.recv(n - len(buf))  # never ask for more than the block: HTTP/2 bytes may follow
        if not chunk:
            raise XRCPError("blockSize", f"connection closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


# ---------------------------------------------------------------------------------------------------------------------
# §5 invitation, §6 announcement

def controller_app_info(device_name: str, compression: bool, min_version=APP_MIN_VERSION, max_version=APP_MAX_VERSION):
    return {"appVersionRange": {"minVersion": min_version, "maxVersion": max_version},
            "compression": compression, "deviceName": device_name}


def render_invitation(ca_fp: bytes, host: str, port: int, app, ts: int, skey_seed: bytes, id_seed: bytes,
                      dh_pub: bytes, legacy_idsig=False, version_range="1") -> str:
    """The canonical signed `xrcp:/` URI (§5.2, §5.4)."""
    app_json = app if isinstance(app, str) else aeson_json(app)
    unsigned = (f"xrcp:/{b64u(ca_fp)}@{host}:{port}#/?v={qenc(version_range)}&app={qenc(app_json)}&ts={qenc(str(ts))}"
                f"&skey={qenc(b64u(spki_ed25519(ed25519_pub(skey_seed))))}"
                f"&idkey={qenc(b64u(spki_ed25519(ed25519_pub(id_seed))))}"
                f"&dh={qenc(b64u(spki_x25519(dh_pub)))}")
    ssig = ed25519_sign(skey_seed, unsigned.encode("utf-8"))
    rendered_ssig = base64.b64encode(ssig).decode() if legacy_idsig else b64u(ssig)
    idsig = ed25519_sign(id_seed, (unsigned + "&ssig=" + rendered_ssig).encode("utf-8"))
    return unsigned + "&ssig=" + b64u(ssig) + "&idsig=" + b64u(idsig)


def legacy_equals_current(uri: str) -> bool:
    """Whether the legacy and the current idsig of `uri` cover the same bytes (§5.4): its ssig has no "-" or "_"."""
    ssig = uri[uri.index("&ssig=") + 6:uri.index("&idsig=")]
    return "-" not in ssig and "_" not in ssig


def parse_invitation(uri: str) -> dict:
    """Parse and verify a signed invitation over the received bytes (the recommended host behaviour of §5.5)."""
    if not uri.startswith("xrcp:/"):
        raise XRCPError("badInvitation", "scheme")
    rest = uri[len("xrcp:/"):]
    at = rest.index("@")
    ca = b64u_decode(rest[:at])
    hash_at = rest.index("#/?", at)
    hostport = rest[at + 1:hash_at]
    host, port = hostport.rsplit(":", 1)
    host = qdec(host)
    query = rest[hash_at + 3:].split(" ")[0]
    ssig_at = uri.index("&ssig=")
    idsig_at = uri.index("&idsig=", ssig_at)
    unsigned = uri[:ssig_at]
    ssig = b64u_decode(uri[ssig_at + 6:idsig_at])
    idsig = b64u_decode(uri[idsig_at + 7:])
    params = {}
    for pair in query[:query.index("&ssig=")].replace(";", "&").split("&"):
        if "=" in pair:
            k, v = pair.split("=", 1)
            params[qdec(k)] = qdec(v)
    for k in ("v", "app", "ts", "skey", "idkey", "dh"):
        if k not in params:
            raise XRCPError("badInvitation", f"missing {k}")
    skey = parse_spki(b64u_decode(params["skey"]), "ed25519")
    idkey = parse_spki(b64u_decode(params["idkey"]), "ed25519")
    dh = parse_spki(b64u_decode(params["dh"]), "x25519")
    if len(ssig) != 64 or len(idsig) != 64:
        raise XRCPError("badInvitation", "signature length")
    if not ed25519_verify(skey, ssig, unsigned.encode("utf-8")):
        raise XRCPError("badInvitation", "ssig")
    if not ed25519_verify(idkey, idsig, uri[:idsig_at].encode("utf-8")):
        raise XRCPError("badInvitation", "idsig")
    v = params["v"]
    vmin, vmax = (int(v), int(v)) if "-" not in v else tuple(int(p) for p in v.split("-"))
    return {"ca": ca, "host": host, "port": int(port), "versionRange": (vmin, vmax), "app": json.loads(params["app"]),
            "ts": int(params["ts"]), "skey": skey, "idkey": idkey, "dh": dh, "unsigned": unsigned, "ssig": ssig,
            "idsig": idsig}


def announcement_packet(ctrl_dh_priv: bytes, host_dh_pub: bytes, uri: str, nonce: bytes = None) -> bytes:
    """len1(SPKI(ctrl dh)) || nonce || sx_box(X25519(ctrl dh, host last dh), nonce, pad(uri, 900)) -- 985 bytes."""
    nonce = nonce if nonce is not None else os.urandom(24)
    key = x25519_dh(ctrl_dh_priv, host_dh_pub)
    return len1(spki_x25519(x25519_pub(ctrl_dh_priv))) + nonce + sx_box(key, nonce, pad(uri.encode("utf-8"), ANNOUNCE_PAD))


# ---------------------------------------------------------------------------------------------------------------------
# §7 HELLO blocks

def host_hello_message(host_dh_priv: bytes, ctrl_dh_pub: bytes, hello_json: bytes, nonce: bytes) -> bytes:
    key = x25519_dh(host_dh_priv, ctrl_dh_pub)
    return (b"HELLO " + len1(spki_x25519(x25519_pub(host_dh_priv))) + nonce
            + sx_box(key, nonce, pad(hello_json, HELLO_PAD)))


def parse_host_hello(block: bytes, ctrl_dh_priv: bytes):
    """-> (host dh pub, decoded JSON object)."""
    msg = unpad(block)
    if not msg.startswith(b"HELLO "):
        raise XRCPError("syntax", "host block is not HELLO")
    p = msg[6:]
    if len(p) < 1 + 44 + 24 or p[0] != 44:
        raise XRCPError("syntax", "bad HELLO key")
    host_dh = parse_spki(p[1:45], "x25519")
    nonce = p[45:69]
    plain = unpad(sx_open(x25519_dh(ctrl_dh_priv, host_dh), nonce, p[69:]))
    try:
        obj = json.loads(plain)
    except ValueError as e:
        raise XRCPError("syntax", f"HELLO JSON: {e}") from None
    if not isinstance(obj, dict):
        raise XRCPError("syntax", "HELLO JSON is not an object")
    return host_dh, obj


def ctrl_hello_message(kem_ct: bytes, key: bytes, nonce: bytes, body=b"{}") -> bytes:
    return b"HELLO " + len2(kem_ct) + sx_box(key, nonce, pad(body, HELLO_PAD))


def ctrl_error_message(k_hello: bytes, text: str, nonce: bytes = None) -> bytes:
    nonce = nonce if nonce is not None else os.urandom(24)
    return b"ERROR " + nonce + sx_box(k_hello, nonce, pad(text.encode("utf-8"), HELLO_PAD))


def app_version_tuple(v: str):
    return tuple(int(p) for p in v.split("."))


# ---------------------------------------------------------------------------------------------------------------------
# §9 bodies, §10 attachments

def zstd_compress(data: bytes) -> bytes:
    if zstandard is None:
        raise XRCPError("invalidBody", "zstandard is not installed")
    return zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data)


def zstd_decompress(data: bytes) -> bytes:
    """As the reference: a frame whose content size is unknown or 0 decompresses to an empty payload (§9.6)."""
    if zstandard is None:
        raise XRCPError("invalidBody", "zstandard is not installed")
    try:
        size = zstandard.frame_content_size(data)
    except zstandard.ZstdError as e:
        raise XRCPError("invalidBody", str(e)) from None
    if size <= 0:
        return b""
    try:
        return zstandard.ZstdDecompressor().decompress(data, max_output_size=size)
    except zstandard.ZstdError as e:
        raise XRCPError("invalidBody", str(e)) from None


def enc_body(corr_id: int, key_nonce, session_code_bytes: bytes, payload: bytes) -> bytes:
    ct = sx_box_tt(key_nonce[0], key_nonce[1], len1(session_code_bytes) + payload)
    return u32(corr_id) + u32(len(ct)) + ct


def request_sigs(enc: bytes, skey_seed: bytes, id_seed: bytes) -> bytes:
    ssig = ed25519_sign(skey_seed, hashlib.sha512(enc).digest())
    idsig = ed25519_sign(id_seed, hashlib.sha512(enc + ssig).digest())
    return len1(ssig) + len1(idsig)


def attachment(key_nonce, data: bytes) -> bytes:
    return b"\x01" + u32(len(data) + 16) + sx_box_tt(key_nonce[0], key_nonce[1], data)


def split_enc_body(body: bytes):
    """-> (corrId, encBody bytes, ct, rest)."""
    if len(body) < 8:
        raise XRCPError("invalidSize", "body shorter than its header")
    corr_id, ct_len = struct.unpack(">II", body[:8])
    if len(body) < 8 + ct_len:
        raise XRCPError("invalidSize", f"body has {len(body) - 8} of {ct_len} ciphertext bytes")
    return corr_id, body[:8 + ct_len], body[8:8 + ct_len], body[8 + ct_len:]


def open_body(ct: bytes, key_nonce, session_code_bytes: bytes, compression: bool):
    plain = sx_open_tt(key_nonce[0], key_nonce[1], ct)
    if not plain:
        raise XRCPError("invalidBody", "empty body")
    n = plain[0]
    if plain[1:1 + n] != session_code_bytes or len(plain) < 1 + n:
        raise XRCPError("pRESessionCode")
    payload = plain[1 + n:]
    if compression:
        payload = zstd_decompress(payload)
    try:
        return json.loads(payload)
    except ValueError as e:
        raise XRCPError("invalidJSON", f"{e}") from None


def open_attachment(rest: bytes, key_nonce, file_size: int, file_digest: str) -> bytes:
    if not rest or rest[0] != 1:
        raise XRCPError("noFile")
    if len(rest) < 5:
        raise XRCPError("fileSize", "no attachment length")
    (n,) = struct.unpack(">I", rest[1:5])
    if n != file_size + 16 or len(rest) != 5 + n:
        raise XRCPError("fileSize", f"attachment length {n}, {len(rest) - 5} bytes present, announced {file_size}")
    data = sx_open_tt(key_nonce[0], key_nonce[1], rest[5:])
    if b64u(hashlib.sha512(data).digest()) != file_digest:
        raise XRCPError("fileDigest")
    return data


def owsf_to_tagged(v):
    """§13.3 conversion of swift-style (single-field) JSON to the tagged style."""
    def conv(x):
        if isinstance(x, dict):
            if len(x) == 2 and x.get("_owsf") is True:
                (k, inner), = [(k, val) for k, val in x.items() if k != "_owsf"]
                inner2, tagged = conv(inner)
                if isinstance(inner2, dict) and not tagged:
                    out = {"type": k}
                    out.update({kk: vv for kk, vv in inner2.items() if kk != "type"})
                    return out, True
                return {"type": k, "data": inner2}, True
            return {k: conv(val)[0] for k, val in x.items()}, False
        if isinstance(x, list):
            return [conv(e)[0] for e in x], False
        return x, False
    return conv(v)[0]


# ---------------------------------------------------------------------------------------------------------------------
# HTTP/2 pump: one I/O thread owns the (non-blocking) TLS socket; other threads submit requests/responses under a lock.

class H2Stream:
    def __init__(self, stream_id):
        self.stream_id = stream_id
        self.headers = None
        self.body = bytearray()
        self.done = threading.Event()
        self.error = None


class H2Pump:
    def __init__(self, tls, client_side: bool, on_request=None, on_close=None):
        self.tls = tls
        self.client_side = client_side
        self.on_request = on_request
        self.on_close = on_close
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=client_side, header_encoding="utf-8"))
        self.lock = threading.RLock()
        self.streams = {}
        self.outgoing = {}  # stream id -> [bytes, offset, end_stream]
        self.out = bytearray()
        self.closed = threading.Event()
        self._finished = False
        self.close_reason = None
        self.wake_r, self.wake_w = socket.socketpair()
        self.thread = threading.Thread(target=self._run, name="h2-pump", daemon=True)

    def start(self):
        with self.lock:
            self.conn.initiate_connection()
        self.tls.setblocking(False)
        self.thread.start()

    def wake(self):
        try:
            self.wake_w.send(b"x")
        except OSError:
            pass

    # -- submission

    def request(self, body: bytes, headers=None) -> H2Stream:
        with self.lock:
            if self.closed.is_set():
                raise XRCPError("hTTP2", f"connection closed ({self.close_reason})")
            sid = self.conn.get_next_available_stream_id()
            self.conn.send_headers(sid, headers or [(":method", "POST"), (":path", "/"), (":scheme", "https"),
                                                     (":authority", "0.0.0.0")])
            stream = self.streams[sid] = H2Stream(sid)
            self.outgoing[sid] = [bytes(body), 0, True]
            self._flush_streams()
        self.wake()
        return stream

    def respond(self, stream_id: int, body: bytes):
        with self.lock:
            if self.closed.is_set():
                return
            try:
                self.conn.send_headers(stream_id, [(":status", "200")])
            except h2.exceptions.H2Error:
                return  # the stream was reset meanwhile
            self.outgoing[stream_id] = [bytes(body), 0, True]
            self._flush_streams()
        self.wake()

    def close(self, reason="closed"):
        with self.lock:
            if not self.closed.is_set():
                try:
                    self.conn.close_connection()
                except h2.exceptions.H2Error:
                    pass
                self.out += self.conn.data_to_send()
        self.wake()
        deadline = time.time() + 1.0  # give the I/O thread a moment to write GOAWAY, then stop it
        while time.time() < deadline and self.thread.is_alive():
            with self.lock:
                if not self.out:
                    break
            time.sleep(0.01)
        self._finish(reason)
        if threading.current_thread() is not self.thread and self.thread.is_alive():
            self.thread.join(2)

    # -- internals (lock held)

    def _flush_streams(self):
        for sid, item in list(self.outgoing.items()):
            data, off, end = item
            try:
                while off < len(data):
                    window = min(self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
                    if window <= 0:
                        break
                    chunk = data[off:off + window]
                    self.conn.send_data(sid, chunk)
                    off += len(chunk)
                item[1] = off
                if off >= len(data):
                    if end:
                        self.conn.end_stream(sid)
                    del self.outgoing[sid]
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, KeyError):
                self.outgoing.pop(sid, None)

    def _handle(self, events):
        ended = []
        for ev in events:
            if isinstance(ev, (h2.events.RequestReceived, h2.events.ResponseReceived)):
                st = self.streams.setdefault(ev.stream_id, H2Stream(ev.stream_id))
                st.headers = dict(ev.headers)
                if ev.stream_ended is not None:
                    ended.append(st)
            elif isinstance(ev, h2.events.DataReceived):
                st = self.streams.setdefault(ev.stream_id, H2Stream(ev.stream_id))
                st.body += ev.data
                if ev.flow_controlled_length:
                    self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                if ev.stream_ended is not None:
                    ended.append(st)
            elif isinstance(ev, h2.events.StreamEnded):
                st = self.streams.get(ev.stream_id)
                if st is not None and st not in ended:
                    ended.append(st)
            elif isinstance(ev, h2.events.StreamReset):
                st = self.streams.pop(ev.stream_id, None)
                self.outgoing.pop(ev.stream_id, None)
                if st is not None:
                    st.error = f"stream reset (code {ev.error_code})"
                    st.done.set()
            elif isinstance(ev, h2.events.WindowUpdated):
                pass
            elif isinstance(ev, h2.events.ConnectionTerminated):
                self.close_reason = f"GOAWAY (code {ev.error_code})"
                self.closed.set()
        self._flush_streams()
        return ended

    def _dispatch(self, ended):
        for st in ended:
            with self.lock:
                self.streams.pop(st.stream_id, None)
            if self.client_side:
                st.done.set()
            elif self.on_request is not None:
                threading.Thread(target=self.on_request, args=(st,), daemon=True).start()

    def _finish(self, reason):
        with self.lock:
            first = not self._finished
            self._finished = True
            if self.close_reason is None:
                self.close_reason = reason
            self.closed.set()
            streams = list(self.streams.values())
            self.streams.clear()
        for st in streams:
            if not st.done.is_set():
                st.error = st.error or f"connection closed ({self.close_reason})"
                st.done.set()
        if first:
            try:
                self.tls.close()
            except OSError:
                pass
            self.wake()
            if self.on_close is not None:
                cb, self.on_close = self.on_close, None
                cb(self.close_reason)

    def _run(self):
        reason = "disconnected"
        retry_size = 0
        try:
            while True:
                with self.lock:
                    self.out += self.conn.data_to_send()
                    if self.closed.is_set() and not self.out:
                        reason = self.close_reason or reason
                        break
                rl = [self.tls, self.wake_r]
                wl = [self.tls] if self.out else []
                if self.tls.pending():
                    r, w = [self.tls], wl
                else:
                    r, w, _ = select.select(rl, wl, [], 1.0)
                if self.wake_r in r:
                    try:
                        self.wake_r.recv(4096)
                    except BlockingIOError:
                        pass
                if self.out and self.tls in w:
                    # a retried SSL_write must not be shorter than the failed one: keep its length
                    size = retry_size or min(len(self.out), 65536)
                    try:
                        n = self.tls.send(self.out[:size])
                        del self.out[:n]
                        retry_size = 0
                    except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                        retry_size = size
                if self.tls in r:
                    try:
                        data = self.tls.recv(65536)
                    except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                        continue
                    if not data:
                        reason = "disconnected"
                        break
                    with self.lock:
                        try:
                            events = self.conn.receive_data(data)
                        except h2.exceptions.ProtocolError as e:
                            reason = f"HTTP/2 protocol error: {e}"
                            self.out += self.conn.data_to_send()
                            break
                        ended = self._handle(events)
                    self._dispatch(ended)
        except Exception as e:  # noqa: BLE001 -- whatever breaks the pump ends the connection, never hangs waiters
            reason = f"{type(e).__name__}: {e}"
        if self.out:
            try:
                self.tls.send(self.out[:65536])
            except (OSError, ssl.SSLError, ValueError):
                pass
        self._finish(reason)


# ---------------------------------------------------------------------------------------------------------------------
# Pairing state (one host per file, §2.1)

class Pairing:
    def __init__(self, path):
        self.path = path
        data = {}
        if path and os.path.exists(path):
            with open(path) as f:
                data = json.load(f)
        if data.get("caKey") and data.get("caCert") and data.get("idKey"):
            self.ca_seed = seed_from_pkcs8(bytes.fromhex(data["caKey"]))
            self.ca_der = bytes.fromhex(data["caCert"])
            self.id_seed = seed_from_pkcs8(bytes.fromhex(data["idKey"]))
        else:
            self.ca_seed = os.urandom(32)
            self.ca_der = cert_der(make_ca(self.ca_seed, 25))
            self.id_seed = os.urandom(32)
        self.store_path = data.get("storePath") or b64u(os.urandom(12))
        self.host_fingerprint = b64u_decode(data["hostFingerprint"]) if data.get("hostFingerprint") else None
        self.host_dh_pub = parse_spki(bytes.fromhex(data["hostDhPub"]), "x25519") if data.get("hostDhPub") else None
        self.host_device_name = data.get("hostDeviceName")

    @property
    def known(self):
        return self.host_fingerprint is not None

    @property
    def ca_cert(self):
        return x509.load_der_x509_certificate(self.ca_der)

    def save(self):
        if not self.path:
            return
        data = {"caKey": pkcs8(self.ca_seed).hex(), "caCert": self.ca_der.hex(), "idKey": pkcs8(self.id_seed).hex(),
                "storePath": self.store_path,
                "hostFingerprint": b64u(self.host_fingerprint) if self.host_fingerprint else None,
                "hostDhPub": spki_x25519(self.host_dh_pub).hex() if self.host_dh_pub else None,
                "hostDeviceName": self.host_device_name}
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, self.path)


# ---------------------------------------------------------------------------------------------------------------------
# The controller

HANDSHAKE_TAMPERS = {"oversized-block", "wrong-ca-in-invitation", "legacy-idsig", "bad-ctrl-hello", "ctrl-error-block",
                     "aes-cipher"}
BODY_TAMPERS = {"wrong-session-key-signature", "wrong-id-key-signature", "wrong-session-code", "corrupt-body",
                "skip-ids", "reorder", "replay", "zstd-no-content-size", "uncompressed", "wrong-file-digest",
                "short-attachment", "no-attachment"}


class Emitter:
    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.lock = threading.Lock()

    def __call__(self, obj):
        with self.lock:
            self.stream.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self.stream.flush()


class Controller:
    def __init__(self, pairing: Pairing, device_name: str, emit, compression=True, tamper=(), timeout=60.0,
                 recv_wait=RECV_WAIT_US, poll=True, app_min=APP_MIN_VERSION, app_max=APP_MAX_VERSION):
        self.pairing = pairing
        self.device_name = device_name
        self.emit = emit
        self.own_compression = compression
        self.tamper = set(tamper)
        self.timeout = timeout
        self.recv_wait = recv_wait
        self.poll = poll
        self.app_min, self.app_max = app_min, app_max
        # per-session keys (§2.3)
        self.skey_seed = os.urandom(32)
        self.dh_priv = os.urandom(32)
        self.leaf_seed = os.urandom(32)
        self.leaf_der = cert_der(make_leaf(self.leaf_seed, pairing.ca_cert, pairing.ca_seed))
        self.listener = None
        self.tls = None
        self.pump = None
        self.connected = threading.Event()
        self.stopped = threading.Event()
        self.send_lock = threading.Lock()
        self.recv_lock = threading.Lock()
        self.last_body = None
        self.bodies = {}
        self.announcer = None
        self.host_fp = None

    # -- setup

    def listen(self, host: str, port: int = 0):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        s.listen(1024)
        self.listener = s
        return s.getsockname()[1]

    def invitation(self, address: str, port: int, ts: int = None) -> str:
        ca_fp = fingerprint(self.pairing.ca_der)
        if "wrong-ca-in-invitation" in self.tamper:
            ca_fp = hashlib.sha256(b"not the CA" + os.urandom(8)).digest()
        legacy = "legacy-idsig" in self.tamper
        ts = int(time.time() + CLOCK_SKEW_SECONDS) if ts is None else ts
        while True:
            self.uri = render_invitation(ca_fp, address, port,
                                         controller_app_info(self.device_name, self.own_compression, self.app_min,
                                                             self.app_max),
                                         ts, self.skey_seed, self.pairing.id_seed, x25519_pub(self.dh_priv),
                                         legacy_idsig=legacy)
            # An ssig without "-" or "_" reads the same in both alphabets: the legacy idsig would be a current one.
            if not legacy or not legacy_equals_current(self.uri):
                return self.uri
            ts += 1

    def start_announcer(self, group: str, port: int, source: str, count=60, interval=1.0):
        if not self.pairing.known or self.pairing.host_dh_pub is None:
            raise XRCPError("newController", "multicast needs a known host")
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((source, 0))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(source))

        def run():
            try:
                for i in range(count):
                    if self.connected.is_set() or self.stopped.is_set():
                        break
                    packet = announcement_packet(self.dh_priv, self.pairing.host_dh_pub, self.uri)
                    sock.sendto(packet, (group, port))
                    if i == 0:
                        self.emit({"event": "announcing", "group": group, "port": port, "from": source,
                                   "packetSize": len(packet)})
                    if self.connected.wait(interval):
                        break
            except (OSError, XRCPError) as e:
                self.emit({"event": "error", "stage": "announce", "error": str(e)})
            finally:
                sock.close()

        self.announcer = threading.Thread(target=run, name="announcer", daemon=True)
        self.announcer.start()

    def _check_client_chain(self, ders):
        if len(ders) != 2:
            return f"identity: client chain has {len(ders)} certificates, not 2"
        fp = fingerprint(ders[1])
        if self.pairing.known and fp != self.pairing.host_fingerprint:
            return "identity: host CA fingerprint differs from the stored one"
        return None

    def accept(self):
        """Accept TCP connections until one TLS handshake passes the checks of §4.2 (others are reported)."""
        deadline = time.time() + self.timeout
        ciphers = "TLS_AES_128_GCM_SHA256" if "aes-cipher" in self.tamper else "TLS_CHACHA20_POLY1305_SHA256"
        context = make_tls_context(True, [self.leaf_der, self.pairing.ca_der], self.leaf_seed,
                                   check_chain=self._check_client_chain, ciphersuites=ciphers)
        while True:
            left = deadline - time.time()
            if left <= 0 or self.stopped.is_set():
                raise XRCPError("timeout", "no TLS connection from a host")
            self.listener.settimeout(min(left, 0.5))
            try:
                raw, peer = self.listener.accept()
            except socket.timeout:
                continue
            raw.settimeout(60)
            context.xrcp_rejection = None
            try:
                tls = context.wrap_socket(raw, server_side=True)
                ders = peer_chain_ders(tls)
                problem = self._check_client_chain(ders)
                if problem is None and not leaf_signed_by(ders[0], ders[1]):
                    problem = "identity: client leaf is not signed by its CA"
                if problem:
                    tls.close()
                    raise XRCPError("identity", problem)
            except (ssl.SSLError, OSError, XRCPError) as e:
                detail = context.xrcp_rejection or str(e)
                self.emit({"event": "error", "stage": "tls", "error": detail, "peer": peer[0]})
                try:
                    raw.close()
                except OSError:
                    pass
                continue
            self.listener.close()  # one TLS session per invitation (§4.2)
            self.tls = tls
            self.host_fp = fingerprint(ders[1])
            self.tls_unique = tls_unique(tls)
            tls.settimeout(self.timeout)
            return tls

    def handshake(self):
        """§7: read the host HELLO, validate, encapsulate, derive the chains, send the controller HELLO."""
        block = read_exact(self.tls, BLOCK_SIZE)
        host_dh, hello = parse_host_hello(block, self.dh_priv)
        try:
            hello_ca = b64u_decode(hello.get("ca") or "")
        except (ValueError, TypeError, AttributeError):
            raise XRCPError("syntax", "HELLO ca is not base64url") from None
        if hello_ca != self.host_fp:
            raise XRCPError("identity", "HELLO ca differs from the TLS client CA")
        kem_pk = b64u_decode(hello.get("kem", ""))
        if len(kem_pk) != KEM_PK_LEN:
            raise XRCPError("syntax", f"kem public key of {len(kem_pk)} bytes")
        kem_ct, kem_ss = sntrup_761.encaps(kem_pk)
        dh = x25519_dh(self.dh_priv, host_dh)
        ck_a, ck_b = chain_init(hybrid_secret(dh, kem_ss))
        v = hello.get("v")
        if not isinstance(v, int) or isinstance(v, bool) or v != XRCP_VERSION:
            raise XRCPError("version", f"host chose {v!r}")
        send_chain = Chain(ck_a)
        key1, nonce1 = send_chain.step()
        if "bad-ctrl-hello" in self.tamper:
            key1 = os.urandom(32)
        if "ctrl-error-block" in self.tamper:
            msg = ctrl_error_message(dh, "tampered: controller refuses")
        else:
            msg = ctrl_hello_message(kem_ct, key1, nonce1)
        out = pad(msg, BLOCK_SIZE + 1) if "oversized-block" in self.tamper else pad(msg, BLOCK_SIZE)
        self.tls.sendall(out)
        if "ctrl-error-block" in self.tamper:
            raise XRCPError("internal", "sent an ERROR block (tamper mode)")
        # chat level (§7.4 step 8): app info, version and encoding
        app = hello.get("app")
        if not isinstance(app, dict):
            raise XRCPError("badVersion", "host HELLO without app info")
        app_version = app.get("appVersion")
        try:
            ok = app_version_tuple(self.app_min) <= app_version_tuple(app_version) <= app_version_tuple(self.app_max)
        except (AttributeError, ValueError):
            ok = False
        if not ok:
            raise XRCPError("badVersion", str(app_version))
        encoding = app.get("encoding")
        if encoding not in ("kotlin", "swift"):
            raise XRCPError("protocolError", f"unknown encoding {encoding!r}")
        self.host_encoding = encoding
        self.host_app = app
        self.compression = bool(app.get("compression") is True and self.own_compression)
        self.send = SendChain(send_chain.ck, counter=0)
        self.recv = RecvChain(ck_b)
        new_host = not self.pairing.known
        self.pairing.host_fingerprint = self.host_fp
        self.pairing.host_dh_pub = host_dh
        self.pairing.host_device_name = app.get("deviceName")
        self.pairing.save()
        self.connected.set()
        return {"event": "connected", "hostApp": app, "compression": self.compression, "newHost": new_host,
                "hostFingerprint": b64u(self.host_fp), "hostDhPub": b64u(spki_x25519(host_dh)),
                "storePath": self.pairing.store_path}

    def start_http2(self, on_close=None):
        self.pump = H2Pump(self.tls, client_side=True, on_close=on_close)
        self.pump.start()

    # -- requests

    def _payload(self, obj, tamper):
        raw = compact_json(obj) if isinstance(obj, dict) else obj
        if self.compression and "uncompressed" not in tamper:
            if "zstd-no-content-size" in tamper:
                return zstandard.ZstdCompressor(level=3, write_content_size=False).compress(raw)
            return zstd_compress(raw)
        return raw

    def _build(self, obj, attach: bytes = None, tamper=()):
        """Assigns the next corrId and keys and returns the signed request body (lock held by the caller)."""
        corr, body_kn, file_kn = self.send.next()
        if "skip-ids" in tamper:  # jump the counter far ahead (> 256): the host must answer manySkippedIds
            for _ in range(MAX_SKIP + 44):
                corr, body_kn, file_kn = self.send.next()
        code = self.tls_unique if "wrong-session-code" not in tamper else bytes(len(self.tls_unique))
        enc = enc_body(corr, body_kn, code, self._payload(obj, tamper))
        if "corrupt-body" in tamper:
            enc = enc[:-1] + bytes([enc[-1] ^ 1])
        skey = os.urandom(32) if "wrong-session-key-signature" in tamper else self.skey_seed
        idk = os.urandom(32) if "wrong-id-key-signature" in tamper else self.pairing.id_seed
        body = enc + request_sigs(enc, skey, idk)
        if attach is not None and "no-attachment" not in tamper:
            a = attachment(file_kn, attach)
            if "short-attachment" in tamper:
                a = a[:-20]
            body += a
        return corr, body

    def _submit(self, obj, attach=None, tamper=(), rid=None):
        with self.send_lock:
            if "reorder" in tamper:
                c1, b1 = self._build(obj, attach, tamper)
                c2, b2 = self._build(obj, attach, tamper)
                s2 = self.pump.request(b2)
                s1 = self.pump.request(b1)
                return [(c1, s1), (c2, s2)]
            corr, body = self._build(obj, attach, tamper)
            self.last_body = body
            if rid is not None:
                self.bodies[rid] = body
            stream = self.pump.request(body)
            if "replay" in tamper:
                return [(corr, stream), (corr, self.pump.request(body))]
            return [(corr, stream)]

    def replay(self, rid=None):
        """Resend verbatim the body of request `rid` (or of the last request sent for a command)."""
        with self.send_lock:
            body = self.last_body if rid is None else self.bodies.get(rid)
            if body is None:
                raise XRCPError("internal", "nothing to replay")
            return self.pump.request(body)

    def response(self, stream: H2Stream, timeout=None):
        """-> (corrId, JSON, rest-of-body, attachment keys)."""
        if not stream.done.wait(timeout):
            raise XRCPError("timeout", "no response")
        if stream.error:
            raise XRCPError("hTTP2", stream.error)
        status = (stream.headers or {}).get(":status")
        if status != "200":
            raise XRCPError("hTTP2", f"status {status}")
        corr, _, ct, rest = split_enc_body(bytes(stream.body))
        with self.recv_lock:
            body_kn, file_kn = self.recv.keys_for(corr)
        obj = open_body(ct, body_kn, self.tls_unique, self.compression)
        if self.host_encoding == "swift":
            obj = owsf_to_tagged(obj)
        return corr, obj, rest, file_kn

    def send_command(self, command: str, retry=0, tamper=(), rid=None):
        return self._submit({"type": "send", "command": command, "retryNumber": retry}, tamper=tamper, rid=rid)

    def recv_command(self, wait=None, tamper=(), rid=None):
        return self._submit({"type": "recv", "wait": self.recv_wait if wait is None else wait}, tamper=tamper,
                            rid=rid)

    def store_file(self, path: str, file_name=None, tamper=(), rid=None):
        with open(path, "rb") as f:
            data = f.read()
        digest = hashlib.sha512(data).digest()
        if "wrong-file-digest" in tamper:
            digest = hashlib.sha512(data + b"x").digest()
        obj = {"type": "storeFile", "fileName": file_name or os.path.basename(path), "fileSize": len(data),
               "fileDigest": b64u(digest)}
        return self._submit(obj, attach=data, tamper=tamper, rid=rid)

    def get_file(self, remote_file, tamper=(), rid=None):
        return self._submit({"type": "getFile", "file": remote_file}, tamper=tamper, rid=rid)

    def stop(self, reason="user"):
        self.stopped.set()
        if self.pump is not None:
            self.pump.close(reason)
        elif self.tls is not None:
            try:
                self.tls.close()
            except OSError:
                pass
        if self.listener is not None:
            try:
                self.listener.close()
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------------------------------
# CLI

def _hostport(text, default_port=0):
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else default_port
    if text.count(":") == 1:
        h, p = text.split(":")
        return h, int(p)
    return text, default_port


class CLI:
    def __init__(self, args):
        self.args = args
        self.emit = Emitter()
        self.commands = queue.Queue()
        self.workers = []
        self.exit_code = 0

    def stdin_reader(self):
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                cmd = json.loads(line)
                if not isinstance(cmd, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                self.emit({"event": "error", "stage": "stdin", "error": f"bad command line: {e}"})
                continue
            self.commands.put(cmd)
        self.commands.put({"stop": True, "eof": True})

    def run(self):
        a = self.args
        tampers = set(a.tamper or [])
        unknown = tampers - HANDSHAKE_TAMPERS - BODY_TAMPERS
        if unknown:
            self.emit({"event": "error", "stage": "args", "error": f"unknown tamper mode(s): {sorted(unknown)}"})
            return 2
        self.body_tampers = tampers & BODY_TAMPERS
        pairing = Pairing(a.pairing)
        ctl = Controller(pairing, a.device_name, self.emit, compression=(a.compression == "on"),
                         tamper=tampers & HANDSHAKE_TAMPERS, timeout=a.timeout, recv_wait=a.recv_wait,
                         poll=not a.no_poll)
        self.ctl = ctl
        threading.Thread(target=self.stdin_reader, name="stdin", daemon=True).start()
        host, port = _hostport(a.listen)
        try:
            port = ctl.listen(host, port)
        except OSError as e:
            self.emit({"event": "error", "stage": "listen", "error": f"tLSStartFailed: {e}"})
            return 1
        address = a.address or (host if host not in ("0.0.0.0", "::", "") else (a.announce_from or "127.0.0.1"))
        uri = ctl.invitation(address, port)
        self.emit({"event": "invitation", "uri": uri, "address": address, "port": port, "newHost": not pairing.known,
                   "caFingerprint": b64u(fingerprint(pairing.ca_der)), "length": len(uri.encode())})
        if a.announce:
            try:
                g, gp = _hostport(a.announce, 5227)
                ctl.start_announcer(g, gp, a.announce_from or address, a.announce_count, a.announce_interval)
            except (XRCPError, OSError) as e:
                self.emit({"event": "error", "stage": "announce", "error": str(e)})
                ctl.stop()
                return 1
        # wait for TLS in a thread so that {"stop":true} works meanwhile
        result = {}

        def establish():
            try:
                ctl.accept()
                self.emit({"event": "sessionCode", "code": session_code(ctl.tls_unique),
                           "tlsUnique": ctl.tls_unique.hex(), "hostFingerprint": b64u(ctl.host_fp),
                           "tls": {"version": ctl.tls.version(), "cipher": ctl.tls.cipher()[0]}})
                result["connected"] = ctl.handshake()
            except (XRCPError, OSError, ssl.SSLError, ValueError) as e:
                result["error"] = e
            finally:
                result["done"] = True
                self.commands.put({"_established": True})

        threading.Thread(target=establish, name="establish", daemon=True).start()
        pending = []
        while True:
            cmd = self.commands.get()
            if cmd.get("_established"):
                break
            if cmd.get("stop"):
                ctl.stop()
                self.emit({"event": "stopped", "reason": "user"})
                return 0
            pending.append(cmd)
        if "error" in result:
            e = result["error"]
            tag = e.tag if isinstance(e, XRCPError) else "exception"
            self.emit({"event": "error", "stage": "handshake", "error": str(e), "tag": tag})
            ctl.stop()
            self.emit({"event": "stopped", "reason": "failed"})
            return 1
        done = threading.Event()

        def on_close(reason):
            if not ctl.stopped.is_set():
                self.emit({"event": "stopped", "reason": "disconnected", "detail": reason})
            done.set()
            self.commands.put({"_closed": True})

        ctl.start_http2(on_close=on_close)
        self.emit(result["connected"])
        if ctl.poll:
            threading.Thread(target=self.poll_loop, name="poll", daemon=True).start()
        for cmd in pending:
            self.dispatch(cmd)
        while True:
            cmd = self.commands.get()
            if cmd.get("_closed"):
                return 0
            if cmd.get("stop"):
                self.finish_workers(1)
                ctl.stop("user")
                self.emit({"event": "stopped", "reason": "user"})
                return 0
            self.dispatch(cmd)

    def finish_workers(self, timeout):
        deadline = time.time() + timeout
        for w in self.workers:
            w.join(max(0, deadline - time.time()))

    def poll_loop(self):
        ctl = self.ctl
        while not ctl.pump.closed.is_set():
            try:
                [(corr, stream)] = ctl.recv_command()
                rcorr, obj, _, _ = ctl.response(stream)
            except XRCPError as e:
                if ctl.pump.closed.is_set():
                    break
                self.emit({"event": "error", "source": "recv", "error": str(e), "tag": e.tag})
                time.sleep(0.5)
                continue
            if obj.get("type") == "chatEvent":
                if "chatEvent" in obj:
                    self.emit({"event": "chatEvent", "json": obj["chatEvent"]})
                else:
                    self.emit({"event": "recvEmpty", "corrId": rcorr})
            else:
                self.emit({"event": "error", "source": "recv", "json": obj})

    def dispatch(self, cmd):
        w = threading.Thread(target=self.handle, args=(cmd,), daemon=True)
        self.workers.append(w)
        w.start()

    def handle(self, cmd):
        ctl = self.ctl
        rid = cmd.get("id")
        tamper = set(self.body_tampers)
        t = cmd.get("tamper")
        if t:
            tamper |= set(t if isinstance(t, list) else [t])
        bad = tamper - BODY_TAMPERS
        if bad:
            self.emit({"event": "error", "id": rid, "error": f"unknown tamper mode(s): {sorted(bad)}"})
            return
        try:
            if "send" in cmd:
                streams = ctl.send_command(cmd["send"], cmd.get("retryNumber", 0), tamper, rid)
            elif "recv" in cmd:
                streams = ctl.recv_command(int(cmd["recv"]), tamper, rid)
            elif "storeFile" in cmd:
                streams = ctl.store_file(cmd["storeFile"], cmd.get("fileName"), tamper, rid)
            elif "getFile" in cmd:
                streams = ctl.get_file(cmd["getFile"], tamper, rid)
            elif "raw" in cmd:
                raw = cmd["raw"]
                streams = ctl._submit(raw if isinstance(raw, dict) else raw.encode("utf-8"), tamper=tamper, rid=rid)
            elif "replay" in cmd:
                target = cmd["replay"]
                streams = [(None, ctl.replay(None if target is True else str(target)))]
            else:
                self.emit({"event": "error", "id": rid, "error": "unknown command"})
                return
        except (XRCPError, OSError, ValueError, KeyError, TypeError) as e:
            self.emit({"event": "error", "id": rid, "error": str(e), "tag": getattr(e, "tag", "exception")})
            return
        for i, (corr, stream) in enumerate(streams):
            sid = rid if i == 0 else f"{rid}:2"
            try:
                rcorr, obj, rest, file_kn = ctl.response(stream, timeout=cmd.get("timeout"))
                event = {"event": "response", "id": sid, "corrId": corr, "responseCorrId": rcorr, "json": obj}
                if obj.get("type") == "file" and "getFile" in cmd:
                    data = open_attachment(rest, file_kn, obj["fileSize"], obj["fileDigest"])
                    to = cmd.get("to")
                    if to:
                        with open(to, "wb") as f:
                            f.write(data)
                        with open(to, "rb") as f:  # §10.2 step 4: digest of the written file
                            if b64u(hashlib.sha512(f.read()).digest()) != obj["fileDigest"]:
                                raise XRCPError("fileDigest", "written file")
                    event.update(path=to, size=len(data), digestOk=True)
                elif rest:
                    event["trailing"] = len(rest)
                self.emit(event)
            except XRCPError as e:
                self.emit({"event": "error", "id": sid, "corrId": corr, "error": str(e), "tag": e.tag})
            except (OSError, ValueError, KeyError, TypeError) as e:
                self.emit({"event": "error", "id": sid, "corrId": corr, "error": str(e), "tag": "exception"})


def main(argv=None):
    p = argparse.ArgumentParser(description="XRCP controller test peer (xrcp.md)", epilog=CLI_HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairing", required=True, help="pairing JSON file (created after the first accepted HELLO)")
    p.add_argument("--device-name", default="Test Desktop")
    p.add_argument("--listen", default="127.0.0.1", help="HOST[:PORT] (port 0 or absent: kernel-chosen)")
    p.add_argument("--address", help="IPv4 put in the invitation (default: the listen host)")
    p.add_argument("--compression", choices=["on", "off"], default="on")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for TLS and for the HELLO")
    p.add_argument("--recv-wait", type=int, default=RECV_WAIT_US, help="long-poll wait in microseconds")
    p.add_argument("--no-poll", action="store_true", help="do not run the recv long-poll loop")
    p.add_argument("--announce", help="GROUP:PORT for multicast announcements (known host only)")
    p.add_argument("--announce-from", help="IPv4 address to send announcements from")
    p.add_argument("--announce-count", type=int, default=60)
    p.add_argument("--announce-interval", type=float, default=1.0)
    p.add_argument("--tamper", action="append", help="misbehave (repeatable): " +
                   ", ".join(sorted(HANDSHAKE_TAMPERS | BODY_TAMPERS)))
    args = p.parse_args(argv)
    return CLI(args).run()


CLI_HELP = """
stdout events (one JSON object per line):
  {"event":"invitation","uri":..,"address":..,"port":..,"newHost":bool,"caFingerprint":..,"length":n}
  {"event":"announcing","group":..,"port":..,"from":..,"packetSize":985}          (first packet sent)
  {"event":"sessionCode","code":"12345 ...","tlsUnique":hex,"hostFingerprint":b64u,"tls":{"version":..,"cipher":..}}
  {"event":"connected","hostApp":{..},"compression":bool,"newHost":bool,"hostFingerprint":..,"hostDhPub":..,
   "storePath":..}
  {"event":"response","id":..,"corrId":n,"responseCorrId":m,"json":RemoteResponse[,"path":..,"size":n,"digestOk":true]}
      (a reorder/replay tamper yields a second response with id "<id>:2")
  {"event":"chatEvent","json":{"result":..}|{"error":..}}   {"event":"recvEmpty","corrId":m}   (background long poll)
  {"event":"error","stage":"args"|"listen"|"announce"|"tls"|"handshake"|"stdin",..,"error":text[,"tag":..]}
  {"event":"error","id":..,"error":text,"tag":..}            (a request that failed locally: decrypt, fileDigest, ..)
  {"event":"error","source":"recv",..}                       (the long poll failed or got a non-chatEvent response)
  {"event":"stopped","reason":"user"|"disconnected"|"failed"[,"detail":..]}
stdin commands (one JSON object per line; optional "tamper": a body mode or a list of them; optional "timeout": s):
  {"id":"1","send":"/v"[,"retryNumber":0]}        {"id":"2","storeFile":"/path"[,"fileName":"x"]}
  {"id":"3","getFile":{RemoteFile},"to":"/path"}  {"id":"4","recv":500000}
  {"id":"5","raw":{any RemoteCommand JSON}}
  {"id":"6","replay":true|"<earlier id>"}   (resend the last / that request's body verbatim)
  {"stop":true}                             (also on stdin EOF; commands sent before "connected" are queued)
exit code: 0 after a session (stopped by the user or disconnected) or a stop before connection; 1 when no session
was established (timeout, handshake failure, announce failure); 2 for bad arguments.
tamper modes (--tamper, handshake): legacy-idsig, wrong-ca-in-invitation, aes-cipher, oversized-block,
  bad-ctrl-hello, ctrl-error-block
tamper modes (--tamper applies to every stdin request, or per request): wrong-session-key-signature,
  wrong-id-key-signature, wrong-session-code, corrupt-body, skip-ids, reorder, replay, uncompressed,
  zstd-no-content-size, wrong-file-digest, short-attachment, no-attachment
"""

if __name__ == "__main__":
    sys.exit(main())
