#!/usr/bin/env python3
"""An independent zip implementation (Python's own `zipfile`) for the archive tests of SimplexArchive.

usage:
  zip_peer.py read ARCHIVE      lists every entry as JSON: name, method, sizes and the content in hex, after
                                zipfile's own CRC check (testzip); exits non-zero when zipfile refuses the archive
  zip_peer.py write FOLDER      writes archives of its own into FOLDER (see ARCHIVES) for the Swift reader

The contents are the same deterministic bytes on both sides: `content(n, seed)`.
"""

import io
import json
import sys
import zipfile


def content(n, seed):
    """Half text (compresses), half a linear congruential sequence (does not); both sides make the same bytes."""
    text = (f"entry {seed} " * (n // 16 + 1)).encode()[: n // 2]
    x, noise = seed, bytearray()
    for _ in range(n - len(text)):
        x = (x * 1103515245 + 12345) % (1 << 31)
        noise.append((x >> 16) & 0xFF)
    return text + bytes(noise)


class NonSeekable(io.RawIOBase):
    """Forces zipfile to stream: local headers without sizes, followed by data descriptors."""

    def __init__(self, f):
        self.f = f

    def writable(self):
        return True

    def write(self, b):
        return self.f.write(b)

    def seekable(self):
        return False


ENTRIES = [("simplex_v1_chat.db", 5000, 1), ("simplex_v1_files/photo.jpg", 200_000, 2),
           ("simplex_v1_files/empty.txt", 0, 3), ("simplex_v1_files/naïve café.txt", 300, 4)]


def write_archive(path, method, zip64=False, stream=False):
    target = open(path, "wb")
    out = NonSeekable(target) if stream else target
    with zipfile.ZipFile(out, "w", compression=method) as z:
        for name, n, seed in ENTRIES:
            info = zipfile.ZipInfo(name, date_time=(2025, 6, 2, 10, 30, 14))
            info.compress_type = method
            with z.open(info, "w", force_zip64=zip64) as f:
                f.write(content(n, seed))
    target.close()


def write_hostile(path):
    with zipfile.ZipFile(path, "w") as z:
        for name in ["../evil.txt", "/etc/evil.txt", "simplex_v1_files/../../evil.txt", "C:evil.txt", "ok.txt"]:
            info = zipfile.ZipInfo("placeholder")
            info.filename = name  # ZipInfo would normalise; the attack keeps the name as given
            z.writestr(info, b"x")


def main():
    command, target = sys.argv[1], sys.argv[2]
    if command == "read":
        with zipfile.ZipFile(target) as z:
            bad = z.testzip()
            if bad is not None:
                sys.exit(f"zipfile: bad CRC in {bad}")
            entries = [{"name": i.filename, "method": i.compress_type, "size": i.file_size,
                        "compressed": i.compress_size, "data": z.read(i).hex()} for i in z.infolist()]
        print(json.dumps(entries))
    elif command == "write":
        write_archive(f"{target}/stored.zip", zipfile.ZIP_STORED)
        write_archive(f"{target}/deflated.zip", zipfile.ZIP_DEFLATED)
        write_archive(f"{target}/zip64.zip", zipfile.ZIP_DEFLATED, zip64=True)
        write_archive(f"{target}/streamed.zip", zipfile.ZIP_DEFLATED, stream=True)
        write_hostile(f"{target}/hostile.zip")
        print(json.dumps([{"name": n, "size": s, "seed": seed} for n, s, seed in ENTRIES]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
