#!/usr/bin/env python3
"""Ed448 and X448 keys in SPKI form with an Ed448 signature, made with PyPI `cryptography` from fixed seeds
(smp.md §1.3: servers with Ed448 certificates sign their handshake keys with Ed448). Writes ed448.json beside it."""
import hashlib, json, os
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed448, x448, x25519

def seed(label, n):
    out, i = b"", 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}/{i}".encode()).digest()
        i += 1
    return out[:n]

spki = dict(encoding=serialization.Encoding.DER, format=serialization.PublicFormat.SubjectPublicKeyInfo)
sk = ed448.Ed448PrivateKey.from_private_bytes(seed("ed448-leaf", 57))
message = b"0\x2c" + bytes(44)  # any bytes; a handshake signs SEQUENCE { SPKI }
xk = x448.X448PrivateKey.from_private_bytes(seed("x448", 56))

def der(tag, content):
    n = len(content)
    length = bytes([n]) if n < 0x80 else bytes([0x81, n]) if n < 0x100 else bytes([0x82, n >> 8, n & 0xff])
    return bytes([tag]) + length + content

# A handshake key signed by an Ed448 leaf (smp.md §2.4): SEQUENCE { SEQUENCE { SPKI X25519 }, AlgorithmIdentifier
# Ed448 without parameters, BIT STRING signature over the DER of SEQUENCE { SPKI } }.
dh = x25519.X25519PrivateKey.from_private_bytes(seed("handshake-x25519", 32))
signed_object = der(0x30, dh.public_key().public_bytes(**spki))
signed_key = der(0x30, signed_object + bytes.fromhex("300506032b6571") + der(0x03, b"\x00" + sk.sign(signed_object)))
out = {
    "ed448_spki": sk.public_key().public_bytes(**spki).hex(),
    "message": message.hex(),
    "signature": sk.sign(message).hex(),
    "x448_spki": xk.public_key().public_bytes(**spki).hex(),
    "signed_key_der": signed_key.hex(),
    "signed_key_x25519_spki": dh.public_key().public_bytes(**spki).hex(),
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ed448.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
