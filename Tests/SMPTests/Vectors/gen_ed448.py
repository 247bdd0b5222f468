#!/usr/bin/env python3
"""Ed448 and X448 keys in SPKI form with an Ed448 signature, made with PyPI `cryptography` from fixed seeds
(smp.md §1.3: servers with Ed448 certificates sign their handshake keys with Ed448). Writes ed448.json beside it."""
import hashlib, json, os
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed448, x448

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
out = {
    "ed448_spki": sk.public_key().public_bytes(**spki).hex(),
    "message": message.hex(),
    "signature": sk.sign(message).hex(),
    "x448_spki": xk.public_key().public_bytes(**spki).hex(),
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ed448.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
