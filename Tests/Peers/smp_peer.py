#!/usr/bin/env python3
"""An independent SMP peer -- a minimal server and a client library -- written from the SMP specification (smp.md)
alone, for checking simplex-host's SMP client and test server against something that shares no code with them.

Only the Python 3.11 standard library (`ssl`, i.e. CPython's OpenSSL binding) and the pinned packages `cryptography`
and `pynacl` are used; HSalsa20 and the ctypes hooks into the SSL_CTX come from the XRCP peer beside it (which
also imports the pinned `h2`).

    smp_peer.py server [--port P] [--ed448] [--chain N] [--quota Q] [--end-interval S] [--password PW]
                       [--versions MIN-MAX] [--identity FILE] [--quiet]
        listens on 127.0.0.1 (port 0 or absent: kernel-chosen), certificates generated at start (Ed25519 or Ed448,
        a chain of N = 2..4: [leaf, identity, ..., CA]; kept in --identity FILE across restarts); prints {"address": "smp://<fp>@127.0.0.1:<port>", ...}
        then one JSON line per connection ({"event": "connection", "alpn", "cipher", "tlsVersion", "sni",
        "sessionId", "version", "blockEncryption"}) and per closed connection ({"event": "closed", "reason"}),
        unless --quiet. END/DELD go out every --end-interval seconds (default 15, as the reference; 0: at once).
        Runs until SIGTERM.
    smp_peer.py client SMP_ADDR [tls|basic|key|all|bad] [--no-alpn] [--versions MIN-MAX]
        runs a scenario and prints one JSON line per step ({"step": .., "ok": bool, ...}, then {"done": true,
        "ok": bool}); exit status 1 when a step fails. tls: the server's TLS profile (suite, ALPN, session id, no
        ALPN -> 6-6, AES-GCM refused); basic: NEW, SKEY on a second connection, SEND, MSG, ACK, PING, DEL, SEND ->
        AUTH; key: NEW without subscription, KEY, SEND, GET, ACK, GET (empty), DEL; all (default): the three;
        bad: unknown command, unparsable transmission, garbage and truncated blocks, a wrong-version hello, and
        the server still serving a new connection.

Coverage: §1 encodings, §2.2 TLS profile (TLS 1.3, TLS_CHACHA20_POLY1305_SHA256 only, X25519/X448, Ed25519/Ed448,
ALPN smp/1, no SNI), §2.3 session id, §2.4 hello blocks, §2.5 batches, §2.6 block encryption, §3 transmissions,
commands NEW/KEY/SKEY/SEND/SUB/GET/ACK/OFF/DEL/PING and their responses at versions 6-18, §3.7 MSG decryption and
§3.8 server behaviour (one subscriber per queue with END, one message in flight until ACK, quota with the QUOTA
marker, GET vs SUB, DELD, the error codes). Not served: notifiers, short links, services, proxying (`ERR CMD
PROHIBITED`), persistence.
"""
import argparse
import datetime
import hashlib
import hmac
import json
import os
import queue
import secrets
import signal
import socket
import ssl
import struct
import sys
import tempfile
import threading
import time
from collections import deque

import nacl.bindings
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed448, ed25519, x25519
from cryptography.x509.oid import NameOID

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xrcp_controller as _xr  # noqa: E402  (HSalsa20, the SSL_CTX hooks)

BLOCK_SIZE = 16384
ENCRYPTED_PAD = BLOCK_SIZE - 16  # 16,368: pad() inside the box
MAX_BATCH = BLOCK_SIZE - 19  # 16,365: count byte + len2 items, kept below this
RCV_MSG_PAD = 16106  # server -> recipient padded plaintext (§3.6)
SERVER_VERSIONS = (6, 18)
CLIENT_VERSIONS = (6, 18)
ALPN_SMP = "smp/1"
QUEUE_ID_BYTES = 24
MSG_ID_BYTES = 24
DEFAULT_QUOTA = 128
PENDING_END_INTERVAL = 15.0  # reference pendingENDInterval (§9.5)


class SMPError(Exception):
    """A typed failure: `tag` is an SMP error text (e.g. "AUTH", "CMD SYNTAX", "BLOCK") or a transport/handshake
    failure ("HANDSHAKE IDENTITY", "VERSION", "SESSION", "TLS", "TIMEOUT", "CLOSED")."""

    def __init__(self, tag, detail=""):
        super().__init__(f"{tag}: {detail}" if detail else tag)
        self.tag = tag
        self.detail = detail


# ---------------------------------------------------------------------------------------------------------------------
# §1.1 binary encodings

def len1(x: bytes) -> bytes:
    if len(x) > 255:
        raise SMPError("LARGE_MSG", "len1 value longer than 255 bytes")
    return bytes([len(x)]) + x


def len2(x: bytes) -> bytes:
    if len(x) > 65535:
        raise SMPError("LARGE_MSG", "len2 value longer than 65535 bytes")
    return struct.pack(">H", len(x)) + x


def u16(n: int) -> bytes:
    return struct.pack(">H", n)


def i64(n: int) -> bytes:
    return struct.pack(">q", n)


def maybe(x):
    return b"0" if x is None else b"1" + x


def smp_bool(b: bool) -> bytes:
    return b"T" if b else b"F"


def pad(m: bytes, n: int) -> bytes:
    if len(m) > min(65533, n - 2):
        raise SMPError("LARGE_MSG", f"{len(m)} bytes do not fit a padded {n}")
    return u16(len(m)) + m + b"#" * (n - 2 - len(m))


def unpad(p: bytes) -> bytes:
    if len(p) < 2:
        raise SMPError("BLOCK", "padded value shorter than 2 bytes")
    (n,) = struct.unpack(">H", p[:2])
    if len(p) < 2 + n:
        raise SMPError("BLOCK", f"padded length {n} exceeds {len(p) - 2} bytes")
    return p[2:2 + n]


class Parser:
    """Reads §1.1 fields from a buffer; every failure is SMPError(`error`) -- never an IndexError."""

    def __init__(self, data: bytes, error="CMD SYNTAX"):
        self.data = data
        self.pos = 0
        self.error = error

    def fail(self, what):
        raise SMPError(self.error, f"{what} at byte {self.pos}")

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            self.fail(f"{n} bytes wanted, {len(self.data) - self.pos} left")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def byte(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return struct.unpack(">H", self.take(2))[0]

    def i64(self) -> int:
        return struct.unpack(">q", self.take(8))[0]

    def len1(self) -> bytes:
        return self.take(self.byte())

    def len2(self) -> bytes:
        return self.take(self.u16())

    def bool(self) -> bool:
        c = self.take(1)
        if c not in (b"T", b"F"):
            self.fail("not a Bool")
        return c == b"T"

    def maybe(self, inner):
        c = self.take(1)
        if c == b"0":
            return None
        if c == b"1":
            return inner()
        self.fail("not a Maybe tag")

    def space(self):
        if self.take(1) != b" ":
            self.fail("space expected")

    def rest(self) -> bytes:
        out = self.data[self.pos:]
        self.pos = len(self.data)
        return out

    def end(self):
        if self.pos != len(self.data):
            self.fail("trailing bytes")

    def at_end(self) -> bool:
        return self.pos >= len(self.data)


# §1.3 keys: len1(SPKI)

SPKI_PREFIX = {
    "ed25519": bytes.fromhex("302a300506032b6570032100"),
    "x25519": bytes.fromhex("302a300506032b656e032100"),
    "x448": bytes.fromhex("3042300506032b656f033900"),
    "ed448": bytes.fromhex("3043300506032b6571033a00"),
}
RAW_LEN = {"ed25519": 32, "x25519": 32, "x448": 56, "ed448": 57}
SIG_LEN = {"ed25519": 64, "ed448": 114}
ALG_ID = {"ed25519": bytes.fromhex("300506032b6570"), "ed448": bytes.fromhex("300506032b6571")}


def spki(kind: str, raw: bytes) -> bytes:
    return SPKI_PREFIX[kind] + raw


def parse_spki(der: bytes, kinds=("ed25519", "ed448")):
    """(kind, raw) for exactly one key of an expected algorithm with no trailing DER (§1.3)."""
    for kind in kinds:
        prefix = SPKI_PREFIX[kind]
        if der.startswith(prefix) and len(der) == len(prefix) + RAW_LEN[kind]:
            return kind, der[len(prefix):]
    raise SMPError("CMD SYNTAX", f"not a {'/'.join(kinds)} SubjectPublicKeyInfo")


def key_field(kind: str, raw: bytes) -> bytes:
    return len1(spki(kind, raw))


def public_raw(key) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def private_raw(key) -> bytes:
    return key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                             serialization.NoEncryption())


class SignKey:
    """An Ed25519 or Ed448 private key with its §1.3 public key field."""

    def __init__(self, kind="ed25519", seed: bytes = None):
        cls = ed25519.Ed25519PrivateKey if kind == "ed25519" else ed448.Ed448PrivateKey
        self.kind = kind
        self.key = cls.from_private_bytes(seed) if seed is not None else cls.generate()
        self.public = public_raw(self.key.public_key())

    def sign(self, data: bytes) -> bytes:
        return self.key.sign(data)

    def field(self) -> bytes:
        return key_field(self.kind, self.public)


def verify(kind: str, raw: bytes, sig: bytes, data: bytes) -> bool:
    if len(sig) != SIG_LEN.get(kind, -1):
        return False
    cls = ed25519.Ed25519PublicKey if kind == "ed25519" else ed448.Ed448PublicKey
    try:
        cls.from_public_bytes(raw).verify(sig, data)
        return True
    except (InvalidSignature, ValueError):
        return False


def x25519_keypair():
    k = x25519.X25519PrivateKey.generate()
    return private_raw(k), public_raw(k.public_key())


def x25519_dh(priv: bytes, pub: bytes) -> bytes:
    return x25519.X25519PrivateKey.from_private_bytes(priv).exchange(x25519.X25519PublicKey.from_public_bytes(pub))


def b64u(b: bytes) -> str:
    return _xr.b64u(b)


def b64u_decode(s: str) -> bytes:
    try:
        return _xr.b64u_decode(s)
    except ValueError as e:
        raise SMPError("CMD SYNTAX", str(e)) from None


# §1.5 boxes, §1.6 HKDF

def sx_box(k: bytes, nonce: bytes, m: bytes) -> bytes:
    return nacl.bindings.crypto_secretbox(m, nonce, _xr.hsalsa20(k, bytes(16)))


def sx_open(k: bytes, nonce: bytes, c: bytes, error="BLOCK") -> bytes:
    if len(c) < 16:
        raise SMPError(error, "ciphertext shorter than the tag")
    try:
        return nacl.bindings.crypto_secretbox_open(c, nonce, _xr.hsalsa20(k, bytes(16)))
    except Exception:  # nacl.exceptions.CryptoError
        raise SMPError(error, "box does not open") from None


def hkdf(salt: bytes, ikm: bytes, info: bytes, n: int) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha512).digest()  # an empty salt is 64 zero bytes to HMAC
    out, t, i = b"", b"", 1
    while len(out) < n:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha512).digest()
        out += t
        i += 1
    return out[:n]


# §1.7 server address

def parse_server_address(text: str):
    """smp://<b64u keyHash>[:<basicAuth>]@<host>[,<host>...][:<port>] -> dict."""
    if not text.startswith("smp://") or "@" not in text:
        raise SMPError("CMD SYNTAX", "not an smp:// server address")
    cred, hostport = text[len("smp://"):].rsplit("@", 1)
    key_hash_text, _, auth = cred.partition(":")
    key_hash = b64u_decode(key_hash_text)  # any length parses (a wrong one fails the fingerprint check)
    port = ""
    if hostport.startswith("["):  # bracketed IPv6 as the last host is not expected from our servers
        hosts_text = hostport
    else:
        hosts_text, sep, port = hostport.rpartition(":")
        if not sep or "," in port or not port.isdigit():
            hosts_text, port = hostport, ""
    hosts = hosts_text.split(",")
    if not all(hosts):
        raise SMPError("CMD SYNTAX", "empty host")
    return {"keyHash": key_hash, "basicAuth": auth or None, "hosts": hosts, "port": port}


def server_address(key_hash: bytes, host: str, port: int, password=None) -> str:
    auth = f":{password}" if password else ""
    return f"smp://{b64u(key_hash)}{auth}@{host}:{port}"


# ---------------------------------------------------------------------------------------------------------------------
# §2.2 certificates, TLS contexts, chain checks

def make_chain(length=2, kind="ed25519", basic_constraints=True):
    """[leaf, identity, ..., CA] as (certificate list, leaf private key); CAs carry basicConstraints CA:TRUE unless
    told otherwise (the reference's generated certificates have no extensions, which its validation accepts for
    the 2-chain, where the identity certificate is the trust anchor)."""
    if not 2 <= length <= 4:
        raise ValueError("a chain has 2 to 4 certificates")
    gen = ed25519.Ed25519PrivateKey.generate if kind == "ed25519" else ed448.Ed448PrivateKey.generate
    keys = [gen() for _ in range(length)]
    names = ["smp-server", "identity", "network"][:length - 1] + ["ca"]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    certs = [None] * length
    for i in range(length - 1, -1, -1):
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[i])])
        issuer = certs[i + 1].subject if i + 1 < length else subject
        signer = keys[i + 1] if i + 1 < length else keys[i]
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
                   .public_key(keys[i].public_key()).serial_number(i + 1)
                   .not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=3650)))
        if i > 0 and basic_constraints:
            builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        certs[i] = builder.sign(signer, None)
    return certs, keys[0]


def load_or_make_chain(path, length, kind):
    """The chain and leaf key kept in `path` (PEM certificates then the PKCS#8 leaf key), made and written there
    when it does not exist yet, so that a restarted server keeps its identity (its address's key hash)."""
    if path and os.path.exists(path):
        data = open(path, "rb").read()
        marker = b"-----BEGIN PRIVATE KEY-----"
        certs = x509.load_pem_x509_certificates(data[:data.index(marker)])
        return certs, serialization.load_pem_private_key(data[data.index(marker):], None)
    chain, leaf = make_chain(length, kind)
    if path:
        with open(path, "wb") as f:
            for c in chain:
                f.write(c.public_bytes(serialization.Encoding.PEM))
            f.write(leaf.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return chain, leaf


def cert_der(cert) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


def identity_fingerprint(chain_ders) -> bytes:
    """§2.2: SHA-256 of the full DER of the identity certificate, the 2nd of the chain."""
    return hashlib.sha256(chain_ders[1]).digest()


def cert_key(cert):
    """(kind, raw public key) of an Ed25519/Ed448 certificate."""
    pub = cert.public_key()
    if isinstance(pub, ed25519.Ed25519PublicKey):
        return "ed25519", public_raw(pub)
    if isinstance(pub, ed448.Ed448PublicKey):
        return "ed448", public_raw(pub)
    raise SMPError("HANDSHAKE IDENTITY", f"certificate key {type(pub).__name__} is not Ed25519/Ed448")


def check_server_chain(ders, key_hash: bytes):
    """§2.2 client checks: 2..4 certificates, identity fingerprint = address keyHash, then path validation with the
    last certificate as the only trust anchor, as the reference's x509-validation does it with that certificate as
    its store: a v3 leaf; each certificate signed by the next with matching names and valid now; intermediates (3-
    and 4-chains) with basicConstraints CA; of the anchor only the key and name are used."""
    if not 2 <= len(ders) <= 4:
        raise SMPError("HANDSHAKE IDENTITY", f"chain of {len(ders)} certificates")
    if identity_fingerprint(ders) != key_hash:
        raise SMPError("HANDSHAKE IDENTITY", "identity certificate fingerprint differs from the address keyHash")
    try:
        certs = [x509.load_der_x509_certificate(d) for d in ders]
    except ValueError as e:
        raise SMPError("HANDSHAKE IDENTITY", f"certificate does not parse: {e}") from None
    now = datetime.datetime.now(datetime.timezone.utc)
    if certs[0].version != x509.Version.v3:
        raise SMPError("HANDSHAKE IDENTITY", "leaf is not an X.509 v3 certificate")
    for i, cert in enumerate(certs[:-1]):  # the last one is the trust anchor: only its key and name are used
        if not cert.not_valid_before_utc <= now <= cert.not_valid_after_utc:
            raise SMPError("HANDSHAKE IDENTITY", f"certificate {i} is not valid now")
        if i > 0:  # an intermediate (chains of 3 and 4) must be a CA
            try:
                bc = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
            except x509.ExtensionNotFound:
                raise SMPError("HANDSHAKE IDENTITY", f"certificate {i} has no basicConstraints") from None
            if not bc.ca:
                raise SMPError("HANDSHAKE IDENTITY", f"certificate {i} is not a CA")
        if i + 1 < len(certs):
            issuer = certs[i + 1]
            kind, raw = cert_key(issuer)
            if cert.issuer != issuer.subject or not verify(kind, raw, cert.signature, cert.tbs_certificate_bytes):
                raise SMPError("HANDSHAKE IDENTITY", f"certificate {i} is not signed by certificate {i + 1}")
    return certs


def _tls_context(server: bool, alpn, chain=None, leaf_key=None, suites="TLS_CHACHA20_POLY1305_SHA256",
                 groups="X25519:X448"):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server else ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.maximum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED  # only to locate the SSL_CTX (mode 3); reset below
    if server:
        context.num_tickets = 0  # §2.2: no resumption
        tmp = tempfile.mkdtemp(prefix="smp-peer-")
        try:
            chain_path, key_path = os.path.join(tmp, "chain.pem"), os.path.join(tmp, "key.pem")
            with open(chain_path, "w") as f:
                for cert in chain:
                    f.write(ssl.DER_cert_to_PEM_cert(cert_der(cert)))
            with open(key_path, "wb") as f:
                f.write(leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
            context.load_cert_chain(chain_path, key_path)
        finally:
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)
    ctx = _xr._ssl_ctx_pointer(context, _xr.SSL_VERIFY_PEER | _xr.SSL_VERIFY_FAIL_IF_NO_PEER_CERT)
    if _xr._libssl.SSL_CTX_set_ciphersuites(ctx, suites.encode()) != 1:
        raise RuntimeError("SSL_CTX_set_ciphersuites failed")
    if _xr._libssl.SSL_CTX_ctrl(ctx, _xr.SSL_CTRL_SET_GROUPS_LIST, 0, groups.encode()) != 1:
        raise RuntimeError("setting groups failed")
    if _xr._libssl.SSL_CTX_ctrl(ctx, _xr.SSL_CTRL_SET_SIGALGS_LIST, 0, b"ed25519:ed448") != 1:
        raise RuntimeError("setting signature algorithms failed")
    # Servers ask no client certificate; clients check the chain themselves after the handshake (§2.2), since
    # OpenSSL's path building wants a trust store.
    context.verify_mode = ssl.CERT_NONE
    if alpn:
        context.set_alpn_protocols(list(alpn))
    return context


class TLSConn:
    """TLS over memory BIOs with the socket I/O outside OpenSSL: a connection has a reader and a writer thread, and
    concurrent SSL_read/SSL_write on one SSL object corrupt records (seen as bad_record_mac), so every call into the
    SSL object holds one lock. Offers the few socket methods the peer uses."""

    def __init__(self, raw, context, server_side: bool, sni=None):
        self.raw = raw
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = context.wrap_bio(self.incoming, self.outgoing, server_side=server_side,
                                    server_hostname=sni)  # SMP clients send no SNI (§2.1)
        self.ssl_lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.read_lock = threading.Lock()
        while True:
            try:
                with self.ssl_lock:
                    self.obj.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                if not self._feed():
                    raise ssl.SSLEOFError(8, "EOF during the TLS handshake") from None
            except ssl.SSLError:
                self._flush()  # the alert
                raise

    def __getattr__(self, name):  # version, cipher, selected_alpn_protocol, get_channel_binding, _sslobj
        return getattr(self.obj, name)

    def _flush(self):
        with self.send_lock:
            with self.ssl_lock:
                data = self.outgoing.read()
            if data:
                self.raw.sendall(data)

    def _feed(self) -> bool:
        data = self.raw.recv(65536)
        with self.ssl_lock:
            if data:
                self.incoming.write(data)
            else:
                self.incoming.write_eof()
        return bool(data)

    def sendall(self, data: bytes):
        with self.send_lock:
            with self.ssl_lock:
                self.obj.write(data)
                out = self.outgoing.read()
            self.raw.sendall(out)

    def recv(self, n: int) -> bytes:
        with self.read_lock:
            while True:
                try:
                    with self.ssl_lock:
                        out = self.obj.read(n)
                    break
                except ssl.SSLWantReadError:
                    self._feed()
                except ssl.SSLZeroReturnError:  # close_notify
                    return b""
            if self.outgoing.pending:
                self._flush()
            return out

    def settimeout(self, t):
        self.raw.settimeout(t)

    def shutdown(self, how):
        self.raw.shutdown(how)

    def close(self):
        self.raw.close()


def peer_chain_ders(tls) -> list:
    get_chain = getattr(tls, "get_unverified_chain", None) or tls._sslobj.get_unverified_chain
    chain = get_chain() or []
    return [c.public_bytes(ssl._ssl.ENCODING_DER) if hasattr(c, "public_bytes") else c for c in chain]


def tls_unique(tls) -> bytes:
    """§2.3: CPython's tls-unique is SSL_get_finished on a client and SSL_get_peer_finished on a server, which under
    TLS 1.3 is the client's Finished verify_data on both sides -- exactly the SMP session id."""
    value = tls.get_channel_binding("tls-unique")
    if not value:
        raise SMPError("SESSION", "no tls-unique from the TLS layer")
    return value


def read_exact(sock, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        try:
            chunk = sock.recv(n - len(buf))
        except (OSError, ssl.SSLError) as e:  # a reset or a TLS alert ends the connection like an EOF
            raise SMPError("CLOSED", f"{e} after {len(buf)} of {n} bytes") from None
        if not chunk:
            raise SMPError("CLOSED", f"connection closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


# ---------------------------------------------------------------------------------------------------------------------
# §2.4 handshake blocks

def _der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def _der(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + _der_len(len(content)) + content


def _der_read(data: bytes, pos: int, tag: int):
    """(start of the whole TLV, start of content, end) of one DER element at pos with the given tag."""
    if pos + 2 > len(data) or data[pos] != tag:
        raise SMPError("HANDSHAKE PARSE", f"DER tag {tag:#x} expected at {pos}")
    n, p = data[pos + 1], pos + 2
    if n & 0x80:
        k = n & 0x7F
        if k == 0 or k > 3 or p + k > len(data):
            raise SMPError("HANDSHAKE PARSE", "DER length")
        n, p = int.from_bytes(data[p:p + k], "big"), p + k
    if p + n > len(data):
        raise SMPError("HANDSHAKE PARSE", "DER element exceeds its container")
    return pos, p, p + n


def signed_dh_key(x25519_pub: bytes, leaf: SignKey) -> bytes:
    """X.509 SignedExact of SEQUENCE { SPKI(X25519) }, signed by the leaf key, AlgorithmIdentifier without
    parameters (§2.4)."""
    inner = _der(0x30, spki("x25519", x25519_pub))
    return _der(0x30, inner + ALG_ID[leaf.kind] + _der(0x03, b"\x00" + leaf.sign(inner)))


def verify_signed_dh_key(der: bytes, leaf_kind: str, leaf_raw: bytes) -> bytes:
    """The X25519 key of a signed key object, after checking the leaf's signature over the wrapped SPKI."""
    _, c, end = _der_read(der, 0, 0x30)
    if end != len(der):
        raise SMPError("HANDSHAKE PARSE", "trailing bytes after the signed key")
    i0, ic, ie = _der_read(der, c, 0x30)
    _, kc, ke = _der_read(der, ic, 0x30)
    if ke != ie:
        raise SMPError("HANDSHAKE PARSE", "signed object is not SEQUENCE { SPKI }")
    _, key = parse_spki(der[ic:ie], ("x25519",))
    a0, _, ae = _der_read(der, ie, 0x30)
    if der[a0:ae] != ALG_ID[leaf_kind]:
        raise SMPError("HANDSHAKE BAD_AUTH", "signature algorithm differs from the leaf key's")
    _, bc, be = _der_read(der, ae, 0x03)
    if be != end or bc >= be or der[bc] != 0:
        raise SMPError("HANDSHAKE PARSE", "signature BIT STRING")
    if not verify(leaf_kind, leaf_raw, der[bc + 1:be], der[i0:ie]):
        raise SMPError("HANDSHAKE BAD_AUTH", "signed key not signed by the TLS leaf")
    return key


def encode_server_hello(vrange, session_id: bytes, chain_ders, signed_key: bytes) -> bytes:
    out = u16(vrange[0]) + u16(vrange[1]) + len1(session_id)
    if vrange[1] >= 7:
        out += bytes([len(chain_ders)]) + b"".join(len2(d) for d in chain_ders) + len2(signed_key)
    return out


def parse_server_hello(content: bytes) -> dict:
    p = Parser(content, "HANDSHAKE PARSE")
    lo, hi = p.u16(), p.u16()
    if lo > hi:
        p.fail("version range min > max")
    out = {"versions": (lo, hi), "sessionId": p.len1(), "chain": None, "signedKey": None}
    if hi >= 7:
        n = p.byte()
        if n == 0:
            p.fail("empty certificate chain")
        out["chain"] = [p.len2() for _ in range(n)]
        out["signedKey"] = p.len2()
    return out  # trailing bytes ignored (forward extension)


def encode_client_hello(v: int, key_hash: bytes, dh_pub) -> bytes:
    out = u16(v) + len1(key_hash)
    if v >= 7 and dh_pub is not None:
        out += key_field("x25519", dh_pub)
    if v >= 14:
        out += b"F"  # not a proxy
    if v >= 16:
        out += b"0"  # no client service
    return out


def parse_client_hello(content: bytes) -> dict:
    p = Parser(content, "HANDSHAKE PARSE")
    v = p.u16()
    out = {"version": v, "keyHash": p.len1(), "dhKey": None, "proxy": False, "service": None}
    if v >= 7 and not p.at_end() and p.data[p.pos] == 44:  # len1(SPKI X25519)
        _, out["dhKey"] = parse_spki(p.len1(), ("x25519",))
    if v >= 14:
        out["proxy"] = p.bool()
    if v >= 16:
        out["service"] = p.maybe(p.rest)
    return out


# §2.5 / §2.6 blocks

class SbChain:
    """One direction of the §2.6 block-encryption chain."""

    def __init__(self, ck: bytes):
        self.ck = ck

    def next(self):
        out = hkdf(b"", self.ck, b"SimpleXSbChain", 88)
        self.ck = out[:32]
        return out[32:64], out[64:88]


def sb_chain_init(session_id: bytes, dh: bytes):
    """(ck1, ck2): server sends on ck1, client sends on ck2."""
    out = hkdf(session_id, dh, b"SimpleXSbChainInit", 64)
    return out[:32], out[32:]


def encode_batch(transmissions) -> bytes:
    if not 1 <= len(transmissions) <= 255:
        raise SMPError("LARGE_MSG", "a batch holds 1 to 255 transmissions")
    return bytes([len(transmissions)]) + b"".join(len2(t) for t in transmissions)


def parse_batch(content: bytes) -> list:
    p = Parser(content, "BLOCK")
    n = p.byte()
    if n == 0:
        p.fail("empty batch")
    return [p.len2() for _ in range(n)]


def pack_batches(transmissions) -> list:
    """Consecutive transmissions packed greedily into batch contents of at most MAX_BATCH bytes."""
    batches, cur, size = [], [], 1
    for t in transmissions:
        if 1 + 2 + len(t) > MAX_BATCH:
            raise SMPError("LARGE_MSG", f"transmission of {len(t)} bytes does not fit a block")
        if cur and (size + 2 + len(t) > MAX_BATCH or len(cur) == 255):
            batches.append(encode_batch(cur))
            cur, size = [], 1
        cur.append(t)
        size += 2 + len(t)
    if cur:
        batches.append(encode_batch(cur))
    return batches


class Transport:
    """Blocks over a TLS socket: plain pad(…, 16384) until the chains are set, then §2.6 boxes."""

    def __init__(self, tls):
        self.tls = tls
        self.send_chain = None
        self.recv_chain = None
        self.lock = threading.Lock()

    def encrypt(self, send_ck: bytes, recv_ck: bytes):
        self.send_chain, self.recv_chain = SbChain(send_ck), SbChain(recv_ck)

    def send_block(self, content: bytes):
        with self.lock:
            if self.send_chain is None:
                block = pad(content, BLOCK_SIZE)
            else:
                sk, nonce = self.send_chain.next()
                block = sx_box(sk, nonce, pad(content, ENCRYPTED_PAD))
            self.tls.sendall(block)

    def recv_block(self) -> bytes:
        block = read_exact(self.tls, BLOCK_SIZE)
        if self.recv_chain is None:
            return unpad(block)
        sk, nonce = self.recv_chain.next()
        return unpad(sx_open(sk, nonce, block))


# ---------------------------------------------------------------------------------------------------------------------
# §3.1 transmissions

def encode_client_transmission(v: int, session_id: bytes, corr_id: bytes, entity: bytes, command: bytes,
                               key: SignKey = None) -> bytes:
    body = len1(corr_id) + len1(entity) + command
    if v < 7:
        body = len1(session_id) + body  # sent and signed
        signed = body
    else:
        signed = len1(session_id) + body  # signed, not sent
    if key is None:
        return b"\x00" + body
    return len1(key.sign(signed)) + (b"0" if v >= 16 else b"") + body


def parse_client_transmission(v: int, session_id: bytes, t: bytes) -> dict:
    """{auth, service, corrId, entity, command, signed}; corrId is set as soon as it is read, for the error reply."""
    out = {"corrId": b"", "entity": b""}
    p = Parser(t, "BLOCK")
    try:
        out["auth"] = p.len1()
        out["service"] = p.maybe(p.len1) if (out["auth"] and v >= 16) else None
        start = p.pos
        if v < 7:
            if p.len1() != session_id:
                raise SMPError("SESSION", "session id differs")
        out["corrId"] = p.len1()
        out["entity"] = p.len1()
        out["command"] = p.rest()
        out["signed"] = (len1(session_id) + t[start:]) if v >= 7 else t[start:]
    except SMPError as e:
        e.corr_id = out["corrId"]
        e.entity = out["entity"]
        raise
    return out


def encode_server_transmission(v: int, session_id: bytes, corr_id: bytes, entity: bytes, response: bytes) -> bytes:
    return b"\x00" + (len1(session_id) if v < 7 else b"") + len1(corr_id) + len1(entity) + response


def parse_server_transmission(v: int, session_id: bytes, t: bytes) -> dict:
    p = Parser(t, "BLOCK")
    if p.len1():
        p.fail("server transmissions carry no authorization")
    if v < 7 and p.len1() != session_id:
        raise SMPError("SESSION", "session id differs")
    corr, entity = p.len1(), p.len1()
    return {"corrId": corr, "entity": entity, "response": p.rest()}


# §3.3 commands (client side encoders)

def cmd_new(v: int, rcv_key: SignKey, dh_pub: bytes, subscribe=True, mode="M", basic_auth=None) -> bytes:
    out = b"NEW " + rcv_key.field() + key_field("x25519", dh_pub)
    auth = None if basic_auth is None else len1(basic_auth.encode())
    sub = b"S" if subscribe else b"C"
    if v >= 9:
        out += maybe(auth) + sub
        if v >= 15:
            out += maybe(None if mode is None else mode.encode() + b"0")
            if v >= 17:
                out += b"0"  # no notifier credentials
        else:
            out += smp_bool(mode == "M")
    else:
        out += (b"A" + auth if auth is not None else b"") + sub
    return out


def cmd_key(tag: bytes, sender_key: SignKey) -> bytes:
    return tag + b" " + sender_key.field()


def cmd_send(body: bytes, notification=True) -> bytes:
    return b"SEND " + smp_bool(notification) + b" " + body


def cmd_ack(msg_id: bytes) -> bytes:
    return b"ACK " + len1(msg_id)


# §3.4 responses (client side parser)

class Response:
    def __init__(self, tag, corr_id=b"", entity=b"", **fields):
        self.tag = tag
        self.corr_id = corr_id
        self.entity = entity
        self.fields = fields

    def __getitem__(self, k):
        return self.fields[k]

    def __repr__(self):
        return f"Response({self.tag}, {self.fields.get('error', '')})"


def parse_response(v: int, data: bytes, corr_id=b"", entity=b"") -> Response:
    tag, _, rest = data.partition(b" ")
    p = Parser(rest, "CMD SYNTAX")
    if tag == b"IDS":
        f = {"rcvId": p.len1(), "sndId": p.len1()}
        _, f["srvDhKey"] = parse_spki(p.len1(), ("x25519",))
        f["queueMode"] = f["linkId"] = f["serviceId"] = f["ntfCreds"] = None
        if v >= 15:
            f["queueMode"] = p.maybe(lambda: p.take(1).decode())
            f["linkId"] = p.maybe(p.len1)
            if v >= 16:
                f["serviceId"] = p.maybe(p.len1)
            if v >= 17:
                f["ntfCreds"] = p.maybe(lambda: (p.len1(), parse_spki(p.len1(), ("x25519",))[1]))
        elif v >= 9:
            f["queueMode"] = "M" if p.bool() else None
        return Response("IDS", corr_id, entity, **f)
    if tag == b"MSG":
        return Response("MSG", corr_id, entity, msgId=p.len1(), body=p.rest())
    if tag == b"SOK":
        return Response("SOK", corr_id, entity, serviceId=p.maybe(p.len1))
    if tag == b"ERR":
        return Response("ERR", corr_id, entity, error=rest.decode("ascii", "replace"))
    if tag in (b"OK", b"END", b"DELD", b"PONG") and not rest and b" " not in data:
        return Response(tag.decode(), corr_id, entity)
    raise SMPError("CMD UNKNOWN", f"response {data[:16]!r}")


# §3.7 MSG decryption

def decrypt_msg(rcv_dh_secret: bytes, msg_id: bytes, body: bytes) -> dict:
    nonce = (msg_id + bytes(24))[:24]
    plain = unpad(sx_open(rcv_dh_secret, nonce, body, error="CRYPTO"))
    if plain.startswith(b"QUOTA "):
        p = Parser(plain[6:])
        return {"kind": "quota", "ts": p.i64()}
    p = Parser(plain)
    ts = p.i64()
    notification = p.bool()
    while p.take(1) != b" ":  # future flags up to the space
        pass
    return {"kind": "message", "ts": ts, "notification": notification, "body": p.rest()}


def encrypt_msg(rcv_dh_secret: bytes, msg_id: bytes, plain: bytes) -> bytes:
    return sx_box(rcv_dh_secret, (msg_id + bytes(24))[:24], pad(plain, RCV_MSG_PAD))


def max_message_length(v: int) -> int:
    return 16048 if v >= 11 else 16064 if v >= 8 else 16088


# ---------------------------------------------------------------------------------------------------------------------
# client library

class RcvQueue:
    """A queue this client created: ids and the recipient's keys (§3.2, §3.7)."""

    def __init__(self, ids: Response, rcv_key: SignKey, dh_priv: bytes):
        self.rcv_id = ids["rcvId"]
        self.snd_id = ids["sndId"]
        self.queue_mode = ids["queueMode"]
        self.link_id = ids["linkId"]
        self.rcv_key = rcv_key
        self.dh_secret = x25519_dh(dh_priv, ids["srvDhKey"])

    def decrypt(self, msg: Response) -> dict:
        return decrypt_msg(self.dh_secret, msg["msgId"], msg["body"])


class SMPClient:
    """One connection to one SMP server: handshake, requests matched by corrId, events (empty corrId) queued."""

    def __init__(self, address: str, alpn=(ALPN_SMP,), versions=CLIENT_VERSIONS, timeout=10.0, host=None,
                 suites="TLS_CHACHA20_POLY1305_SHA256", groups="X25519:X448"):
        self.address = parse_server_address(address)
        self.timeout = timeout
        self.pending = {}
        self.events = queue.Queue()
        self.lock = threading.Lock()
        self.closed = None
        self.blocks = []  # response tags of the last blocks received, one list per block
        host = host or self.address["hosts"][0]
        port = int(self.address["port"] or 5223)
        raw = socket.create_connection((host, port), timeout=timeout)
        try:
            self.tls = TLSConn(raw, _tls_context(False, alpn, suites=suites, groups=groups), False)
        except (ssl.SSLError, OSError) as e:
            raw.close()
            raise SMPError("TLS", str(e)) from None
        try:
            self._handshake(versions)
        except BaseException:
            self.tls.close()
            raise
        self.tls.settimeout(None)
        self.reader = threading.Thread(target=self._read_loop, daemon=True)
        self.reader.start()

    def _handshake(self, versions):
        self.transport = Transport(self.tls)
        self.session_id = tls_unique(self.tls)
        hello = parse_server_hello(self.transport.recv_block())
        self.server_versions = hello["versions"]
        self.tls_info = {"tlsVersion": self.tls.version(), "cipher": self.tls.cipher()[0],
                         "alpn": self.tls.selected_alpn_protocol(), "sessionId": self.session_id.hex(),
                         "serverVersions": list(hello["versions"])}
        if hello["sessionId"] != self.session_id:
            raise SMPError("SESSION", "server hello session id differs from tls-unique")
        chain = peer_chain_ders(self.tls)
        certs = check_server_chain(chain, self.address["keyHash"])
        self.tls_info["chainLength"] = len(chain)
        lo, hi = max(versions[0], hello["versions"][0]), min(versions[1], hello["versions"][1])
        if lo > hi:
            raise SMPError("VERSION", f"no common version: ours {versions}, server {hello['versions']}")
        self.version = hi
        srv_dh = None
        if hi >= 7:
            if hello["chain"] != chain:
                raise SMPError("HANDSHAKE IDENTITY", "hello chain differs from the TLS chain")
            srv_dh = verify_signed_dh_key(hello["signedKey"], *cert_key(certs[0]))
        dh_priv, dh_pub = x25519_keypair() if hi >= 7 else (None, None)
        self.transport.send_block(encode_client_hello(hi, self.address["keyHash"], dh_pub))
        if hi >= 11 and srv_dh is not None:
            ck1, ck2 = sb_chain_init(self.session_id, x25519_dh(dh_priv, srv_dh))
            self.transport.encrypt(ck2, ck1)
        self.tls_info["version"] = hi
        self.tls_info["blockEncryption"] = self.transport.send_chain is not None

    def _read_loop(self):
        try:
            while True:
                responses = []
                for t in parse_batch(self.transport.recv_block()):
                    tr = parse_server_transmission(self.version, self.session_id, t)
                    responses.append(parse_response(self.version, tr["response"], tr["corrId"], tr["entity"]))
                self.blocks.append([r.tag for r in responses])  # before any waiter wakes
                del self.blocks[:-64]
                for resp in responses:
                    with self.lock:
                        waiter = self.pending.pop(resp.corr_id, None) if resp.corr_id else None
                    (waiter or self.events).put(resp)
        except (SMPError, OSError, ssl.SSLError) as e:
            err = e if isinstance(e, SMPError) else SMPError("CLOSED", str(e))
            with self.lock:
                self.closed = err
                waiters = list(self.pending.values())
                self.pending.clear()
            for w in waiters:
                w.put(err)
            self.events.put(err)

    def send_transmissions(self, items):
        """items: (entity, command, key or None); sent in as few blocks as fit. Returns the response queues."""
        waiters, ts = [], []
        for entity, command, key in items:
            corr = secrets.token_bytes(24)
            w = queue.Queue()
            with self.lock:
                if self.closed:
                    raise self.closed
                self.pending[corr] = w
            waiters.append(w)
            ts.append(encode_client_transmission(self.version, self.session_id, corr, entity, command, key))
        for content in pack_batches(ts):
            self.transport.send_block(content)
        return waiters

    def wait(self, w) -> Response:
        try:
            r = w.get(timeout=self.timeout)
        except queue.Empty:
            raise SMPError("TIMEOUT", "no response") from None
        if isinstance(r, SMPError):
            raise r
        return r

    def request(self, entity: bytes, command: bytes, key: SignKey = None) -> Response:
        return self.wait(self.send_transmissions([(entity, command, key)])[0])

    def next_event(self, timeout=None) -> Response:
        try:
            r = self.events.get(timeout=self.timeout if timeout is None else timeout)
        except queue.Empty:
            raise SMPError("TIMEOUT", "no event") from None
        if isinstance(r, SMPError):
            raise r
        return r

    # commands
    def create_queue(self, subscribe=True, mode="M", basic_auth=None, key_kind="ed25519"):
        rcv_key = SignKey(key_kind)
        dh_priv, dh_pub = x25519_keypair()
        r = self.request(b"", cmd_new(self.version, rcv_key, dh_pub, subscribe, mode, basic_auth), rcv_key)
        expect(r, "IDS")
        return RcvQueue(r, rcv_key, dh_priv)

    def secure_by_recipient(self, q: RcvQueue, sender_key: SignKey) -> Response:
        return self.request(q.rcv_id, cmd_key(b"KEY", sender_key), q.rcv_key)

    def secure_by_sender(self, snd_id: bytes, sender_key: SignKey) -> Response:
        return self.request(snd_id, cmd_key(b"SKEY", sender_key), sender_key)

    def send(self, snd_id: bytes, body: bytes, sender_key: SignKey = None, notification=True) -> Response:
        return self.request(snd_id, cmd_send(body, notification), sender_key)

    def sub(self, q: RcvQueue) -> Response:
        return self.request(q.rcv_id, b"SUB", q.rcv_key)

    def get(self, q: RcvQueue) -> Response:
        return self.request(q.rcv_id, b"GET", q.rcv_key)

    def ack(self, q: RcvQueue, msg_id: bytes) -> Response:
        return self.request(q.rcv_id, cmd_ack(msg_id), q.rcv_key)

    def off(self, q: RcvQueue) -> Response:
        return self.request(q.rcv_id, b"OFF", q.rcv_key)

    def delete(self, q: RcvQueue) -> Response:
        return self.request(q.rcv_id, b"DEL", q.rcv_key)

    def ping(self) -> Response:
        return self.request(b"", b"PING")

    def close(self):
        try:
            self.tls.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.tls.close()


def expect(r: Response, tag: str) -> Response:
    if r.tag != tag:
        raise SMPError(r.fields.get("error", "UNEXPECTED"), f"expected {tag}, got {r.tag}")
    return r


# ---------------------------------------------------------------------------------------------------------------------
# server (§3.8)

class Queue:
    def __init__(self, rcv_id, snd_id, rcv_key, dh_secret, mode):
        self.rcv_id = rcv_id
        self.snd_id = snd_id
        self.rcv_keys = [rcv_key]  # (kind, raw)
        self.dh_secret = dh_secret
        self.mode = mode  # "M", "C" or None
        self.sender_key = None
        self.status = "active"
        self.messages = deque()  # (msgId, plaintext)
        self.accepting = True  # False after the QUOTA marker until the queue is empty
        self.subscriber = None  # ServerConn holding the SUB


class Sub:
    def __init__(self, kind):
        self.kind = kind  # "SUB" or "GET"
        self.delivered = None  # msgId in flight


class ServerConn:
    def __init__(self, server, tls, transport, version, session_id):
        self.server = server
        self.tls = tls
        self.transport = transport
        self.version = version
        self.session_id = session_id
        self.subs = {}  # rcvId -> Sub
        self.outq = queue.Queue()
        self.alive = True
        self.replies = None  # responses to the block being processed
        self.deferred = None  # events caused by it, sent after its responses in the same write

    def push(self, corr_id: bytes, entity: bytes, response: bytes):
        t = encode_server_transmission(self.version, self.session_id, corr_id, entity, response)
        if self.replies is not None:
            self.replies.append(t)
        else:
            self.outq.put([t])

    def event(self, entity: bytes, response: bytes):
        """An event (empty corrId): after the current block's responses when it was caused by this connection's
        block, as the reference delivers from its own thread ([SOK, PONG, MSG] for SUB+PING, §9.5)."""
        if self.deferred is not None:
            self.deferred.append(encode_server_transmission(self.version, self.session_id, b"", entity, response))
        else:
            self.push(b"", entity, response)

    def writer(self):
        while True:
            first = self.outq.get()
            if first is None:
                return
            items = list(first)
            while True:  # whatever else is waiting goes in the same blocks
                try:
                    nxt = self.outq.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self.outq.put(None)
                    break
                items.extend(nxt)
            try:
                for content in pack_batches(items):
                    self.transport.send_block(content)
            except (OSError, ssl.SSLError, SMPError):
                self.alive = False
                return


class SMPServer:
    def __init__(self, port=0, kind="ed25519", chain_length=2, quota=DEFAULT_QUOTA, end_interval=PENDING_END_INTERVAL,
                 password=None, versions=SERVER_VERSIONS, log=None, identity=None):
        self.chain, leaf = load_or_make_chain(identity, chain_length, kind)
        self.leaf = SignKey("ed448" if isinstance(leaf, ed448.Ed448PrivateKey) else "ed25519", private_raw(leaf))
        self.chain_ders = [cert_der(c) for c in self.chain]
        self.key_hash = identity_fingerprint(self.chain_ders)
        self.context = _tls_context(True, (ALPN_SMP,), self.chain, leaf)
        self.sni = threading.local()  # the handshake runs on the connection's thread
        self.context.sni_callback = self._sni
        self.quota = quota
        self.end_interval = end_interval
        self.password = password
        self.versions = versions
        self.log = log or (lambda obj: None)
        self.lock = threading.RLock()
        self.queues = {}  # rcvId -> Queue
        self.senders = {}  # sndId -> Queue
        self.pending_ends = []  # (conn, entity, b"END"/b"DELD")
        self.conns = set()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.address = server_address(self.key_hash, "127.0.0.1", self.port, password)
        self.stopping = False

    def _sni(self, sslobj, name, context):
        self.sni.name = name

    def start(self):
        threading.Thread(target=self._accept_loop, daemon=True).start()
        if self.end_interval > 0:
            threading.Thread(target=self._end_loop, daemon=True).start()
        return self

    def stop(self):
        self.stopping = True
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.tls.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept_loop(self):
        while not self.stopping:
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _end_loop(self):
        while not self.stopping:
            time.sleep(self.end_interval)
            self._flush_ends()

    def _flush_ends(self):
        with self.lock:
            ends, self.pending_ends = self.pending_ends, []
            for conn, entity, tag in ends:
                if conn.alive:
                    conn.event(entity, tag)

    def _notify_end(self, conn, entity, tag):
        if self.end_interval > 0:
            self.pending_ends.append((conn, entity, tag))
        else:
            conn.event(entity, tag)

    # connection
    def _serve(self, raw):
        raw.settimeout(30)
        conn = None
        reason = "closed"
        try:
            self.sni.name = None
            try:
                tls = TLSConn(raw, self.context, True)
            except (ssl.SSLError, OSError) as e:
                reason = f"TLS: {e}"
                return
            alpn = tls.selected_alpn_protocol()
            session_id = tls_unique(tls)
            transport = Transport(tls)
            vrange = self.versions if alpn else (6, 6)  # §2.4: no ALPN -> 6 only
            signed = None
            dh_priv, dh_pub = x25519_keypair()
            if vrange[1] >= 7:
                signed = signed_dh_key(dh_pub, self.leaf)
            transport.send_block(encode_server_hello(vrange, session_id, self.chain_ders, signed))
            hello = parse_client_hello(transport.recv_block())
            v = hello["version"]
            info = {"event": "connection", "alpn": alpn, "cipher": tls.cipher()[0], "tlsVersion": tls.version(),
                    "sni": self.sni.name,
                    "sessionId": session_id.hex(), "version": v, "clientDhKey": hello["dhKey"] is not None}
            if hello["keyHash"] != self.key_hash:  # checked before the version, as the reference does
                raise SMPError("HANDSHAKE IDENTITY", "client hello keyHash is not this server's")
            if not vrange[0] <= v <= vrange[1]:
                raise SMPError("VERSION", f"client chose {v}, server offers {vrange}")
            if hello["service"] is not None:
                raise SMPError("HANDSHAKE BAD_SERVICE", "client services are not served")
            if v >= 11 and hello["dhKey"] is not None and not hello["proxy"]:
                ck1, ck2 = sb_chain_init(session_id, x25519_dh(dh_priv, hello["dhKey"]))
                transport.encrypt(ck1, ck2)
            info["blockEncryption"] = transport.send_chain is not None
            self.log(info)
            tls.settimeout(None)
            conn = ServerConn(self, tls, transport, v, session_id)
            with self.lock:
                self.conns.add(conn)
            writer = threading.Thread(target=conn.writer, daemon=True)
            writer.start()
            while True:
                content = transport.recv_block()
                self._process_block(conn, content)
        except SMPError as e:
            reason = e.tag if e.tag == "CLOSED" else f"{e.tag}: {e.detail}"
        except (OSError, ssl.SSLError) as e:
            reason = f"socket: {e}"
        finally:
            if conn is not None:
                self._disconnect(conn)
                conn.outq.put(None)
            try:
                raw.close()
            except OSError:
                pass
            self.log({"event": "closed", "reason": reason})

    def _disconnect(self, conn):
        with self.lock:
            conn.alive = False
            self.conns.discard(conn)
            for rid in conn.subs:
                q = self.queues.get(rid)
                if q is not None and q.subscriber is conn:
                    q.subscriber = None  # silently (§3.8)

    def _process_block(self, conn, content):
        try:
            transmissions = parse_batch(content)
        except SMPError:
            conn.push(b"", b"", b"ERR BLOCK")
            return
        with self.lock:  # a block is processed at once: END/DELD ticks and other connections come between blocks
            conn.replies, conn.deferred = [], []
            for t in transmissions:
                # the reference answers an unparsable transmission with an empty corrId, a wrong session id (v6)
                # and a bad authorization size with the corrId, both without the entity
                try:
                    tr = parse_client_transmission(conn.version, conn.session_id, t)
                except SMPError as e:
                    if e.tag == "SESSION":
                        conn.push(e.corr_id, b"", b"ERR SESSION")
                    else:
                        conn.push(b"", b"", b"ERR BLOCK")
                    continue
                if tr["auth"] and len(tr["auth"]) not in (64, 80, 114):  # Ed25519, X25519 authenticator, Ed448
                    conn.push(tr["corrId"], b"", b"ERR BLOCK")
                    continue
                try:
                    resp = self._command(conn, tr)
                except SMPError as e:
                    resp = b"ERR " + e.tag.encode()
                if resp is not None:
                    conn.push(tr["corrId"], tr["entity"], resp)
            out = conn.replies + conn.deferred
            conn.replies = conn.deferred = None
            if out:
                conn.outq.put(out)

    # commands
    def _command(self, conn, tr):
        v = conn.version
        data, entity, auth = tr["command"], tr["entity"], tr["auth"]
        tag, _, rest = data.partition(b" ")
        if tr.get("service") is not None:
            raise SMPError("SERVICE", "service signatures are not served")
        p = Parser(rest)
        if tag == b"PING":
            if data != b"PING":
                raise SMPError("CMD SYNTAX")
            if auth or entity:
                raise SMPError("CMD HAS_AUTH")
            return b"PONG"
        if tag == b"NEW":
            return self._new(conn, v, tr, p)
        # the command is parsed first (CMD SYNTAX), then its credentials are checked (reference checkCredentials:
        # SEND needs an entity; every other queue command needs both a signature and an entity, else NO_AUTH)
        if tag == b"SEND":
            notification = p.bool()
            while p.take(1) != b" ":  # future flags up to the space
                pass
            body = p.rest()
            if not entity:
                raise SMPError("CMD NO_ENTITY")
            return self._send(conn, v, tr, notification, body)
        if tag == b"SKEY":
            kind, raw = parse_spki(p.len1())
            p.end()
            if not auth or not entity:
                raise SMPError("CMD NO_AUTH")
            q = self.senders.get(entity)
            if q is None or not auth or not verify(kind, raw, auth, tr["signed"]):
                raise SMPError("AUTH")
            if q.mode != "M":
                raise SMPError("AUTH", "SKEY on a queue that is not a messaging queue")
            return self._secure(q, (kind, raw))
        if tag in (b"SUB", b"KEY", b"GET", b"ACK", b"OFF", b"DEL"):
            if tag in (b"SUB", b"GET", b"OFF", b"DEL") and data != tag:
                raise SMPError("CMD SYNTAX")
            arg = None
            if tag == b"KEY":
                arg = parse_spki(p.len1())
                p.end()
            elif tag == b"ACK":
                arg = p.len1()
                p.end()
            if not auth or not entity:
                raise SMPError("CMD NO_AUTH")
            q = self.queues.get(entity)
            if q is None or not any(verify(k, r, auth, tr["signed"]) for k, r in q.rcv_keys):
                raise SMPError("AUTH")
            if tag == b"SUB":
                return self._sub(conn, v, q, tr["corrId"])
            if tag == b"KEY":
                return self._secure(q, arg)
            if tag == b"GET":
                return self._get(conn, q)
            if tag == b"ACK":
                return self._ack(conn, q, arg, tr["corrId"])
            if tag == b"OFF":
                q.status = "off"
                return b"OK"
            return self._delete(conn, q)
        if tag in (b"NKEY", b"NDEL", b"NSUB", b"NSUBS", b"SUBS", b"LSET", b"LDEL", b"LKEY", b"LGET", b"QUE", b"RKEY",
                   b"PRXY", b"PFWD", b"RFWD"):
            raise SMPError("CMD PROHIBITED", "not served by this test peer")
        raise SMPError("CMD UNKNOWN")

    def _new(self, conn, v, tr, p):
        rkey = parse_spki(p.len1())
        _, dh_pub = parse_spki(p.len1(), ("x25519",))
        basic_auth, mode = None, None
        if v >= 9:
            basic_auth = p.maybe(p.len1)
            sub = p.take(1)
            if v >= 15:
                mode = p.maybe(lambda: self._queue_req(p))
                if v >= 17 and p.maybe(lambda: True):
                    raise SMPError("CMD PROHIBITED", "notifier credentials are not served by this test peer")
            else:
                mode = "M" if p.bool() else None
        else:
            if p.data[p.pos:p.pos + 1] == b"A":
                p.take(1)
                basic_auth = p.len1()
            sub = p.take(1)
        if sub not in (b"S", b"C"):
            p.fail("subscription mode")
        p.end()
        if not tr["auth"]:
            raise SMPError("CMD NO_AUTH")
        if tr["entity"]:
            raise SMPError("CMD HAS_AUTH")
        if not verify(rkey[0], rkey[1], tr["auth"], tr["signed"]):
            raise SMPError("AUTH")
        if self.password is not None and (basic_auth is None or basic_auth.decode("utf-8", "replace") != self.password):
            raise SMPError("AUTH", "basic auth")
        srv_priv, srv_pub = x25519_keypair()
        for _ in range(3):
            rid, sid = secrets.token_bytes(QUEUE_ID_BYTES), secrets.token_bytes(QUEUE_ID_BYTES)
            if rid not in self.queues and sid not in self.senders:
                break
        else:
            raise SMPError("INTERNAL")
        q = Queue(rid, sid, rkey, x25519_dh(srv_priv, dh_pub), mode)
        self.queues[rid] = q
        self.senders[sid] = q
        if sub == b"S":
            conn.subs[rid] = Sub("SUB")
            q.subscriber = conn
        out = b"IDS " + len1(rid) + len1(sid) + key_field("x25519", srv_pub)
        if v >= 15:
            out += maybe(None if mode is None else mode.encode()) + b"0"  # no link id
            if v >= 16:
                out += b"0"  # no service id
            if v >= 17:
                out += b"0"  # no notifier
        elif v >= 9:
            out += smp_bool(mode == "M")
        return out

    @staticmethod
    def _queue_req(p):
        m = p.take(1)
        if m not in (b"M", b"C"):
            p.fail("queue mode")
        if p.maybe(lambda: True):
            raise SMPError("CMD PROHIBITED", "link data is not served by this test peer")
        return m.decode()

    def _secure(self, q, key):
        if q.sender_key is not None and q.sender_key != key:
            raise SMPError("AUTH", "already secured with another key")
        q.sender_key = key
        return b"OK"

    def _msg(self, q, msg):
        msg_id, plain = msg
        return b"MSG " + len1(msg_id) + encrypt_msg(q.dh_secret, msg_id, plain)

    def _send(self, conn, v, tr, notification, body):
        q = self.senders.get(tr["entity"])
        auth = tr["auth"]
        if q is None:
            raise SMPError("AUTH")
        if q.sender_key is None:
            if auth:
                raise SMPError("AUTH", "signed SEND to an unsecured queue")
        elif not auth or not verify(q.sender_key[0], q.sender_key[1], auth, tr["signed"]):
            raise SMPError("AUTH")
        if len(body) > max_message_length(v):
            raise SMPError("LARGE_MSG")
        if q.status != "active":
            raise SMPError("AUTH", "queue off")
        now = int(time.time())
        if not q.accepting:
            raise SMPError("QUOTA")
        if len(q.messages) >= self.quota:
            q.messages.append((secrets.token_bytes(MSG_ID_BYTES), b"QUOTA " + i64(now)))
            q.accepting = False
            raise SMPError("QUOTA")
        msg = (secrets.token_bytes(MSG_ID_BYTES), i64(now) + smp_bool(notification) + b" " + body)
        was_empty = not q.messages
        q.messages.append(msg)
        sub_conn = q.subscriber
        if was_empty and sub_conn is not None and sub_conn.alive:
            s = sub_conn.subs.get(q.rcv_id)
            if s is not None and s.kind == "SUB" and s.delivered is None:
                s.delivered = msg[0]
                sub_conn.event(q.rcv_id, self._msg(q, msg))
        return b"OK"

    def _sub(self, conn, v, q, corr_id):
        s = conn.subs.get(q.rcv_id)
        if s is not None and s.kind == "GET":
            raise SMPError("CMD PROHIBITED")
        if s is None:
            s = conn.subs[q.rcv_id] = Sub("SUB")
        old = q.subscriber
        if old is not None and old is not conn:
            old.subs.pop(q.rcv_id, None)
            if old.alive:
                self._notify_end(old, q.rcv_id, b"END")
        q.subscriber = conn
        s.delivered = None
        if q.messages:
            s.delivered = q.messages[0][0]
            conn.event(q.rcv_id, self._msg(q, q.messages[0]))
        return b"SOK 0" if v >= 16 else b"OK"

    def _get(self, conn, q):
        s = conn.subs.get(q.rcv_id)
        if s is not None and s.kind == "SUB":
            raise SMPError("CMD PROHIBITED")
        if s is None:
            s = conn.subs[q.rcv_id] = Sub("GET")
        if not q.messages:
            s.delivered = None
            return b"OK"
        s.delivered = q.messages[0][0]
        return self._msg(q, q.messages[0])

    def _ack(self, conn, q, msg_id, corr_id):
        s = conn.subs.get(q.rcv_id)
        if s is None or s.delivered is None or (msg_id and msg_id != s.delivered):
            raise SMPError("NO_MSG")
        delivered, s.delivered = s.delivered, None
        if q.messages and q.messages[0][0] == delivered:
            q.messages.popleft()
        if not q.messages:
            q.accepting = True  # §3.8: writing resumes once the queue is empty
        if s.kind == "GET" or not q.messages:
            return b"OK"
        s.delivered = q.messages[0][0]
        return self._msg(q, q.messages[0])

    def _delete(self, conn, q):
        del self.queues[q.rcv_id]
        self.senders.pop(q.snd_id, None)
        conn.subs.pop(q.rcv_id, None)
        old = q.subscriber
        if old is not None and old is not conn:
            old.subs.pop(q.rcv_id, None)
            if old.alive:
                self._notify_end(old, q.rcv_id, b"DELD" if old.version >= 10 else b"END")
        q.subscriber = None
        return b"OK"


# ---------------------------------------------------------------------------------------------------------------------
# CLI

def emit(obj):
    print(json.dumps(obj), flush=True)


def parse_range(text):
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def run_server(args):
    server = SMPServer(args.port, "ed448" if args.ed448 else "ed25519", args.chain, args.quota, args.end_interval,
                       args.password, parse_range(args.versions), log=None if args.quiet else emit,
                       identity=args.identity)
    emit({"address": server.address, "port": server.port, "fingerprint": b64u(server.key_hash),
          "chainLength": len(server.chain_ders), "certificateKey": server.leaf.kind,
          "versions": list(server.versions)})
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    server.start()
    done.wait()
    server.stop()
    return 0


class Scenario:
    def __init__(self, address, alpn, versions):
        self.address, self.alpn, self.versions = address, alpn, versions
        self.failed = False

    def step(self, name, fn):
        try:
            facts = fn() or {}
            emit({"step": name, "ok": True, **facts})
            return True
        except SMPError as e:
            emit({"step": name, "ok": False, "error": e.tag, "detail": e.detail})
        except Exception as e:  # a bug in the peer or an unexpected value: still a JSON line
            emit({"step": name, "ok": False, "error": type(e).__name__, "detail": str(e)})
        self.failed = True
        return False

    def connect(self, name):
        box = {}

        def go():
            c = SMPClient(self.address, self.alpn, self.versions)
            box["c"] = c
            return c.tls_info
        return box.get("c") if self.step(name, go) else None

    def basic(self):
        """NEW (subscribed), SKEY by the sender on a second connection, signed SEND, MSG pushed and decrypted, ACK,
        PING, DEL, then SEND gets AUTH."""
        st = {}
        rcv = self.connect("connect recipient")
        snd = rcv and self.connect("connect sender")
        if not snd:
            return
        body = b"hello from the Python SMP peer"

        def create():
            st["q"] = rcv.create_queue(subscribe=True)
            return {"rcvId": b64u(st["q"].rcv_id), "sndId": b64u(st["q"].snd_id), "queueMode": st["q"].queue_mode}

        def secure():
            st["sk"] = SignKey()
            expect(snd.secure_by_sender(st["q"].snd_id, st["sk"]), "OK")

        def send():
            expect(snd.send(st["q"].snd_id, body, st["sk"]), "OK")

        def receive():
            msg = expect(rcv.next_event(), "MSG")
            if msg.entity != st["q"].rcv_id:
                raise SMPError("UNEXPECTED", "MSG for another queue")
            plain = st["q"].decrypt(msg)
            if plain["kind"] != "message" or plain["body"] != body:
                raise SMPError("UNEXPECTED", f"decrypted {plain}")
            st["msgId"] = msg["msgId"]
            return {"msgId": b64u(msg["msgId"]), "ts": plain["ts"], "notification": plain["notification"]}

        def ack():
            expect(rcv.ack(st["q"], st["msgId"]), "OK")

        def ping():
            expect(rcv.ping(), "PONG")

        def delete():
            expect(rcv.delete(st["q"]), "OK")

        def send_after_delete():
            r = snd.send(st["q"].snd_id, body, st["sk"])
            if r.tag != "ERR" or r["error"] != "AUTH":
                raise SMPError("UNEXPECTED", f"{r}")
            return {"error": r["error"]}

        for name, fn in (("create queue", create), ("secure queue (SKEY)", secure), ("send", send),
                         ("receive", receive), ("ack", ack), ("ping", ping), ("delete queue", delete),
                         ("send after delete", send_after_delete)):
            if not self.step(name, fn):
                break
        rcv.close()
        snd.close()

    def key(self):
        """NEW without subscription, KEY by the recipient, signed SEND, GET, ACK, GET (empty), DEL."""
        st = {}
        c = self.connect("connect")
        if not c:
            return
        body = b"got by GET"

        def create():
            st["q"] = c.create_queue(subscribe=False)
            return {"rcvId": b64u(st["q"].rcv_id)}

        def secure():
            st["sk"] = SignKey()
            expect(c.secure_by_recipient(st["q"], st["sk"]), "OK")

        def send():
            expect(c.send(st["q"].snd_id, body, st["sk"], notification=False), "OK")

        def get():
            msg = expect(c.get(st["q"]), "MSG")
            plain = st["q"].decrypt(msg)
            if plain.get("body") != body or plain["notification"]:
                raise SMPError("UNEXPECTED", f"decrypted {plain}")
            st["msgId"] = msg["msgId"]

        def ack():
            expect(c.ack(st["q"], st["msgId"]), "OK")

        def get_empty():
            expect(c.get(st["q"]), "OK")

        def delete():
            expect(c.delete(st["q"]), "OK")

        for name, fn in (("create queue (not subscribed)", create), ("secure queue (KEY)", secure), ("send", send),
                         ("get", get), ("ack", ack), ("get (empty)", get_empty), ("delete queue", delete)):
            if not self.step(name, fn):
                break
        c.close()


    def tls(self):
        """The server's TLS profile as Python's ssl sees it (§2.1-2.4): TLS 1.3 with ChaCha20-Poly1305, ALPN smp/1
        selected, a chain of 2..4, the session id in the hello = tls-unique; no ALPN -> versions 6-6 only; a
        client offering only AES-GCM is refused. Offering only P-256 is reported (the profile names X25519/X448)."""
        def profile():
            c = SMPClient(self.address, self.alpn, self.versions)
            try:
                info = c.tls_info
                want = {"tlsVersion": "TLSv1.3", "cipher": "TLS_CHACHA20_POLY1305_SHA256", "alpn": ALPN_SMP}
                for k, v in want.items():
                    if info[k] != v:
                        raise SMPError("TLS", f"{k} is {info[k]}, expected {v}")
                expect(c.ping(), "PONG")
                return info
            finally:
                c.close()

        def no_alpn():
            c = SMPClient(self.address, (), (6, 18))
            c.close()
            if c.server_versions != (6, 6):
                raise SMPError("VERSION", f"without ALPN the server offers {c.server_versions}, expected 6-6")
            return {"serverVersions": list(c.server_versions)}

        def refused(**kw):
            def go():
                try:
                    c = SMPClient(self.address, self.alpn, self.versions, **kw)
                except SMPError as e:
                    if e.tag == "TLS":
                        return {"refused": True, "detail": e.detail}
                    raise
                c.close()
                raise SMPError("TLS", f"the server accepted {kw}")
            return go

        def p256():
            try:
                refused(groups="P-256")()
                return {"refused": True}
            except SMPError as e:
                if e.detail.startswith("the server accepted"):
                    return {"refused": False}
                raise

        self.step("TLS profile", profile)
        self.step("no ALPN: versions 6-6", no_alpn)
        self.step("AES-GCM only: refused", refused(suites="TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384"))
        self.step("P-256 only (reported)", p256)


    def bad(self):
        """Bad input a server must survive (issue: typed error, connection closed, other clients served): an
        unknown command and an unparsable transmission (ERR, connection kept), a garbage block and a truncated
        block (connection closed), a wrong-version hello (closed); then a fresh connection still gets PONG."""
        addr = parse_server_address(self.address)
        host, port = addr["hosts"][0], int(addr["port"] or 5223)

        def unknown():
            c = SMPClient(self.address, self.alpn, self.versions)
            try:
                r = c.request(b"", b"HELLO")
                if (r.tag, r.fields.get("error")) != ("ERR", "CMD UNKNOWN"):
                    raise SMPError("UNEXPECTED", f"{r}")
                c.transport.send_block(encode_batch([b"\x05ab"]))
                r = c.next_event()
                if (r.tag, r.fields.get("error")) != ("ERR", "BLOCK"):
                    raise SMPError("UNEXPECTED", f"{r}")
                expect(c.ping(), "PONG")
            finally:
                c.close()

        def closes(junk, half_close=False):
            def go():
                c = SMPClient(self.address, self.alpn, self.versions)
                try:
                    with c.transport.lock:
                        c.tls.sendall(junk)
                    if half_close:
                        c.tls.shutdown(socket.SHUT_WR)
                    try:
                        e = c.next_event(timeout=10)
                        raise SMPError("UNEXPECTED", f"{e} instead of the connection closing")
                    except SMPError as x:
                        if x.tag != "CLOSED":
                            raise
                finally:
                    c.close()
            return go

        def wrong_version():
            raw = socket.create_connection((host, port), timeout=10)
            tls = TLSConn(raw, _tls_context(False, self.alpn), False)
            try:
                t = Transport(tls)
                hello = parse_server_hello(t.recv_block())
                t.send_block(encode_client_hello(hello["versions"][1] + 100, addr["keyHash"], x25519_keypair()[1]))
                try:
                    t.recv_block()
                    raise SMPError("UNEXPECTED", "the server answered a hello with an unsupported version")
                except SMPError as x:
                    if x.tag != "CLOSED":
                        raise
            finally:
                tls.close()

        def still_serving():
            c = SMPClient(self.address, self.alpn, self.versions)
            try:
                expect(c.ping(), "PONG")
            finally:
                c.close()

        self.step("unknown command and unparsable transmission", unknown)
        self.step("garbage block closes", closes(secrets.token_bytes(BLOCK_SIZE)))
        self.step("truncated block closes", closes(b"\x01" * 100, half_close=True))
        self.step("wrong-version hello closes", wrong_version)
        self.step("still serving", still_serving)


def run_client(args):
    sc = Scenario(args.address, () if args.no_alpn else (ALPN_SMP,), parse_range(args.versions))
    if args.scenario in ("tls", "all"):
        sc.tls()
    if args.scenario in ("basic", "all"):
        sc.basic()
    if args.scenario in ("key", "all"):
        sc.key()
    if args.scenario == "bad":
        sc.bad()
    emit({"done": True, "ok": not sc.failed})
    return 1 if sc.failed else 0


def main(argv=None):
    p = argparse.ArgumentParser(description="SMP test peer (smp.md)")
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("server")
    s.add_argument("--port", type=int, default=0)
    s.add_argument("--ed448", action="store_true", help="Ed448 certificates (default Ed25519)")
    s.add_argument("--chain", type=int, default=2, choices=[2, 3, 4])
    s.add_argument("--quota", type=int, default=DEFAULT_QUOTA)
    s.add_argument("--end-interval", type=float, default=PENDING_END_INTERVAL,
                   help="seconds between batches of END/DELD (0: at once)")
    s.add_argument("--password", help="basic auth required for NEW")
    s.add_argument("--versions", default=f"{SERVER_VERSIONS[0]}-{SERVER_VERSIONS[1]}")
    s.add_argument("--identity", metavar="FILE",
                   help="keep the certificates in FILE (made when absent), so a restart keeps the address")
    s.add_argument("--quiet", action="store_true",
                   help="print only the address line (otherwise read stdout: a full pipe would stall the server)")
    c = sub.add_parser("client")
    c.add_argument("address")
    c.add_argument("scenario", nargs="?", default="all", choices=["tls", "basic", "key", "all", "bad"])
    c.add_argument("--no-alpn", action="store_true")
    c.add_argument("--versions", default=f"{CLIENT_VERSIONS[0]}-{CLIENT_VERSIONS[1]}")
    args = p.parse_args(argv)
    return run_server(args) if args.role == "server" else run_client(args)


if __name__ == "__main__":
    sys.exit(main())
