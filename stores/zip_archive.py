"""Deterministic zip archives for downloads (an app's workspace, a post's export): entries in the order given, one
fixed timestamp and fixed attributes, deflated, so the same files always give the same bytes. Blocking: call it in a
thread."""

import io
import zipfile
from collections.abc import Iterable

ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can carry: every entry has it."""
FILE_MODE = 0o644
UNIX = 3


def zip_bytes(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip holding each `(name, data)` entry, in order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            entry = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = UNIX
            entry.external_attr = FILE_MODE << 16
            archive.writestr(entry, data)
    return buffer.getvalue()
