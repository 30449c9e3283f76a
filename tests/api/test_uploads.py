"""Upload safety: every unsafe archive kind is refused with its own error, nothing is written
outside the bot's folder, and good archives (tar.gz and zip, flat or in one folder) unpack."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

from arena.intake.uploads import MiB, UnsafeArchive, UploadLimits, extract_bot, read_archive
from tests.api.archives import EXPECTED_KIND, GOOD_BOT, UNSAFE, tar_bot, zip_bot

LIMITS = UploadLimits(max_archive_bytes=1 * MiB, max_unpacked_bytes=2 * MiB, max_file_bytes=2 * MiB, max_files=50)


def _build(kind: str) -> bytes:
    n = 4 * MiB if kind.endswith("bomb") else 60
    return UNSAFE[kind](n)


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("kind", sorted(UNSAFE))
def test_each_unsafe_archive_is_refused_with_its_kind_and_writes_nothing(kind: str, tmp_path: Path) -> None:
    data = _build(kind)
    before = _tree(tmp_path)
    with pytest.raises(UnsafeArchive) as info:
        extract_bot(data, tmp_path / "bots" / "1" / "v1", LIMITS)
    assert info.value.kind == EXPECTED_KIND[kind], str(info.value)
    assert str(info.value)  # a message a person can read
    assert not (tmp_path / "bots" / "1" / "v1").exists()
    leftovers = _tree(tmp_path) - before - {"bots", "bots/1"}
    assert leftovers == set()
    assert not (tmp_path / "evil.py").exists() and not (tmp_path / "bots" / "evil.py").exists()


def test_bomb_is_caught_while_decompressing_not_by_declared_sizes(tmp_path: Path) -> None:
    # A tar.gz whose gzip stream alone inflates past the cap: a small upload, a huge expansion.
    raw = tar_bot({"bot.py": GOOD_BOT, "zeros.bin": b"\0" * (8 * MiB)})
    assert len(raw) < 64 * 1024
    with pytest.raises(UnsafeArchive) as info:
        read_archive(raw, LIMITS)
    assert info.value.kind == "decompression_bomb"
    # Plain gzip junk (not even a tar inside) is caught the same way.
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    gz = comp.compress(b"\0" * (8 * MiB)) + comp.flush()
    with pytest.raises(UnsafeArchive) as info:
        read_archive(gz, LIMITS)
    assert info.value.kind == "decompression_bomb"


def test_archive_over_the_size_cap_is_refused() -> None:
    data = os.urandom(LIMITS.max_archive_bytes + 1)
    with pytest.raises(UnsafeArchive) as info:
        read_archive(data, LIMITS)
    assert info.value.kind == "archive_too_large"


def test_damaged_gzip_is_refused_cleanly() -> None:
    data = tar_bot()[:40]
    with pytest.raises(UnsafeArchive) as info:
        read_archive(data, LIMITS)
    assert info.value.kind == "not_an_archive"


@pytest.mark.parametrize("fmt", ["tar", "zip"])
@pytest.mark.parametrize("top", ["", "mybot"])
def test_good_archive_unpacks_with_bot_py_at_the_top(fmt: str, top: str, tmp_path: Path) -> None:
    files = {"bot.py": GOOD_BOT, "lib/helper.py": b"X = 1\n", "data/table.json": b"{}"}
    data = tar_bot(files, top) if fmt == "tar" else zip_bot(files, top)
    dest = extract_bot(data, tmp_path / "bots" / "7" / "v1", LIMITS)
    assert (dest / "bot.py").read_bytes() == GOOD_BOT
    assert (dest / "lib" / "helper.py").read_text() == "X = 1\n"
    assert _tree(dest) == {"bot.py", "lib", "lib/helper.py", "data", "data/table.json"}
    # Readable by the sandbox's unprivileged uid.
    assert (dest / "bot.py").stat().st_mode & 0o004
    assert dest.stat().st_mode & 0o005 == 0o005


def test_existing_destination_is_never_overwritten(tmp_path: Path) -> None:
    dest = tmp_path / "v1"
    dest.mkdir()
    (dest / "bot.py").write_text("old")
    with pytest.raises(FileExistsError):
        extract_bot(tar_bot(), dest, LIMITS)
    assert (dest / "bot.py").read_text() == "old"
