"""The referee's window into one running sandbox: its socket, its processes, its private files.

Why it exists: nothing a bot can write lives on the host any more. Its socket is in a small
tmpfs of the sandbox's own (``/arena/sock``), beside its private ``/tmp`` and ``/dev/shm``; all of
them vanish with the sandbox. The referee reaches them through ``/proc/<bot pid>/root``, and a
hostile bot controls what is in there, so every path is opened one component at a time with
``O_NOFOLLOW`` (a link the bot made is refused, never followed), and the socket is held by an
``O_PATH`` descriptor checked to be a socket: the referee dials ``/proc/self/fd/N``, the very
inode it checked, which the bot can neither replace nor redirect later.

The same view reads the sandbox's own ``/proc`` (only the sandbox's processes are in it), which
is how processes, memory and CPU of every process in the sandbox are measured without cgroups,
and the size of what its tmpfs hold (:meth:`SandboxView.private_bytes`).
"""

from __future__ import annotations

import os
import signal
import stat
from dataclasses import dataclass

SOCKET_DIR = "arena/sock"
SOCKET_NAME = "bot.sock"
#: Private writable places of a sandbox: anything left in them after a match means the bot keeps
#: state (or junk) across matches.
PRIVATE_DIRS = ("tmp", "dev/shm", SOCKET_DIR)

_DIR = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class NotASocket(RuntimeError):
    """The bot put something other than a socket where its socket belongs (e.g. a link)."""


@dataclass(frozen=True)
class ProcInfo:
    """One process of the sandbox, as its own /proc shows it."""

    pid: int  # in the sandbox's pid namespace
    ppid: int
    cpu_ticks: int  # user + system, own and of reaped children
    rss_bytes: int


class SandboxView:
    """Descriptors into one sandbox, opened from the bot's process. Close it with :meth:`close`."""

    def __init__(self, root_fd: int) -> None:
        self._root = root_fd
        self._proc: int | None = None
        self._socket: int | None = None
        self._private: list[int] | None = None

    @classmethod
    def open(cls, pid: int) -> SandboxView | None:
        """The view of the sandbox ``pid`` lives in, or None while it is not set up yet (the
        process does not exist yet or still has the host's root)."""
        try:
            fd = os.open(f"/proc/{pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return None
        st, host = os.fstat(fd), os.stat("/")
        if (st.st_dev, st.st_ino) == (host.st_dev, host.st_ino):
            os.close(fd)
            return None
        return cls(fd)

    def _walk(self, path: str, last_flags: int = os.O_PATH) -> int:
        """Open ``path`` (relative to the sandbox root) refusing every symbolic link on the way."""
        parts = path.split("/")
        fd = self._root
        try:
            for i, part in enumerate(parts):
                flags = (last_flags | _DIR) if i == len(parts) - 1 else (os.O_PATH | _DIR)
                nxt = os.open(part, flags, dir_fd=fd)
                if fd != self._root:
                    os.close(fd)
                fd = nxt
        except BaseException:
            if fd != self._root:
                os.close(fd)
            raise
        return fd

    # --- the socket ------------------------------------------------------------------------
    def socket_address(self) -> str | None:
        """``unix:/proc/self/fd/N`` for the bot's socket, or None while it does not exist yet.
        Raises :class:`NotASocket` when the bot put anything else there."""
        if self._socket is not None:
            return f"unix:/proc/self/fd/{self._socket}"
        try:
            folder = self._walk(SOCKET_DIR)
        except FileNotFoundError:
            return None
        except OSError as exc:  # ENOTDIR / ELOOP: a link (or a file) where a folder belongs
            raise NotASocket(f"/{SOCKET_DIR} is not a folder of the sandbox ({exc.strerror})") from None
        try:
            fd = os.open(SOCKET_NAME, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
        except FileNotFoundError:
            return None
        finally:
            os.close(folder)
        mode = os.fstat(fd).st_mode
        if not stat.S_ISSOCK(mode):
            os.close(fd)
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a socket"
            raise NotASocket(f"/{SOCKET_DIR}/{SOCKET_NAME} is {kind}")
        self._socket = fd
        return f"unix:/proc/self/fd/{fd}"

    def lock_socket_dir(self) -> None:
        """Once the socket exists the bot (a uid other than the folder's owner) may no longer
        create anything beside it."""
        fd = self._walk(SOCKET_DIR, os.O_RDONLY)
        try:
            os.fchmod(fd, 0o711)
        finally:
            os.close(fd)

    # --- files ---------------------------------------------------------------------------------
    def private_files(self) -> list[str]:
        """What the bot has left in its private writable places (its socket aside)."""
        found = []
        for folder in PRIVATE_DIRS:
            try:
                fd = self._walk(folder, os.O_RDONLY)
            except OSError:
                continue
            try:
                names = os.listdir(fd)
            finally:
                os.close(fd)
            found += [f"/{folder}/{n}" for n in names
                      if not (folder == SOCKET_DIR and n == SOCKET_NAME)]
        return sorted(found)

    def _private_stats(self) -> list[os.statvfs_result]:
        if self._private is None:
            self._private = [self._walk(folder) for folder in PRIVATE_DIRS]
        return [os.fstatvfs(fd) for fd in self._private]

    def private_inodes(self) -> int:
        """Files, folders and links the bot has made in its tmpfs, together. Each costs kernel
        memory that the tmpfs size cap does not count (an empty file has no data pages)."""
        return sum(st.f_files - st.f_ffree - 1 for st in self._private_stats())

    def private_bytes(self) -> int:
        """Memory the bot's tmpfs hold: every data page of ``/tmp``, ``/dev/shm`` and the socket
        folder, including files it unlinked but keeps open (a tmpfs frees a file's pages only
        when its last descriptor and mapping are gone), which no listing of names shows."""
        return sum((st.f_blocks - st.f_bfree) * st.f_frsize for st in self._private_stats())

    def unix_sockets(self) -> int:
        """How many Unix sockets exist in the sandbox's network namespace (bound, connected or
        neither, socket pairs included): the namespace's ``/proc/net/unix``, read as its init
        sees it (``/proc/net`` itself would name the reader's namespace)."""
        fd = os.open("1/net/unix", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd())
        try:
            lines = 0
            while chunk := os.read(fd, 1 << 16):
                lines += chunk.count(b"\n")
        finally:
            os.close(fd)
        return max(0, lines - 1)  # a header line

    def unix_socket_kinds(self) -> tuple[int, int]:
        """The sandbox's Unix sockets as ``(stream or seqpacket, datagram)``, from the same
        ``/proc/net/unix`` of its namespace (the type is the fifth column: 1 stream, 2 datagram,
        5 seqpacket). A datagram socket can hold more than a stream one (see
        :mod:`referee.sandbox_watch`)."""
        fd = os.open("1/net/unix", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd())
        try:
            data = b""
            while chunk := os.read(fd, 1 << 16):
                data += chunk
        finally:
            os.close(fd)
        stream = dgram = 0
        for line in data.split(b"\n")[1:]:
            fields = line.split()
            if len(fields) < 6:
                continue
            if fields[4] == b"0002":
                dgram += 1
            else:
                stream += 1
        return stream, dgram

    def pipe_inodes(self, pids: list[int]) -> set[int]:
        """Inodes of every pipe the given processes hold a descriptor of (a pipe shared by
        several processes, or both ends of one, counts once). Raises PermissionError when a
        process's descriptors cannot be read (it made itself not dumpable)."""
        found: set[int] = set()
        proc = self._proc_fd()
        for pid in pids:
            try:
                fd = os.open(f"{pid}/fd", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=proc)
            except FileNotFoundError:
                continue  # it exited
            try:
                for name in os.listdir(fd):
                    try:
                        target = os.readlink(name, dir_fd=fd)
                    except FileNotFoundError:
                        continue
                    if target.startswith("pipe:["):
                        found.add(int(target[6:-1]))
            finally:
                os.close(fd)
        return found

    def mappings(self, pid: int, most: int) -> int:
        """How many memory mappings (VMAs) one process has, counting no further than
        ``most + 1`` lines of its ``maps`` (each line costs the kernel ~1.5 µs to write: a
        process with 65,000 mappings would cost 90 ms to count in full). 0 once it exited."""
        try:
            fd = os.open(f"{pid}/maps", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd())
        except FileNotFoundError:
            return 0
        lines = 0
        try:
            while lines <= most and (chunk := os.read(fd, 1 << 16)):
                lines += chunk.count(b"\n")
        finally:
            os.close(fd)
        return lines

    def page_table_bytes(self, pid: int) -> int:
        """Kernel memory of one process's page tables (``VmPTE``); 0 once it exited."""
        try:
            fd = os.open(f"{pid}/status", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd())
        except FileNotFoundError:
            return 0
        try:
            data = os.read(fd, 1 << 14)
        finally:
            os.close(fd)
        at = data.find(b"VmPTE:")
        return int(data[at + 6:data.index(b"kB", at)]) << 10 if at >= 0 else 0

    # --- processes -----------------------------------------------------------------------------
    def _proc_fd(self) -> int:
        if self._proc is None:
            self._proc = self._walk("proc", os.O_RDONLY)
        return self._proc

    def _proc_names(self) -> list[str]:
        """The entries of the sandbox's /proc, read through a descriptor of their own: the kept
        one is shared by every thread that looks (the memory watch, a freeze, a thaw), and a
        listing moves the file offset of the descriptor it reads, so two listings at once on the
        kept one each saw part of the folder (a thaw that missed the bot's process left it
        stopped on its turn)."""
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=self._proc_fd())
        try:
            return os.listdir(fd)
        finally:
            os.close(fd)

    def processes(self) -> list[ProcInfo]:
        """Every process of the sandbox (its pid namespace's init included)."""
        proc = self._proc_fd()
        out = []
        for name in self._proc_names():
            if not name.isdigit():
                continue
            try:
                fd = os.open(f"{name}/stat", os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc)
            except OSError:
                continue
            try:
                data = os.read(fd, 1024)
            except OSError:
                continue
            finally:
                os.close(fd)
            f = data[data.rindex(b")") + 2:].split()
            out.append(ProcInfo(int(name), int(f[1]), int(f[11]) + int(f[12]) + int(f[13]) + int(f[14]),
                                int(f[21]) * _PAGE))
        return out

    def open_stat(self, pid: int) -> int:
        """A descriptor of one process's stat file, for :func:`cpu_ticks_of` over and over."""
        return os.open(f"{pid}/stat", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd())

    def kill(self, pid: int) -> bool:
        """SIGKILL one process of the sandbox by its pid there (a /proc directory descriptor is a
        pidfd: no host pid needed, no pid reuse race)."""
        return self.signal(pid, signal.SIGKILL)

    def signal(self, pid: int, sig: int) -> bool:
        """Send ``sig`` to one process of the sandbox by its pid there (through its /proc
        directory, a pidfd); False when it is gone."""
        try:
            fd = os.open(str(pid), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=self._proc_fd())
        except OSError:
            return False
        try:
            signal.pidfd_send_signal(fd, sig)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)

    def pids(self) -> list[int]:
        """The pid (in the sandbox) of every process of the sandbox, its init included."""
        return [int(name) for name in self._proc_names() if name.isdigit()]

    def states(self) -> dict[int, bytes]:
        """Each process's state letter (``R``, ``S``, ``T`` stopped, ``Z``...), by its pid in the
        sandbox. A process whose main thread has exited while other threads run shows ``Z``:
        its threads' states are what count then, and the letter given is ``T`` only when every
        thread is stopped."""
        proc = self._proc_fd()
        out: dict[int, bytes] = {}
        for name in self._proc_names():
            if not name.isdigit():
                continue
            state = _state_of(proc, f"{name}/stat")
            if state is None:
                continue
            if state == b"Z":
                tasks = self._thread_states(int(name))
                if tasks:  # a zombie leader with live threads: the group is what it is
                    state = b"T" if all(t in (b"T", b"t", b"Z", b"X") for t in tasks) else b"R"
            out[int(name)] = state
        return out

    def _thread_states(self, pid: int) -> list[bytes]:
        proc = self._proc_fd()
        try:
            tfd = os.open(f"{pid}/task", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=proc)
        except OSError:
            return []
        try:
            names = os.listdir(tfd)
        finally:
            os.close(tfd)
        return [s for t in names if t != str(pid)
                and (s := _state_of(proc, f"{pid}/task/{t}/stat")) is not None]

    def running_threads(self) -> int:
        """How many threads of the sandbox are running or waiting for a CPU (state ``R``) right
        now: a bot that is idle has none, bar the moment one wakes."""
        proc = self._proc_fd()
        count = 0
        for name in self._proc_names():
            if not name.isdigit():
                continue
            try:
                tfd = os.open(f"{name}/task", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=proc)
            except OSError:
                continue
            try:
                tids = os.listdir(tfd)
            finally:
                os.close(tfd)
            count += sum(1 for t in tids if _state_of(proc, f"{name}/task/{t}/stat") == b"R")
        return count

    def close(self) -> None:
        for fd in self._private or []:
            os.close(fd)
        self._private = None
        for name in ("_socket", "_proc"):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)
        if self._root >= 0:
            os.close(self._root)
            self._root = -1


def _state_of(proc_fd: int, path: str) -> bytes | None:
    """The state letter of a ``stat`` file under the sandbox's /proc, or None once it is gone."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc_fd)
    except OSError:
        return None
    try:
        data = os.read(fd, 512)
    except OSError:
        return None
    finally:
        os.close(fd)
    end = data.rfind(b")")
    return data[end + 2:end + 3] if end > 0 else None


def cpu_ticks_of(stat_fd: int) -> int:
    """User + system ticks of a process and its reaped children, from a kept stat descriptor
    (raises OSError once the process is gone)."""
    data = os.pread(stat_fd, 1024, 0)
    f = data[data.rindex(b")") + 2:].split()
    return int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])


_PAGE = os.sysconf("SC_PAGE_SIZE")
