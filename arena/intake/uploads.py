"""Unpack an uploaded bot archive (tar.gz or zip) without trusting anything in it.

An archive comes from a stranger over the network, so every member is checked before a single
byte is written: no absolute paths, no ``..``, no links, no devices or fifos, a cap on the
number of files, on the archive's own size and on the size it expands to (a decompression bomb
is caught while decompressing, not by believing the sizes the archive declares), no path or
path component longer than the file system takes, no name that is not UTF-8 or holds a control
character, no file that is also a folder (``lib`` and ``lib/x.py``) and no file twice. What :func:`read_archive` accepts can be written: a name the
file system still refuses (and any archive the readers cannot parse) is an UnsafeArchive too,
never another exception, so a client always gets INVALID_ARGUMENT for a bad upload. The bot is
unpacked into a fresh temporary folder next to its destination and renamed into place only when
everything passed, so a refused archive leaves nothing behind.

Each refusal is an :class:`UnsafeArchive` with a ``kind`` (stable, for tests and clients) and a
message a bot author can act on; a member's name is quoted shortened (arena.quoting).
"""

from __future__ import annotations

import errno
import io
import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.quoting import shorten

MiB = 1024 * 1024


@dataclass(frozen=True)
class UploadLimits:
    """The caps an upload must stay under. Defaults suit a Python bot with some data files."""

    max_archive_bytes: int = 8 * MiB
    max_unpacked_bytes: int = 64 * MiB
    max_file_bytes: int = 32 * MiB
    max_files: int = 1000
    max_path_length: int = 200
    #: Bytes of one path component (a file or folder name): Linux's NAME_MAX.
    max_name_bytes: int = 255


DEFAULT_LIMITS = UploadLimits()


class UnsafeArchive(ValueError):
    """An archive the platform refuses to unpack; ``kind`` names the rule it broke."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Member:
    """One regular file or directory of the archive, checked and normalised."""

    parts: tuple[str, ...]
    is_dir: bool
    data: bytes
    executable: bool


#: Control characters (C0, DEL, C1): no file of a bot needs one in its name, and a name with a
#: newline or an escape sequence garbles every listing that prints it.
_CONTROL = re.compile("[\x01-\x1f\x7f-\x9f]")


def _q(name: str) -> str:
    """A member name as a message quotes it: shortened, then repr'd."""
    return repr(shorten(name))


def _check_name(raw: str, limits: UploadLimits) -> tuple[str, ...]:
    """The member's path as safe components, or a refusal that names the member."""
    if "\x00" in raw:
        raise UnsafeArchive("bad_name", f"archive member name contains a NUL byte: {_q(raw)}")
    if _CONTROL.search(raw):
        raise UnsafeArchive("bad_name", f"archive member name contains a control character: {_q(raw)}")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:  # tar keeps undecodable bytes as surrogates: the name is not UTF-8
        raise UnsafeArchive("bad_name", f"archive member name is not valid UTF-8: {_q(raw)}") from None
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) >= 2 and name[1] == ":" and name[0].isalpha()):
        raise UnsafeArchive("absolute_path", f"archive member has an absolute path: {_q(raw)}")
    parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
    if ".." in parts:
        raise UnsafeArchive("parent_path", f"archive member path contains '..': {_q(raw)}")
    if len(name) > limits.max_path_length:
        raise UnsafeArchive(
            "bad_name", f"archive member path is longer than {limits.max_path_length} characters: {_q(raw)}"
        )
    for part in parts:
        # os.fsencode: tar keeps undecodable name bytes as surrogate escapes, and so does the disk
        if len(os.fsencode(part)) > limits.max_name_bytes:
            raise UnsafeArchive(
                "bad_name",
                f"archive member {_q(raw)} has a file or folder name longer than {limits.max_name_bytes} bytes",
            )
    return parts


def _gunzip(data: bytes, limits: UploadLimits) -> bytes:
    """Decompress gzip with a hard cap on the output, so a bomb stops at the cap."""
    out = io.BytesIO()
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    cap = limits.max_unpacked_bytes + 64 * 1024  # tar headers on top of the file contents
    chunk = data
    try:
        while chunk:
            part = d.decompress(chunk, cap + 1 - out.tell())
            out.write(part)
            if out.tell() > cap:
                raise _bomb(len(data), limits)
            chunk = d.unconsumed_tail
        out.write(d.flush())
    except zlib.error as exc:
        raise UnsafeArchive("not_an_archive", f"the archive is not valid gzip data: {shorten(exc)}") from None
    if out.tell() > cap:
        raise _bomb(len(data), limits)
    return out.getvalue()


def _bomb(packed: int, limits: UploadLimits) -> UnsafeArchive:
    return UnsafeArchive(
        "decompression_bomb",
        f"the archive ({packed} bytes) expands to more than {limits.max_unpacked_bytes // MiB} MiB "
        "(decompression bomb?); keep large data out of the bot",
    )


def _read_tar(data: bytes, limits: UploadLimits) -> list[Member]:
    raw = _gunzip(data, limits) if data[:2] == b"\x1f\x8b" else data
    try:
        tar = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")
    except tarfile.TarError as exc:
        raise UnsafeArchive("not_an_archive", f"not a readable tar archive: {shorten(exc)}") from None
    members: list[Member] = []
    total = 0
    with tar:
        try:
            infos = tar.getmembers()
        except tarfile.TarError as exc:
            raise UnsafeArchive("not_an_archive", f"the tar archive is damaged: {shorten(exc)}") from None
        _check_count(len(infos), limits)
        for info in infos:
            parts = _check_name(info.name, limits)
            if info.issym() or info.islnk():
                raise UnsafeArchive(
                    "link", f"archive member {_q(info.name)} is a link (to {_q(info.linkname)}); links are not allowed"
                )
            if info.ischr() or info.isblk() or info.isfifo() or info.isdev():
                raise UnsafeArchive("device", f"archive member {_q(info.name)} is a device or fifo; not allowed")
            if not (info.isfile() or info.isdir()):
                raise UnsafeArchive("bad_member", f"archive member {_q(info.name)} is not a regular file or folder")
            if not parts:
                continue
            if info.isdir():
                members.append(Member(parts, True, b"", False))
                continue
            _check_file_size(info.name, info.size, limits)
            total += info.size
            if total > limits.max_unpacked_bytes:
                raise _bomb(len(data), limits)
            try:
                fh = tar.extractfile(info)
                content = fh.read() if fh is not None else b""
            except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
                raise UnsafeArchive("not_an_archive", f"cannot read {_q(info.name)} from the tar: {shorten(exc)}") from None
            members.append(Member(parts, False, content, bool(info.mode & 0o111)))
    return members


def _read_zip(data: bytes, limits: UploadLimits) -> list[Member]:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UnsafeArchive("not_an_archive", f"not a readable zip archive: {shorten(exc)}") from None
    members: list[Member] = []
    total = 0
    with zf:
        infos = zf.infolist()
        _check_count(len(infos), limits)
        for info in infos:
            parts = _check_name(info.filename, limits)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise UnsafeArchive("link", f"archive member {_q(info.filename)} is a symbolic link; links are not allowed")
            if mode and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
                raise UnsafeArchive("device", f"archive member {_q(info.filename)} is a device or fifo; not allowed")
            if info.flag_bits & 0x1:
                raise UnsafeArchive("encrypted", f"archive member {_q(info.filename)} is encrypted; not supported")
            if not parts:
                continue
            if info.is_dir():
                members.append(Member(parts, True, b"", False))
                continue
            _check_file_size(info.filename, info.file_size, limits, info.compress_size)
            # Read with a cap rather than trusting file_size: a forged header cannot get past it.
            budget = min(limits.max_file_bytes, limits.max_unpacked_bytes - total)
            try:
                with zf.open(info) as fh:
                    content = fh.read(budget + 1)
            except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, NotImplementedError, RuntimeError, EOFError,
                    OSError, ValueError) as exc:  # OSError: a damaged bzip2 member
                raise UnsafeArchive("not_an_archive", f"cannot read {_q(info.filename)} from the zip: {shorten(exc)}") from None
            if len(content) > budget:
                raise _bomb(len(data), limits)
            total += len(content)
            members.append(Member(parts, False, content, bool(mode & 0o111)))
    return members


def _check_count(count: int, limits: UploadLimits) -> None:
    if count > limits.max_files:
        raise UnsafeArchive("too_many_files", f"the archive has {count} entries; at most {limits.max_files} are allowed")


#: Expansion ratio above which an oversized member counts as a decompression bomb.
BOMB_RATIO = 100


def _check_file_size(name: str, size: int, limits: UploadLimits, packed: int | None = None) -> None:
    if size > limits.max_file_bytes:
        if packed is not None and size > BOMB_RATIO * max(packed, 1):
            raise UnsafeArchive(
                "decompression_bomb",
                f"archive member {_q(name)} expands from {packed} to {size} bytes (decompression bomb?)",
            )
        raise UnsafeArchive(
            "file_too_large", f"archive member {_q(name)} is {size} bytes; at most {limits.max_file_bytes // MiB} MiB per file"
        )


def _has_entry(members: list[Member]) -> bool:
    """``bot.py``, or a ``bot.json`` manifest naming the command (referee.manifest)."""
    return any(m.parts in (("bot.py",), ("bot.json",)) and not m.is_dir for m in members)


def _strip_top_folder(members: list[Member]) -> list[Member]:
    """Accept both ``bot.py`` at the top and ``mybot/bot.py`` (the usual ``tar czf x mybot``)."""
    if _has_entry(members):
        return members
    tops = {m.parts[0] for m in members}
    if len(tops) == 1:
        stripped = [Member(m.parts[1:], m.is_dir, m.data, m.executable) for m in members if len(m.parts) > 1]
        if _has_entry(stripped):
            return stripped
    raise UnsafeArchive(
        "no_bot_py", "the archive has no bot.py at its top (or in its single top-level folder)"
    )


def read_archive(data: bytes, limits: UploadLimits = DEFAULT_LIMITS) -> list[Member]:
    """Check an archive completely and return its files, ready to write. Writes nothing."""
    if len(data) > limits.max_archive_bytes:
        raise UnsafeArchive(
            "archive_too_large", f"the archive is {len(data)} bytes; at most {limits.max_archive_bytes // MiB} MiB"
        )
    if not data:
        raise UnsafeArchive("not_an_archive", "the archive is empty")
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        members = _read_zip(data, limits)
    elif data[:2] == b"\x1f\x8b" or _looks_like_tar(data):
        members = _read_tar(data, limits)
    else:
        raise UnsafeArchive("not_an_archive", "the upload is neither a tar.gz nor a zip archive")
    _check_tree(members)
    return _strip_top_folder(members)


def _check_tree(members: list[Member]) -> None:
    """No file twice, and no path that is both a file and a folder (``lib`` and ``lib/x.py``,
    or ``lib`` and ``lib/``), in whatever order the archive lists them."""
    files: set[tuple[str, ...]] = set()
    folders: set[tuple[str, ...]] = set()  # named, or implied by a member inside them
    for m in members:
        if m.is_dir:
            folders.add(m.parts)
        elif m.parts in files:
            raise UnsafeArchive("duplicate", f"archive member {_q('/'.join(m.parts))} appears twice")
        else:
            files.add(m.parts)
        folders.update(m.parts[:i] for i in range(1, len(m.parts)))
    clash = files & folders
    if clash:
        path = "/".join(min(clash))
        raise UnsafeArchive("file_and_folder", f"archive member {_q(path)} is both a file and a folder")


def _looks_like_tar(data: bytes) -> bool:
    return len(data) >= 512 and data[257:262] == b"ustar"


def extract_bot(data: bytes, dest: Path, limits: UploadLimits = DEFAULT_LIMITS) -> Path:
    """Unpack a checked archive into ``dest`` (which must not exist yet) and return it.

    Files land in a temporary sibling folder first and it is renamed to ``dest`` only after all
    were written, so ``dest`` either holds the whole bot or does not exist.
    """
    return write_bot(read_archive(data, limits), dest)


#: Errors that say a member's name cannot exist on this file system (the upload's fault), as
#: opposed to a full disk or lost permissions (the server's), which stay what they are.
_NAME_ERRNOS = {errno.ENAMETOOLONG, errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.EILSEQ, errno.EINVAL,
                errno.ELOOP}


def write_bot(members: list[Member], dest: Path) -> Path:
    """Write members from :func:`read_archive` into ``dest`` (see :func:`extract_bot`)."""
    dest = Path(dest)
    if dest.exists():
        raise FileExistsError(f"{dest} already exists")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".upload-", dir=dest.parent))
    try:
        root = tmp.resolve()
        for m in members:
            try:
                _write_member(root, m)
            except OSError as exc:
                if exc.errno not in _NAME_ERRNOS:
                    raise
                raise UnsafeArchive(
                    "bad_name", f"archive member {_q('/'.join(m.parts))} cannot be written: {exc.strerror}"
                ) from None
        os.chmod(tmp, 0o755)
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _write_member(root: Path, m: Member) -> None:
    target = root.joinpath(*m.parts)
    # Belt and braces: the names were checked, but the final path is what matters.
    if not target.resolve().is_relative_to(root):
        raise UnsafeArchive("parent_path", f"archive member {_q('/'.join(m.parts))} escapes the bot folder")
    if m.is_dir:
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if m.executable else 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(m.data)
