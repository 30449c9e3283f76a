"""The referee's window into a sandbox never follows a link: a tree made in the test stands in
for a sandbox's root, with links where a hostile bot would put them. (Under Landlock a bot
cannot even make such links in its socket folder: test_hostile_bots.py.)"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from referee.sandbox_view import NotASocket, SandboxView


@pytest.fixture
def host_socket(tmp_path: Path):
    path = tmp_path / "host-service.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen()
    listener.setblocking(False)
    yield path, listener
    listener.close()


def _view(root: Path) -> SandboxView:
    return SandboxView(os.open(root, os.O_PATH | os.O_DIRECTORY))


def test_a_socket_that_is_a_link_is_refused(tmp_path: Path, host_socket) -> None:
    target, listener = host_socket
    root = tmp_path / "root"
    (root / "arena" / "sock").mkdir(parents=True)
    (root / "arena" / "sock" / "bot.sock").symlink_to(target)
    view = _view(root)
    with pytest.raises(NotASocket, match="symbolic link"):
        view.socket_address()
    view.close()
    with pytest.raises(BlockingIOError):
        listener.accept()


@pytest.mark.parametrize("linked", ["arena", "arena/sock"])
def test_a_folder_on_the_way_that_is_a_link_is_refused(tmp_path: Path, host_socket, linked: str) -> None:
    target, _ = host_socket
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "sock").mkdir(parents=True)
    os.symlink(target, elsewhere / "sock" / "bot.sock")
    root = tmp_path / "root"
    (root / linked).parent.mkdir(parents=True, exist_ok=True)
    (root / linked).symlink_to(elsewhere if linked == "arena" else elsewhere / "sock")
    view = _view(root)
    with pytest.raises(NotASocket, match="not a folder of the sandbox"):
        view.socket_address()
    view.close()


def test_a_real_socket_is_dialled_through_its_own_inode(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "arena" / "sock").mkdir(parents=True)
    path = root / "arena" / "sock" / "bot.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    view = _view(root)
    assert view.socket_address() is not None
    address = view.socket_address()
    path.unlink()  # the bot removes it and puts a link there: the held inode is still dialled
    path.symlink_to(tmp_path / "nowhere.sock")
    client = socket.socket(socket.AF_UNIX)
    client.connect(address.removeprefix("unix:"))
    conn, _ = server.accept()
    conn.close()
    client.close()
    server.close()
    view.close()


def test_no_socket_yet_means_wait(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    view = _view(root)
    assert view.socket_address() is None
    (root / "arena" / "sock").mkdir(parents=True)
    assert view.socket_address() is None
    view.close()
