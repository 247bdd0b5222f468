"""The chat protocol's compressed body framing (smp.md section 6.3), written from the spec with PyPI zstandard, to
check the Swift core's "X" bodies independently.

    chat_body_peer.py unpack HEX   prints the hex of each item's plain bytes, one a line
    chat_body_peer.py pack HEX...  prints the hex of an "X" body with the given plain bodies as its items

Body: "X", a count byte (1-255), then per item "0" len1(raw) for passthrough or "1" len2(frame) for a zstd frame.
Frames declare their content size, which the reader requires and caps at 65,536 bytes.
"""

import sys

import zstandard

LIMIT = 65536
PASSTHROUGH = 180


def unpack(body):
    if body[:1] != b"X":
        raise ValueError("not a compressed body")
    count, i, items = body[1], 2, []
    if count == 0:
        raise ValueError("empty list")
    for _ in range(count):
        tag = body[i : i + 1]
        if tag == b"0":
            n, i = body[i + 1], i + 2
            items.append(body[i : i + n])
        elif tag == b"1":
            n, i = int.from_bytes(body[i + 1 : i + 3], "big"), i + 3
            frame = body[i : i + n]
            params = zstandard.get_frame_parameters(frame)
            if params.content_size in (zstandard.CONTENTSIZE_UNKNOWN, zstandard.CONTENTSIZE_ERROR):
                raise ValueError("frame does not declare its size")
            if params.content_size > LIMIT:
                raise ValueError("frame too large")
            items.append(zstandard.ZstdDecompressor().decompress(frame))
        else:
            raise ValueError(f"bad item tag {tag!r}")
        i += n
    if i != len(body):
        raise ValueError("bytes after the last item")
    return items


def pack(plains):
    out = bytearray(b"X") + bytes([len(plains)])
    compressor = zstandard.ZstdCompressor(level=3, write_content_size=True)
    for plain in plains:
        if len(plain) <= PASSTHROUGH:
            out += b"0" + bytes([len(plain)]) + plain
        else:
            frame = compressor.compress(plain)
            out += b"1" + len(frame).to_bytes(2, "big") + frame
    return bytes(out)


if __name__ == "__main__":
    command, args = sys.argv[1], [bytes.fromhex(a) for a in sys.argv[2:]]
    if command == "unpack":
        for item in unpack(args[0]):
            print(item.hex())
    elif command == "pack":
        print(pack(args).hex())
    else:
        sys.exit(f"unknown command {command}")
