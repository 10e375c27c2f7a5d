"""Atomic file replacement for every writer of checkpoints (``ember.save``, safetensors)."""

from __future__ import annotations

import os
import secrets
import stat
import threading


def atomic_write(path, write, who: str) -> None:
    """Run ``write(file, fd)`` on a temporary file beside ``path``, fsync it, then rename it over
    ``path``: a failure at any point leaves an earlier file at ``path`` as it was, and no
    temporary file behind. ``who`` names the caller in errors."""
    path = os.fspath(path)
    if os.path.islink(path):
        path = os.path.realpath(path)  # replace the link's target, keep the link
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{who}: the folder of {path!r} does not exist")
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with open(fd, "wb", buffering=1 << 16) as file:
            write(file, file.fileno())  # large writes bypass the buffer
            file.flush()
            os.fsync(file.fileno())
        try:  # keep a replaced file's permissions
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except OSError:
            pass
        # Freeing a replaced file's pages and blocks takes a while for a big checkpoint; an
        # open descriptor keeps the old inode alive through the rename, and closing it in a
        # thread frees it off the caller's time (the kernel closes it if the process exits).
        try:
            old = os.open(path, os.O_RDONLY)
        except OSError:
            old = None
        try:
            os.replace(tmp, path)
        finally:
            if old is not None:
                threading.Thread(target=os.close, args=(old,), daemon=True).start()
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable
        try:
            dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)
