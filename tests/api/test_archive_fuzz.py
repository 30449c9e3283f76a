"""Fuzzing archive member names: whatever names a tar or zip holds, unpacking it either writes
the bot inside its folder or refuses with an UnsafeArchive (INVALID_ARGUMENT for a client), never
another exception (INTERNAL) and never a file outside the folder."""

from __future__ import annotations

import io
import tarfile
import tempfile
import warnings
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.intake.bots import source_digest
from arena.intake.uploads import UnsafeArchive, UploadLimits, extract_bot
from tests.api.archives import GOOD_BOT

LIMITS = UploadLimits(max_archive_bytes=1 << 20, max_unpacked_bytes=1 << 20, max_file_bytes=1 << 20, max_files=20)

#: Pieces attackers build names from: separators, dots, drive letters, long and multi-byte
#: components, NUL, and names that collide with bot.py or with each other as file and folder.
_PIECES = st.sampled_from([
    "/", "\\", ".", "..", "bot.py", "lib", "x", "C:", "é" * 90, "a" * 130, "\x00", " ", "~", "//", "./",
    "\udcff", "\n", "\x1b",
])
_NAMES = st.lists(st.one_of(_PIECES, st.text(min_size=1, max_size=12)), min_size=1, max_size=6).map("".join)
#: (name, kind): kind is file, dir, or (tar only) a symbolic or hard link.
_MEMBERS = st.lists(st.tuples(_NAMES, st.sampled_from(["file", "file", "dir", "symlink", "hardlink"])),
                    min_size=1, max_size=6)


def _tar(members: list[tuple[str, str]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.addfile(_tar_info("bot.py", len(GOOD_BOT)), io.BytesIO(GOOD_BOT))
        for name, kind in members:
            info = _tar_info(name, 1)
            if kind == "dir":
                info.type, info.size = tarfile.DIRTYPE, 0
                tar.addfile(info)
            elif kind in ("symlink", "hardlink"):
                info.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.LNKTYPE
                info.size, info.linkname = 0, "../../etc/passwd"
                tar.addfile(info)
            else:
                tar.addfile(info, io.BytesIO(b"x"))
    return buf.getvalue()


def _tar_info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mode = size, 0o644
    return info


def _zip(members: list[tuple[str, str]]) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("bot.py", GOOD_BOT)
            for name, kind in members:
                if kind == "dir":
                    zf.writestr(name.rstrip("/") + "/", b"")
                else:
                    info = zipfile.ZipInfo(name)
                    info.external_attr = (0o120777 if kind == "symlink" else 0o100644) << 16
                    zf.writestr(info, b"x")
    return buf.getvalue()


def _unpack_or_refuse(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dest = root / "bots" / "1" / "v1"
        try:
            extract_bot(data, dest, LIMITS)
        except UnsafeArchive as exc:
            assert exc.kind and str(exc)
            assert len(str(exc)) < 1200, "a refusal quotes names shortened"
            assert not dest.exists()
        else:
            assert (dest / "bot.py").read_bytes() == GOOD_BOT
            assert source_digest(str(dest))[0] == "hosted"  # what qualification does next
        outside = {p for p in root.rglob("*") if not p.is_relative_to(dest)}
        assert outside <= {root / "bots", root / "bots" / "1"}, outside


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_MEMBERS)
def test_any_tar_member_names_unpack_inside_or_are_refused(members: list[tuple[str, str]]) -> None:
    try:
        data = _tar(members)
    except (ValueError, UnicodeError):
        return  # tarfile itself cannot write such a name (e.g. a NUL in a ustar field)
    _unpack_or_refuse(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_MEMBERS)
def test_any_zip_member_names_unpack_inside_or_are_refused(members: list[tuple[str, str]]) -> None:
    try:
        data = _zip(members)
    except (ValueError, UnicodeError, IndexError):
        return  # zipfile itself cannot write such a name (e.g. "/" as a file: IndexError)
    _unpack_or_refuse(data)
