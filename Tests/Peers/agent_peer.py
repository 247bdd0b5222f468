#!/usr/bin/env python3
"""An independent SimpleX agent peer -- connection links, the double ratchet with header encryption, the agent's
envelope stack and a live agent over SMP -- written from the specification (smp.md §1, §3.7, §4, §5, §6) alone, for
checking simplex-host's agent against something that shares no code with it. The SMP layer (TLS, blocks,
transmissions, commands) is the independent SMP peer beside it (smp_peer.py).

Only the pinned packages `cryptography`, `pynacl` and `zstandard` are used (through smp_peer, also `h2`).

    agent_peer.py selftest
        reproduces the agent values of the spec's vectors (Tests/RatchetTests/Fixtures/ratchet.json, the links of
        Tests/SMPTests/Vectors/links.json) byte for byte, then ratchet, integrity and framing checks; prints
        PASS/FAIL lines and `N passed, M failed`; exit status 1 when a check fails.
    agent_peer.py create SMP_ADDR [--name N] [--auto-receipts]
        role A: makes a one-time invitation on SMP_ADDR and completes the fast duplex handshake (§4.5) as initiator.
    agent_peer.py join LINK [--server SMP_ADDR] [--name N] [--auto-receipts]
        an invitation link: role B (joiner, reply queue on --server, default the link's server); a contact link:
        role R (a new invitation of its own on --server, sent to the address in an invitation envelope, §4.6).
    agent_peer.py address SMP_ADDR [--name N] [--auto-receipts]
        role O: makes a contact address and accepts every request (joins the requester's invitation, §4.6).

Line protocol (one JSON object per line; `conn` is this agent's connection number, 1, 2, ...; a command without
`conn` goes to the most recent connected connection):

    stdout  {"event": "invitation", "conn", "link"}        the one-time link made by `create` (and by `join` on a
                                                           contact link: the requester's own invitation)
            {"event": "address", "conn", "link"}           the contact link made by `address`
            {"event": "request", "conn", "profile"}        an address request arrived (O); `conn` is the new contact
            {"event": "confirmation", "conn", "profile"}   the joiner's confirmation arrived (A, R)
            {"event": "connected", "conn", "profile"}      CON: both confirmations done; the peer's x.info profile
            {"event": "sent", "conn", "msgId"}             the server accepted a message (msgId = our sndMsgId)
            {"event": "message", "conn", "sndMsgId", "body", "text", "sharedMsgId", "integrity"}
                                                           an A_MSG: body = the chat body as text, text = the
                                                           x.msg.new text content, integrity = "ok", "msgDuplicate",
                                                           "msgBadId", "msgBadHash" or "msgSkipped" (with
                                                           skippedFrom/skippedTo)
            {"event": "receipt", "conn", "msgId", "status"}  an A_RCVD for our message msgId ("ok" or "badMsgHash")
            {"event": "quota", "conn"} / {"event": "qcont", "conn"}  ERR QUOTA on a SEND / the peer's A_QCONT
            {"event": "reconnected", "server"}             a server connection was re-established and re-subscribed
            {"event": "error", "error", "detail"[, "conn"]}
    stdin   {"send": "text"[, "conn": n]}                  an A_MSG with an x.msg.new text message; answers
                                                           {"event": "queued", "conn", "msgId"}
            {"receipt": sndMsgId[, "conn": n]}             an A_RCVD for a received x.msg.new (--auto-receipts: each
                                                           one at once)
            {"quit": true}                                 exit (also at the end of input, once nothing waits to
                                                           be sent)

Coverage: §1.7-§1.11 server addresses, both queue-URI layouts, e2e= parameters, invitation and contact links;
§3.7 through smp_peer; §4.2-§4.9 per-queue keys, the envelope stack (ClientMsgEnvelope, PrivHeader,
AgentMsgEnvelope C/M/I, AgentMessage I/D/M, APrivHeader, AMessage HELLO/A_MSG/A_RCVD/A_QCONT), the padding chain,
the fast duplex handshake with SKEY, contact addresses with the one-shot invitation box, the integrity check,
receipts, A_QCONT after a QUOTA marker; §5 X3DH for both roles, the double ratchet with header encryption (X448,
HKDF-SHA512, AES-256-GCM with 16-byte IVs), skipped keys (512 per chain step), PQ headers parsed; §6.2-§6.5 the
message container, the three body framings (zstd decompression), x.info, x.contact and x.msg.new. Reconnects and
re-subscribes after a server restart; duplicates (same ciphertext hash or an old ratchet message) are ACKed and
dropped. Not served: PQ (no KEM proposed or accepted; a proposal in a link or a confirmation is ignored, as a peer
with PQ off does), the legacy "K" confirmation with HELLO, ratchet re-synchronisation, queue rotation (QADD...),
short links, persistence of the agent's own state. Unlike the reference, a message whose body fails to decrypt
leaves the ratchet as it was (the reference keeps the advanced state and the skipped keys).
"""
import argparse
import base64
import copy
import hashlib
import json
import os
import queue
import secrets
import struct
import sys
import threading
import time
from collections import deque

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import x448
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smp_peer as smp  # noqa: E402
from smp_peer import SMPError, Parser, len1, len2, u16, i64, pad, unpad, b64u, b64u_decode  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RATCHET_VECTORS = os.path.join(HERE, "..", "RatchetTests", "Fixtures", "ratchet.json")
LINK_VECTORS = os.path.join(HERE, "..", "SMPTests", "Vectors", "links.json")

AGENT_VERSIONS = (2, 7)
SMP_CLIENT_VERSIONS = (1, 4)
E2E_VERSIONS = (2, 3)
CHAT_VERSION_RANGE = "1-16"
MAX_SKIP = 512

# §4.4 padded sizes (non-PQ)
E2E_ENC_AGENT_MSG_LENGTH = 15840
E2E_ENC_CONN_INFO_LENGTH = 14832
PADDED_HEADER_LENGTH = 88
E2E_ENC_MESSAGE_LENGTH = 16000
E2E_ENC_CONFIRMATION_LENGTH = 15904
MAX_DECOMPRESSED = 65536


def fail(tag, detail=""):
    raise SMPError(tag, detail)


def sha256(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def u32(n: int) -> bytes:
    return struct.pack(">I", n)


def read_u32(p: Parser) -> int:
    return struct.unpack(">I", p.take(4))[0]


def large(p: Parser) -> bytes:
    """The ratchet's length prefix (`largeP`): a first byte below 0x20 starts a 2-byte length, else it is 1 byte."""
    if p.pos < len(p.data) and p.data[p.pos] < 0x20:
        return p.len2()
    return p.len1()


def agree(ours, theirs, what):
    lo, hi = max(ours[0], theirs[0]), min(ours[1], theirs[1])
    if lo > hi:
        fail("A_VERSION", f"{what}: ours {ours}, theirs {theirs}")
    return hi


def range_text(r) -> str:
    return str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"


def parse_range_text(text: str):
    lo, sep, hi = text.partition("-")
    if not lo.isdigit() or (sep and not hi.isdigit()):
        fail("A_MESSAGE", f"version range {text!r}")
    r = (int(lo), int(hi) if sep else int(lo))
    if r[0] > r[1]:
        fail("A_MESSAGE", f"version range {text!r}")
    return r


# ---------------------------------------------------------------------------------------------------------------------
# §1.3 keys used by the agent

def x25519_pub(priv: bytes) -> bytes:
    return smp.public_raw(smp.x25519.X25519PrivateKey.from_private_bytes(priv).public_key())


class X448Key:
    """An X448 key pair as raw bytes (so ratchet states copy cheaply)."""

    def __init__(self, priv: bytes = None):
        k = x448.X448PrivateKey.from_private_bytes(priv) if priv else x448.X448PrivateKey.generate()
        self.priv = smp.private_raw(k)
        self.pub = smp.public_raw(k.public_key())


def x448_dh(priv: bytes, pub: bytes) -> bytes:
    try:
        return x448.X448PrivateKey.from_private_bytes(priv).exchange(x448.X448PublicKey.from_public_bytes(pub))
    except ValueError as e:
        fail("A_CRYPTO", f"X448: {e}")


def x448_field(pub: bytes) -> bytes:
    return smp.key_field("x448", pub)


def parse_key(der: bytes, kind: str) -> bytes:
    try:
        return smp.parse_spki(der, (kind,))[1]
    except SMPError:
        fail("A_MESSAGE", f"not an {kind} key")


# ---------------------------------------------------------------------------------------------------------------------
# §1.7 server addresses, §1.8 query strings

class Server:
    def __init__(self, hosts, port: str, key_hash: bytes):
        self.hosts, self.port, self.key_hash = list(hosts), port, key_hash

    def __eq__(self, other):
        return isinstance(other, Server) and (self.hosts, self.port, self.key_hash) == \
            (other.hosts, other.port, other.key_hash)

    def text(self, first_host_only=False) -> str:
        hosts = self.hosts[:1] if first_host_only else self.hosts
        return f"smp://{b64u(self.key_hash)}@{','.join(hosts)}" + (f":{self.port}" if self.port else "")

    def address(self) -> str:
        """What smp_peer's client connects to: the first host."""
        return self.text(first_host_only=True)

    def encode(self) -> bytes:
        return bytes([len(self.hosts)]) + b"".join(len1(h.encode()) for h in self.hosts) + \
            len1(self.port.encode()) + len1(self.key_hash)

    @staticmethod
    def parse(p: Parser) -> "Server":
        n = p.byte()
        if n == 0:
            p.fail("no hosts")
        hosts = [p.len1().decode("ascii", "replace") for _ in range(n)]
        port = p.len1().decode("ascii", "replace")
        return Server(hosts, port, p.len1())

    @staticmethod
    def parse_text(text: str) -> "Server":
        try:
            a = smp.parse_server_address(text)
        except SMPError as e:
            fail("A_MESSAGE", f"server address: {e}")
        if a["basicAuth"]:
            fail("A_MESSAGE", "a server with basic auth in a link")
        return Server(a["hosts"], a["port"], a["keyHash"])


def query_encode(params, escape=True) -> str:
    q = smp._xr.qenc if escape else (lambda s: s)
    return "&".join(f"{q(k)}={q(v)}" for k, v in params)


def query_parse(text: str) -> dict:
    """http-types parseSimpleQuery: '&' and ';' separate, the first occurrence of a key wins (§1.8)."""
    out = {}
    for item in text.replace(";", "&").split("&"):
        if not item:
            continue
        k, _, v = item.partition("=")
        out.setdefault(smp._xr.qdec(k), smp._xr.qdec(v))
    return out


def b64_field(text: str) -> bytes:
    try:
        return b64u_decode(text)
    except SMPError:
        fail("A_MESSAGE", f"base64url {text[:20]!r}")


# ---------------------------------------------------------------------------------------------------------------------
# §1.9 SMP queue URI and SMPQueueInfo

class QueueURI:
    def __init__(self, vrange, server: Server, sender_id: bytes, dh: bytes, mode=None):
        self.vrange, self.server, self.sender_id, self.dh, self.mode = tuple(vrange), server, sender_id, dh, mode

    def text(self) -> str:
        params = [("v", range_text(self.vrange)), ("dh", b64u(smp.spki("x25519", self.dh)))]
        if self.mode:
            params.append(("q", self.mode))
        if self.mode == "m" and self.vrange[0] < 4:
            params.append(("k", "s"))
        if self.vrange[0] >= 2:
            srv = self.server.text()
        else:
            srv = self.server.text(first_host_only=True)
            if len(self.server.hosts) > 1:
                params.append(("srv", ",".join(self.server.hosts[1:])))
        return f"{srv}/{b64u(self.sender_id)}#/?{query_encode(params)}"

    @staticmethod
    def parse(text: str) -> "QueueURI":
        if not text.startswith("smp://"):
            fail("A_MESSAGE", "queue URI without smp://")
        slash = text.find("/", len("smp://"))
        hash_ = text.find("#", slash)
        if slash < 0 or hash_ < 0:
            fail("A_MESSAGE", "queue URI layout")
        server = Server.parse_text(text[:slash])
        sender_id = b64_field(text[slash + 1:hash_].rstrip("/"))
        frag = text[hash_ + 1:]
        if "?" not in frag:  # legacy unversioned: #<dh key>
            vrange, dh_text, q = (1, 1), frag, {}
        else:
            before, _, qs = frag.partition("?")
            q = query_parse(qs)
            if "v" not in q:
                fail("A_MESSAGE", "queue URI without v=")
            vrange = parse_range_text(q["v"])
            dh_text = before.rstrip("/") or q.get("dh")
            if not dh_text:
                fail("A_MESSAGE", "queue URI without dh=")
        dh = parse_key(b64_field(dh_text), "x25519")
        if q.get("srv"):
            server.hosts += [h for h in q["srv"].split(",") if h]
        mode = {"m": "m", "c": "c"}.get(q.get("q")) or ("m" if q.get("k") == "s" else None)
        return QueueURI(vrange, server, sender_id, dh, mode)


class QueueInfo:
    """SMPQueueInfo (§1.9): one agreed client version."""

    def __init__(self, version: int, server: Server, sender_id: bytes, dh: bytes, mode=None):
        self.version, self.server, self.sender_id, self.dh, self.mode = version, server, sender_id, dh, mode

    def encode(self) -> bytes:
        out = u16(self.version) + self.server.encode() + len1(self.sender_id) + smp.key_field("x25519", self.dh)
        if self.version >= 4:
            out += {"m": b"M", "c": b"C", None: b""}[self.mode]
        elif self.version == 3 and self.mode == "m":
            out += b"T"
        return out

    @staticmethod
    def parse(p: Parser) -> "QueueInfo":
        v = p.u16()
        if v < 2:
            fail("A_VERSION", "SMPQueueInfo version 1 (legacy server layout) is not served")
        server = Server.parse(p)
        sender_id = p.len1()
        dh = parse_key(p.len1(), "x25519")
        mode = None
        if not p.at_end() and p.data[p.pos:p.pos + 1] in (b"M", b"C", b"T", b"F"):
            mode = {b"M": "m", b"C": "c", b"T": "m", b"F": "c"}[p.take(1)]
        return QueueInfo(v, server, sender_id, dh, mode)


# ---------------------------------------------------------------------------------------------------------------------
# §1.10 e2e parameters, §1.11 connection links

class E2EParams:
    """E2ERatchetParams: X448 keys k1, k2 and an optional KEM (kept as bytes, never acted on)."""

    def __init__(self, vrange, k1: bytes, k2: bytes, kem=None):
        self.vrange, self.k1, self.k2, self.kem = tuple(vrange), k1, k2, kem

    def uri_text(self) -> str:
        params = [("v", range_text(self.vrange)),
                  ("x3dh", b64u(smp.spki("x448", self.k1)) + "," + b64u(smp.spki("x448", self.k2)))]
        if self.kem and self.vrange[1] >= 3:
            params.append(("kem_key", b64u(self.kem[1])))
        return query_encode(params, escape=False)

    @staticmethod
    def parse_uri(text: str) -> "E2EParams":
        q = query_parse(text)
        if "v" not in q or "x3dh" not in q:
            fail("A_MESSAGE", "e2e= without v or x3dh")
        keys = q["x3dh"].split(",")
        if len(keys) != 2:
            fail("A_MESSAGE", "x3dh= needs two keys")
        k1, k2 = (parse_key(b64_field(k), "x448") for k in keys)
        kem = ("P", b64_field(q["kem_key"])) if q.get("kem_key") else None
        return E2EParams(parse_range_text(q["v"]), k1, k2, kem)

    def encode(self, version: int) -> bytes:
        """The binary form of a confirmation: one version; the KEM Maybe only from e2e version 3."""
        out = u16(version) + x448_field(self.k1) + x448_field(self.k2)
        return out + (b"0" if version >= 3 else b"")

    @staticmethod
    def parse(p: Parser) -> "E2EParams":
        v = p.u16()
        k1, k2 = parse_key(p.len1(), "x448"), parse_key(p.len1(), "x448")
        kem = p.maybe(lambda: parse_kem(p)) if v >= 3 else None
        return E2EParams((v, v), k1, k2, kem)


def parse_kem(p: Parser):
    tag = p.take(1)
    if tag == b"P":
        return ("P", p.len2())
    if tag == b"A":
        return ("A", p.len2(), p.len2())
    p.fail("KEM params tag")


class Link:
    """A full connection link (§1.11): mode "invitation" (with e2e) or "contact"."""

    def __init__(self, mode, agent_range, queues, e2e=None, data=None):
        self.mode, self.agent_range, self.queues, self.e2e, self.data = mode, tuple(agent_range), queues, e2e, data

    def text(self) -> str:
        params = [("v", range_text(self.agent_range)), ("smp", ";".join(q.text() for q in self.queues))]
        if self.e2e is not None:
            params.append(("e2e", self.e2e.uri_text()))
        if self.data is not None:
            params.append(("data", self.data))
        return f"simplex:/{self.mode}#/?{query_encode(params)}"

    @staticmethod
    def parse(text: str) -> "Link":
        if text.startswith("simplex:"):
            rest = text[len("simplex:"):]
        elif text.startswith("https://"):
            rest = text[len("https://"):]
            rest = rest[rest.find("/"):] if "/" in rest else ""
        else:
            fail("A_MESSAGE", "link scheme")
        for mode in ("invitation", "contact"):
            for prefix in (f"/{mode}#/?", f"/{mode}/#/?"):
                if rest.startswith(prefix):
                    return Link._parse_query(mode, rest[len(prefix):])
        fail("A_MESSAGE", "not a full invitation or contact link")

    @staticmethod
    def _parse_query(mode, qs) -> "Link":
        q = query_parse(qs)
        if "v" not in q or "smp" not in q:
            fail("A_MESSAGE", "link without v or smp")
        vr = parse_range_text(q["v"])
        if mode == "contact":  # contact links raise the agent range minimum to 2
            vr = (max(vr[0], 2), max(vr[1], 2))
        queues = [QueueURI.parse(s) for s in q["smp"].split(";") if s]
        if not queues:
            fail("A_MESSAGE", "link without queues")
        e2e = E2EParams.parse_uri(q["e2e"]) if "e2e" in q else None
        if mode == "invitation" and e2e is None:
            fail("A_MESSAGE", "invitation without e2e")
        return Link(mode, vr, queues, e2e, q.get("data"))


# ---------------------------------------------------------------------------------------------------------------------
# §5.2-§5.6 X3DH and the double ratchet with header encryption

def hkdf(salt, ikm, info, n):
    return smp.hkdf(salt, ikm, info, n)


def root_kdf(rk: bytes, pub: bytes, priv: bytes):
    out = hkdf(rk, x448_dh(priv, pub), b"SimpleXRootRatchet", 96)
    return out[:32], out[32:64], out[64:96]


def chain_kdf(ck: bytes):
    out = hkdf(b"", ck, b"SimpleXChainRatchet", 96)
    return out[:32], out[32:64], out[64:80], out[80:96]  # CK', MK, message IV, header IV


def x3dh(dh1: bytes, dh2: bytes, dh3: bytes):
    out = hkdf(bytes(64), dh1 + dh2 + dh3, b"SimpleXX3DH", 96)
    return {"HK": out[:32], "NHK": out[32:64], "SK": out[64:96], "out": out, "dh": (dh1, dh2, dh3)}


def x3dh_joiner(a1: bytes, a2: bytes, b1: X448Key, b2: X448Key):
    """B (`pqX3dhSnd`): the link's public a1, a2 with B's own b1, b2."""
    r = x3dh(x448_dh(b2.priv, a1), x448_dh(b1.priv, a2), x448_dh(b2.priv, a2))
    r["AD"] = b1.pub + a1
    return r


def x3dh_initiator(a1: X448Key, a2: X448Key, b1: bytes, b2: bytes):
    """A (`pqX3dhRcv`): A's own a1, a2 with the confirmation's public b1, b2."""
    r = x3dh(x448_dh(a1.priv, b2), x448_dh(a2.priv, b1), x448_dh(a2.priv, b2))
    r["AD"] = b1 + a1.pub
    return r


def aes_encrypt(key, iv, plain, aad):
    out = AESGCM(key).encrypt(iv, plain, aad)
    return out[-16:], out[:-16]  # tag, ciphertext


def aes_decrypt(key, iv, tag, ct, aad):
    try:
        return AESGCM(key).decrypt(iv, ct + tag, aad)
    except InvalidTag:
        return None


class MsgHeader:
    def __init__(self, max_version, dh, pn, ns, kem=None):
        self.max_version, self.dh, self.pn, self.ns, self.kem = max_version, dh, pn, ns, kem

    def encode(self, version: int) -> bytes:
        kem = b"0" if version >= 3 else b""
        return u16(self.max_version) + x448_field(self.dh) + kem + u32(self.pn) + u32(self.ns)

    @staticmethod
    def parse(data: bytes, version: int) -> "MsgHeader":
        p = Parser(data, "A_CRYPTO")
        mv = p.u16()
        dh = parse_key(p.len1(), "x448")
        kem = p.maybe(lambda: parse_kem(p)) if version >= 3 else None
        return MsgHeader(mv, dh, read_u32(p), read_u32(p), kem)


class Ratchet:
    """The double ratchet state of §5.3. Keys are raw bytes; `new_key` makes the next DHRs (tests inject keys)."""

    def __init__(self, ad: bytes, version: int, new_key=X448Key):
        self.ad, self.version, self.max_version, self.new_key = ad, version, E2E_VERSIONS[1], new_key
        self.rk = self.cks = self.hks = self.ckr = self.hkr = self.nhks = self.nhkr = self.dhrr = None
        self.dhrs = None
        self.ns = self.nr = self.pn = 0
        self.skipped = {}  # header key -> {n: (MK, message IV)}

    @staticmethod
    def joiner(x: dict, a2: bytes, b_r: X448Key, version: int, new_key=X448Key) -> "Ratchet":
        r = Ratchet(x["AD"], version, new_key)
        r.dhrs, r.dhrr = b_r, a2
        r.rk, r.cks, r.nhks = root_kdf(x["SK"], a2, b_r.priv)
        r.hks, r.nhkr = x["HK"], x["NHK"]
        return r

    @staticmethod
    def initiator(x: dict, a2: X448Key, version: int, new_key=X448Key) -> "Ratchet":
        r = Ratchet(x["AD"], version, new_key)
        r.dhrs, r.rk, r.nhks, r.nhkr = a2, x["SK"], x["NHK"], x["HK"]
        return r

    def _length(self, b: bytes) -> bytes:
        return len2(b) if self.version >= 3 else len1(b)

    def encrypt(self, plain: bytes, padded_len: int) -> bytes:
        if self.cks is None:
            fail("A_CRYPTO", "no sending chain yet")
        ck, mk, iv, hiv = chain_kdf(self.cks)
        header = MsgHeader(self.max_version, self.dhrs.pub, self.pn, self.ns).encode(self.version)
        htag, hct = aes_encrypt(self.hks, hiv, pad(header, PADDED_HEADER_LENGTH), self.ad)
        em_header = u16(self.version) + hiv + htag + self._length(hct)
        tag, ct = aes_encrypt(mk, iv, pad(plain, padded_len), self.ad + em_header)
        self.cks, self.ns = ck, self.ns + 1
        return self._length(em_header) + tag + ct

    def _open_header(self, hk, eh):
        plain = aes_decrypt(hk, eh["iv"], eh["tag"], eh["body"], self.ad)
        if plain is None:
            return None
        return MsgHeader.parse(unpad(plain), eh["version"])

    def decrypt(self, msg: bytes) -> bytes:
        """Returns the unpadded plaintext; the state changes only when the message decrypts."""
        p = Parser(msg, "A_CRYPTO")
        em_header = large(p)
        tag, ct = p.take(16), p.rest()
        hp = Parser(em_header, "A_CRYPTO")
        eh = {"version": hp.u16(), "iv": hp.take(16), "tag": hp.take(16)}
        eh["body"] = large(hp)
        aad = self.ad + em_header
        for hk, keys in self.skipped.items():
            h = self._open_header(hk, eh)
            if h is not None and h.ns in keys:
                mk, iv = keys[h.ns]
                plain = aes_decrypt(mk, iv, tag, ct, aad)
                if plain is None:
                    fail("A_CRYPTO", "message body (skipped key)")
                del keys[h.ns]
                if not keys:
                    del self.skipped[hk]
                return unpad(plain)
        s = copy.copy(self)
        s.skipped = {k: dict(v) for k, v in self.skipped.items()}
        h = s._open_header(s.hkr, eh) if s.hkr is not None else None
        if h is None:
            h = s._open_header(s.nhkr, eh)
            if h is None:
                fail("A_CRYPTO", "RATCHET_HEADER")
            s._skip(h.pn)
            s._step(h.dh)
        if h.max_version > s.version:
            s.version = min(h.max_version, s.max_version)
        if s.nr > h.ns + 1:
            fail("A_CRYPTO", "RATCHET_EARLIER")
        if s.nr == h.ns + 1:
            fail("A_DUPLICATE", "ratchet message already decrypted")
        s._skip(h.ns)
        ck, mk, iv, _ = chain_kdf(s.ckr)
        plain = aes_decrypt(mk, iv, tag, ct, aad)
        if plain is None:
            fail("A_CRYPTO", "message body")
        s.ckr, s.nr = ck, s.nr + 1
        self.__dict__.update(s.__dict__)
        return unpad(plain)

    def _skip(self, until: int):
        if self.ckr is None:
            return
        if until - self.nr > MAX_SKIP:
            fail("A_CRYPTO", f"RATCHET_SKIPPED {until - self.nr}")
        keys = self.skipped.setdefault(self.hkr, {})
        while self.nr < until:
            self.ckr, mk, iv, _ = chain_kdf(self.ckr)
            keys[self.nr] = (mk, iv)
            self.nr += 1
        if not keys:
            del self.skipped[self.hkr]

    def _step(self, their_dh: bytes):
        self.dhrr = their_dh
        self.rk, self.ckr, nhkr = root_kdf(self.rk, their_dh, self.dhrs.priv)
        self.dhrs = self.new_key()
        self.rk, self.cks, nhks = root_kdf(self.rk, their_dh, self.dhrs.priv)
        self.hks, self.hkr = self.nhks, self.nhkr
        self.nhks, self.nhkr = nhks, nhkr
        self.pn, self.ns, self.nr = self.ns, 0, 0


# ---------------------------------------------------------------------------------------------------------------------
# §4.3 the envelope stack

def client_msg_envelope(version: int, e2e_pub, nonce: bytes, secret: bytes, client_message: bytes) -> bytes:
    """ClientMsgEnvelope: the per-queue box, padded to 15,904 with a key in the header, else 16,000."""
    n = E2E_ENC_CONFIRMATION_LENGTH if e2e_pub is not None else E2E_ENC_MESSAGE_LENGTH
    key = None if e2e_pub is None else smp.key_field("x25519", e2e_pub)
    return u16(version) + smp.maybe(key) + nonce + smp.sx_box(secret, nonce, pad(client_message, n))


def parse_client_msg_envelope(body: bytes) -> dict:
    p = Parser(body, "A_MESSAGE")
    v = p.u16()
    key = p.maybe(lambda: parse_key(p.len1(), "x25519"))
    return {"version": v, "e2eKey": key, "nonce": p.take(24), "encBody": p.rest()}


def open_client_message(secret: bytes, env: dict) -> dict:
    plain = unpad(smp.sx_open(secret, env["nonce"], env["encBody"], error="A_CRYPTO"))
    p = Parser(plain, "A_MESSAGE")
    tag = p.take(1)
    if tag == b"_":
        return {"privHeader": None, "envelope": p.rest()}
    if tag == b"K":
        return {"privHeader": parse_key(p.len1(), "ed25519"), "envelope": p.rest()}
    p.fail("PrivHeader")


def confirmation_envelope(agent_version: int, e2e: bytes, enc_conn_info: bytes) -> bytes:
    """AgentConfirmation; `e2e` = the binary E2ERatchetParams or None."""
    return u16(agent_version) + b"C" + smp.maybe(e2e) + enc_conn_info


def message_envelope(agent_version: int, enc_agent_message: bytes) -> bytes:
    return u16(agent_version) + b"M" + enc_agent_message


def invitation_envelope(agent_version: int, link_text: str, conn_info: bytes) -> bytes:
    return u16(agent_version) + b"I" + len2(link_text.encode()) + conn_info


def parse_agent_envelope(data: bytes) -> dict:
    p = Parser(data, "A_MESSAGE")
    v = p.u16()
    tag = p.take(1)
    if tag == b"C":
        e2e = p.maybe(lambda: E2EParams.parse(p))
        return {"kind": "confirmation", "version": v, "e2e": e2e, "encConnInfo": p.rest()}
    if tag == b"M":
        return {"kind": "message", "version": v, "encAgentMessage": p.rest()}
    if tag == b"I":
        return {"kind": "invitation", "version": v, "link": p.len2().decode("utf-8", "replace"),
                "connInfo": p.rest()}
    p.fail(f"AgentMsgEnvelope tag {tag!r}")


def conn_info_message(conn_info: bytes) -> bytes:
    return b"I" + conn_info


def conn_info_reply(queues, conn_info: bytes) -> bytes:
    return b"D" + bytes([len(queues)]) + b"".join(q.encode() for q in queues) + conn_info


def agent_message(snd_msg_id: int, prev_hash: bytes, a_message: bytes) -> bytes:
    """AgentMessage "M" with APrivHeader (sndMsgId, len1 prevMsgHash) and an AMessage."""
    return b"M" + i64(snd_msg_id) + len1(prev_hash) + a_message


def a_msg(body: bytes) -> bytes:
    return b"M" + body


def a_rcvd(receipts) -> bytes:
    """receipts: (agentMsgId, msgHash, rcptInfo)."""
    return b"V" + bytes([len(receipts)]) + b"".join(i64(i) + len1(h) + len2(info) for i, h, info in receipts)


def a_qcont(server: Server, sender_id: bytes) -> bytes:
    return b"QC" + server.encode() + len1(sender_id)


def parse_agent_message(data: bytes) -> dict:
    p = Parser(data, "A_MESSAGE")
    tag = p.take(1)
    if tag == b"I":
        return {"kind": "connInfo", "connInfo": p.rest()}
    if tag == b"D":
        n = p.byte()
        if n == 0:
            p.fail("empty reply queue list")
        queues = [QueueInfo.parse(p) for _ in range(n)]
        return {"kind": "connInfoReply", "queues": queues, "connInfo": p.rest()}
    if tag == b"M":
        out = {"kind": "message", "sndMsgId": p.i64(), "prevMsgHash": p.len1()}
        out.update(parse_a_message(p))
        return out
    p.fail(f"AgentMessage tag {tag!r}")


def parse_a_message(p: Parser) -> dict:
    tag = p.take(1)
    if tag == b"H":
        return {"msg": "HELLO"}
    if tag == b"M":
        return {"msg": "A_MSG", "body": p.rest()}
    if tag == b"V":
        n = p.byte()
        return {"msg": "A_RCVD", "receipts": [(p.i64(), p.len1(), p.len2()) for _ in range(n)]}
    if tag == b"Q":
        sub = p.take(1)
        if sub == b"C":
            return {"msg": "A_QCONT", "server": Server.parse(p), "senderId": p.len1()}
        return {"msg": "Q" + sub.decode("ascii", "replace")}  # queue rotation: not served
    if tag == b"E":
        return {"msg": "EREADY", "lastId": p.i64()}
    p.fail(f"AMessage tag {tag!r}")


def check_integrity(last_id: int, last_hash: bytes, snd_msg_id: int, prev_hash: bytes) -> dict:
    """§4.7 checkMsgIntegrity."""
    if snd_msg_id == last_id + 1:
        return {"integrity": "ok"} if prev_hash == last_hash else {"integrity": "msgBadHash"}
    if snd_msg_id < last_id:
        return {"integrity": "msgBadId"}
    if snd_msg_id == last_id:
        return {"integrity": "msgDuplicate"}
    return {"integrity": "msgSkipped", "skippedFrom": last_id + 1, "skippedTo": snd_msg_id - 1}


# ---------------------------------------------------------------------------------------------------------------------
# §6.2-§6.5 chat bodies

def shared_msg_id() -> str:
    """b64u of the standard-base64 text of 12 random bytes (§6.2)."""
    return b64u(base64.b64encode(secrets.token_bytes(12)))


def chat_message(event: str, params: dict, msg_id: str = None) -> bytes:
    """The container with its keys in the reference's order; objects below it with sorted keys (§9.5)."""
    out = '{"v":"' + CHAT_VERSION_RANGE + '"'
    if msg_id is not None:
        out += ',"msgId":' + smp._xr.aeson_json(msg_id)
    out += ',"event":' + smp._xr.aeson_json(event) + ',"params":' + smp._xr.aeson_json(params) + "}"
    return out.encode("utf-8")


def profile(name: str) -> dict:
    return {"displayName": name, "fullName": ""}


def x_info(name: str) -> bytes:
    return chat_message("x.info", {"profile": profile(name)})


def x_contact(name: str, contact_req_id: str = None) -> bytes:
    rid = contact_req_id or b64u(secrets.token_bytes(16))
    return chat_message("x.contact", {"contactReqId": rid, "profile": profile(name)})


def x_msg_new(text: str, msg_id: str = None) -> bytes:
    return chat_message("x.msg.new", {"content": {"text": text, "type": "text"}}, msg_id or shared_msg_id())


def parse_chat_body(body: bytes) -> list:
    """The three framings of §6.3 -> a list of JSON objects."""
    if body[:1] == b"{":
        return [json.loads(body)]
    if body[:1] == b"[":
        items = json.loads(body)
        if not isinstance(items, list):
            fail("A_MESSAGE", "batch is not a list")
        return items
    if body[:1] == b"X":
        import zstandard
        p = Parser(body[1:], "A_MESSAGE")
        out = []
        for _ in range(p.byte()):
            tag = p.take(1)
            if tag == b"0":
                out += parse_chat_body(p.len1())
            elif tag == b"1":
                frame = p.len2()
                try:
                    raw = zstandard.ZstdDecompressor().decompress(frame, max_output_size=MAX_DECOMPRESSED)
                except zstandard.ZstdError as e:
                    fail("A_MESSAGE", f"zstd: {e}")
                out += parse_chat_body(raw)
            else:
                p.fail("compressed item tag")
        return out
    fail("A_MESSAGE", f"chat body framing {body[:1]!r}")


def compress_chat_body(bodies) -> bytes:
    """The "X" framing: short items passed through, longer ones as zstd frames with the content size."""
    import zstandard
    items = []
    for b in bodies:
        if len(b) <= 180:
            items.append(b"0" + len1(b))
        else:
            items.append(b"1" + len2(zstandard.ZstdCompressor(level=3, write_content_size=True).compress(b)))
    return b"X" + bytes([len(items)]) + b"".join(items)


def conn_info_profile(conn_info: bytes):
    try:
        for m in parse_chat_body(conn_info):
            if m.get("event") in ("x.info", "x.contact"):
                return (m.get("params") or {}).get("profile")
    except (ValueError, SMPError, AttributeError):
        pass
    return None


# ---------------------------------------------------------------------------------------------------------------------
# the live agent (§4.5-§4.9 over smp_peer's client)

def emit(obj):
    with _EMIT_LOCK:
        print(json.dumps(obj), flush=True)


_EMIT_LOCK = threading.Lock()


class RcvQ:
    """A queue this agent receives on: the server's RcvQueue plus the per-queue e2e keys of §4.2."""

    def __init__(self, server: Server, q: smp.RcvQueue, mode: str):
        self.server, self.q, self.mode = server, q, mode
        self.e2e_priv, self.e2e_pub = smp.x25519_keypair()
        self.secret = None  # from the first confirmation's header key

    def uri(self) -> QueueURI:
        return QueueURI(SMP_CLIENT_VERSIONS, self.server, self.q.snd_id, self.e2e_pub, self.mode)


class SndQ:
    """A queue this agent sends to, secured by SKEY with `key`."""

    def __init__(self, server: Server, sender_id: bytes, their_dh: bytes, version: int):
        self.server, self.sender_id, self.version = server, sender_id, version
        self.key = smp.SignKey()
        self.e2e_priv, self.e2e_pub = smp.x25519_keypair()
        self.secret = smp.x25519_dh(self.e2e_priv, their_dh)


class Conn:
    def __init__(self, cid: int, role: str):
        self.id, self.role, self.state = cid, role, "new"
        self.rcv = self.snd = self.ratchet = None
        self.x3dh_keys = None  # A, R: (a1, a2)
        self.agent_version = AGENT_VERSIONS[1]
        self.snd_msg_id, self.last_snd_hash, self.sent = 0, b"", {}
        self.last_ext_id, self.last_rcv_hash, self.received = 0, b"", {}
        self.seen = set()  # SHA-256 of received encAgentMessage (re-delivered duplicates)
        self.seen_requests = set()  # O: invitation links already accepted
        self.pending = deque()  # (msgId or None, SEND body, notification flag)
        self.paused_until = 0.0
        self.peer_profile = None


class Agent:
    def __init__(self, own_server: Server, name: str, auto_receipts=False):
        self.own_server, self.name, self.auto_receipts = own_server, name, auto_receipts
        self.inbox = queue.Queue()
        self.clients = {}  # server address -> SMPClient
        self.down = {}  # server address -> time of the next reconnect attempt
        self.rcv = {}  # (server address, rcvId) -> (Conn, RcvQ)
        self.conns = {}
        self.last_connected = None
        self.eof = False

    # servers
    def client(self, server: Server) -> smp.SMPClient:
        addr = server.address()
        c = self.clients.get(addr)
        if c is None:
            c = smp.SMPClient(addr)
            self.clients[addr] = c
            threading.Thread(target=self._pump, args=(addr, c), daemon=True).start()
        return c

    def _pump(self, addr, c):
        while True:
            try:
                self.inbox.put(("smp", addr, c.next_event(timeout=3600)))
            except SMPError as e:
                if e.tag == "TIMEOUT":
                    continue
                self.inbox.put(("closed", addr, c))
                return

    def _lost(self, addr, c):
        if self.clients.get(addr) is c:
            del self.clients[addr]
            c.close()
        if any(a == addr for a, _ in self.rcv) and addr not in self.down:
            self.down[addr] = time.time() + 0.5

    def _reconnect(self):
        for addr, at in list(self.down.items()):
            if time.time() < at:
                continue
            try:
                c = self.client(Server.parse_text(addr))
                for (a, _), (_, rq) in list(self.rcv.items()):
                    if a == addr:
                        r = c.sub(rq.q)
                        if r.tag not in ("OK", "SOK"):
                            emit({"event": "error", "error": r.fields.get("error", r.tag), "detail": "SUB"})
                del self.down[addr]
                emit({"event": "reconnected", "server": addr})
            except (SMPError, OSError) as e:
                self.clients.pop(addr, None)
                self.down[addr] = time.time() + 1.0
                if isinstance(e, SMPError) and e.tag not in ("TLS", "CLOSED", "TIMEOUT"):  # not a server still down
                    emit({"event": "error", "error": e.tag, "detail": e.detail})

    def new_conn(self, role) -> Conn:
        c = Conn(len(self.conns) + 1, role)
        self.conns[c.id] = c
        return c

    def new_rcv_queue(self, conn: Conn, mode: str) -> RcvQ:
        q = self.client(self.own_server).create_queue(subscribe=True, mode=mode.upper())
        rq = RcvQ(self.own_server, q, mode)
        conn.rcv = rq
        self.rcv[(self.own_server.address(), q.rcv_id)] = (conn, rq)
        return rq

    # making links
    def create_invitation(self, role="A") -> Conn:
        conn = self.new_conn(role)
        rq = self.new_rcv_queue(conn, "m")
        conn.x3dh_keys = (X448Key(), X448Key())
        e2e = E2EParams(E2E_VERSIONS, conn.x3dh_keys[0].pub, conn.x3dh_keys[1].pub)
        conn.link = Link("invitation", AGENT_VERSIONS, [rq.uri()], e2e).text()
        emit({"event": "invitation", "conn": conn.id, "link": conn.link})
        return conn

    def create_address(self) -> Conn:
        conn = self.new_conn("O")
        rq = self.new_rcv_queue(conn, "c")
        conn.state = "address"
        emit({"event": "address", "conn": conn.id, "link": Link("contact", AGENT_VERSIONS, [rq.uri()]).text()})
        return conn

    # joining
    def join(self, text: str):
        link = Link.parse(text)
        if link.mode == "invitation":
            return self.join_invitation(link, x_info(self.name), "B")
        return self.join_address(link)

    def join_invitation(self, link: Link, conn_info: bytes, role: str) -> Conn:
        """§4.5 "B -- join": SKEY on the link's queue, a reply queue, the confirmation with the X3DH keys."""
        quri = link.queues[0]
        agent_v = agree(AGENT_VERSIONS, link.agent_range, "agent version")
        smp_v = agree(SMP_CLIENT_VERSIONS, quri.vrange, "SMP client version")
        e2e_v = agree(E2E_VERSIONS, link.e2e.vrange, "e2e version")
        conn = self.new_conn(role)
        conn.agent_version = agent_v
        conn.snd = SndQ(quri.server, quri.sender_id, quri.dh, smp_v)
        b1, b2, b_r = X448Key(), X448Key(), X448Key()
        conn.ratchet = Ratchet.joiner(x3dh_joiner(link.e2e.k1, link.e2e.k2, b1, b2), link.e2e.k2, b_r, e2e_v)
        smp.expect(self.client(quri.server).secure_by_sender(quri.sender_id, conn.snd.key), "OK")
        rq = self.new_rcv_queue(conn, "m")
        reply = QueueInfo(smp_v, rq.server, rq.q.snd_id, rq.e2e_pub, "m")
        plain = conn_info_reply([reply], conn_info)
        enc = self._count_sent(conn, plain, E2E_ENC_CONN_INFO_LENGTH)
        env = confirmation_envelope(agent_v, E2EParams((e2e_v, e2e_v), b1.pub, b2.pub).encode(e2e_v), enc)
        self._enqueue(conn, None, self._box(conn.snd, b"_" + env, with_key=True), True)
        conn.state = "joined"
        return conn

    def join_address(self, link: Link) -> Conn:
        """§4.6 requester: a new invitation of our own, sent to the address in the one-shot box."""
        quri = link.queues[0]
        agent_v = agree(AGENT_VERSIONS, link.agent_range, "agent version")
        smp_v = agree(SMP_CLIENT_VERSIONS, quri.vrange, "SMP client version")
        conn = self.create_invitation("R")
        eph_priv, eph_pub = smp.x25519_keypair()
        nonce = secrets.token_bytes(24)
        inv = invitation_envelope(agent_v, conn.link, x_contact(self.name))
        body = client_msg_envelope(smp_v, eph_pub, nonce, smp.x25519_dh(eph_priv, quri.dh), b"_" + inv)
        smp.expect(self.client(quri.server).send(quri.sender_id, body, None, True), "OK")
        return conn

    # sending
    def _count_sent(self, conn: Conn, plain: bytes, padded_len: int) -> bytes:
        conn.snd_msg_id += 1
        conn.last_snd_hash = sha256(plain)
        conn.sent[conn.snd_msg_id] = conn.last_snd_hash
        return conn.ratchet.encrypt(plain, padded_len)

    def _box(self, snd: SndQ, client_message: bytes, with_key=False) -> bytes:
        return client_msg_envelope(snd.version, snd.e2e_pub if with_key else None, secrets.token_bytes(24),
                                   snd.secret, client_message)

    def _enqueue(self, conn, msg_id, body, notification):
        conn.pending.append((msg_id, body, notification))

    def send_a_message(self, conn: Conn, a_message: bytes, notification: bool) -> int:
        plain = agent_message(conn.snd_msg_id + 1, conn.last_snd_hash, a_message)
        enc = self._count_sent(conn, plain, E2E_ENC_AGENT_MSG_LENGTH)
        body = self._box(conn.snd, b"_" + message_envelope(AGENT_VERSIONS[1], enc))
        self._enqueue(conn, conn.snd_msg_id, body, notification)
        return conn.snd_msg_id

    def deliver(self):
        for conn in self.conns.values():
            while conn.pending and time.time() >= conn.paused_until:
                msg_id, body, notification = conn.pending[0]
                try:
                    r = self.client(conn.snd.server).send(conn.snd.sender_id, body, conn.snd.key, notification)
                except (SMPError, OSError):
                    addr = conn.snd.server.address()
                    c = self.clients.pop(addr, None)
                    if c:
                        c.close()
                    conn.paused_until = time.time() + 1.0
                    break
                if r.tag == "ERR" and r["error"] == "QUOTA":
                    emit({"event": "quota", "conn": conn.id})
                    conn.paused_until = time.time() + 30.0  # A_QCONT ends the wait earlier
                    break
                conn.pending.popleft()
                if r.tag != "OK":
                    emit({"event": "error", "conn": conn.id, "error": r.fields.get("error", r.tag),
                          "detail": f"SEND of message {msg_id}"})
                elif msg_id is not None:
                    emit({"event": "sent", "conn": conn.id, "msgId": msg_id})
                elif conn.state == "allowed":  # our confirmation as initiator: CON (§4.5, v >= 6)
                    self._connected(conn)

    def _connected(self, conn: Conn):
        conn.state = "duplex"
        self.last_connected = conn
        emit({"event": "connected", "conn": conn.id, "profile": conn.peer_profile})

    # receiving
    def on_smp(self, addr, resp):
        if resp.tag != "MSG":
            if resp.tag == "END":
                emit({"event": "error", "error": "END", "detail": "subscription moved"})
            return
        found = self.rcv.get((addr, resp.entity))
        if found is None:
            return
        conn, rq = found
        try:
            m = rq.q.decrypt(resp)
            if m["kind"] == "quota":
                if conn.state == "duplex":
                    self.send_a_message(conn, a_qcont(rq.server, rq.q.snd_id), False)
            else:
                self.on_client_message(conn, rq, m["body"])
        except SMPError as e:
            emit({"event": "error", "conn": conn.id, "error": e.tag, "detail": e.detail})
        self.ack(addr, rq, resp["msgId"])

    def ack(self, addr, rq: RcvQ, msg_id: bytes):
        c = self.clients.get(addr)
        if c is None:
            return  # re-delivered after the reconnect, then recognised as a duplicate
        try:
            r = c.ack(rq.q, msg_id)
        except (SMPError, OSError):
            return  # the connection is lost: the message comes again after the re-subscription
        if r.tag == "MSG":  # the next message answers the ACK (§9.1 #12)
            self.inbox.put(("smp", addr, r))

    def on_client_message(self, conn: Conn, rq: RcvQ, body: bytes):
        env = parse_client_msg_envelope(body)
        if not (SMP_CLIENT_VERSIONS[0] <= env["version"]):
            fail("A_VERSION", "client message version")
        if env["e2eKey"] is not None:
            secret = smp.x25519_dh(rq.e2e_priv, env["e2eKey"])
            if rq.mode == "m":
                if rq.secret is not None and rq.secret != secret:
                    fail("A_PROHIBITED", "a second confirmation key")
                rq.secret = secret
        elif rq.secret is None:
            fail("A_PROHIBITED", "a message before the confirmation")
        else:
            secret = rq.secret
        cm = open_client_message(secret, env)
        if cm["privHeader"] is not None:
            fail("A_PROHIBITED", "legacy confirmation with a sender key (PHConfirmation) is not served")
        ae = parse_agent_envelope(cm["envelope"])
        if ae["kind"] == "invitation" and conn.state == "address":
            return self.on_request(conn, ae)
        if ae["kind"] == "confirmation" and conn.role in ("A", "R") and conn.state == "new":
            return self.on_confirmation(conn, ae)
        if ae["kind"] == "confirmation" and conn.state == "joined":
            return self.on_initiator_confirmation(conn, ae)
        if ae["kind"] == "message" and conn.ratchet is not None:
            return self.on_message(conn, ae)
        if ae["kind"] == "confirmation" and conn.state in ("allowed", "duplex"):
            return  # re-delivered after a reconnect: already processed
        fail("A_PROHIBITED", f"{ae['kind']} in state {conn.state}")

    def on_request(self, conn: Conn, ae: dict):
        if ae["link"] in conn.seen_requests:
            return  # re-delivered after a reconnect: already accepted
        conn.seen_requests.add(ae["link"])
        prof = conn_info_profile(ae["connInfo"])
        link = Link.parse(ae["link"])
        if link.mode != "invitation":
            fail("A_MESSAGE", "an address request without an invitation link")
        contact = self.join_invitation(link, x_info(self.name), "B")
        contact.peer_profile = prof
        emit({"event": "request", "conn": contact.id, "profile": prof})

    def on_confirmation(self, conn: Conn, ae: dict):
        """§4.5 "A -- receive confirmation", then "A -- allow" at once."""
        e2e = ae["e2e"]
        if e2e is None:
            fail("A_MESSAGE", "the joiner's confirmation without e2e parameters")
        agree(E2E_VERSIONS, e2e.vrange, "e2e version")
        if e2e.kem is not None and e2e.kem[0] == "A":  # we proposed none, so none can be accepted
            fail("A_PROHIBITED", "an accepted KEM in the confirmation without a proposal")
        conn.agent_version = agree(AGENT_VERSIONS, (ae["version"], ae["version"]), "agent version")
        a1, a2 = conn.x3dh_keys
        conn.ratchet = Ratchet.initiator(x3dh_initiator(a1, a2, e2e.k1, e2e.k2), a2, e2e.vrange[0])
        plain = conn.ratchet.decrypt(ae["encConnInfo"])
        am = parse_agent_message(plain)
        if am["kind"] != "connInfoReply":
            fail("A_MESSAGE", "the joiner's confirmation is not AgentConnInfoReply")
        conn.last_ext_id, conn.last_rcv_hash = 1, sha256(plain)
        conn.peer_profile = conn_info_profile(am["connInfo"])
        emit({"event": "confirmation", "conn": conn.id, "profile": conn.peer_profile})
        reply = am["queues"][0]
        agree(SMP_CLIENT_VERSIONS, (reply.version, reply.version), "reply queue version")
        conn.snd = SndQ(reply.server, reply.sender_id, reply.dh, reply.version)
        smp.expect(self.client(reply.server).secure_by_sender(reply.sender_id, conn.snd.key), "OK")
        enc = self._count_sent(conn, conn_info_message(x_info(self.name)), E2E_ENC_CONN_INFO_LENGTH)
        env = confirmation_envelope(conn.agent_version, None, enc)
        self._enqueue(conn, None, self._box(conn.snd, b"_" + env, with_key=True), True)
        conn.state = "allowed"

    def on_initiator_confirmation(self, conn: Conn, ae: dict):
        """§4.5 "B -- receive A's confirmation": INFO, then CON."""
        if ae["e2e"] is not None:
            fail("A_MESSAGE", "the initiator's confirmation carries e2e parameters")
        plain = conn.ratchet.decrypt(ae["encConnInfo"])
        am = parse_agent_message(plain)
        if am["kind"] != "connInfo":
            fail("A_MESSAGE", "the initiator's confirmation is not AgentConnInfo")
        conn.last_ext_id, conn.last_rcv_hash = 1, sha256(plain)
        conn.peer_profile = conn_info_profile(am["connInfo"]) or conn.peer_profile
        self._connected(conn)

    def on_message(self, conn: Conn, ae: dict):
        h = sha256(ae["encAgentMessage"])
        if h in conn.seen:
            return  # re-delivered
        try:
            plain = conn.ratchet.decrypt(ae["encAgentMessage"])
        except SMPError as e:
            if e.tag == "A_DUPLICATE":
                return
            raise
        conn.seen.add(h)
        if ae["version"] > conn.agent_version:
            conn.agent_version = min(ae["version"], AGENT_VERSIONS[1])
        am = parse_agent_message(plain)
        if am["kind"] != "message":
            fail("A_MESSAGE", f"{am['kind']} after the handshake")
        integrity = check_integrity(conn.last_ext_id, conn.last_rcv_hash, am["sndMsgId"], am["prevMsgHash"])
        conn.last_ext_id, conn.last_rcv_hash = am["sndMsgId"], sha256(plain)
        if am["msg"] == "A_MSG":
            conn.received[am["sndMsgId"]] = sha256(plain)
            self.on_a_msg(conn, am, integrity)
        elif am["msg"] == "A_RCVD":
            for agent_msg_id, msg_hash, _ in am["receipts"]:
                status = "ok" if conn.sent.get(agent_msg_id) == msg_hash else "badMsgHash"
                emit({"event": "receipt", "conn": conn.id, "msgId": agent_msg_id, "status": status})
        elif am["msg"] == "A_QCONT":
            conn.paused_until = 0.0
            emit({"event": "qcont", "conn": conn.id})
        elif am["msg"] != "HELLO":
            emit({"event": "error", "conn": conn.id, "error": "A_PROHIBITED", "detail": f"{am['msg']} not served"})

    def on_a_msg(self, conn: Conn, am: dict, integrity: dict):
        body = am["body"]
        out = {"event": "message", "conn": conn.id, "sndMsgId": am["sndMsgId"],
               "body": body.decode("utf-8", "replace"), "text": None, "sharedMsgId": None}
        out.update(integrity)
        new = False
        try:
            for m in parse_chat_body(body):
                if m.get("event") == "x.msg.new":
                    new = True
                    content = (m.get("params") or {}).get("content") or {}
                    out["text"], out["sharedMsgId"] = content.get("text"), m.get("msgId")
        except (ValueError, SMPError, AttributeError) as e:
            out["chatError"] = str(e)
        emit(out)
        if new and self.auto_receipts:
            self.send_receipt(conn, am["sndMsgId"])

    def send_receipt(self, conn: Conn, snd_msg_id: int):
        h = conn.received.get(snd_msg_id)
        if h is None:
            fail("A_PROHIBITED", f"no received message {snd_msg_id}")
        self.send_a_message(conn, a_rcvd([(snd_msg_id, h, b"")]), False)

    # commands
    def on_command(self, cmd: dict):
        conn = self.conns.get(cmd.get("conn")) if "conn" in cmd else self.last_connected
        if "quit" in cmd:
            return False
        if conn is None or conn.state != "duplex":
            fail("A_PROHIBITED", "no connected connection for the command")
        if "send" in cmd:
            n = self.send_a_message(conn, a_msg(x_msg_new(str(cmd["send"]))), True)
            emit({"event": "queued", "conn": conn.id, "msgId": n})
        elif "receipt" in cmd:
            self.send_receipt(conn, int(cmd["receipt"]))
        else:
            fail("A_MESSAGE", "unknown command")
        return True

    def run(self):
        threading.Thread(target=self._stdin, daemon=True).start()
        while True:
            try:
                item = self.inbox.get(timeout=0.2)
            except queue.Empty:
                item = None
            try:
                if item and item[0] == "smp":
                    self.on_smp(item[1], item[2])
                elif item and item[0] == "closed":
                    self._lost(item[1], item[2])
                elif item and item[0] == "cmd":
                    if not self.on_command(item[1]):
                        return 0
                elif item and item[0] == "eof":
                    self.eof = True
                self.deliver()
                self._reconnect()
            except SMPError as e:
                emit({"event": "error", "error": e.tag, "detail": e.detail})
            except OSError as e:  # a socket failing under a request: the server connection is gone
                emit({"event": "error", "error": "NETWORK", "detail": str(e)})
            if self.eof and self.inbox.empty() and not any(c.pending for c in self.conns.values()):
                return 0

    def _stdin(self):
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                self.inbox.put(("cmd", json.loads(line)))
            except ValueError:
                emit({"event": "error", "error": "A_MESSAGE", "detail": "not a JSON line"})
        self.inbox.put(("eof",))


def run_agent(args):
    if args.role == "join":
        link = Link.parse(args.link)
        own = Server.parse_text(args.server) if args.server else link.queues[0].server
        agent = Agent(own, args.name or "bob", args.auto_receipts)
        agent.join(args.link)
    else:
        agent = Agent(Server.parse_text(args.address), args.name or "alice", args.auto_receipts)
        agent.create_invitation() if args.role == "create" else agent.create_address()
    return agent.run()


# ---------------------------------------------------------------------------------------------------------------------
# self-test: the spec's vectors byte for byte, then behaviours without a network

H = bytes.fromhex


def _load(path):
    if not os.path.exists(path):
        raise AssertionError(f"vector file {path} is missing")
    with open(path) as f:
        return json.load(f)


def _sized(eq, data: bytes, v: dict, what: str):
    eq((len(data), sha256(data).hex(), data[:64].hex()), (v["len"], v["sha256"], v["first_64_hex"]), what)


def tv_links(eq):
    v = _load(LINK_VECTORS)
    rt, inputs = v["round_trip"], v["inputs"]
    q = QueueURI.parse(rt["queueStr (v=1-4, legacy layout, messaging)"])
    eq((q.server.key_hash.hex(), q.sender_id.hex(), b64u(smp.spki("x25519", q.dh)), q.server.hosts, q.mode),
       (inputs["server_keyHash_bytes_hex"], inputs["senderId_bytes_hex"], inputs["dh_key_spki_b64url"],
        Server.parse_text(inputs["server"]).hosts, "m"), "queue URI fields")
    for name, text in rt.items():
        if name.startswith("e2e_params"):
            e = E2EParams.parse_uri(smp._xr.qdec(text))
            eq(b64u(smp.spki("x448", e.k1)), inputs["x448_key_spki_b64url"], "e2e key")
            eq(smp._xr.qenc(e.uri_text()), text, name)
        elif text.startswith("smp://"):
            eq(QueueURI.parse(text).text(), text, name)
        else:
            eq(Link.parse(text).text(), text, name)
    targets = {"queueStr": "queueStr (v=1-4, legacy layout, messaging)",
               "queueNewStr": "queueNewStr (v=2-4, new layout)", "queueV1": "queueV1", "invitation": "invitation", "contact_v2": "contact_v2"}
    for name, text in v["parse_only"].items():
        target = next(rt[t] for k, t in sorted(targets.items(), key=lambda kv: -len(kv[0]))
                      if f"same as {k}" in name or f"-> {k}" in name)
        parsed = QueueURI.parse(text) if text.startswith("smp://") else Link.parse(text)
        eq(parsed.text(), target, name)
    eq(Link.parse(rt["contact"]).agent_range, (2, 7), "contact range")
    eq(Link.parse(rt["contact_with_client_data"]).data, '{"type":"group_link", "group_link_id":"abc"}', "data")


class _Keys:
    """The vectors' X448 keys by name; `feed` hands out a ratchet's next DHRs keys."""

    def __init__(self, v):
        self.k = {name.split(" ")[0]: X448Key(H(priv)) for name, priv in v["keys_x448_priv"].items()}
        self.pubs = {name.split(" ")[0]: H(pub) for name, pub in v["keys_x448_pub"].items()}

    def __getitem__(self, name):
        return self.k[name]

    def feed(self, *names):
        it = iter(names)

        def take():
            name = next(it, None)
            return X448Key() if name is None else self.k[name]  # keys after the vectors' are random
        return take


def tv_ratchet(eq):
    v = _load(RATCHET_VECTORS)
    k = _Keys(v)
    for name in k.k:
        eq(k[name].pub, k.pubs[name], f"X448 public key {name}")
    a1, a2, b1, b2 = k["a1"], k["a2"], k["b1"], k["b2"]
    xb = x3dh_joiner(a1.pub, a2.pub, b1, b2)
    xa = x3dh_initiator(a1, a2, b1.pub, b2.pub)
    x = v["x3dh"]
    eq([d.hex() for d in xb["dh"]], [x["dh1=X448(a1,b2)"], x["dh2=X448(a2,b1)"], x["dh3=X448(a2,b2)"]], "dh1..3")
    eq((xb["out"].hex(), xb["HK"].hex(), xb["NHK"].hex(), xb["SK"].hex(), xb["AD"].hex()),
       (x["hkdf_out96"], x["HK"], x["NHK"], x["SK"], x["AD=raw(b1)||raw(a1)"]), "X3DH (joiner)")
    eq({n: xa[n] for n in ("out", "HK", "NHK", "SK", "AD", "dh")},
       {n: xb[n] for n in ("out", "HK", "NHK", "SK", "AD", "dh")}, "X3DH (initiator) = joiner")

    # B's sending ratchet, its first message: the confirmation
    rb = Ratchet.joiner(xb, a2.pub, k["bR"], 3, new_key=k.feed("bR2"))
    eq((rb.rk.hex(), rb.cks.hex(), rb.nhks.hex()),
       (v["B_init_send"]["RK"], v["B_init_send"]["CKs"], v["B_init_send"]["NHKs"]), "B's initial ratchet")
    ck = v["B_msg1_chainKdf"]
    eq([x.hex() for x in chain_kdf(rb.cks)],
       [ck["CK_next"], ck["MK"], ck["msgIV=out[64:80]"], ck["hdrIV=out[80:96]"]], "chainKdf")
    hdr = MsgHeader(3, k["bR"].pub, 0, 0).encode(3)
    hv = v["B_msg1_header"]
    eq((hdr.hex(), pad(hdr, 88).hex()), (hv["plain"], hv["padded88"]), "B's first header")
    bc = v["B_confirmation"]
    reply = QueueInfo.parse(Parser(H(bc["reply_SMPQueueInfo"])))
    eq((reply.encode().hex(), reply.version, reply.mode), (bc["reply_SMPQueueInfo"], 4, "m"), "reply SMPQueueInfo")
    plain = conn_info_reply([reply], x_info("bob"))
    eq((plain.hex(), sha256(plain).hex()), (bc["agent_message_plaintext_P"], bc["hash1=sha256(P)"]), "B's \"D\"")
    enc = rb.encrypt(plain, E2E_ENC_CONN_INFO_LENGTH)
    em_header = enc[2:126]
    eq((em_header.hex(), em_header[18:34].hex(), em_header[36:].hex(), enc[126:142].hex()),
       (hv["emHeader(124)"], hv["ehAuthTag"], hv["ehBody"], bc["body_auth_tag"]), "B's emHeader and body tag")
    _sized(eq, enc, bc["encConnInfo"], "B's encConnInfo")
    e2e = E2EParams((3, 3), b1.pub, b2.pub).encode(3)
    eq(e2e.hex(), bc["E2ERatchetParams"], "E2ERatchetParams")
    env = confirmation_envelope(7, e2e, enc)
    _sized(eq, env, bc["AgentConfirmation_envelope"], "AgentConfirmation")
    a_q_priv, b_e_priv = H(bc["A_queue_e2e_x25519_priv"]), H(bc["B_sender_e2e_x25519_priv"])
    secret = smp.x25519_dh(b_e_priv, x25519_pub(a_q_priv))
    eq(secret.hex(), bc["e2eDhSecret"], "per-queue secret")
    cme = client_msg_envelope(4, x25519_pub(b_e_priv), H(bc["cmNonce"]), secret, b"_" + env)
    _sized(eq, cme, bc["ClientMsgEnvelope (SEND body)"], "B's ClientMsgEnvelope")
    eq(base64.b64encode(cme).decode(), bc["ClientMsgEnvelope_b64"], "B's ClientMsgEnvelope (base64)")

    # A receives it: the per-queue layer from the header key, X3DH, the first ratchet step
    got = parse_client_msg_envelope(base64.b64decode(bc["ClientMsgEnvelope_b64"]))
    eq((got["version"], got["e2eKey"], got["nonce"].hex()), (4, x25519_pub(b_e_priv), bc["cmNonce"]), "header")
    cm = open_client_message(smp.x25519_dh(a_q_priv, got["e2eKey"]), got)
    ae = parse_agent_envelope(cm["envelope"])
    eq((cm["privHeader"], ae["kind"], ae["version"], ae["e2e"].k1, ae["e2e"].k2, ae["e2e"].kem),
       (None, "confirmation", 7, b1.pub, b2.pub, None), "A parses the confirmation")
    ra = Ratchet.initiator(x3dh_initiator(a1, a2, ae["e2e"].k1, ae["e2e"].k2), a2, 3, new_key=k.feed("aR2"))
    got_plain = ra.decrypt(ae["encConnInfo"])
    eq(got_plain, plain, "A decrypts B's confirmation")
    am = parse_agent_message(got_plain)
    eq((am["kind"], am["queues"][0].encode(), conn_info_profile(am["connInfo"])),
       ("connInfoReply", reply.encode(), profile("bob")), "A parses \"D\"")
    s = v["A_after_receiving"]
    eq((ra.rk.hex(), ra.nhkr.hex(), ra.cks.hex(), ra.nhks.hex(), ra.hks.hex(), ra.hkr.hex()),
       (s["RK"], s["NHKr"], s["CKs"], s["NHKs"], s["HKs (=old NHKs = NHK)"], s["HKr (=old NHKr = HK)"]),
       "A's state after the first step")
    eq((root_kdf(xa["SK"], k["bR"].pub, a2.priv)[1].hex(), ra.ckr), (s["CKr"], chain_kdf(H(s["CKr"]))[0]),
       "A's receiving chain: from the step, then advanced by the message")

    # A's confirmation "I"
    ac = v["A_confirmation_ratchet_msg"]
    a_plain = conn_info_message(x_info("alice"))
    eq(a_plain.hex(), ac["P"], "A's \"I\"")
    eq(MsgHeader(3, k["aR2"].pub, 0, 0).encode(3).hex(), ac["hdr_plain"], "A's header")
    a_enc = ra.encrypt(a_plain, E2E_ENC_CONN_INFO_LENGTH)
    eq(a_enc[2:126].hex(), ac["emHeader"], "A's emHeader")
    _sized(eq, a_enc, ac["encConnInfo"], "A's encConnInfo")
    eq(rb.decrypt(a_enc), a_plain, "B decrypts A's confirmation")

    # B's first A_MSG (#2)
    bm = v["B_first_A_MSG (#2)"]
    msg_id = json.loads(H(bm["P"])[43:])["msgId"]
    m_plain = agent_message(2, sha256(plain), a_msg(x_msg_new("hello", msg_id)))
    eq(m_plain.hex(), bm["P"], "B's A_MSG plaintext")
    m_enc = rb.encrypt(m_plain, E2E_ENC_AGENT_MSG_LENGTH)
    eq(m_enc[2:126].hex(), bm["emHeader"], "B's A_MSG emHeader")
    _sized(eq, m_enc, bm["ratchet_msg"], "B's A_MSG ratchet message")
    m_cme = client_msg_envelope(4, None, H(bm["nonce"]), secret, b"_" + message_envelope(7, m_enc))
    _sized(eq, m_cme, bm["ClientMsgEnvelope"], "B's A_MSG ClientMsgEnvelope")
    got = parse_client_msg_envelope(m_cme)
    ae = parse_agent_envelope(open_client_message(secret, got)["envelope"])
    am = parse_agent_message(ra.decrypt(ae["encAgentMessage"]))
    eq((am["msg"], am["sndMsgId"], check_integrity(1, sha256(plain), am["sndMsgId"], am["prevMsgHash"]),
        parse_chat_body(am["body"])[0]["params"]["content"]["text"]),
       ("A_MSG", 2, {"integrity": "ok"}, "hello"), "A receives B's A_MSG")

    # the A_RCVD example: the hash of the received A_MSG as both the previous hash and the receipt's hash
    rc = v["A_RCVD_plaintext_example"]
    hm = sha256(m_plain)
    r_plain = agent_message(3, hm, a_rcvd([(2, hm, b"")]))
    eq(r_plain.hex(), rc["P"], "A_RCVD plaintext")
    am = parse_agent_message(r_plain)
    eq((am["msg"], am["receipts"]), ("A_RCVD", [(2, hm, b"")]), "A_RCVD parsed")

    # the address request in the one-shot box
    cr = v["contact_request_AgentInvitation"]
    inv = H(cr["AgentInvitation_hex"])
    ie = parse_agent_envelope(inv)
    req_id = json.loads(ie["connInfo"])["params"]["contactReqId"]
    eq(invitation_envelope(7, ie["link"], x_contact("rob", req_id)).hex(), cr["AgentInvitation_hex"],
       "AgentInvitation")
    _sized(eq, inv, cr["AgentInvitation"], "AgentInvitation size")
    eq(Link.parse(ie["link"]).text(), ie["link"], "the invitation link inside")
    addr_priv, eph_priv = H(cr["address_queue_e2e_x25519_priv"]), H(cr["ephemeral_x25519_priv"])
    box = client_msg_envelope(4, x25519_pub(eph_priv), H(cr["nonce"]),
                              smp.x25519_dh(eph_priv, x25519_pub(addr_priv)), b"_" + inv)
    _sized(eq, box, cr["ClientMsgEnvelope (unsigned SEND body)"], "the invitation box")
    got = parse_client_msg_envelope(box)
    cm = open_client_message(smp.x25519_dh(addr_priv, got["e2eKey"]), got)
    eq((cm["privHeader"], cm["envelope"]), (None, inv), "the address owner opens it")


def _pair():
    a1, a2, b1, b2 = X448Key(), X448Key(), X448Key(), X448Key()
    rb = Ratchet.joiner(x3dh_joiner(a1.pub, a2.pub, b1, b2), a2.pub, X448Key(), 3)
    ra = Ratchet.initiator(x3dh_initiator(a1, a2, b1.pub, b2.pub), a2, 3)
    return ra, rb


def _raises(tag, fn, what):
    try:
        fn()
    except SMPError as e:
        if e.tag != tag:
            raise AssertionError(f"{what}: expected {tag}, got {e.tag} ({e.detail})")
        return
    raise AssertionError(f"{what}: expected {tag}, nothing raised")


def t_ratchet_behaviour(eq):
    ra, rb = _pair()
    msgs = [rb.encrypt(b"b%d" % i, 100) for i in range(5)]
    eq(ra.decrypt(msgs[0]), b"b0", "in order")
    eq(ra.decrypt(msgs[3]), b"b3", "skipping two")
    eq((len(ra.skipped), sorted(next(iter(ra.skipped.values())))), (1, [1, 2]), "two skipped keys")
    eq(ra.decrypt(msgs[2]), b"b2", "a skipped one")
    _raises("A_DUPLICATE", lambda: ra.decrypt(msgs[3]), "duplicate")
    a_msgs = [ra.encrypt(b"a%d" % i, 100) for i in range(3)]
    eq(rb.decrypt(a_msgs[2]), b"a2", "the reply chain, out of order")
    eq(ra.decrypt(msgs[1]), b"b1", "a skipped key of the previous chain")
    eq(ra.decrypt(msgs[4]), b"b4", "the previous chain's last (skipped at the step)")
    eq([rb.decrypt(m) for m in a_msgs[:2]], [b"a0", b"a1"], "the rest")
    later = [rb.encrypt(b"x", 100) for _ in range(MAX_SKIP + 2)]
    _raises("A_CRYPTO", lambda: ra.decrypt(later[-1]), "more than 512 skipped")
    eq(ra.decrypt(later[MAX_SKIP]), b"x", "512 skipped")
    before = copy.copy(ra.__dict__)
    bad = bytearray(later[-1])
    bad[-1] ^= 1
    _raises("A_CRYPTO", lambda: ra.decrypt(bytes(bad)), "a changed body")
    eq((ra.nr, ra.ckr), (before["nr"], before["ckr"]), "a failed body leaves the state")
    _raises("A_CRYPTO", lambda: ra.decrypt(b"\x00\x05abc"), "garbage")


def t_v2_and_pq_headers(eq):
    """e2e v2 uses 1-byte lengths (123-byte header); a v3 receiver reads both, and a PQ header padded to 2,310."""
    ra, rb = _pair()
    ra.version = rb.version = 2
    m = rb.encrypt(b"v2", 100)
    eq((m[0], len(m)), (123, 1 + 123 + 16 + 100), "v2 layout")
    eq(ra.decrypt(m), b"v2", "v2 decrypts")
    ra, rb = _pair()
    ck, mk, iv, hiv = chain_kdf(rb.cks)
    kem = b"1P" + len2(bytes(1158))
    header = u16(3) + x448_field(rb.dhrs.pub) + kem + u32(0) + u32(0)
    htag, hct = aes_encrypt(rb.hks, hiv, pad(header, 2310), rb.ad)
    emh = u16(3) + hiv + htag + len2(hct)
    tag, ct = aes_encrypt(mk, iv, pad(b"pq", 13618), rb.ad + emh)
    eq(ra.decrypt(len2(emh) + tag + ct), b"pq", "a PQ proposal header is read and ignored")


def t_integrity(eq):
    h = sha256(b"x")
    eq([check_integrity(1, h, n, ph)["integrity"] for n, ph in ((2, h), (2, b""), (1, h), (0, h), (5, h))],
       ["ok", "msgBadHash", "msgDuplicate", "msgBadId", "msgSkipped"], "integrity cases")
    eq(check_integrity(1, h, 5, h), {"integrity": "msgSkipped", "skippedFrom": 2, "skippedTo": 4}, "skipped range")


def t_framings(eq):
    one = x_msg_new("one", "aWQ=")
    eq(parse_chat_body(one)[0]["params"]["content"]["text"], "one", "object")
    eq(len(parse_chat_body(b"[" + one + b"," + one + b"]")), 2, "batch")
    long = x_msg_new("z" * 3000)
    eq([m["params"]["content"]["text"][:3] for m in parse_chat_body(compress_chat_body([one, long]))],
       ["one", "zzz"], "X: passthrough and a zstd frame")
    _raises("A_MESSAGE", lambda: parse_chat_body(b"F123"), "binary framing")


def t_envelopes(eq):
    srv = Server(["127.0.0.1"], "5223", bytes(32))
    for qi in (QueueInfo(4, srv, b"s" * 24, bytes(range(32)), "m"), QueueInfo(4, srv, b"s" * 24, bytes(32), None),
               QueueInfo(3, srv, b"s" * 24, bytes(32), "m"), QueueInfo(2, srv, b"s" * 24, bytes(32), None)):
        p = Parser(qi.encode() + b"{}")
        got = QueueInfo.parse(p)
        eq((got.encode(), p.rest()), (qi.encode(), b"{}"), f"SMPQueueInfo v{qi.version} followed by JSON")
    p = Parser(a_qcont(srv, b"q" * 24))
    got = parse_a_message(p)
    eq((got["msg"], got["server"], got["senderId"]), ("A_QCONT", srv, b"q" * 24), "A_QCONT")
    eq(parse_a_message(Parser(b"H")), {"msg": "HELLO"}, "HELLO")
    k1, k2 = X448Key().pub, X448Key().pub
    pq = E2EParams.parse(Parser(u16(3) + x448_field(k1) + x448_field(k2) + b"1P" + len2(bytes(1158))))
    eq((pq.k1, pq.k2, pq.kem), (k1, k2, ("P", bytes(1158))), "E2ERatchetParams with a KEM proposal")
    eq(E2EParams.parse(Parser(u16(2) + x448_field(k1) + x448_field(k2))).kem, None, "e2e v2: no KEM byte")
    inner = E2EParams((2, 3), k1, k2, ("P", bytes(1158))).uri_text()
    eq(E2EParams.parse_uri(inner).kem, ("P", bytes(1158)), "kem_key in a link")
    _raises("A_MESSAGE", lambda: parse_agent_envelope(u16(7) + b"Z"), "unknown envelope")
    _raises("A_MESSAGE", lambda: parse_agent_message(b"D\x00"), "empty reply list")
    _raises("A_MESSAGE", lambda: Link.parse("simplex:/invitation#/?v=2-7&smp=x"), "a bad queue URI")
    _raises("A_VERSION", lambda: agree(AGENT_VERSIONS, (8, 9), "agent"), "no common version")


def run_selftest():
    from selftest import RESULTS, check, eq
    check("vectors: links.json (queue URIs, e2e, invitation and contact links)", lambda: tv_links(eq))
    check("vectors: ratchet.json (X3DH, ratchet, envelopes, confirmations, A_MSG, A_RCVD, address request)",
          lambda: tv_ratchet(eq))
    check("ratchet: skipped keys, out of order, duplicates, the 512 limit, failures keep the state",
          lambda: t_ratchet_behaviour(eq))
    check("ratchet: e2e v2 layout and a PQ header", lambda: t_v2_and_pq_headers(eq))
    check("integrity check", lambda: t_integrity(eq))
    check("chat framings: object, batch, X", lambda: t_framings(eq))
    check("envelopes: SMPQueueInfo versions, A_QCONT, KEM parameters parsed, refusals", lambda: t_envelopes(eq))
    failed = sum(1 for _, ok in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def main(argv=None):
    p = argparse.ArgumentParser(description="SimpleX agent test peer (smp.md §4-§6)")
    sub = p.add_subparsers(dest="role", required=True)
    sub.add_parser("selftest")
    for role, arg in (("create", "address"), ("address", "address"), ("join", "link")):
        s = sub.add_parser(role)
        s.add_argument(arg)
        s.add_argument("--name")
        s.add_argument("--auto-receipts", action="store_true", help="an A_RCVD for every received x.msg.new")
        if role == "join":
            s.add_argument("--server", help="SMP_ADDR of our own queue (default: the link's server)")
    args = p.parse_args(argv)
    if args.role == "selftest":
        return run_selftest()
    return run_agent(args)


if __name__ == "__main__":
    sys.exit(main())
