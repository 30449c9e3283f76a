"""Fixtures of the referee tests: copies of hostile bots with their settings, and a check after
every test that no sandboxed process and no socket folder outlived its match."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from referee import sandbox
from tests.referee.helpers import HOSTILE, leftover_pids


@pytest.fixture(autouse=True)
def nothing_left_running():
    """After each test: no sandbox process survives, no socket folder is left behind."""
    first = len(sandbox.lease_history)
    before = set(sandbox.socket_dirs_of(os.getpid()))  # another folder's test is not this one's
    yield
    assert leftover_pids(sandbox.lease_history[first:]) == [], "a sandboxed process outlived its match"
    left = sorted(set(sandbox.socket_dirs_of(os.getpid())) - before)
    assert not left, f"socket folders left behind: {left}"


@pytest.fixture
def hostile(tmp_path: Path):
    """Copy a hostile bot into a fresh folder, adding files (its settings) next to bot.py."""

    def make(name: str, **files: str) -> str:
        dest = tmp_path / name
        shutil.copytree(HOSTILE / name, dest)
        for fname, text in files.items():
            (dest / fname).write_text(text)
        return str(dest)

    return make

