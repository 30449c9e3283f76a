"""One hostile bot per fault: each is contained, forfeits with the right reason (or is shown to
be harmless), the other seat finishes its game, and nothing of the sandbox keeps running (the
autouse fixture in conftest.py checks that after every test)."""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from referee import sandbox, seccomp
from referee.engine import TimeControl
from referee.record import MatchRecord
from referee.sandbox import SandboxLimits
from referee.sandbox_watch import ceilings
from tests.referee import kernel_surface
from tests.referee.helpers import HOSTILE, RANDOM_BOT, landlock_abi, needs_bwrap, play

pytestmark = needs_bwrap

FAST = TimeControl(decision_ms=300, bank_ms=300)


def _forfeited(record: MatchRecord, seat: int, reason: str):
    """The seat forfeited for ``reason``; the other seat played every one of its decisions."""
    assert [(f.seat, f.reason) for f in record.forfeits] == [(seat, reason)], record.forfeits
    other = 1 - seat
    assert not any(d.forced for d in record.decisions if d.seat == other)
    forfeit = record.forfeits[0]
    after = [d for d in record.decisions if d.seat == seat and d.n >= forfeit.decision]
    assert after and all(d.forced for d in after)  # the fallback played the seat on
    assert record.result["ranks"][seat] == 2 and record.result["ranks"][other] == 1
    return forfeit


def test_crash_at_start(hostile) -> None:
    record = play("toy", [hostile("crash_at_start"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "start_failed")
    assert forfeit.decision == 0
    assert "exited with code 3" in forfeit.message
    assert "giving up before serving" in forfeit.log_tail


def test_too_slow_to_start(hostile) -> None:
    record = play("toy", [str(RANDOM_BOT), hostile("slow_start")], startup_ms=2000)
    forfeit = _forfeited(record, 1, "start_timeout")
    assert forfeit.decision == 0


def test_crash_mid_match(hostile) -> None:
    record = play("toy", [hostile("crash_mid_match"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "crash")
    assert "code 7" in forfeit.message
    assert "dying now" in forfeit.log_tail
    played = [d for d in record.decisions if d.seat == 0 and not d.forced]
    assert len(played) == 2


def test_sleep_past_the_deadline(hostile) -> None:
    record = play("toy", [hostile("sleeper"), str(RANDOM_BOT)], tc=FAST)
    forfeit = _forfeited(record, 0, "timeout")
    slow = next(d for d in record.decisions if d.n == forfeit.decision)
    assert slow.forced and 550 <= slow.wall_ms < 2000  # decision time + bank, then cut off
    assert record.totals[0].bank_left_ms == 0


def test_illegal_option_id(hostile) -> None:
    forfeit = _forfeited(play("toy", [hostile("illegal_id"), str(RANDOM_BOT)]), 0, "illegal_option")
    assert "checkmate-in-one" in forfeit.message and forfeit.decision == 0


def test_garbage_reply(hostile) -> None:
    record = play("toy", [str(RANDOM_BOT), hostile("garbage_reply")])
    forfeit = _forfeited(record, 1, "garbage_reply")
    assert "not an ActReply" in forfeit.message


def test_allocating_4_gib_fails_inside_the_limit(hostile) -> None:
    record = play("toy", [hostile("memory_hog"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "bot_error")
    assert "MemoryError allocating 4 GiB" in forfeit.log_tail


def test_fork_bomb_hits_the_process_limit(hostile) -> None:
    record = play("toy", [hostile("fork_bomb"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "crash")
    assert "fork failed after" in forfeit.log_tail, forfeit.log_tail
    forks = int(forfeit.log_tail.split("fork failed after ")[1].split()[0])
    assert forks < 64  # the per-uid process limit, threads included
    # Its sleeping children died with the sandbox: checked by the autouse fixture.


def test_tcp_connection_to_localhost_is_impossible(hostile) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def accept_loop() -> None:
        while not stop.is_set():
            try:
                accepted.append(listener.accept())
            except OSError:
                continue

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    port = listener.getsockname()[1]
    try:
        record = play("toy", [hostile("net_probe", **{"port.txt": str(port)}), str(RANDOM_BOT)])
    finally:
        stop.set()
        thread.join()
        listener.close()
    assert record.forfeits == []
    comment = next(d.comment for d in record.decisions if d.seat == 0)
    # No inet socket at all (seccomp); were there one, the loopback would be an empty one of its own.
    assert f"127.0.0.1:{port} EAFNOSUPPORT" in comment, comment
    assert "CONNECTED" not in comment
    assert accepted == []


def test_files_outside_the_bot_folder_cannot_be_read(hostile, tmp_path: Path) -> None:
    database = tmp_path / "arena.db"
    database.write_text("the referee's database")
    other_bot = hostile("illegal_id")
    project_root = Path(__file__).resolve().parents[2]
    targets = [
        f"{other_bot}/bot.py",
        str(database),
        str(RANDOM_BOT / "bot.py"),
        str(project_root / "tests" / "conftest.py"),
        str(project_root / "pyproject.toml"),
        "/etc/passwd",
        "/root/.bash_history",
    ]
    snoop = hostile("file_snoop", **{"targets.txt": "\n".join(targets)})
    record = play("toy", [snoop, other_bot])
    comment = next(d.comment for d in record.decisions if d.seat == 0)
    assert comment == f"own=READ denied={len(targets)} read=", comment  # only its own code


def test_writing_a_1_gib_file_stops_at_the_file_size_limit(hostile) -> None:
    record = play("toy", [hostile("file_writer"), str(RANDOM_BOT)])
    assert record.forfeits == []
    comment = next(d.comment for d in record.decisions if d.seat == 0)
    assert "big=64MiB EFBIG" in comment, comment  # 64 MiB is the sandbox's file size limit
    assert "/arena/bot/dropped.txt=EROFS" in comment  # code is read-only
    assert "/arena/sock/dropped.txt=EACCES" in comment  # the socket folder is locked once ready


def test_printing_without_end(hostile) -> None:
    record = play("toy", [hostile("flooder"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "output_flood")
    assert "flooder: spam" in forfeit.log_tail
    assert len(forfeit.log_tail) <= 4000


def test_forked_children_share_one_memory_limit(hostile) -> None:
    if not (os.geteuid() == 0 and Path("/sys/fs/cgroup/memory/cgroup.procs").exists()):
        pytest.skip("the sandbox-wide memory limit needs root and a cgroup-v1 memory controller")
    limits = SandboxLimits(memory_mb=300)
    record = play("toy", [hostile("fork_hog"), str(RANDOM_BOT)], limits=limits)
    assert record.forfeits == []
    comment = next(d.comment for d in record.decisions if d.seat == 0)
    killed, ok = (int(part.split("=")[1]) for part in comment.split())
    assert killed + ok == 5
    assert killed >= 2  # 5 x 100 MiB cannot fit in 300 MiB: the kernel killed some children


def test_exception_in_act_forfeits_with_its_traceback(hostile) -> None:
    record = play("toy", [hostile("raises_in_act"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "bot_error")
    # The author reads the crash log: it names the line of their bug.
    assert "KeyError: 'no-such-key'" in forfeit.log_tail, forfeit.log_tail
    assert "in evaluate" in forfeit.log_tail


# --- kernel surface, socket folder, writable places (issue 11, items 4 and 5) ----------------


def _probe_report(record: MatchRecord) -> dict:
    forfeit = _forfeited(record, 0, "bot_error")
    line = next(ln for ln in forfeit.log_tail.splitlines() if ln.startswith("PROBE "))
    return json.loads(line[len("PROBE "):])


def test_seccomp_denies_each_call_and_no_namespace_can_be_made(hostile) -> None:
    report = _probe_report(play("toy", [hostile("syscall_probe"), str(RANDOM_BOT)]))
    calls = report["calls"]
    wrong = {name: calls[name] for name in seccomp.DENIED if calls[name] != "EPERM"}
    assert wrong == {}, wrong
    assert calls["clone3"] == "ENOSYS"  # glibc then falls back to clone, whose flags are checked
    assert calls["clone(CLONE_NEWUSER)"] == "EPERM"
    assert report["fork"] == "OK"  # what a bot may do still works
    for cmd in ("unshare -Urm", "unshare -Ur", "nested bwrap", "nested bwrap pid"):
        assert not report[cmd].startswith("rc=0"), (cmd, report[cmd])
    status = report["status"]
    assert status["Seccomp"] == "2"  # a filter is in force
    assert status["NoNewPrivs"] == "1"
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(status[cap], 16) == 0, (cap, status[cap])  # the bounding set too
    if os.geteuid() == 0:
        assert status["Uid"].split()[0] in {str(u) for u in sandbox.lease_history[-2:]}


def _host_files_with(marker: str) -> list[str]:
    tmp = tempfile.gettempdir()
    return [p for p in glob.glob(os.path.join(tmp, "*" + marker + "*"))
            + glob.glob(os.path.join(tmp, "*", "*" + marker + "*"))
            + glob.glob(os.path.join(tmp, "*", "*", "*" + marker + "*"))]


def test_socket_folder_writes_stay_in_the_sandbox_and_stop_once_ready(hostile) -> None:
    marker = f"squat{os.getpid()}x{time.monotonic_ns()}"
    record = play("toy", [hostile("sock_squatter", **{"marker.txt": marker}), str(RANDOM_BOT)])
    assert record.forfeits == []
    comment = next(d.comment for d in record.decisions if d.seat == 0)
    before, after = comment.split(" after:")
    if landlock_abi() > 0:
        # It may make its socket there, and nothing else, from its first line on.
        assert before == "before:mkdir=EACCES", before
    else:
        # Without Landlock: only inside a 1 MiB tmpfs of its own sandbox (4 MiB asked).
        assert "ENOSPC" in before and int(before.split("wrote=")[1].split("KiB")[0]) <= 1024, before
    if os.geteuid() == 0 or landlock_abi() > 0:
        assert after == "mkdir=EACCES", after  # locked once ready: the folder is root's
    assert _host_files_with(marker) == []  # nothing ever reaches the host


def test_a_symlinked_socket_is_refused_and_never_followed(hostile, tmp_path: Path) -> None:
    host_sock = tmp_path / "host-service.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(host_sock))
    listener.listen()
    listener.setblocking(False)
    try:
        record = play("toy", [hostile("sock_symlink", **{"target.txt": str(host_sock)}),
                              str(RANDOM_BOT)])
        with pytest.raises(BlockingIOError):
            listener.accept()  # the referee never dialled the host socket
    finally:
        listener.close()
    forfeit = _forfeited(record, 0, "start_failed")
    if landlock_abi() > 0:
        # Landlock lets it make nothing but a socket there: not even the link.
        assert "os.symlink" in forfeit.log_tail and "Permission denied" in forfeit.log_tail
    else:
        # The referee opens the path without following links (test_sandbox_view.py too).
        assert "socket cannot be trusted" in forfeit.message and "symbolic link" in forfeit.message


def test_every_writable_place_is_capped_and_the_rest_is_read_only(hostile) -> None:
    record = play("toy", [hostile("space_filler"), str(RANDOM_BOT)])
    assert record.forfeits == []
    comment = next(d.comment for d in record.decisions if d.seat == 0)
    notes = dict(part.split("=", 1) for part in comment.split(" | "))
    assert notes["/tmp"] in ("256MiB ENOSPC", "255MiB ENOSPC"), comment  # tmp_mb
    assert notes["/dev/shm"] in ("64MiB ENOSPC", "63MiB ENOSPC"), comment  # shm_mb
    assert notes["/dropped"] == "EROFS" and notes["/dev/dropped"] == "EROFS", comment
    assert notes["/arena/dropped"] == "EROFS", comment


SLOW_START_MATCH = '''
import time
from arena.sdk import serve_bot

def start(match):
    time.sleep(1.5)  # precomputing on nobody's clock

if __name__ == "__main__":
    serve_bot(lambda observation, options: options[0].id, start=start)
'''


def test_start_match_work_counts_against_the_start_budget(tmp_path: Path) -> None:
    bot = tmp_path / "slow_start_match"
    bot.mkdir()
    (bot / "bot.py").write_text(SLOW_START_MATCH)
    record = play("toy", [str(bot), str(RANDOM_BOT)], start_budget_ms=500)
    forfeit = _forfeited(record, 0, "start_timeout")
    assert "start budget of 500 ms" in forfeit.message
    assert 450 < record.totals[0].start_ms < 1400  # recorded, and cut at the budget
    assert record.totals[1].start_ms is not None and record.totals[1].start_ms < 500
    # Within a larger budget the same bot plays, and its start-up work is on the record.
    record = play("toy", [str(bot), str(RANDOM_BOT)], start_budget_ms=3000)
    assert record.forfeits == [] and record.totals[0].start_ms >= 1500


def test_files_without_end_in_tmp_are_stopped_at_the_file_limit(hostile) -> None:
    record = play("toy", [hostile("file_spray"), str(RANDOM_BOT)], tc=TimeControl(5000, 20000))
    forfeit = _forfeited(record, 0, "crash")
    assert "files in its tmpfs, over the limit of 4096" in forfeit.message, forfeit.message


# --- memory no resident sum sees, socket families, the other bot (issue 26) -----------------

#: Small enough that 1 GiB of any kind would pass it; /tmp (256 MiB) and /dev/shm (64 MiB) fit.
HOLD_LIMITS = SandboxLimits(memory_mb=400)


def _comment(record: MatchRecord, seat: int = 0) -> str:
    return next(d.comment for d in record.decisions if d.seat == seat and not d.forced)


@pytest.mark.parametrize("kind", ["memfd", "memfd_mapped", "sysv"])
def test_memory_outside_every_process_cannot_be_made(hostile, kind: str) -> None:
    """memfds and System V segments held gigabytes no resident-set sum saw: denied outright."""
    record = play("toy", [hostile("memory_holder", **{"mode.txt": f"{kind} 1024"}), str(RANDOM_BOT)],
                  limits=HOLD_LIMITS)
    assert record.forfeits == []
    assert _comment(record) == "held=0MiB EPERM"


@pytest.mark.parametrize(("kind", "cap"), [("posix_shm", 64), ("tmpfs", 256)])
def test_unlinked_files_in_tmpfs_stop_at_its_size(hostile, kind: str, cap: int) -> None:
    """POSIX shared memory is a file of /dev/shm; a file unlinked but kept open still counts
    against its tmpfs's size (and against the memory limit: see the next test)."""
    record = play("toy", [hostile("memory_holder", **{"mode.txt": f"{kind} 1024"}), str(RANDOM_BOT)],
                  limits=HOLD_LIMITS)
    assert record.forfeits == []
    assert _comment(record) in (f"held={cap}MiB ENOSPC", f"held={cap - 1}MiB ENOSPC")


@pytest.mark.parametrize("mode", ["heap 1024", "mmap_shared 1024", "tmpfs_heap 200"])
def test_memory_over_the_limit_ends_the_bot_and_the_forfeit_says_so(hostile, mode: str) -> None:
    """1 GiB on the heap or in a shared anonymous mapping, or a full /tmp (256 MiB, unlinked)
    plus 200 MiB on the heap, under a 400 MiB limit: the kernel (a root referee's memory cgroup) or the memory watch (tmpfs counted)
    kills the bot, and the forfeit names memory rather than a bare SIGKILL."""
    record = play("toy", [hostile("memory_holder", **{"mode.txt": mode}), str(RANDOM_BOT)],
                  limits=HOLD_LIMITS)
    forfeit = _forfeited(record, 0, "crash")
    assert "SIGKILL" in forfeit.message and "out of memory" in forfeit.message, forfeit.message
    assert "400 MiB" in forfeit.message


def test_only_unix_sockets_can_be_made(hostile) -> None:
    record = play("toy", [hostile("socket_families"), str(RANDOM_BOT)])
    assert record.forfeits == []
    # vsock, netlink, packet, inet and the rest: each answered EAFNOSUPPORT, none anything else.
    assert _comment(record) == "AF_UNIX=OK pair:AF_UNIX=OK refused=24/24", _comment(record)


def test_the_other_bot_cannot_be_found_or_signalled(hostile) -> None:
    record = play("toy", [hostile("signal_other"), str(RANDOM_BOT)])
    assert record.forfeits == []  # and the other seat played every decision itself
    assert not any(d.forced for d in record.decisions)
    own, foreign, killed = (int(p.split("=")[1]) for p in _comment(record).split())
    assert own >= 2 and foreign == 0 and killed == 0  # its pid namespace holds only its own


def test_an_option_id_from_an_earlier_decision_is_illegal(hostile) -> None:
    record = play("toy", [hostile("stale_id"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "illegal_option")
    assert "play:" in forfeit.message and forfeit.decision > 0


def test_printing_without_end_before_ready_is_an_output_flood(hostile) -> None:
    record = play("toy", [hostile("flood_at_start"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "output_flood")
    assert forfeit.decision == 0 and "flood_at_start: spam" in forfeit.log_tail


def test_cpu_time_of_a_bot_killed_for_its_output_is_never_negative(hostile) -> None:
    record = play("toy", [hostile("flooder"), str(RANDOM_BOT)])
    _forfeited(record, 0, "output_flood")
    assert all(d.cpu_ms is None or d.cpu_ms >= 0 for d in record.decisions)
    assert record.totals[0].cpu_ms is None or record.totals[0].cpu_ms >= 0


def test_sockets_without_end_are_stopped_at_the_socket_limit(hostile) -> None:
    """Socket buffers are memory no resident sum counts: 1600 sockets held ~200 MiB that way.
    Past 256 Unix sockets the sandbox is killed whole."""
    record = play("toy", [hostile("socket_hoarder"), str(RANDOM_BOT)])
    forfeit = _forfeited(record, 0, "crash")
    assert "sockets, over the limit of 256" in forfeit.message, forfeit.message


# --- issue 35: a clock no bot can turn into a void match --------------------------------------


@pytest.mark.parametrize("mode", ["sleep", "stop"])
def test_helpers_stopped_before_a_sleep_do_not_void_the_match(hostile, mode: str) -> None:
    """void_attacker: busy helpers born after the referee's last walk, stopped, then a sleep
    (or the bot stopping itself) past the clock, on a host made busy as a worker is. Their
    earlier waits are not in the decision's window: a plain ``timeout``, rated, not void."""
    from tests.referee.load import hogs

    # Its decisions stay under the limit until the attack, so no walk after the first one
    # happens at the end of one; referee/match.py measures on the busy host: a cap of 2.5 s.
    tc = TimeControl(decision_ms=1000, bank_ms=0)
    with hogs(8, limit_s=60):
        record = play("toy", [hostile("void_attacker", **{"mode.txt": mode}), str(RANDOM_BOT)], tc=tc)
    forfeit = _forfeited(record, 0, "timeout")
    assert forfeit.decision >= 4  # it played its first decisions, helpers running
    slow = next(d for d in record.decisions if d.n == forfeit.decision)
    assert slow.wall_ms >= 1000  # its whole allowed time, then cut off


def test_a_bot_cannot_lower_its_autogroup_weight(hostile) -> None:
    """autogroup_starver tries to set its session's autogroup to nice 19 (its threads' own nice
    staying 0), which would have it starved by every other task and look host-starved. The
    sandbox's /proc is read-only: the write is refused, and the bot, with nothing to gain, plays
    on. (A weight lowered some other way is not forgiven: test_fair_clock.py.)"""
    record = play("toy", [hostile("autogroup_starver"), str(RANDOM_BOT)])
    assert record.forfeits == [], record.forfeits
    note = next(d.comment for d in record.decisions if d.seat == 0 and not d.forced)
    assert "Read-only file system" in note, note


# --- the shared kernel: reaped children, socket and pipe buffers, locks, quotas (issue 35) -----


def test_the_shared_kernel_surfaces_are_shut(hostile) -> None:
    report = _probe_report(play("toy", [hostile("syscall_probe"), str(RANDOM_BOT)]))
    kernel_surface.check(report["issue35"], kernel_surface.reaped_children_counted())


@pytest.fixture(scope="module")
def collusion(tmp_path_factory) -> list[tuple[list[int], list[str]]]:
    """Two copies of the colluder, sender in seat 0 (with the secret), receiver in seat 1,
    over kernel_surface.MATCHES matches: (secret, the receiver's comments) of each."""
    rng = random.Random()
    receiver = tmp_path_factory.mktemp("receiver") / "colluder"
    shutil.copytree(HOSTILE / "colluder", receiver)
    out = []
    for k in range(kernel_surface.MATCHES):
        sender = tmp_path_factory.mktemp(f"sender{k}") / "colluder"
        shutil.copytree(HOSTILE / "colluder", sender)
        secret = kernel_surface.make_secret(rng)
        (sender / "secret.txt").write_text("\n".join(f"{w:04x}" for w in secret))
        record = play("toy", [str(sender), str(receiver)], seed=k + 1)
        assert record.forfeits == [], record.forfeits
        out.append((secret, [d.comment for d in record.decisions if d.seat == 1 and d.comment]))
    return out


@pytest.mark.parametrize("channel", [
    pytest.param(c, marks=pytest.mark.xfail(reason=kernel_surface.KNOWN_OPEN[c], strict=False))
    if c in kernel_surface.KNOWN_OPEN else c
    for c in (*kernel_surface.WIDE, *kernel_surface.NARROW)])
def test_two_bots_at_one_table_cannot_pass_bits(collusion, channel: str) -> None:
    right, n = kernel_surface.decoded(collusion)[channel]
    assert right <= kernel_surface.allowed(channel, n), (kernel_surface.NAMES[channel], right, n)


def test_cpu_of_children_the_kernel_would_reap_is_counted(hostile) -> None:
    record = play("toy", [hostile("reaped_burners"), str(RANDOM_BOT)])
    assert record.forfeits == []
    mine = [d for d in record.decisions if d.seat == 0 and not d.forced]
    kernel_surface.check_burners([d.comment for d in mine], [d.cpu_ms for d in mine])


# --- kernel memory in no process: socket buffers, pipes, mappings (issue 35, part 3) ----------

WMEM_DEFAULT = int(Path("/proc/sys/net/core/wmem_default").read_text())
#: python and grpc take ~20 MiB of a memory cgroup: small enough that each attack passes it.
PIPE_LIMITS, MAP_LIMITS = SandboxLimits(memory_mb=80), SandboxLimits(memory_mb=60)


def test_raised_socket_buffers_are_counted_as_memory(hostile) -> None:
    """80 sockets with SO_SNDBUF at wmem_max hold ~640 MiB in the kernel: within the socket cap,
    under a 400 MiB limit. The memory cgroup charges socket buffers on this kernel (the kernel's
    OOM killer ends it, and the message says how much of it was kernel memory); where it does
    not, the watch adds the buffers' ceiling to the group's usage."""
    record = play("toy", [hostile("socket_buffers", **{"mode.txt": "80"}), str(RANDOM_BOT)],
                  limits=HOLD_LIMITS)
    if ceilings().buffers_fixed:  # SO_SNDBUF is a no-op: 80 default buffers are ~17 MiB
        assert record.forfeits == [] and _comment(record).endswith(f"sndbuf={WMEM_DEFAULT}")
        return
    forfeit = _forfeited(record, 0, "crash")
    assert "out of memory" in forfeit.message and "400 MiB" in forfeit.message, forfeit.message
    assert "socket buffers" in forfeit.message, forfeit.message


def test_pipe_buffers_are_counted_as_memory(hostile) -> None:
    """120 pipes grown to fs.pipe-max-size and filled: the bot's uid may hold 64 MiB of pipe
    pages (fs.pipe-user-pages-soft), then two pages a pipe; with python that passes 80 MiB."""
    record = play("toy", [hostile("pipe_hoarder", **{"mode.txt": "120"}), str(RANDOM_BOT)],
                  limits=PIPE_LIMITS)
    if ceilings().pipes_fixed:  # F_SETPIPE_SZ denied: 120 pipes of 64 KiB are 7.5 MiB
        assert record.forfeits == [] and _comment(record) == "pipes=120 buffered=7MiB"
        return
    forfeit = _forfeited(record, 0, "crash")
    assert "out of memory" in forfeit.message and "80 MiB" in forfeit.message, forfeit.message
    assert "kernel memory" in forfeit.message, forfeit.message


def test_many_small_mappings_are_counted_as_memory(hostile) -> None:
    """240,000 untouched one-page mappings in four processes: ~55 MiB of kernel structures and
    nothing resident. The memory cgroup charges them here (OOM at 60 MiB)."""
    record = play("toy", [hostile("map_spray", **{"mode.txt": "240000 4"}), str(RANDOM_BOT)],
                  limits=MAP_LIMITS, tc=TimeControl(5000, 20000))
    forfeit = _forfeited(record, 0, "crash")
    assert "out of memory" in forfeit.message and "kernel memory" in forfeit.message, forfeit.message


@pytest.mark.parametrize("mode", ["socket", "pipe"])
def test_pages_cannot_be_pinned_by_splice(hostile, mode: str) -> None:
    """One byte of each huge page handed to a pipe (or on into a socket) and the page unmapped
    would keep it alive where no resident sum sees it (a memory cgroup still charges it): the
    filter answers vmsplice/splice ENOSYS, so nothing is pinned and the bot plays on."""
    record = play("toy", [hostile("splice_pin", **{"mode.txt": f"{mode} 600"}), str(RANDOM_BOT)],
                  limits=HOLD_LIMITS)
    assert record.forfeits == [], record.forfeits
    assert _comment(record) == "pinned=0MiB vmsplice ENOSYS", _comment(record)


def test_a_bot_that_is_not_dumpable_is_still_seen_by_a_root_referee(hostile) -> None:
    """As root the referee reads every process; the memory cgroup counts it anyway. (Without
    root, hiding is what kills it: test_unprivileged_referee.py.)"""
    record = play("toy", [hostile("undumpable"), str(RANDOM_BOT)], tc=TimeControl(5000, 20000))
    assert record.forfeits == [] and _comment(record) == "hidden rc=0"


def test_a_memory_cgroup_that_does_not_charge_kernel_memory_gets_the_ceilings_added(
        hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a kernel whose memory cgroup did not charge socket buffers (told so here), the watch
    adds each socket's ceiling to the group's usage: 80 sockets that could hold 8 MiB each pass
    400 MiB although they hold nothing, and the watch names them."""
    from referee import sandbox_watch

    monkeypatch.setattr(sandbox_watch, "cgroup_charges_kernel_memory", lambda: False)
    monkeypatch.setattr(sandbox, "cgroup_charges_kernel_memory", lambda: False)
    if os.geteuid() != 0 or ceilings().buffers_fixed:
        pytest.skip("needs a memory cgroup (root) and buffers a bot can raise")
    record = play("toy", [hostile("socket_buffers", **{"mode.txt": "80 empty"}), str(RANDOM_BOT)],
                  limits=HOLD_LIMITS)
    forfeit = _forfeited(record, 0, "crash")
    assert "the memory watch killed" in forfeit.message, forfeit.message
    assert "charged to its memory cgroup" in forfeit.message, forfeit.message
    assert "in the buffers of" in forfeit.message and "400 MiB limit" in forfeit.message


# --- issue 35: a bot's CPU outside its turn does not run ---------------------------------------


def test_a_spinning_opponent_does_not_run_while_the_other_seat_thinks(hostile) -> None:
    """``spinner`` answers at once and keeps six busy processes (one forking without end, all
    sending SIGCONT to each other): frozen while the counter bot thinks, it takes none of its
    CPU, and the match is played to a rated end (tests/referee/starve.py says how it is judged)."""
    from tests.referee import starve

    spinner = hostile("spinner")
    calm, spinning = [], []
    for seed in (1, 2):  # alternating, so both see the same noise of a shared machine
        calm.append(starve.figures(play("toy", [str(starve.COUNTER), str(RANDOM_BOT)], seed=seed)))
        spinning.append(starve.figures(play("toy", [str(starve.COUNTER), spinner], seed=seed)))
    starve.check(calm, spinning)
