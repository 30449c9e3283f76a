"""Build bot archives in memory for the API tests: good ones and every unsafe kind."""

from __future__ import annotations

import io
import tarfile
import time
import warnings
import zipfile
from collections.abc import Callable

GOOD_BOT = b"""from arena.sdk import serve_bot

def act(observation, legal_options):
    return legal_options[0].id

if __name__ == "__main__":
    serve_bot(act)
"""


def _tar(members: list[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for m in members:
            if isinstance(m, tuple):
                info, data = m
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(m)
    return buf.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, **attrs: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = 0o644
    info.mtime = int(time.time())
    for k, v in attrs.items():
        setattr(info, k, v)
    return info


def tar_bot(files: dict[str, bytes] | None = None, top: str = "") -> bytes:
    files = files if files is not None else {"bot.py": GOOD_BOT}
    prefix = f"{top}/" if top else ""
    return _tar([(_info(prefix + name), data) for name, data in files.items()])


def zip_bot(files: dict[str, bytes] | None = None, top: str = "") -> bytes:
    files = files if files is not None else {"bot.py": GOOD_BOT}
    prefix = f"{top}/" if top else ""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    return buf.getvalue()


def _zip_raw(entries: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.py", GOOD_BOT)
        for info, data in entries:
            zf.writestr(info, data)
    return buf.getvalue()


def _zip_info(name: str, mode: int = 0o100644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _zip_entries(entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of exactly these (name, data) entries, in this order, duplicates kept."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about a duplicate name, then writes it
        with zipfile.ZipFile(buf, "w", method) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return buf.getvalue()


def _truncated_tar() -> bytes:
    """A plain (not gzipped) tar whose last file stops in the middle of its data."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in (("bot.py", GOOD_BOT), ("data.bin", b"x" * 5000)):
            info = _info(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()[: 512 * 3 + 2048]  # bot.py's header and data, data.bin's header, 2 KB


def _damaged_bzip2_zip() -> bytes:
    """A zip whose bzip2 member's compressed stream is garbage (bz2 raises OSError on it)."""
    data = bytearray(_zip_entries([("bot.py", GOOD_BOT), ("data.txt", b"hello " * 200)], zipfile.ZIP_BZIP2))
    start = data.index(b"BZh", data.index(b"data.txt"))
    data[start + 10:start + 40] = b"\xa5" * 30
    return bytes(data)


#: A file or folder name of 256 UTF-8 bytes but only 128 characters: under the path-length cap,
#: over the file system's 255-byte NAME_MAX.
LONG_NAME = "é" * 128


def bomb_bytes(size: int) -> bytes:
    return b"\0" * size


# kind -> (format, builder(limit_hint)) ; every builder gives an archive that also has bot.py
UNSAFE: dict[str, Callable[[int], bytes]] = {
    "tar_absolute_path": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), (_info("/etc/evil.py"), b"x")]),
    "tar_parent_path": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), (_info("../evil.py"), b"x")]),
    "tar_nested_parent_path": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), (_info("data/../../evil.py"), b"x")]),
    "tar_symlink": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), _info("passwd", tarfile.SYMTYPE, linkname="/etc/passwd")]),
    "tar_hardlink": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), _info("hl", tarfile.LNKTYPE, linkname="bot.py")]),
    "tar_char_device": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), _info("null", tarfile.CHRTYPE, devmajor=1, devminor=3)]),
    "tar_fifo": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), _info("pipe", tarfile.FIFOTYPE)]),
    "tar_too_many_files": lambda n: tar_bot({"bot.py": GOOD_BOT, **{f"f{i}.txt": b"x" for i in range(n)}}),
    "tar_bomb": lambda n: tar_bot({"bot.py": GOOD_BOT, "zeros.bin": bomb_bytes(n)}),
    "zip_absolute_path": lambda _n: _zip_raw([(_zip_info("/tmp/evil.py"), b"x")]),
    "zip_parent_path": lambda _n: _zip_raw([(_zip_info("../evil.py"), b"x")]),
    "zip_backslash_parent_path": lambda _n: _zip_raw([(_zip_info("..\\evil.py"), b"x")]),
    "zip_symlink": lambda _n: _zip_raw([(_zip_info("passwd", 0o120777), b"/etc/passwd")]),
    "zip_fifo": lambda _n: _zip_raw([(_zip_info("pipe", 0o010644), b"")]),
    "zip_too_many_files": lambda n: zip_bot({"bot.py": GOOD_BOT, **{f"f{i}.txt": b"x" for i in range(n)}}),
    "zip_bomb": lambda n: zip_bot({"bot.py": GOOD_BOT, "zeros.bin": bomb_bytes(n)}),
    "tar_file_then_folder": lambda _n: tar_bot({"bot.py": GOOD_BOT, "lib": b"x", "lib/x.py": b"y"}),
    "tar_folder_then_file": lambda _n: tar_bot({"bot.py": GOOD_BOT, "lib/x.py": b"y", "lib": b"x"}),
    "tar_file_then_folder_entry": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), (_info("lib"), b"x"),
                                                   _info("lib", tarfile.DIRTYPE)]),
    "tar_long_name": lambda _n: tar_bot({"bot.py": GOOD_BOT, f"data/{LONG_NAME}": b"x"}),
    "tar_long_folder_name": lambda _n: tar_bot({"bot.py": GOOD_BOT, f"{LONG_NAME}/x.py": b"x"}),
    "tar_long_path": lambda _n: tar_bot({"bot.py": GOOD_BOT, "a/" * 150 + "x.py": b"x"}),
    "tar_not_utf8_name": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), (_info("data/\udcff.txt"), b"x")]),
    "tar_newline_name": lambda _n: tar_bot({"bot.py": GOOD_BOT, "evil\nname.py": b"x"}),
    "zip_escape_name": lambda _n: _zip_entries([("bot.py", GOOD_BOT), ("\x1b[2Jclear.py", b"x")]),
    "tar_duplicate": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), (_info("./bot.py"), b"print(1)")]),
    "tar_block_device": lambda _n: _tar([(_info("bot.py"), GOOD_BOT), _info("sda", tarfile.BLKTYPE)]),
    "tar_truncated": lambda _n: _truncated_tar(),
    "zip_file_then_folder": lambda _n: _zip_entries([("bot.py", GOOD_BOT), ("lib", b"x"), ("lib/x.py", b"y")]),
    "zip_folder_then_file": lambda _n: _zip_entries([("bot.py", GOOD_BOT), ("lib/x.py", b"y"), ("lib", b"x")]),
    "zip_long_name": lambda _n: _zip_entries([("bot.py", GOOD_BOT), (f"data/{LONG_NAME}", b"x")]),
    "zip_long_path": lambda _n: _zip_entries([("bot.py", GOOD_BOT), ("a/" * 150 + "x.py", b"x")]),
    "zip_file_then_folder_entry": lambda _n: _zip_entries([("bot.py", GOOD_BOT), ("lib", b"x"), ("lib/", b"")]),
    "zip_drive_path": lambda _n: _zip_raw([(_zip_info("C:/evil.py"), b"x")]),
    "zip_duplicate": lambda _n: _zip_entries([("bot.py", GOOD_BOT), ("bot.py", b"print(1)")]),
    "zip_char_device": lambda _n: _zip_raw([(_zip_info("null", 0o020644), b"")]),
    "zip_damaged_bzip2": lambda _n: _damaged_bzip2_zip(),
    "not_an_archive": lambda _n: b"this is just text, not an archive at all" * 10,
    "no_bot_py": lambda _n: tar_bot({"main.py": GOOD_BOT}),
}

#: The UnsafeArchive kind each one must be refused with.
EXPECTED_KIND = {
    "tar_absolute_path": "absolute_path",
    "tar_parent_path": "parent_path",
    "tar_nested_parent_path": "parent_path",
    "tar_symlink": "link",
    "tar_hardlink": "link",
    "tar_char_device": "device",
    "tar_fifo": "device",
    "tar_too_many_files": "too_many_files",
    "tar_bomb": "decompression_bomb",
    "zip_absolute_path": "absolute_path",
    "zip_parent_path": "parent_path",
    "zip_backslash_parent_path": "parent_path",
    "zip_symlink": "link",
    "zip_fifo": "device",
    "zip_too_many_files": "too_many_files",
    "zip_bomb": "decompression_bomb",
    "tar_file_then_folder": "file_and_folder",
    "tar_folder_then_file": "file_and_folder",
    "tar_file_then_folder_entry": "file_and_folder",
    "tar_long_name": "bad_name",
    "tar_long_folder_name": "bad_name",
    "tar_long_path": "bad_name",
    "tar_not_utf8_name": "bad_name",
    "tar_newline_name": "bad_name",
    "zip_escape_name": "bad_name",
    "tar_duplicate": "duplicate",
    "tar_block_device": "device",
    "tar_truncated": "not_an_archive",
    "zip_file_then_folder": "file_and_folder",
    "zip_folder_then_file": "file_and_folder",
    "zip_long_name": "bad_name",
    "zip_long_path": "bad_name",
    "zip_file_then_folder_entry": "file_and_folder",
    "zip_drive_path": "absolute_path",
    "zip_duplicate": "duplicate",
    "zip_char_device": "device",
    "zip_damaged_bzip2": "not_an_archive",
    "not_an_archive": "not_an_archive",
    "no_bot_py": "no_bot_py",
}
