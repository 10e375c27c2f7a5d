"""The zip container of PyTorch checkpoints: a writer laid out as PyTorch's and a reader.

PyTorch writes its archives with miniz: every record stored (uncompressed), its data aligned to
64 bytes by a padding extra field (id ``FB``), sizes and CRC in a data descriptor after the data
(general-purpose flag bit 3), and a zip64 end record always. The writer reproduces that layout
byte for byte (so PyTorch's optional offset arithmetic, ``calculate_storage_offsets``, works on
our files), and writes storage bytes straight from the array's buffer. The reader parses the
central directory only (no scan of the file) and checks every offset and size against the file
length, so a truncated or corrupt archive gives ``ZipError`` instead of a read past the end.
"""

from __future__ import annotations

import struct
import zlib

ALIGNMENT = 64
_U32 = 0xFFFFFFFF
_U16 = 0xFFFF

_LOCAL = struct.Struct("<IHHHHHIIIHH")  # local file header, 30 bytes
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # central directory entry, 46 bytes
_EOCD = struct.Struct("<IHHHHIIH")  # end of central directory, 22 bytes
_EOCD64 = struct.Struct("<IQHHIIQQQQ")  # zip64 end of central directory, 56 bytes
_LOCATOR64 = struct.Struct("<IIQI")  # zip64 end of central directory locator, 20 bytes
_FLAGS = 0x0808  # data descriptor follows the data; names are UTF-8 (as miniz writes)


class ZipError(Exception):
    """A malformed archive (the caller turns it into a RuntimeError that names the file)."""


class ZipWriter:
    """Writes records to a binary file object in PyTorch's layout.

    Call ``write_record(name, data)`` per record (``data``: bytes or any C-contiguous buffer),
    then ``finish()`` to write the central directory.
    """

    def __init__(self, file, prefix: str, compute_crc: bool = True):
        self._file = file
        self._crc = compute_crc
        self._prefix = prefix
        self._pos = 0
        self._entries: list[tuple[bytes, int, int, int]] = []  # name, crc, size, offset
        self._pad = b"FB" + b"Z" * (ALIGNMENT + 2)

    def write_record(
        self, name: str, data, nbytes: int | None = None, crc=None, zeros: bool = False
    ) -> None:
        """Write one record; ``crc``, if given, is a zero-argument callable returning the
        CRC-32 of ``data`` (computed elsewhere, e.g. in a thread while this writes). With
        ``zeros`` the record holds ``nbytes`` zero bytes and a CRC of 0 (``skip_data``);
        without ``compute_crc`` every CRC is 0."""
        fname = f"{self._prefix}/{name}".encode()
        size = len(data) if nbytes is None else nbytes
        offset = self._pos
        big = size >= _U32 or offset >= _U32
        zip64 = b""
        if big:
            fields = b""
            if size >= _U32:
                fields += struct.pack("<QQ", size, size)
            if offset >= _U32:
                fields += struct.pack("<Q", offset)
            zip64 = struct.pack("<HH", 1, len(fields)) + fields
        # The data starts after the header, the name, the zip64 field and the 4-byte padding
        # field header; pad so that it lands on a multiple of 64 (the ``FB`` field is always
        # present, possibly with no padding bytes, as miniz writes it).
        start = offset + _LOCAL.size + len(fname) + len(zip64) + 4
        pad = -start % ALIGNMENT
        extra = zip64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        write = self._file.write
        write(_LOCAL.pack(0x04034B50, 0, _FLAGS, 0, 0, 0, 0, 0, 0, len(fname), len(extra)))
        write(fname)
        write(extra)
        if size and zeros:
            # NOTE: matches torch: skip_data leaves zeros and a CRC of 0 (PyTorch's loader
            # never checks a storage's CRC).
            _write_zeros(self._file, size)
            crc = 0
        elif size and self._crc:
            if crc is None:
                crc = zlib.crc32(data)
                write(data)
            else:
                write(data)
                crc = crc()
        else:
            if size:
                write(data)
            crc = 0
        self._pos = start + pad + size
        if size:  # miniz writes no descriptor for an empty record
            if big:
                write(struct.pack("<IIQQ", 0x08074B50, crc, size, size))
                self._pos += 24
            else:
                write(struct.pack("<IIII", 0x08074B50, crc, size, size))
                self._pos += 16
        self._entries.append((fname, crc, size, offset))

    def finish(self) -> None:
        write = self._file.write
        cd_start = self._pos
        cd = bytearray()
        for fname, crc, size, offset in self._entries:
            fields = b""
            csize = usize = size
            off = offset
            if size >= _U32:
                fields += struct.pack("<QQ", size, size)
                csize = usize = _U32
            if offset >= _U32:
                fields += struct.pack("<Q", offset)
                off = _U32
            extra = struct.pack("<HH", 1, len(fields)) + fields if fields else b""
            cd += _CENTRAL.pack(
                0x02014B50,
                0,
                0,
                _FLAGS,
                0,
                0,
                0,
                crc,
                csize,
                usize,
                len(fname),
                len(extra),
                0,
                0,
                0,
                0,
                off,
            )
            cd += fname
            cd += extra
        write(cd)
        n = len(self._entries)
        eocd64_pos = cd_start + len(cd)
        write(_EOCD64.pack(0x06064B50, 44, 0x031E, 45, 0, 0, n, n, len(cd), cd_start))
        write(_LOCATOR64.pack(0x07064B50, 0, eocd64_pos, 1))
        write(
            _EOCD.pack(
                0x06054B50,
                0,
                0,
                min(n, _U16),
                min(n, _U16),
                min(len(cd), _U32),
                min(cd_start, _U32),
                0,
            )
        )


class Record:
    """One archive member: where its data lies in the file and how it is stored."""

    __slots__ = ("name", "header_offset", "size", "csize", "method", "crc", "_data_offset")

    def __init__(self, name, header_offset, size, csize, method, crc):
        self.name = name
        self.header_offset = header_offset
        self.size = size
        self.csize = csize
        self.method = method
        self.crc = crc
        self._data_offset = None


class ZipReader:
    """Reads an archive's central directory from a seekable binary file of ``length`` bytes."""

    def __init__(self, file, length: int):
        self._file = file
        self.length = length
        self.records: dict[str, Record] = {}
        self._read_directory()
        names = list(self.records)
        if not names:
            raise ZipError("the zip archive has no records")
        # All records live in one top-level folder, named after the file that was saved.
        self.prefix = names[0].split("/", 1)[0] if "/" in names[0] else ""

    def _read(self, offset: int, n: int) -> bytes:
        if offset < 0 or offset + n > self.length:
            raise ZipError(
                f"a zip structure at byte {offset} (+{n}) lies outside the file "
                f"({self.length} bytes): the file is truncated or corrupt"
            )
        self._file.seek(offset)
        data = self._file.read(n)
        if len(data) != n:
            raise ZipError(f"short read at byte {offset}: the file is truncated")
        return data

    def _read_directory(self) -> None:
        # The end record is the last 22 bytes unless the archive has a comment (<= 64 KiB).
        tail_len = min(self.length, _EOCD.size + _U16)
        tail = self._read(self.length - tail_len, tail_len)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + _EOCD.size > len(tail):
            raise ZipError(
                "failed finding the zip central directory (the end record is "
                "missing: the file is truncated or not a zip archive)"
            )
        eocd_pos = self.length - tail_len + at
        (_, disk, _, _, count, cd_size, cd_offset, _) = _EOCD.unpack_from(tail, at)
        if disk != 0:
            raise ZipError("multi-disk zip archives are not supported")
        if count == _U16 or cd_size == _U32 or cd_offset == _U32 or eocd_pos >= _LOCATOR64.size:
            loc_pos = eocd_pos - _LOCATOR64.size
            if loc_pos >= 0:
                loc = self._read(loc_pos, _LOCATOR64.size)
                sig, _, eocd64_pos, _ = _LOCATOR64.unpack(loc)
                if sig == 0x07064B50:
                    rec = self._read(eocd64_pos, _EOCD64.size)
                    fields = _EOCD64.unpack(rec)
                    if fields[0] != 0x06064B50:
                        raise ZipError("the zip64 end record is corrupt")
                    count, cd_size, cd_offset = fields[7], fields[8], fields[9]
        if cd_offset + cd_size > self.length or count > cd_size // _CENTRAL.size + 1:
            raise ZipError(
                f"the central directory ({count} records at byte {cd_offset}, "
                f"{cd_size} bytes) does not fit in the file ({self.length} bytes)"
            )
        cd = self._read(cd_offset, cd_size)
        pos = 0
        for _ in range(count):
            if pos + _CENTRAL.size > len(cd):
                raise ZipError("the central directory is truncated")
            (sig, _, _, flags, method, _, _, crc, csize, usize, nlen, elen, clen, _, _, _, off) = (
                _CENTRAL.unpack_from(cd, pos)
            )
            if sig != 0x02014B50:
                raise ZipError(f"bad central directory entry signature at byte {cd_offset + pos}")
            pos += _CENTRAL.size
            if pos + nlen + elen + clen > len(cd):
                raise ZipError("the central directory is truncated")
            raw_name = cd[pos : pos + nlen]
            extra = cd[pos + nlen : pos + nlen + elen]
            pos += nlen + elen + clen
            if usize == _U32 or csize == _U32 or off == _U32:
                usize, csize, off = _zip64_fields(extra, usize, csize, off)
            if flags & 1:
                raise ZipError("encrypted zip records are not supported")
            name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", "replace")
            if off + _LOCAL.size > self.length or off + csize > self.length:
                raise ZipError(
                    f"record {name!r} lies outside the file (offset {off}, "
                    f"{csize} bytes; the file has {self.length}): it is truncated"
                )
            self.records[name] = Record(name, off, usize, csize, method, crc)

    def get(self, name: str) -> Record | None:
        return self.records.get(f"{self.prefix}/{name}" if self.prefix else name)

    def data_offset(self, rec: Record) -> int:
        """Where the record's data starts (after its local header)."""
        if rec._data_offset is None:
            header = self._read(rec.header_offset, _LOCAL.size)
            sig, *_, nlen, elen = _LOCAL.unpack(header)
            if sig != 0x04034B50:
                raise ZipError(f"bad local header signature for record {rec.name!r}")
            start = rec.header_offset + _LOCAL.size + nlen + elen
            if start + rec.csize > self.length:
                raise ZipError(
                    f"record {rec.name!r} ({rec.csize} bytes at byte {start}) runs "
                    f"past the end of the file ({self.length} bytes): truncated"
                )
            rec._data_offset = start
        return rec._data_offset

    def read(self, rec: Record, check_crc: bool = True) -> bytes:
        """The record's bytes (stored or deflated), CRC-checked."""
        data = self._read(self.data_offset(rec), rec.csize)
        if rec.method == 8:
            try:  # at most one byte more than declared, so a zip bomb cannot exhaust memory
                data = zlib.decompressobj(-15).decompress(data, rec.size + 1)
            except zlib.error as e:
                raise ZipError(f"record {rec.name!r} does not inflate: {e}") from None
        elif rec.method != 0:
            raise ZipError(
                f"record {rec.name!r} uses compression method {rec.method}; "
                "only stored and deflated records are supported"
            )
        if len(data) != rec.size:
            raise ZipError(f"record {rec.name!r} has {len(data)} bytes, its header says {rec.size}")
        # A CRC of 0 is what a writer without CRCs records (torch's set_crc32_options(False)):
        # NOTE: matches torch: such archives load.
        if check_crc and rec.crc and zlib.crc32(data) != rec.crc:
            raise ZipError(f"record {rec.name!r} fails its CRC-32 check: the file is corrupt")
        return data

    def read_into(self, rec: Record, out) -> None:
        """Read a stored record's bytes into the writable buffer ``out`` (one read)."""
        if rec.method != 0:
            out[:] = memoryview(self.read(rec))
            return
        self._file.seek(self.data_offset(rec))
        n = self._file.readinto(out)
        if n != rec.size:
            raise ZipError(f"record {rec.name!r}: read {n} of {rec.size} bytes (truncated)")


_ZEROS = 1 << 20


def _write_zeros(file, n: int) -> None:
    """``n`` zero bytes: a seek past the end where the file is at its end (a hole the next
    write fills with zeros, without writing them), else written in chunks."""
    try:
        pos = file.tell()
        at_end = file.seekable() and file.seek(0, 2) == pos
        if not at_end:
            file.seek(pos)
    except (AttributeError, OSError, ValueError):
        at_end = False
    if at_end:
        file.seek(pos + n)
        return
    zeros = bytes(min(n, _ZEROS))
    while n > 0:
        k = min(n, len(zeros))
        file.write(zeros[:k] if k < len(zeros) else zeros)
        n -= k


def _zip64_fields(extra: bytes, usize: int, csize: int, off: int):
    pos = 0
    while pos + 4 <= len(extra):
        tag, n = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + n]
        if tag == 1:
            vals = [struct.unpack_from("<Q", body, i)[0] for i in range(0, len(body) - 7, 8)]
            it = iter(vals)
            try:
                if usize == _U32:
                    usize = next(it)
                if csize == _U32:
                    csize = next(it)
                if off == _U32:
                    off = next(it)
            except StopIteration:
                raise ZipError("the zip64 extra field is truncated") from None
            return usize, csize, off
        pos += 4 + n
    raise ZipError("a zip64 record lacks its zip64 extra field")
