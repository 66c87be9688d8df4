"""Reading a JSONL file one line at a time in bounded memory.

`lines(path, start)` yields (offset after the line, the line's bytes) for every line that
ends with a newline, from byte `start` on; a line longer than MAX_LINE_BYTES is not held: it is
read past and yielded as None (counted as oversized by the caller). The file is read in
CHUNK-sized pieces, so memory stays within about CHUNK + MAX_LINE_BYTES however large the
file or folder. A last line without its newline (the host may be writing it) is not yielded:
the offset stops before it, and an incremental reader picks it up next time.
"""

from __future__ import annotations

CHUNK = 1 << 20
MAX_LINE_BYTES = 16 << 20  # a transcript line holding a large tool result is a few MB at most


def lines(path, start: int = 0, max_line: int | None = None):
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    from msd_core.files.safe_read import open_stream

    with open_stream(path) as fh:  # a FIFO or device at the path is refused (OSError), never waited on
        fh.seek(start)
        offset = start  # where `buf` begins in the file
        buf = b""
        skipping = False  # inside an oversized line: drop bytes until its newline
        while True:
            chunk = fh.read(CHUNK)
            if not chunk:
                return
            buf += chunk
            pos = 0
            while True:
                nl = buf.find(b"\n", pos)
                if nl < 0:
                    break
                if skipping:
                    skipping = False
                    yield offset + nl + 1, None
                elif nl - pos > max_line:
                    yield offset + nl + 1, None
                else:
                    yield offset + nl + 1, buf[pos:nl]
                pos = nl + 1
            offset += pos
            buf = buf[pos:]
            if skipping or len(buf) > max_line:  # the rest is part of an oversized line: not kept
                offset += len(buf)
                buf = b""
                skipping = True
