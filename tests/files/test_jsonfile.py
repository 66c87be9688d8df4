"""msd_core.files.jsonfile: the BOM-tolerant decode used by every JSON read on the hot path."""

from __future__ import annotations

import pytest

from msd_core.files.jsonfile import decode_utf8_sig


@pytest.mark.parametrize("raw", [b"", b"{}", b"\xef\xbb\xbf{}", b"\xef\xbb\xbf", b"\xef\xbb", b"\xef\xbb\xbf\xef\xbb\xbfx",
                                 "é ✓".encode(), b"\xef\xbb\xbf" + "é".encode(), b"a\xffb", b"\xef\xbb\xbfa\xffb",
                                 b"\xef\xbb\xbf\xc3", b"\xc3\x28", b"ok\n\x00"])
def test_decode_utf8_sig_is_the_codec(raw):
    """Same text, or the same error at the same position, as bytes.decode("utf-8-sig")."""
    try:
        want = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        with pytest.raises(UnicodeDecodeError) as got:
            decode_utf8_sig(raw)
        assert (got.value.start, got.value.end, got.value.reason) == (exc.start, exc.end, exc.reason)
    else:
        assert decode_utf8_sig(raw) == want
