#!/usr/bin/env python3
"""An independent reader of a sealed database, written from docs/storage-encryption.md alone: Argon2id and
crypto_kdf subkeys (BLAKE2b) from PyNaCl, XChaCha20-Poly1305 for each page. It decrypts a closed, checkpointed
main file into a plaintext SQLite file and prints the first column of a query on it (Python's own sqlite3).

    unseal_db.py SEALED PASSPHRASE PLAIN QUERY
"""
import sqlite3
import struct
import sys

import nacl.bindings
import nacl.encoding
import nacl.hash
import nacl.pwhash

HEADER, PAGE, RESERVE = 4096, 4096, 40
MAIN_PAGE = 1


def subkey(key, subkey_id):
    """crypto_kdf_derive_from_key: BLAKE2b keyed by the master key, the id as salt, the context as personalisation."""
    return nacl.hash.blake2b(b"", digest_size=32, key=key, salt=struct.pack("<Q", subkey_id) + bytes(8),
                             person=b"SXsealdb" + bytes(8), encoder=nacl.encoding.RawEncoder)


def main(sealed, passphrase, plain, query):
    data = open(sealed, "rb").read()
    header = data[:HEADER]
    if header[:16] != b"SimpleX-SealedDB":
        sys.exit("not a sealed database")
    version, page_size, passes, memory_kib = struct.unpack(">IIII", header[16:32])
    if (version, page_size) != (1, PAGE):
        sys.exit(f"unknown version {version} or page size {page_size}")
    salt, check = header[32:48], header[48:80]
    master = nacl.pwhash.argon2id.kdf(32, passphrase.encode(), salt, opslimit=passes, memlimit=memory_kib * 1024)
    if subkey(master, 2) != check:
        sys.exit("wrong passphrase")
    key = subkey(master, 1)
    out = bytearray()
    for number, offset in enumerate(range(HEADER, len(data), PAGE), start=1):
        page = data[offset:offset + PAGE]
        sealed_length = PAGE - RESERVE
        ciphertext, nonce, tag = page[:sealed_length], page[sealed_length:sealed_length + 24], page[sealed_length + 24:]
        associated = bytes([MAIN_PAGE]) + struct.pack("<Q", number) + struct.pack("<I", sealed_length)
        out += nacl.bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(ciphertext + tag, associated, nonce, key)
        out += bytes(RESERVE)
    open(plain, "wb").write(out)
    print(sqlite3.connect(plain).execute(query).fetchone()[0])


if __name__ == "__main__":
    main(*sys.argv[1:5])
