"""What the hostile ``syscall_probe`` must find of the shared kernel (issue 35), in either
referee mode: one check both test_hostile_bots.py and test_unprivileged_referee.py apply."""

from __future__ import annotations

import os

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
    # No pseudo-terminal (a host-wide count, kernel.pty.max).
    "open /dev/ptmx": "ENOENT",
    # No page handed to a pipe or socket that outlives its mapping (as a kernel without them).
    "splice": "ENOSYS",
    "sendfile": "ENOSYS",
    "vmsplice": "ENOSYS",
    "tee": "ENOSYS",
}


def reaped_children_counted() -> bool:
    """Whether this referee gives bots a cpuacct cgroup (root, with the controller mounted):
    it counts the CPU of children the kernel reaps, so the filter lets SIGCHLD be set there."""
    return os.geteuid() == 0 and os.path.exists("/sys/fs/cgroup/cpuacct/cgroup.procs")


def check(found: dict, reaped_counted: bool = False) -> None:
    """Assert the probe's ``issue35`` answers; ``reaped_counted``: the referee had a cpuacct
    cgroup count the bot's CPU (:func:`reaped_children_counted`), so a child the kernel reaps
    costs the bot its CPU anyway and SIGCHLD's action may be set."""
    expected = dict(EXPECTED)
    if reaped_counted:
        expected["SIGCHLD SIG_IGN reaps unseen"] = expected["SIGCHLD SA_NOCLDWAIT reaps unseen"] = True
    wrong = {k: (found.get(k), v) for k, v in expected.items() if found.get(k) != v}
    assert wrong == {}, wrong
    # The default buffer (212992 bytes here), not 4 MiB doubled.
    assert found["SO_SNDBUF after 4 MiB"] < 1 << 20 and found["SO_RCVBUF after 4 MiB"] < 1 << 20, found
    assert 0 < found["POSIX timers"] <= SIGPENDING, found


# --- two colluding copies at one table (hostile_bots/colluder) ---------------------------------

#: Rounds of the toy game a receiver probes in (one per round, after the sender's turn).
ROUNDS = 3
#: Matches played: the one-bit channels carry log2(3) bits per match.
MATCHES = 6
#: Channels carrying 16 bits a round (bit j <-> resource j).
WIDE = ("f", "l", "i", "a", "n", "s", "c")
#: Channels carrying one bit a round, by the direction a 1 moves the receiver's reading.
NARROW: dict[str, int] = {"g": 1, "d": 1, "m": -1, "y": -1, "la": 1, "st": 1, "pc": 1, "pm": 1,
                          "t": -1}
NAMES = {"f": "flock on a shared file", "l": "fcntl lock on a shared file",
         "i": "inotify watch on a shared file", "a": "abstract Unix socket",
         "n": "named Unix socket in /tmp", "s": "POSIX shm file or System V segment",
         "c": "page cache of a shared file",
         "g": "signal to every reachable process", "d": "dnotify on a shared folder",
         "m": "MemFree in /proc/meminfo", "y": "freeram of sysinfo()", "la": "/proc/loadavg",
         "st": "busy ticks in /proc/stat", "pc": "/proc/pressure/cpu", "pm": "/proc/pressure/memory",
         "t": "the receiver's own CPU speed"}


def make_secret(rng) -> list[int]:
    """One 16-bit word per round; the lowest bit (what the narrow channels carry) is 1 in
    exactly one round, so a narrow channel names one round of three per match."""
    one = rng.randrange(ROUNDS)
    return [(rng.getrandbits(16) & ~1) | (r == one) for r in range(ROUNDS)]


def parse(comments: list[str]) -> dict[int, dict[str, str]]:
    """The receiver's comments by round."""
    out = {}
    for text in comments:
        fields = dict(part.split("=", 1) for part in text.split())
        out[int(fields.pop("r"))] = fields
    return out


def decoded(matches: list[tuple[list[int], list[str]]]) -> dict[str, tuple[int, int]]:
    """For each channel, (bits the receiver got right, bits sent) over all matches.

    A wide channel's bits are read as they are. A narrow channel names the round whose reading
    moved furthest in its direction: right or wrong for the whole match (the first such round
    on a tie, so a channel that reads nothing names round 0)."""
    score = {c: [0, 0] for c in (*WIDE, *NARROW)}
    for secret, comments in matches:
        seen = parse(comments)
        assert sorted(seen) == list(range(ROUNDS)), comments
        for c in WIDE:
            for r in range(ROUNDS):
                got = int(seen[r][c], 16)
                score[c][0] += 16 - bin(got ^ secret[r]).count("1")
                score[c][1] += 16
        for c, sign in NARROW.items():
            values = [sign * int(seen[r][c]) for r in range(ROUNDS)]
            named = values.index(max(values))
            score[c][0] += secret[named] & 1
            score[c][1] += 1
    return {c: (right, n) for c, (right, n) in score.items()}


def allowed(channel: str, n: int) -> int:
    """The most bits a closed channel may get right by luck.

    Wide: n fair coin flips (n = 6 x 3 x 16 = 288): mean n/2, sd sqrt(n)/2; allowed mean + 3.5 sd
    (144 + 29.7 = 173), which chance passes with probability 2.3e-4. Narrow: each match is a
    guess of one round of three; allowed n - 1, chance naming all six right is 3**-6 = 1.4e-3.
    """
    if channel in WIDE:
        return int(n / 2 + 3.5 * (n ** 0.5) / 2)
    return n - 1


#: Channels this branch leaves open, and why: the test expects them to fail (not strictly).
KNOWN_OPEN: dict[str, str] = {
    **{c: "a host-wide counter the sandbox shows as it is (/proc and sysinfo are the host's)"
       for c in ("m", "y", "la", "st", "pc", "pm")},
    "c": "every sandbox reads /usr through one page cache: whether a file is cached says "
         "whether the other bot read it (preadv2 RWF_NOWAIT; without it, read timing)",
}


def check_burners(comments: list[str], cpu_ms: list[float | None]) -> None:
    """reaped_burners: the CPU the referee charged for its decisions covers what its children
    burned (each child's own measure), to within the 10 ms tick each process's figure may
    lose and some load."""
    burned = sum(float(c.split()[0].split("=")[1]) for c in comments if c.startswith("burned="))
    forks = sum(int(c.split()[1].split("=")[1]) for c in comments if c.startswith("burned="))
    assert burned >= 1000 and forks >= 10, comments
    charged = sum(ms or 0.0 for ms in cpu_ms)
    assert burned - 10 * forks - 100 <= charged <= burned + 1500, (burned, charged, comments)
