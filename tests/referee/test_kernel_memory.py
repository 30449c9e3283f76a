"""The ceilings the memory watch charges for what a sandbox holds in the kernel (socket buffers,
pipes, mappings: :mod:`referee.sandbox_watch`) against the real kernel of this host, and the
watch's measure of a live sandbox. The attacks themselves are in test_hostile_bots.py and
test_unprivileged_referee.py (``socket_buffers``, ``pipe_hoarder``, ``map_spray``)."""

from __future__ import annotations

import fcntl
import os
import socket
import struct
import time
from pathlib import Path

import pytest

from referee.sandbox import BotProcess, SandboxLimits
from referee.sandbox_view import SandboxView
from referee.sandbox_watch import (
    NEW_NETNS_DGRAM_QLEN,
    SKB_SLACK,
    Hidden,
    ceilings,
    deep_look,
)
from tests.referee.helpers import RANDOM_BOT, needs_bwrap

SIOCOUTQ = 0x5411  # a Unix socket's send-side charge: the truesize of every skb it sent, unread
WMEM_MAX = int(Path("/proc/sys/net/core/wmem_max").read_text())


def _outq(sock: socket.socket) -> int:
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, b"\0" * 4))[0]


def _fill(sock: socket.socket, chunk: int) -> None:
    sock.setblocking(False)
    try:
        while True:
            sock.send(b"\1" * chunk)
    except BlockingIOError:
        pass


@pytest.mark.parametrize("chunk", [1, 4096, 65536, 1 << 20])
def test_a_stream_socket_never_holds_more_than_its_ceiling(chunk: int) -> None:
    """At the largest send buffer a bot can set, with sends of every size (one byte each makes
    the most skbs, whose overhead counts), the kernel's charge stays under the ceiling, and
    the ceiling is not loose by more than one skb and the buffer's rounding."""
    a, b = socket.socketpair()
    try:
        if not ceilings().buffers_fixed:  # what a bot can do: not once the filter fixes sizes
            a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WMEM_MAX)
        _fill(a, chunk)
        held, ceiling = _outq(a), ceilings().stream_socket
        assert held <= ceiling, (held, ceiling)
        assert held >= ceiling - 2 * SKB_SLACK, (held, ceiling)  # and not loose
    finally:
        a.close()
        b.close()


def test_a_datagram_socket_holds_the_datagrams_of_closed_senders_within_its_ceiling() -> None:
    """Senders that send one large datagram each and close leave it queued, unseen by any live
    socket's charge: at most max_dgram_qlen + 1 of them, which the ceiling covers."""
    name = f"\0arena-dgram-test-{os.getpid()}"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(name)
    size, queued, held = min(1 << 20, ceilings().sndbuf // 2), 0, 0
    try:
        for _ in range(3 * NEW_NETNS_DGRAM_QLEN):
            sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            if not ceilings().buffers_fixed:
                sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WMEM_MAX)
            sender.setblocking(False)
            try:
                sender.sendto(b"\1" * size, name)
                queued += 1
                held += _outq(sender)
            except BlockingIOError:
                pass  # the receiver's queue is full
            sender.close()
        qlen = int(Path("/proc/sys/net/unix/max_dgram_qlen").read_text())
        assert queued == qlen + 1
        assert held <= ceilings().dgram_socket, (held, ceilings().dgram_socket)
    finally:
        receiver.close()


def test_a_pipe_never_grows_past_its_ceiling() -> None:
    r, w = os.pipe()
    try:
        most = int(Path("/proc/sys/fs/pipe-max-size").read_text())
        try:
            if not ceilings().pipes_fixed:  # denied to a bot once the filter fixes pipe sizes
                fcntl.fcntl(w, 1031, most)  # F_SETPIPE_SZ, as far as a bot may
        except OSError:
            pass  # over this user's soft limit: it stays at 16 pages
        assert fcntl.fcntl(w, 1032) <= ceilings().pipe  # F_GETPIPE_SZ
    finally:
        os.close(r)
        os.close(w)


@needs_bwrap
def test_the_watch_measures_a_live_sandbox_part_by_part() -> None:
    """A random bot: its sockets, its output pipe and its few hundred mappings are counted, and
    memory_mb is the same measure. With a mapping cap below what Python needs, a deep look
    refuses to count on and names the cap."""
    bot = BotProcess(RANDOM_BOT, True, SandboxLimits())
    try:
        deadline = time.monotonic() + 20
        while bot.dial_address() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        held = bot.held()
        assert held is not None
        assert held.pipe_count >= 1 and held.pipes >= held.pipe_count * 16 * 4096
        assert 100 < held.mapping_count < bot.limits.mappings
        assert held.socket_count >= 1 and held.sockets >= ceilings().stream_socket
        memory = bot.memory_mb()
        assert memory is not None and abs(memory - held.total / (1 << 20)) < 8
        with bot._lock:
            view = bot.view
            assert view is not None
            procs = view.processes()
            with pytest.raises(Hidden, match="over the limit of 50"):
                deep_look(view, procs, SandboxLimits(mappings=50))
    finally:
        bot.stop()


def test_sockets_are_told_apart_by_type(tmp_path: Path) -> None:
    """A datagram socket is charged more than a stream one: the view reads the type column of
    the namespace's /proc/net/unix (here a tree standing in for a sandbox's root)."""
    net = tmp_path / "proc" / "1" / "net"
    net.mkdir(parents=True)
    header = "Num       RefCount Protocol Flags    Type St Inode Path\n"
    rows = ["0000000000000000: 00000002 00000000 00010000 0001 01 11 /arena/sock/bot.sock",
            "0000000000000000: 00000003 00000000 00000000 0001 03 12",
            "0000000000000000: 00000002 00000000 00000000 0002 01 13 @x",
            "0000000000000000: 00000002 00000000 00000000 0005 01 14"]
    (net / "unix").write_text(header + "\n".join(rows) + "\n")
    view = SandboxView(os.open(tmp_path, os.O_PATH | os.O_DIRECTORY))
    try:
        assert view.unix_socket_kinds() == (3, 1)
        assert view.unix_sockets() == 4
    finally:
        view.close()
