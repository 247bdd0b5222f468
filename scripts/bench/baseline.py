#!/usr/bin/env python3
"""Baseline figures for simplex-bench: the same operations through pqcrypto and PyNaCl, in this process.
Prints one JSON object of operations per second (secretbox: MB/s on 16 KiB blocks)."""
import json, os, sys, time
import nacl.bindings as nb
from nacl.signing import SigningKey
from pqcrypto import sntrup_761

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5


def rate(fn, min_seconds=SECONDS):
    n, start = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds and n >= 5:
            return n / elapsed


pk, sk = sntrup_761.keygen()
ct, _ = sntrup_761.encaps(pk)
signer = SigningKey.generate()
message = os.urandom(64)
signed = signer.sign(message)
verify_key = signer.verify_key
a, b = os.urandom(32), nb.crypto_scalarmult_base(os.urandom(32))
key, nonce, block = os.urandom(32), os.urandom(24), os.urandom(16384)

out = {
    "sntrup761 keypair": rate(lambda: sntrup_761.keygen()),
    "sntrup761 encapsulate": rate(lambda: sntrup_761.encaps(pk)),
    "sntrup761 decapsulate": rate(lambda: sntrup_761.decaps(sk, ct)),
    "Ed25519 sign": rate(lambda: signer.sign(message)),
    "Ed25519 verify": rate(lambda: verify_key.verify(signed)),
    "X25519": rate(lambda: nb.crypto_scalarmult(a, b)),
    "secretbox 16 KiB (MB/s)": rate(lambda: nb.crypto_secretbox(block, nonce, key)) * 16384 / 1e6,
}
json.dump(out, sys.stdout)
