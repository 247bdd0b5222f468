#!/usr/bin/env python3
"""Writes the first seed inputs of each fuzz target from the repository's own test fixtures: the string literals of
the decoders' unit tests, the SMP, link and ratchet vectors, and archives made with Python's zipfile. Runs of
scripts/fuzz --keep then merge what the fuzzers found into Tests/Fuzz/<target>/corpus. Seeds are named by their
SHA-1, as libFuzzer names corpus files, so writing them twice changes nothing."""
import glob, hashlib, io, json, os, re, sys, zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FUZZ = os.path.join(ROOT, "Tests", "Fuzz")


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    if not data or len(data) > 4096:
        return
    folder = os.path.join(FUZZ, target, "corpus")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


STRING = re.compile(r'#"((?:[^"]|"(?!#))*)"#|"((?:[^"\\\n]|\\.)*)"')


def literals(pattern):
    """Swift string literals (raw or with simple escapes) of the files matching `pattern`."""
    out = []
    for path in glob.glob(os.path.join(ROOT, pattern)):
        for m in STRING.finditer(open(path, encoding="utf-8").read()):
            if m.group(1) is not None:
                out.append(m.group(1))
            else:
                s = m.group(2)
                if "\\(" in s:
                    continue  # interpolation
                s = s.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
                out.append(s)
    return out


def leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    else:
        yield value


def hex_leaves(path):
    out = []
    for v in leaves(json.load(open(os.path.join(ROOT, path)))):
        if isinstance(v, str) and len(v) >= 4 and len(v) % 2 == 0 and re.fullmatch(r"[0-9a-f]+", v):
            out.append(bytes.fromhex(v))
    return out


def text_leaves(path):
    return [v for v in leaves(json.load(open(os.path.join(ROOT, path)))) if isinstance(v, str)]


# Command lines: the parser's tests and the catalogs' syntax column.
for s in literals("Tests/ChatModelTests/*.swift") + literals("Tests/ChatCoreTests/*CommandTests.swift"):
    if s.startswith("/") or s.startswith("@") or s.startswith("#") or s.startswith(">"):
        write("chat-command", s)

# JSON: the parser's tests and every JSON literal of the core's and XRCP's tests.
for s in literals("Tests/SimplexEncodingTests/JSONParserTests.swift") + literals("Tests/ChatModelTests/RawJSONTests.swift"):
    write("json", s)
chat_json = [s for s in literals("Tests/ChatCoreTests/*.swift") if s.startswith("{") and s.endswith("}")]
for s in chat_json[:200]:
    write("json", s)
KINDS = [("displayName", 0), ('"type":"', 1), ("uri", 2), ("filePath", 3), ("groupPreferences", 7), ("enableNtfs", 5),
         ("timedMessages", 6), ("socksProxy", 14), ("emoji", 15), ("themes", 11), ("tagName", 12), ("preset", 9)]
for s in chat_json:
    for key, selector in KINDS:
        if key in s:
            write("chat-json-input", bytes([selector]) + s.encode())
write("chat-json-input", b"\x00" + b'{"displayName":"alice","fullName":"Alice A"}')
write("chat-json-input", b"\x01" + b'{"type":"text","text":"hello *bold*"}')
write("chat-json-input", b"\x02" + b'{"uri":"https://simplex.chat","title":"t","description":"d","image":"data:image/png;base64,AA=="}')
write("chat-json-input", b"\x03" + b'{"filePath":"/tmp/f","cryptoArgs":{"fileKey":"AAAA","fileNonce":"BBBB"}}')
write("chat-json-input", b"\x04" + b'{"displayName":"team","fullName":"","description":"d"}')

# Markdown: the markdown tests' texts.
for s in literals("Tests/SimplexMarkdownTests/*.swift") + literals("Tests/ChatCoreTests/ItemMarkdownTests.swift"):
    write("markdown", s)

# XRCP: the invitation tests' URIs, HELLO JSON and remote bodies from the body and message tests.
for s in literals("Tests/XRCPTests/*.swift"):
    if s.startswith("xrcp:"):
        write("xrcp-invitation", s)
    if s.startswith("{"):
        write("xrcp-remote-body", b"\x00" + s.encode())
        write("xrcp-remote-body", b"\x01" + s.encode())
        write("xrcp-remote-body", b"\x09" + s.encode())
app = {"appVersion": "6.5.0.13", "deviceName": "Linux host", "encoding": "swift", "encryptFiles": False, "compression": True}
hello = {"v": 1, "ca": "A" * 43 + "=", "app": app, "kem": "A" * 1544}
for selector in (1, 3):
    write("xrcp-hello", bytes([selector]) + json.dumps(hello, separators=(",", ":")).encode())
write("xrcp-hello", b"\x00HELLO ")
write("xrcp-hello", b"\x02HELLO ")
write("xrcp-hello", b"\x02ERROR ")

# Zip: small archives of every shape the reader takes.
def archive(entries, **options):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", **options) as z:
        for name, data, method in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6))
            info.compress_type = method
            z.writestr(info, data)
    return buffer.getvalue()


write("zip", archive([("simplex_v1_chat.db", b"SQLite format 3\0" + b"x" * 100, zipfile.ZIP_DEFLATED)]))
write("zip", archive([("a.txt", b"hello", zipfile.ZIP_STORED), ("files/", b"", zipfile.ZIP_STORED),
                      ("files/b.bin", bytes(range(256)) * 4, zipfile.ZIP_DEFLATED)]))
write("zip", archive([("big", b"\0" * 20000, zipfile.ZIP_DEFLATED)]))
write("zip", archive([("../escape", b"x", zipfile.ZIP_STORED), ("dup", b"1", zipfile.ZIP_STORED), ("dup", b"2", zipfile.ZIP_STORED)]))
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w") as z:
    with z.open("zip64", "w", force_zip64=True) as f:
        f.write(b"zip64 entry")
write("zip", buffer.getvalue())

# SMP: the command, transport and link vectors.
for b in hex_leaves("Tests/SMPTests/Vectors/commands.json") + hex_leaves("Tests/SMPTests/Vectors/transport.json"):
    for version in (12, 9, 0):  # v18, v15, v6
        write("smp-command", bytes([version]) + b)
        write("smp-broker-message", bytes([version]) + b)
    for selector in (0, 1, 2, 3, 48, 49):
        write("smp-transmission", bytes([selector]) + b)
    write("smp-handshake", b)
for b in (b"OK", b"PONG", b"END", b"DELD", b"ERR AUTH", b"ERR CMD SYNTAX", b"ERR BLOCK", b"SOK", b"IDS"):
    write("smp-broker-message", bytes([12]) + b)
for b in (b"PING", b"SUB", b"GET", b"OFF", b"DEL", b"ACK ", b"SEND ", b"KEY ", b"NEW "):
    write("smp-command", bytes([12]) + b)
links = text_leaves("Tests/SMPTests/Vectors/links.json") + text_leaves("Tests/AgentProtocolTests/Fixtures/links.json")
for s in links:
    if s.startswith("smp://") or "." in s:
        write("smp-queue-uri", b"\x00" + s.encode())
    if s.startswith("simplex:") or s.startswith("https://"):
        write("agent-link", s)
for s in literals("Tests/AgentProtocolTests/*.swift"):
    if s.startswith("simplex:") or s.startswith("https://") or s.startswith("v="):
        write("agent-link", s)

# The agent's envelopes and the ratchet: the ratchet vectors, each under every selector that may read it.
ratchet = hex_leaves("Tests/RatchetTests/Fixtures/ratchet.json")
for b in ratchet:
    for selector in range(13):
        if b[:1] in (b"M", b"I", b"D", b"R", b"\x00"):
            write("agent-envelope", bytes([selector]) + b)
    for selector in (0, 8, 16, 24, 1, 3, 4):
        write("ratchet-header", bytes([selector]) + b)
print("seeds written under", os.path.relpath(FUZZ))
