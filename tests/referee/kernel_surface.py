"""What the hostile ``syscall_probe`` must find of the shared kernel (issue 35), in either
referee mode: one check both test_hostile_bots.py and test_unprivileged_referee.py apply."""

from __future__ import annotations

from referee.sandbox import SIGPENDING

#: The answers the sandbox must give, by probe key.
EXPECTED: dict[str, object] = {
    # SIGCHLD's action cannot be set, so a child the bot does not wait for stays a zombie whose
    # CPU the referee still sees (and its parent's cutime gets once it waits).
    "SIGCHLD SIG_IGN reaps unseen": False,
    "SIGCHLD SA_NOCLDWAIT reaps unseen": False,
    # Raising a socket's buffers does nothing (and answers success).
    "SO_SNDBUFFORCE": "OK",
    "SO_RCVBUFFORCE": "OK",
    # A pipe keeps its default size.
    "F_SETPIPE_SZ": "EPERM",
    "pipe size": 65536,
    # No lock, lease or directory notification on a file every sandbox shares.
    "flock": "ENOLCK",
    "F_SETLK": "ENOLCK",
    "F_GETLK": "ENOLCK",
    "F_OFD_SETLK": "ENOLCK",
    "F_GETLEASE": "ENOLCK",
    "F_NOTIFY": "EINVAL",
    # /proc is read-only (its own autogroup's weight is no knob of a bot's); what a bot still
    # needs to write works: a pipe by /proc/self/fd (/dev/stdout), /dev/null.
    "open /proc/self/fd/N of a pipe for writing": "OK",
    "write /dev/null": "OK",
    "write /proc/self/autogroup": "EROFS",
}


def check(found: dict) -> None:
    """Assert the probe's ``issue35`` answers."""
    wrong = {k: (found.get(k), v) for k, v in EXPECTED.items() if found.get(k) != v}
    assert wrong == {}, wrong
    # The default buffer (212992 bytes here), not 4 MiB doubled.
    assert found["SO_SNDBUF after 4 MiB"] < 1 << 20 and found["SO_RCVBUF after 4 MiB"] < 1 << 20, found
    assert 0 < found["POSIX timers"] <= SIGPENDING, found
