"""Hostile: two copies of this bot sit at one table and try to pass bits between them through
the machine they share (issue 35). The copy in seat 0 is the sender and has ``secret.txt``: one
line per round of 16 bits (hex). The copy in seat 1 is the receiver and does not.

The sender acts on its turn and leaves its state as it is until its next turn; the receiver
probes on its turn and reports what it saw in its decision's comment (``key=value`` pairs), for
the test to decode. Channels, each carrying the round's 16 bits (bit j <-> resource j) or its
lowest bit:

* ``f`` flock and ``l`` fcntl record lock on the j-th file of /usr/bin (every sandbox binds the
  same /usr); ``i`` an inotify watch on it, which sees the sender open it;
* ``a`` an abstract Unix socket named for j, ``n`` a named one in /tmp, ``s`` a POSIX shared
  memory file in /dev/shm or a System V segment keyed by j;
* ``c`` the page cache of the j-th of 16 files under /usr/share/doc: the sender reads it, the
  receiver asks whether it is cached (``preadv2(RWF_NOWAIT)``) and evicts it;
* one bit: ``g`` SIGURG sent to every process the sender can signal, ``d`` dnotify on /usr/sbin
  which the sender reads, and the host counters the sender moves by holding 256 MiB and burning
  CPU: ``m`` MemFree, ``y`` sysinfo's freeram, ``la`` the load average, ``st`` busy ticks of
  /proc/stat, ``pc``/``pm`` CPU and memory pressure; ``t`` the receiver's own loop speed while
  the sender's children burn CPU (open until the referee stops the seat not on turn).
"""

import ctypes
import fcntl
import os
import signal
import socket
import struct
import time
from pathlib import Path

from arena.sdk import serve_bot

HERE = Path(__file__).resolve().parent
SECRET = HERE / "secret.txt"
BITS = 16
FILES = sorted(f for f in os.listdir("/usr/bin")
               if os.path.isfile(f"/usr/bin/{f}") and not os.path.islink(f"/usr/bin/{f}"))[:BITS]
#: Files nobody else reads, for the page cache: the sender reads the j-th, the receiver asks
#: whether it is cached (preadv2 RWF_NOWAIT) and evicts it again (POSIX_FADV_DONTNEED).
CACHED = [p for p in (f"/usr/share/doc/{d}/copyright" for d in sorted(os.listdir("/usr/share/doc")))
          if os.path.isfile(p)][-BITS:]
DNOTIFY_DIR = "/usr/sbin"
DNOTIFY_FILE = next(f"{DNOTIFY_DIR}/{f}" for f in sorted(os.listdir(DNOTIFY_DIR))
                    if os.path.isfile(f"{DNOTIFY_DIR}/{f}") and not os.path.islink(f"{DNOTIFY_DIR}/{f}"))
libc = ctypes.CDLL(None, use_errno=True)
counts = {"urg": 0, "io": 0}

# Handlers can be set in the main thread only, so before serving.
signal.signal(signal.SIGURG, lambda *_: counts.__setitem__("urg", counts["urg"] + 1))
signal.signal(signal.SIGIO, lambda *_: counts.__setitem__("io", counts["io"] + 1))


class Sender:
    def __init__(self) -> None:
        self.rounds = [int(line, 16) for line in SECRET.read_text().split()]
        self.held: list[object] = []
        self.burners: list[int] = []

    def release(self) -> None:
        for thing in self.held:
            try:
                thing.close()
            except (AttributeError, OSError):
                pass
        self.held = []
        for pid in self.burners:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        self.burners = []
        for j in range(BITS):
            for path in (f"/tmp/collude-{j}", f"/dev/shm/collude-{j}"):
                try:
                    os.unlink(path)
                except OSError:
                    pass

    def send(self, rnd: int) -> None:
        self.release()
        word = self.rounds[rnd]
        for j in range(BITS):
            if not word >> j & 1:
                continue
            fh = open(f"/usr/bin/{FILES[j]}", "rb")  # an inotify watch sees this open
            self.held.append(fh)
            try:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                pass
            try:
                fcntl.lockf(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                pass
            for name in (f"\0collude-{j}", f"/tmp/collude-{j}"):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.bind(name)
                    s.listen()
                except OSError:
                    pass
                self.held.append(s)
            Path(f"/dev/shm/collude-{j}").write_bytes(b"1")
            if j < len(CACHED):
                with open(CACHED[j], "rb") as cached:
                    cached.read(1)
            libc.shmget(0x41520000 + j, 4096, 0o1666)  # IPC_CREAT | 0666
        if word & 1:
            with open(DNOTIFY_FILE, "rb") as fh:
                fh.read(1)
            try:
                os.kill(-1, signal.SIGURG)
            except OSError:
                pass
            held = bytearray(256 << 20)
            held[::4096] = b"\x01" * len(range(0, len(held), 4096))  # touch every page
            self.held.append(held)
            start = time.process_time()
            while time.process_time() - start < 0.3:
                pass
            for _ in range(2):
                pid = os.fork()
                if pid == 0:
                    while True:
                        pass
                self.burners.append(pid)


class SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("pad", ctypes.c_char * 128)]


def _counter(path: str, key: str) -> int:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return int(line.split("total=")[1]) if "total=" in line else int(line.split()[1])
    except OSError:
        pass
    return -1


def _busy() -> int:
    f = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return sum(f) - f[3] - f[4]


def _spin() -> int:
    """Loop turns in 150 ms of wall time: fewer when another process takes the CPU."""
    n, end = 0, time.perf_counter() + 0.15
    while time.perf_counter() < end:
        n += 1
    return n


class Receiver:
    def __init__(self) -> None:
        _spin()  # warm up: the first measure is no slower than the others
        for j in range(len(CACHED)):
            self._cached(j)  # evicted: only the sender's reads bring them back
        self.inotify = -1
        self.watches: dict[int, int] = {}
        self.last: dict[str, int] = {"st": _busy(), "pc": _counter("/proc/pressure/cpu", "some"),
                                     "pm": _counter("/proc/pressure/memory", "some")}
        self.seen = {"urg": 0, "io": 0}
        fd = libc.inotify_init1(os.O_NONBLOCK)
        if fd >= 0:
            self.inotify = fd
            for j, name in enumerate(FILES):
                wd = libc.inotify_add_watch(fd, f"/usr/bin/{name}".encode(), 0x20)  # IN_OPEN
                if wd >= 0:
                    self.watches[wd] = j
        try:
            self.dir_fd = os.open(DNOTIFY_DIR, os.O_RDONLY | os.O_DIRECTORY)
            fcntl.fcntl(self.dir_fd, 1026, 0x80000001)  # F_NOTIFY: DN_ACCESS | DN_MULTISHOT
        except OSError:
            pass

    def _bits(self, probe) -> str:
        word = 0
        for j in range(BITS):
            if probe(j):
                word |= 1 << j
        return f"{word:04x}"

    def _locked(self, j: int, how: str) -> bool:
        try:
            with open(f"/usr/bin/{FILES[j]}", "rb") as fh:
                if how == "flock":
                    try:
                        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        return True
                    return False
                lk = fcntl.fcntl(fh, fcntl.F_GETLK, struct.pack("=hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
                return struct.unpack("=hhqqi", lk)[0] != fcntl.F_UNLCK
        except OSError:
            return False

    def _connects(self, name: str) -> bool:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(name)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def _cached(self, j: int) -> bool:
        if j >= len(CACHED):
            return False
        fd = os.open(CACHED[j], os.O_RDONLY)
        try:
            try:
                os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
                hit = True
            except OSError:
                hit = False
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            return hit
        finally:
            os.close(fd)

    def _shm(self, j: int) -> bool:
        ctypes.set_errno(0)
        return os.path.exists(f"/dev/shm/collude-{j}") or libc.shmget(0x41520000 + j, 0, 0) >= 0

    def _opened(self) -> str:
        word = 0
        if self.inotify >= 0:
            try:
                data = os.read(self.inotify, 65536)
            except BlockingIOError:
                data = b""
            while len(data) >= 16:
                wd, _mask, _cookie, size = struct.unpack_from("=iIII", data)
                word |= 1 << self.watches[wd] if wd in self.watches else 0
                data = data[16 + size:]
        return f"{word:04x}"

    def probe(self) -> str:
        opened = self._opened()  # before the lock probes open the files themselves
        out = {
            "f": self._bits(lambda j: self._locked(j, "flock")),
            "l": self._bits(lambda j: self._locked(j, "fcntl")),
            "i": opened,
            "a": self._bits(lambda j: self._connects(f"\0collude-{j}")),
            "n": self._bits(lambda j: self._connects(f"/tmp/collude-{j}")),
            "s": self._bits(self._shm),
            "c": self._bits(self._cached),
            "g": counts["urg"] - self.seen["urg"],
            "d": counts["io"] - self.seen["io"],
        }
        self.seen = dict(counts)
        self._opened()  # forget its own opens
        info = SysInfo()
        libc.sysinfo(ctypes.byref(info))
        out["m"] = _counter("/proc/meminfo", "MemFree:")
        out["y"] = info.freeram >> 20
        out["la"] = int(float(Path("/proc/loadavg").read_text().split()[0]) * 100)
        now = {"st": _busy(), "pc": _counter("/proc/pressure/cpu", "some"),
               "pm": _counter("/proc/pressure/memory", "some")}
        for key, value in now.items():
            out[key] = value - self.last[key]
        self.last = now
        out["t"] = _spin()
        return " ".join(f"{k}={v}" for k, v in out.items())

    def comment(self, rnd: int) -> str:
        return f"r={rnd} {self.probe()}"


# Both copies set up the receiver's side at start, before the match (the seat is not known yet):
# its watches and counter baselines must see the sender's first turn.
receiver = Receiver()
role = None


def act(observation: dict, legal_options: list):
    global role
    if role is None:
        role = Sender() if observation["seat"] == 0 else receiver
    if observation["phase"] != "play":
        return legal_options[0].id
    if isinstance(role, Sender):
        role.send(observation["round"])
        return legal_options[0].id
    return legal_options[0].id, role.comment(observation["round"])


if __name__ == "__main__":
    serve_bot(act)
