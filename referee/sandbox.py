"""Run a hosted bot's ``bot.py`` inside bubblewrap, with resource limits, and kill it for sure.

Why it is built this way:

* bubblewrap gives a fresh mount, pid, network, IPC and UTS namespace. The bot sees only what
  Python needs (``/usr``, the Python installation and its site-packages, the project packages
  ``arena`` and ``referee``), its own code read-only, and three size-capped tmpfs of its own:
  ``/tmp``, ``/dev/shm`` and ``/arena/sock`` for its gRPC Unix socket; everything else is
  read-only. No network namespace is shared, so even 127.0.0.1 is a different, empty loopback.
  The referee reaches the socket without following any link the bot made
  (:mod:`referee.sandbox_view`).
* Kernel surface: no capabilities (bounding set included), ``no_new_privs``, no nested user
  namespace, and the seccomp filter of :mod:`referee.seccomp`.
* Limits come from ``setrlimit`` (via ``prlimit``). Root ignores ``RLIMIT_NPROC`` and the limit
  counts per real uid, so when the referee runs as root every running bot gets an unprivileged
  uid of its own (:func:`lease_uid`); bwrap runs as root (it must read the Python install under
  ``/root``) and ``setpriv`` drops to that uid inside, clearing every capability. As root, cgroup-v1
  groups (:class:`SandboxCgroups`) add one memory and pids limit for the whole sandbox — rlimits
  are per process, and a bot that forks would multiply them — and exact CPU accounting. Without
  root, the sandbox's own user namespace makes ``RLIMIT_NPROC`` count its processes alone, and
  :class:`~referee.sandbox_watch.MemoryWatch` bounds the memory of all of them together.
* ``--unshare-pid`` makes the bot's processes live in a pid namespace whose init is bwrap;
  ``--die-with-parent`` plus SIGKILL on the outer bwrap take the whole namespace down, so a
  fork bomb or a forgotten child never outlives the sandbox.
* The bot's output is merged into one pipe and drained by a thread into a bounded tail, so a
  bot that prints without end never blocks itself or the referee; passing the output quota
  kills it.
"""

from __future__ import annotations

import collections
import fcntl
import functools
import glob
import os
import pwd
import secrets
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from referee import seccomp, shortcuts
from referee.manifest import ManifestError, launch_command
from referee.sandbox_view import NotASocket, ProcInfo, SandboxView, cpu_ticks_of
from referee.sandbox_watch import (
    MEMORY_WATCH,
    Held,
    Hidden,
    cgroup_charges_kernel_memory,
    deep_look,
    measure,
)

#: The folder holding ``arena`` and ``referee``: bound read-only so the SDK (and engine code a
#: heuristic bot may import) is importable inside the sandbox.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = ("arena", "referee")
#: The contract's .proto files, bound read-only at the same path and named by ``ARENA_PROTOS``:
#: bots in other languages load them at start (starter_kits/node does). An installed (not
#: editable) package has no protos/ beside it: then ``ARENA_PROTOS`` says where they are.
PROTOS_DIR = Path(os.environ.get("ARENA_PROTOS") or PROJECT_ROOT / "protos").resolve()

#: Paths inside the sandbox.
BOT_DIR_INSIDE = "/arena/bot"
SOCKET_DIR_INSIDE = "/arena/sock"
SOCKET_NAME = "bot.sock"

UID_RANGE_ENV = "ARENA_SANDBOX_UIDS"
DEFAULT_UID_RANGE = (61000, 61999)
UID_LOCK_DIR = Path(tempfile.gettempdir()) / "arena-sandbox-uids"


#: How long a freeze may take to settle (every process of the sandbox stopped) before the
#: referee gives up on it and kills the sandbox instead (:meth:`BotProcess.freeze`).
FREEZE_SETTLE_S = 2.0
#: Stopped, or no longer able to run: what a freeze waits for (``t`` is a tracing stop).
_STOPPED_STATES = (b"T", b"t", b"Z", b"X")


class SandboxError(RuntimeError):
    """The sandbox could not be set up (no bwrap, no free uid, cannot launch)."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one hosted bot. Defaults suit a Python bot with a search budget."""

    address_space_mb: int = 2048  # per process (RLIMIT_AS)
    memory_mb: int = 2048  # the whole sandbox, when a memory cgroup is available
    cpu_seconds: int = 3600  # a backstop: fairness comes from the wall-clock time control
    processes: int = 64  # threads count too: gRPC's server uses about a dozen
    open_files: int = 256
    file_size_mb: int = 64
    tmp_mb: int = 256  # size of the private /tmp
    shm_mb: int = 64  # size of the private /dev/shm
    files: int = 4096  # entries in /tmp, /dev/shm and the socket folder together (kernel memory)
    sockets: int = 256  # Unix sockets of the sandbox together (their buffers count as memory too)
    mappings: int = 32768  # memory mappings of all its processes together (kernel memory)
    output_bytes: int = 1 << 20  # total stdout+stderr over the match before the bot is killed
    tail_bytes: int = 8192  # how much of the output is kept for the crash log


def bwrap_path() -> str | None:
    """Where bubblewrap is installed, or None."""
    return shutil.which("bwrap")


def require_bwrap() -> str:
    path = bwrap_path()
    if path is None:
        raise SandboxError(
            "bubblewrap (bwrap) is not installed, so hosted bots cannot be sandboxed. "
            "Install it (Debian/Ubuntu: apt-get install bubblewrap), use remote bots (host:port), "
            "or pass --unsafe-no-sandbox to run hosted bots with no isolation at all."
        )
    return path


# --- uids -----------------------------------------------------------------------------------


def _uid_range() -> tuple[int, int]:
    text = os.environ.get(UID_RANGE_ENV)
    if not text:
        return DEFAULT_UID_RANGE
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


#: Every uid this process has leased, in order: lets tests check exactly their own sandboxes.
lease_history: list[int] = []


def uid_is_leased(uid: int) -> bool:
    """Whether some referee (this process included) holds ``uid`` right now."""
    try:
        fd = os.open(UID_LOCK_DIR / f"{uid}.lock", os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _uid_has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


class UidLease:
    """One uid reserved for one running bot; the reservation is an ``flock`` on a file, so it
    works across referee processes (parallel workers) and vanishes if the holder dies."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def lease_uid() -> UidLease:
    """Reserve a free sandbox uid. Starts at a pid-dependent slot so parallel referees rarely
    contend for the same lock files."""
    lo, hi = _uid_range()
    UID_LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
    st = UID_LOCK_DIR.lstat()
    if not UID_LOCK_DIR.is_dir() or UID_LOCK_DIR.is_symlink() or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        # Someone else made it: they could hold every lock or swap files under us.
        raise SandboxError(f"{UID_LOCK_DIR} is not a private folder of this user; remove it")
    count = hi - lo + 1
    start = (os.getpid() * 7) % count
    for i in range(count):
        uid = lo + (start + i) % count
        if _uid_has_account(uid):
            continue  # a real user's uid: never run a bot as (or kill the processes of) it
        fd = os.open(UID_LOCK_DIR / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        kill_uid(uid)  # a crashed earlier holder may have left something behind
        lease_history.append(uid)
        return UidLease(uid, fd)
    raise SandboxError(f"no free sandbox uid in {lo}-{hi}; too many bots running at once")


def pids_of_uids(lo: int, hi: int) -> list[int]:
    """Every live (not zombie) process whose real uid is in ``lo..hi`` (scans /proc once)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if not lo <= entry.stat().st_uid <= hi:
                continue
            with open(f"/proc/{entry.name}/status", "rb") as fh:
                status = fh.read()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        real_uid = state = None
        for line in status.splitlines():
            if line.startswith(b"State:"):
                state = line.split()[1]
            elif line.startswith(b"Uid:"):
                real_uid = int(line.split()[1])
                break
        if real_uid is not None and lo <= real_uid <= hi and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


def pids_of_uid(uid: int) -> list[int]:
    return pids_of_uids(uid, uid)


def kill_uid(uid: int) -> None:
    """SIGKILL every process of a sandbox uid: the last line of defence after the pid namespace."""
    for pid in pids_of_uid(uid):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# --- the command line -------------------------------------------------------------------------


def _python_roots() -> list[Path]:
    """The directories Python needs: its installation, the site-packages in use."""
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    for p in site.getsitepackages():
        roots.add(Path(p).resolve())
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        roots.add(Path(site.getusersitepackages()).resolve())
    roots.add(Path(sys.executable).resolve().parent)
    # Keep only the outermost of nested roots.
    ordered = sorted(roots, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for p in ordered:
        if p.exists() and not any(p == k or k in p.parents for k in kept):
            kept.append(p)
    return kept


def _ensure_parents(args: list[str], made: set[str], dest: Path) -> None:
    """bwrap makes missing parents 0700, which an unprivileged uid cannot cross: make them 0755."""
    for parent in reversed(dest.parents):
        s = str(parent)
        if s == "/" or s in made:
            continue
        made.add(s)
        args += ["--perms", "0755", "--dir", s]


@functools.lru_cache(maxsize=1)
def _mount_points_in_tmp() -> frozenset[str]:
    """The entries of the private /tmp that :func:`sandbox_command` makes itself: the top folder
    of each bind whose destination lies under /tmp (a clone or venv there, as on CI)."""
    binds = [r for r in _python_roots() if not str(r).startswith("/usr/")]
    binds += [PROJECT_ROOT / pkg for pkg in PROJECT_PACKAGES] + [PROTOS_DIR]
    tmp = Path("/tmp")
    return frozenset(f"/tmp/{b.relative_to(tmp).parts[0]}" for b in binds if tmp in b.parents)


def _ro_bind(args: list[str], made: set[str], src: Path, dest: Path | None = None) -> None:
    dest = dest or src
    _ensure_parents(args, made, dest)
    made.add(str(dest))
    args += ["--ro-bind", str(src), str(dest)]


#: Size of the tmpfs holding the bot's socket: a socket takes no data pages, so this only caps
#: what a bot could put beside it before it is locked.
SOCKET_TMPFS_BYTES = 1 << 20


def sandbox_command(
    bwrap: str, bot_dir: Path, uid: int | None, limits: SandboxLimits, seccomp_fd: int
) -> list[str]:
    """The full command line: bwrap [mounts] setpriv [uid] prlimit [limits] python bot.py.

    Every place the bot can write is a size-capped tmpfs of the sandbox (``/tmp``, ``/dev/shm``,
    ``/arena/sock``); the root and ``/dev`` that bwrap builds are remounted read-only last. As
    root, bwrap keeps only what ``setpriv`` needs to switch to the bot's uid, and ``setpriv``
    empties every capability set, the bounding set included. As any other user, bwrap makes a
    user namespace whose processes may not make another (``--disable-userns``) and have no
    capabilities; ``RLIMIT_NPROC`` then counts the processes of that namespace only. In both
    modes the seccomp filter of :mod:`referee.seccomp` applies from ``setpriv`` on.
    """
    args = [bwrap]
    made: set[str] = set()
    _ro_bind(args, made, Path("/usr"))
    for link in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / link
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            _ro_bind(args, made, p)
    if Path("/etc/ld.so.cache").exists():
        _ro_bind(args, made, Path("/etc/ld.so.cache"))
    # A private /tmp the bot's uid may write, capped (tmpfs lives in memory). It is mounted
    # before the binds below: the project or its venv may itself live under /tmp, and a tmpfs
    # mounted later would hide them.
    args += ["--perms", "1777", "--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    made.add("/tmp")
    for root in _python_roots():
        if not str(root).startswith("/usr/"):
            _ro_bind(args, made, root)
    for pkg in PROJECT_PACKAGES:
        _ro_bind(args, made, PROJECT_ROOT / pkg)
    if PROTOS_DIR.is_dir():
        _ro_bind(args, made, PROTOS_DIR)
    _ro_bind(args, made, bot_dir, Path(BOT_DIR_INSIDE))
    _ensure_parents(args, made, Path(SOCKET_DIR_INSIDE))
    # Root owns the socket tmpfs and the bot's uid may only add its socket (locked to 0711 once
    # ready); without root the bot's uid is the folder's owner, the size cap is what holds.
    sock_perms = "0733" if uid is not None else "0700"
    args += [
        "--perms", sock_perms, "--size", str(SOCKET_TMPFS_BYTES), "--tmpfs", SOCKET_DIR_INSIDE,
        "--dev", "/dev",
        # No pseudo-terminals: each one a bot opens counts against the host's kernel.pty.max
        # (4096, of which every devpts but the host's own may use 3072), so a bot could leave
        # none for anyone else. An empty read-only folder over /dev/pts takes /dev/ptmx away.
        "--size", "4096", "--perms", "0755", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts",
        "--perms", "1777", "--size", str(limits.shm_mb << 20), "--tmpfs", "/dev/shm",
        "--proc", "/proc",
        # Read-only: a bot's own /proc files are kernel knobs (/proc/self/autogroup would let
        # it lower its group's CPU weight and look starved). /proc/self/fd/N still opens a pipe
        # for writing: the mount checked is the pipe's.
        "--remount-ro", "/proc",
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session",
        "--hostname", "sandbox",
        "--chdir", BOT_DIR_INSIDE,
        "--seccomp", str(seccomp_fd),
    ]
    if uid is not None:
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--cap-add", "CAP_SETPCAP"]
        args += [
            "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        ]
    else:
        args += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    args += prlimit_args(limits, with_nproc=True)
    # sys.executable as it is, not resolved: in a virtual environment the path of the link is
    # how Python finds the venv (pyvenv.cfg) and so its site-packages.
    # referee.bot_launch shuts the socket folder (Landlock) before the bot's first line runs,
    # then runs bot.py, or execs the program a bot.json manifest names (referee.manifest).
    args += launch_command(bot_dir, BOT_DIR_INSIDE, f"unix:{SOCKET_DIR_INSIDE}/{SOCKET_NAME}",
                           launcher=True)
    return args


#: Queued signals and POSIX timers (each preallocates one) a bot's user may hold. The kernel
#: counts them per user and, from a user namespace, at every level up to the referee's own user
#: (whose count its own timers and queued signals need): this caps what one sandbox can take of
#: it. Python, grpc and Node queue none.
SIGPENDING = 128


def prlimit_args(limits: SandboxLimits, with_nproc: bool) -> list[str]:
    mb = 1 << 20
    args = [
        "prlimit",
        f"--as={limits.address_space_mb * mb}",
        f"--cpu={limits.cpu_seconds}",
        f"--nofile={limits.open_files}",
        f"--fsize={limits.file_size_mb * mb}",
        "--core=0",
        f"--sigpending={SIGPENDING}",
    ]
    if with_nproc:
        args.append(f"--nproc={limits.processes}")
    return args + ["--"]


def bot_environment(address: str) -> dict[str, str]:
    """A clean environment: nothing of the referee's (tokens, database URLs) leaks in, except
    ``ARENA_SHORTCUTS`` (docs/shortcuts.md): turned off, the hosted bot's SDK takes the public
    path too, so ``off`` means off everywhere."""
    path = [str(PROJECT_ROOT)]
    user_site = site.getusersitepackages()
    if site.ENABLE_USER_SITE and os.path.isdir(user_site):
        path.append(user_site)  # HOME differs inside, so Python would not find it by itself
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONPATH": os.pathsep.join(path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "MALLOC_ARENA_MAX": "2",  # glibc reserves 64 MiB of address space per arena otherwise
        "GRPC_ENABLE_FORK_SUPPORT": "0",
        "ARENA_BOT_ADDRESS": address,
        "ARENA_PROTOS": str(PROTOS_DIR),
        **({shortcuts.ENV: setting} if (setting := os.environ.get(shortcuts.ENV)) else {}),
    }


# --- the running process -----------------------------------------------------------------------


class OutputTail:
    """Drains a pipe on a thread, keeping only the last ``tail_bytes``; calls ``on_flood`` once
    when the total passes ``limit``. Never blocks the writer for long: it reads as fast as the
    bot writes and throws the middle away."""

    def __init__(self, pipe, limit: int, tail_bytes: int, on_flood: Callable[[], None]) -> None:
        self.total = 0
        self.flooded = False
        self._limit = limit
        self._tail: collections.deque[bytes] = collections.deque()
        self._tail_len = 0
        self._tail_bytes = tail_bytes
        self._on_flood = on_flood
        self._lock = threading.Lock()
        self._fd = pipe.fileno()
        self._pipe = pipe
        self._thread = threading.Thread(target=self._drain, name="bot-output", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            with self._lock:
                self.total += len(chunk)
                self._tail.append(chunk)
                self._tail_len += len(chunk)
                while self._tail_len - len(self._tail[0]) >= self._tail_bytes:
                    self._tail_len -= len(self._tail.popleft())
            if not self.flooded and self.total > self._limit:
                self.flooded = True
                self._on_flood()
        self._pipe.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def start_new_match(self) -> None:
        """A pooled bot starts another match: the quota and the crash log are per match, so
        neither an earlier match's output nor its volume counts against this one."""
        with self._lock:
            self.total = 0
            self._tail.clear()
            self._tail_len = 0

    def text(self) -> str:
        with self._lock:
            data = b"".join(self._tail)[-self._tail_bytes:]
        return data.decode("utf-8", "replace")


SOCKET_DIR_PREFIX = "arena-bot-"


def socket_dirs_of(pid: int) -> list[str]:
    """The socket folders a referee process has open (their names carry its pid)."""
    pattern = os.path.join(tempfile.gettempdir(), f"{SOCKET_DIR_PREFIX}{pid}-*")
    return glob.glob(pattern)


def remove_stale_socket_dirs() -> None:
    """Delete the socket folders of referees that died without cleaning up (SIGKILL)."""
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{SOCKET_DIR_PREFIX}*-*")):
        owner = os.path.basename(path)[len(SOCKET_DIR_PREFIX):].partition("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            shutil.rmtree(path, ignore_errors=True)


class SandboxCgroups:
    """cgroup-v1 groups for one bot, one per controller that can be used here:

    * ``cpuacct``: nanosecond CPU accounting of every process in the sandbox (threads, children,
      grandchildren), where /proc only offers the main process in 10 ms ticks;
    * ``memory``: one memory limit for the whole sandbox — RLIMIT_AS limits each process, but a
      bot that forks could otherwise multiply it; tmpfs pages written to /tmp count too;
    * ``pids``: a process limit that holds whatever the uid;
    * ``freezer``: stops every process of the sandbox at once while the bot is not on turn
      (:meth:`BotProcess.freeze`): none can escape by forking, and none can wake another.

    Only root may create them; without them :class:`BotProcess` keeps the rlimits and reads CPU
    time from /proc. Each group is named ``<referee pid>-<token>`` so that groups left by a
    referee killed with SIGKILL can be recognised and removed later.
    """

    BASE = Path("/sys/fs/cgroup")

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths
        self._cpu_fd: int | None = None
        if "cpuacct" in paths:
            self._cpu_fd = os.open(paths["cpuacct"] / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)
        self._freezer_fd: int | None = None
        if "freezer" in paths:
            self._freezer_fd = os.open(paths["freezer"] / "freezer.state", os.O_RDWR | os.O_CLOEXEC)

    @classmethod
    def create(cls, name: str, limits: SandboxLimits) -> SandboxCgroups | None:
        if os.geteuid() != 0:
            return None
        settings = {
            "cpuacct": {},
            "memory": {
                "memory.limit_in_bytes": limits.memory_mb << 20,
                "memory.memsw.limit_in_bytes": limits.memory_mb << 20,  # no escape into swap
            },
            "pids": {"pids.max": limits.processes},
            "freezer": {},
        }
        paths: dict[str, Path] = {}
        for controller, files in settings.items():
            root = cls.BASE / controller
            if not (root / "cgroup.procs").exists():
                continue
            path = root / "arena" / name
            try:
                path.mkdir(parents=True)
            except OSError:
                continue
            if controller == "freezer" and not _thaw_guard_running(path.parent):
                path.rmdir()  # no guard: freezing falls back to stopping each process
                continue
            paths[controller] = path
            for fname, value in files.items():
                try:
                    (path / fname).write_text(str(value))
                except OSError:
                    pass  # e.g. no swap accounting: the memory limit alone still holds
            _remove_stale_groups(path.parent)
        return cls(paths) if paths else None

    def wrap(self, cmd: list[str]) -> list[str]:
        """Prefix ``cmd`` so that it joins every group before it starts (children inherit)."""
        procs = [str(p / "cgroup.procs") for p in self.paths.values()]
        script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"'
        return ["/bin/sh", "-c", script, "sh", str(len(procs)), *procs, *cmd]

    def cpu_ms(self) -> float | None:
        if self._cpu_fd is None:
            return None
        return int(os.pread(self._cpu_fd, 64, 0)) / 1e6

    @property
    def can_freeze(self) -> bool:
        return self._freezer_fd is not None

    def set_frozen(self, frozen: bool, settle_s: float | None = None) -> bool:
        """Freeze (or thaw) every process of the group; a freeze waits until the kernel reports
        the group ``FROZEN`` (it passes through ``FREEZING`` while a task is still on its way,
        e.g. in a system call), asking again now and then. False if it did not settle within
        ``settle_s``."""
        fd = self._freezer_fd
        if fd is None:
            return False
        os.pwrite(fd, b"FROZEN" if frozen else b"THAWED", 0)
        if not frozen:
            return True
        deadline = time.perf_counter() + (FREEZE_SETTLE_S if settle_s is None else settle_s)
        pause = 0.0
        while os.pread(fd, 32, 0).strip() != b"FROZEN":
            if time.perf_counter() > deadline:
                return False
            time.sleep(pause)
            pause = min(0.002, pause + 0.0002)
            os.pwrite(fd, b"FROZEN", 0)  # a task that was busy may be caught this time
        return True

    def oom_kills(self) -> int:
        """How many processes of the sandbox the kernel's out-of-memory killer has ended (the
        memory group's ``oom_kill`` count; 0 without a memory group)."""
        path = self.paths.get("memory")
        try:
            text = (path / "memory.oom_control").read_text() if path else ""
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def kernel_peak_mb(self) -> float | None:
        """The most kernel memory (socket buffers, pipes, mappings, page tables …) the memory
        group was charged at once, where this kernel charges it (``memory.kmem``)."""
        path = self.paths.get("memory")
        try:
            return int((path / "memory.kmem.max_usage_in_bytes").read_text()) / (1 << 20) if path else None
        except (OSError, ValueError):
            return None

    def memory_peak_mb(self) -> float | None:
        path = self.paths.get("memory")
        try:
            return int((path / "memory.max_usage_in_bytes").read_text()) / (1 << 20) if path else None
        except OSError:
            return None

    def remove(self) -> None:
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None
        if self._freezer_fd is not None:
            try:
                self.set_frozen(False)  # a frozen task never finishes dying: the group stays
            except OSError:
                pass
            os.close(self._freezer_fd)
            self._freezer_fd = None
        for path in self.paths.values():
            for _ in range(100):  # a group empties once its last killed process is reaped
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def _remove_stale_groups(parent: Path) -> None:
    """Remove the (empty) groups of referees that died without cleaning up; a frozen one is
    thawed first (its processes were killed with their referee, but cannot die frozen)."""
    for entry in os.scandir(parent):
        owner = entry.name.partition("-")[0]
        if entry.is_dir() and owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            try:
                with open(os.path.join(entry.path, "freezer.state"), "w") as fh:
                    fh.write("THAWED")
            except OSError:
                pass
            try:
                os.rmdir(entry.path)
            except OSError:
                pass


#: Run by the thaw guard (:func:`_thaw_guard_running`): waits for the referee to end, however it
#: ends, then thaws every freezer group it left.
_THAW_GUARD = """
import os, select, sys
pid, parent = int(sys.argv[1]), sys.argv[2]
try:
    fd = os.pidfd_open(pid)
except OSError:
    fd = None
if fd is not None:
    select.select([fd], [], [])
prefix = f"{pid}-"
for name in os.listdir(parent):
    if name.startswith(prefix):
        try:
            with open(os.path.join(parent, name, "freezer.state"), "w") as fh:
                fh.write("THAWED")
        except OSError:
            pass
"""
_thaw_guards: dict[int, subprocess.Popen] = {}
_thaw_guard_lock = threading.Lock()


def _thaw_guard_running(parent: Path) -> bool:
    """Start (once per referee process) the guard that thaws this referee's freezer groups when
    it dies. Why: a task frozen by a cgroup-v1 freezer does not die of SIGKILL until thawed, so
    a referee killed while a bot is frozen would leave that sandbox stopped forever, although
    ``--die-with-parent`` killed it. The guard is a small process in a session of its own (a
    signal to the referee's process group misses it) blocked on a pidfd of the referee; it
    ends with the referee. False if it cannot be started: then no freezer group is used."""
    pid = os.getpid()
    with _thaw_guard_lock:
        guard = _thaw_guards.get(pid)
        if guard is not None and guard.poll() is None:
            return True
        try:
            _thaw_guards[pid] = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _THAW_GUARD, str(pid), str(parent)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, close_fds=True)
        except OSError:
            return False
        return True


class BotProcess:
    """A hosted bot's process (sandboxed or not) and everything to clean up after it.

    A sandboxed bot has no folder on the host: the referee reaches its socket, files and
    processes through a :class:`~referee.sandbox_view.SandboxView` once the sandbox is up
    (:meth:`dial_address`). Only an unsandboxed bot (trusted code) gets a host socket folder.
    """

    def __init__(self, bot_dir: Path, sandbox: bool, limits: SandboxLimits | None = None) -> None:
        self.bot_dir = Path(bot_dir).resolve()
        self.limits = limits or SandboxLimits()
        self.sandboxed = sandbox
        self.uid: int | None = None
        self.view: SandboxView | None = None
        self.memory_kill: str | None = None  # set by the memory watch when it killed something
        self._cpu_seen = 0.0  # the highest CPU figure given out: what cpu_ms never goes under
        #: Without a cpuacct cgroup: kept stat descriptors of the sandbox's processes as of the
        #: first reading (init and the bot), and the CPU of any other process as the memory
        #: watch last saw it (children, at most one watch interval late).
        self._ns_stat: dict[int, int] | None = None
        self.others_ticks = 0
        self._lease: UidLease | None = None
        self._stopped = False
        #: Stopped while it is not on turn (:meth:`freeze`); why it was killed if it could not be.
        self.frozen = False
        self.freeze_kill: str | None = None
        #: Counts thaws and freezes: a freeze asked for later (:meth:`freeze_soon`) is made only
        #: if nothing happened since.
        self.freeze_generation = 0
        self._freeze_lock = threading.Lock()
        self._lock = threading.Lock()
        self.sock_dir: Path | None = None
        self.token = secrets.token_hex(4)
        if not sandbox:
            remove_stale_socket_dirs()
            self.sock_dir = Path(tempfile.mkdtemp(prefix=f"{SOCKET_DIR_PREFIX}{os.getpid()}-"))
        try:
            self._launch()
        except BaseException as exc:
            self._cleanup_files()
            if self._lease is not None:
                self._lease.release()
            if isinstance(exc, ManifestError):
                raise SandboxError(str(exc)) from None
            raise

    def dial_address(self) -> str | None:
        """The gRPC address the referee dials, or None while the bot's socket is not there yet.
        Raises :class:`SandboxError` when the bot put something else where its socket belongs."""
        if self.sock_dir is not None:
            return f"unix:{self.sock_dir / SOCKET_NAME}"
        if self.view is None:
            pid = self.bot_pid()
            self.view = SandboxView.open(pid) if pid is not None else None
            if self.view is None:
                return None
            MEMORY_WATCH.add(self)
        try:
            return self.view.socket_address()
        except NotASocket as exc:
            raise SandboxError(f"the bot's socket cannot be trusted: {exc}") from None

    @property
    def memory_limited(self) -> bool:
        """Whether the referee's memory watch (not a cgroup) bounds this sandbox's memory."""
        return self.sandboxed and (self.cgroup is None or "memory" not in self.cgroup.paths)

    def _launch(self) -> None:
        fds: list[int] = []
        # The groups first: whether a cpuacct group counts the CPU of children the kernel
        # reaps decides whether the filter must keep the bot from having them reaped.
        self.cgroup = (SandboxCgroups.create(f"{os.getpid()}-{self.token}", self.limits)
                       if self.sandboxed else None)
        if self.sandboxed:
            bwrap = require_bwrap()
            if os.geteuid() == 0:
                self._lease = lease_uid()
                self.uid = self._lease.uid
            counted = self.cgroup is not None and "cpuacct" in self.cgroup.paths
            try:
                fds.append(seccomp.program_fd(reaped_children_counted=counted))
            except seccomp.SeccompUnsupported as exc:
                if self.cgroup is not None:
                    self.cgroup.remove()
                raise SandboxError(str(exc)) from None
            cmd = sandbox_command(bwrap, self.bot_dir, self.uid, self.limits, fds[0])
            env = bot_environment(f"unix:{SOCKET_DIR_INSIDE}/{SOCKET_NAME}")
            cwd = "/"
        else:
            address = f"unix:{self.sock_dir / SOCKET_NAME}"
            # Dies with this process, as a sandboxed bot does by bwrap's --die-with-parent (the
            # same signal, with the same caveat: it fires when the launching *thread* ends):
            # killed with SIGKILL, `arena connect` left its bot running, unsandboxed.
            cmd = ["setpriv", "--pdeathsig", "KILL", "--"] + prlimit_args(
                self.limits, with_nproc=False
            ) + launch_command(self.bot_dir, str(self.bot_dir), address)
            env = bot_environment(address)
            cwd = str(self.bot_dir)
        if self.cgroup is not None:
            cmd = self.cgroup.wrap(cmd)
        self.started_at = time.perf_counter()
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=cwd,
                start_new_session=True,
                close_fds=True,
                pass_fds=fds,
            )
        except OSError as exc:
            if self.cgroup is not None:
                self.cgroup.remove()
            raise SandboxError(f"cannot launch the bot in {self.bot_dir}: {exc}") from exc
        finally:
            for fd in fds:
                os.close(fd)
        self.output = OutputTail(
            self.proc.stdout, self.limits.output_bytes, self.limits.tail_bytes, self.kill
        )
        self._stat_fd: int | None = None

    # --- state --------------------------------------------------------------------------
    def exit_status(self) -> int | None:
        return self.proc.poll()

    def describe_exit(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "still running"
        text = f"exited with code {code}"
        if code < 0:
            text = f"killed by signal {signal.Signals(-code).name}"
        elif code > 128 and self.sandboxed:  # bwrap reports a signal death as 128+n
            try:
                text = f"killed by signal {signal.Signals(code - 128).name}"
            except ValueError:
                pass
        if self.memory_kill or self.freeze_kill:
            text += f" ({self.memory_kill or self.freeze_kill})"
        elif self.cgroup is not None and self.cgroup.oom_kills():
            kernel = self.cgroup.kernel_peak_mb()
            held = (f"; at most {kernel:.0f} MiB of it was kernel memory: socket buffers, pipes, "
                    f"mappings and the like" if kernel else "")
            text += (f" (out of memory: the kernel killed a process of the sandbox at its "
                     f"{self.limits.memory_mb} MiB memory limit{held})")
        return text

    def lock_socket_dir(self) -> None:
        """Once the socket exists the bot may no longer create files beside it (as root, where
        the folder's owner is not the bot's uid)."""
        if self.view is not None and self.uid is not None:
            self.view.lock_socket_dir()

    def bot_pid(self) -> int | None:
        """The pid (in the host's namespace) of the Python process running bot.py."""
        pid = self.proc.pid
        if not self.sandboxed:
            return pid
        for _ in range(2):  # outer bwrap -> bwrap as the namespace's init -> the bot
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as fh:
                    kids = fh.read().split()
            except OSError:
                return None
            if not kids:
                return None
            pid = int(kids[0])
        return pid

    def processes(self) -> list[ProcInfo]:
        """Every process of the sandbox (its init included); empty before it is up."""
        if self.view is None:
            return []
        try:
            return self.view.processes()
        except OSError:
            return []

    def memory_mb(self) -> float | None:
        """Memory the sandbox holds now, by the measure its limit is enforced with
        (:class:`~referee.sandbox_watch.Held`): the memory cgroup's usage (every page charged to
        it: tmpfs, shared memory and, where this kernel charges it, kernel memory included), else
        what the memory watch counts: resident memory, tmpfs pages, and the most its sockets,
        pipes and mappings can hold in the kernel."""
        held = self.held()
        return held.total / (1 << 20) if held is not None else None

    def held(self) -> Held | None:
        """What the sandbox holds, part by part, by a fresh full look (None before it is up)."""
        group = self.cgroup.paths.get("memory") if self.cgroup is not None else None
        with self._lock:
            if self.view is None:
                return None
            try:
                procs = self.view.processes()
                if not procs:
                    return None
                usage = int((group / "memory.usage_in_bytes").read_text()) if group else None
                return measure(self.view, procs, deep_look(self.view, procs, self.limits),
                               self.view.unix_socket_kinds(), self.limits, usage,
                               usage is not None and cgroup_charges_kernel_memory())
            except (OSError, ValueError, Hidden):
                return None

    def tmpfs_bytes(self) -> int:
        """What the sandbox's private tmpfs hold, unlinked-but-open files included (0 before the
        sandbox is up)."""
        with self._lock:
            if self.view is None:
                return 0
            try:
                return self.view.private_bytes()
            except OSError:
                return 0

    def private_files(self) -> list[str]:
        """Files the bot has left in its private /tmp, /dev/shm and socket folder (the folders
        the sandbox itself makes there, for a project or venv that lives under /tmp, aside)."""
        if self.view is None:
            return []
        try:
            found = self.view.private_files()
        except OSError:
            return []
        ours = _mount_points_in_tmp()
        return [f for f in found if f not in ours]

    def freeze_soon(self) -> None:
        """Freeze a moment from now (:data:`referee.off_turn.FREEZE_AFTER_S`) unless it is thawed
        before: what the runner does after a reply, so that a seat asked again at once costs
        nothing (:mod:`referee.off_turn`)."""
        from referee.off_turn import DEFERRED

        DEFERRED.later(self, self.freeze_generation)

    def freeze(self, generation: int | None = None) -> bool:
        """Stop every process of the sandbox (its init aside) until :meth:`thaw`: a bot does not
        run while it is not on turn, so it cannot take CPU from a seat that is thinking.

        As root, the sandbox's cgroup-v1 ``freezer`` stops them all at once. Without it, each
        process is sent SIGSTOP through the sandbox's own /proc (:class:`SandboxView`), and the
        walk is made again until one finds every process stopped: a child forked while its
        parent was being stopped is found by the next walk, and a process whose stop a sibling
        cancelled (SIGCONT) is stopped again; once all are stopped none can fork or wake another.
        The walks are bounded by time (:data:`FREEZE_SETTLE_S`) and by the process limit; a
        sandbox that cannot be stopped within them is killed (its next call then fails as a
        ``crash`` that says why) and False is returned. An unsandboxed bot (trusted code) has
        its process group stopped. With ``generation`` (:meth:`freeze_soon`), nothing is done
        if the sandbox was thawed or frozen since that generation."""
        with self._freeze_lock:
            if generation is not None and generation != self.freeze_generation:
                return True
            self.freeze_generation += 1
            if self.frozen or self.proc.poll() is not None:
                return True  # stopped processes cannot fork nor wake one another: still frozen
            self.frozen = True
            return self._freeze_now()

    def _freeze_now(self) -> bool:
        try:
            if self.cgroup is not None and self.cgroup.can_freeze:
                settled = self.cgroup.set_frozen(True)
            elif not self.sandboxed:
                os.killpg(self.proc.pid, signal.SIGSTOP)
                settled = True
            else:
                settled = self._stop_every_process()
        except OSError:
            settled = self.proc.poll() is not None  # it died meanwhile: nothing runs
        if not settled:
            self.freeze_kill = "it could not be stopped while it was not on turn"
            self.kill()
        return settled

    def _stop_every_process(self) -> bool:
        view = self.view
        if view is None:
            return self.proc.poll() is not None
        deadline = time.perf_counter() + FREEZE_SETTLE_S
        pause = 0.0
        for _ in range(self.limits.processes * 4 + 1000):
            moving = [pid for pid, state in view.states().items()
                      if pid != 1 and state not in _STOPPED_STATES]
            if not moving:
                return True
            for pid in moving:
                view.signal(pid, signal.SIGSTOP)
            if time.perf_counter() > deadline:
                break
            time.sleep(pause)  # 0 at first: a yield, time for the stop to land
            pause = min(0.001, pause + 0.0001)
        return False

    def kill_pending(self) -> bool:
        """Whether the bot's process has a SIGKILL waiting: a frozen process does not die of
        it until it is thawed, so while frozen it still looks alive (the pool asks this of an
        idle bot before seating it)."""
        pid = self.bot_pid() if self.proc.poll() is None else None
        if pid is None:
            return False
        try:
            with open(f"/proc/{pid}/status", "rb") as fh:
                status = fh.read()
        except OSError:
            return False
        kill_bit = 1 << (signal.SIGKILL - 1)
        return any(int(line.split()[1], 16) & kill_bit for line in status.splitlines()
                   if line.startswith((b"SigPnd:", b"ShdPnd:")))

    def thaw(self) -> None:
        """Let the sandbox run again after :meth:`freeze` (SIGCONT to each of its processes, or
        the freezer group thawed). Cheap; a freeze asked for later is cancelled, and nothing
        else happens if it is not frozen."""
        from referee.off_turn import DEFERRED

        DEFERRED.cancel(self)
        with self._freeze_lock:
            self.freeze_generation += 1
            if self.frozen:
                self.frozen = False
                if self.proc.poll() is None:
                    self._thaw_now()

    def _thaw_now(self) -> None:
        try:
            if self.cgroup is not None and self.cgroup.can_freeze:
                self.cgroup.set_frozen(False)
            elif not self.sandboxed:
                os.killpg(self.proc.pid, signal.SIGCONT)
            elif self.view is not None:
                for pid in self.view.pids():
                    if pid != 1:
                        self.view.signal(pid, signal.SIGCONT)
        except OSError:
            pass  # gone: nothing to continue

    def cpu_ms(self) -> float | None:
        """CPU time the bot has used so far (user + system), or None if it cannot be measured.

        Never less than a figure it gave before: once a process of the sandbox is gone, /proc
        may show less than it did (a killed child's time is nobody's once its parent dies too),
        and a match charges the difference between two readings.
        """
        ms = self._cpu_ms_now()
        if ms is None:
            return None
        self._cpu_seen = max(self._cpu_seen, ms)
        return self._cpu_seen

    def _cpu_ms_now(self) -> float | None:
        """The CPU figure as the kernel shows it right now (see :meth:`cpu_ms`).

        From the bot's cpuacct cgroup when there is one (every process of the sandbox, in ns);
        otherwise from the sandbox's own /proc: each live process's time plus what it reaped
        of its children, init included (orphans end there), in clock ticks of 10 ms. An
        unsandboxed bot is read from /proc/<pid>/stat of its process through a kept-open
        descriptor.
        """
        if self.cgroup is not None and self.cgroup.paths.get("cpuacct"):
            try:
                return self.cgroup.cpu_ms()
            except (OSError, ValueError):
                return None
        if self.sandboxed:
            ticks = self._sandbox_cpu_ticks()
            return ticks * 1000.0 / _CLK_TCK if ticks is not None else None
        if self._stat_fd is None:
            try:
                self._stat_fd = os.open(f"/proc/{self.proc.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return None
        try:
            data = os.pread(self._stat_fd, 1024, 0)
        except OSError:
            return None
        fields = data[data.rindex(b")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
        return ticks * 1000.0 / _CLK_TCK

    def _sandbox_cpu_ticks(self) -> int | None:
        """CPU of every process of the sandbox, cheaply enough for every decision: a pread per
        kept process plus the watch's figure for the others. When a kept process is gone (its
        time moved to its parent's reaped-children share) the set is read afresh."""
        with self._lock:
            if self.view is None:
                return None
            if self._ns_stat is None:
                try:
                    procs = self.view.processes()
                    self._ns_stat = {p.pid: self.view.open_stat(p.pid) for p in procs}
                except OSError:
                    self._close_ns_stat()
                    return None
                if not procs:
                    self._ns_stat = None
                    return None
            try:
                return sum(cpu_ticks_of(fd) for fd in self._ns_stat.values()) + self.others_ticks
            except OSError:
                self._close_ns_stat()
        procs = self.processes()
        return sum(p.cpu_ticks for p in procs) if procs else None

    def _close_ns_stat(self) -> None:
        for fd in (self._ns_stat or {}).values():
            os.close(fd)
        self._ns_stat = None
        self.others_ticks = 0

    # --- the end -------------------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL the sandbox (and with it every process inside). Safe to call many times, from
        any thread."""
        with self._lock:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    self.proc.kill()
                except ProcessLookupError:
                    pass
                if self.cgroup is not None and self.cgroup.can_freeze:
                    try:  # a frozen task does not die until its group is thawed
                        self.cgroup.set_frozen(False)
                    except OSError:
                        pass

    def stop(self) -> None:
        """Kill, reap, release the uid and close every descriptor into the sandbox."""
        if self._stopped:
            return
        self._stopped = True
        self.thaw()  # no freeze may walk the view while it is closed (nor fall due after)
        MEMORY_WATCH.discard(self)
        self.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self._stat_fd is not None:
            os.close(self._stat_fd)
            self._stat_fd = None
        with self._lock:
            if self.view is not None:
                # The namespace's init is dead, and the kernel kills the rest asynchronously:
                # wait (and help) until its /proc is empty, so nothing is seen running after.
                for _ in range(100):
                    try:
                        procs = self.view.processes()
                    except OSError:
                        break
                    if not procs:
                        break
                    for p in procs:
                        self.view.kill(p.pid)
                    time.sleep(0.01)
                self._close_ns_stat()
                self.view.close()
                self.view = None
        if self.uid is not None:
            # The pid namespace is gone with its init; this catches anything that slipped out.
            for _ in range(50):
                if not pids_of_uid(self.uid):
                    break
                kill_uid(self.uid)
                time.sleep(0.01)
        self.output.join(1.0)
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self._lease is not None:
            self._lease.release()
            self._lease = None
        self._cleanup_files()

    def _cleanup_files(self) -> None:
        if self.sock_dir is not None:
            shutil.rmtree(self.sock_dir, ignore_errors=True)




_CLK_TCK = os.sysconf("SC_CLK_TCK")
