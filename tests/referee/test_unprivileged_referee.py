"""The hostile bots again, with the referee running as a user that is not root (issue 11, item 4):
no per-bot uid and no cgroups there, so what holds is RLIMIT_NPROC inside the sandbox's own user
namespace, the referee's memory watch, size-capped tmpfs for every writable place, and the
socket reached without following the bot's links.

CI runs as root, so the test makes a user (``useradd``) and runs the referee as that user with
``setpriv``; it is never skipped. This machine's Python may live under a folder other users
cannot enter (``/root/.pyenv``): the referee then runs in a private mount namespace where only
the folders it needs are made reachable, which changes nothing for anyone else. Run as a
non-root developer, the referee simply runs as that developer.
"""

from __future__ import annotations

import json
import os
import pwd
import random
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee import sandbox, seccomp
from referee.sandbox_watch import ceilings
from tests.referee import kernel_surface
from tests.referee.helpers import HOSTILE, RANDOM_BOT, landlock_abi, needs_bwrap

pytestmark = needs_bwrap

PROJECT = Path(__file__).resolve().parents[2]
USER = "arena-unpriv-test"
BOTS = ("fork_bomb", "fork_hog", "space_filler", "sock_squatter", "sock_symlink", "syscall_probe",
        "memory_hog", "file_spray", "socket_families", "signal_other", "stale_id", "flooder",
        "flood_at_start", "file_writer", "illegal_id", "sleeper", "socket_hoarder",
        "void_attacker", "autogroup_starver",
        "reaped_burners", "colluder")
#: The memory_holder bots (folder name -> mode.txt), each played under a 400 MiB limit.
HOLDERS = {f"memory_holder-{kind}": f"{kind} {mib}" for kind, mib in (
    ("memfd", 1024), ("memfd_mapped", 1024), ("sysv", 1024), ("posix_shm", 1024),
    ("tmpfs", 1024), ("heap", 1024), ("mmap_shared", 1024), ("tmpfs_heap", 200))}

#: Kernel memory in no process (issue 35): folder -> (bot, mode.txt, memory limit in MiB).
KERNEL_BOTS = {"socket_buffers": ("socket_buffers", "80", 400),
               "pipe_hoarder": ("pipe_hoarder", "120", 150),
               "map_spray": ("map_spray", "240000 4", 400),
               "socket_buffers_pool": ("socket_buffers", "70", 2048),
               "splice_pin-socket": ("splice_pin", "socket 600", 400),
               "splice_pin-pipe": ("splice_pin", "pipe 600", 400),
               "undumpable": ("undumpable", "-", 2048)}


def _test_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                               "/usr/sbin/nologin", USER], capture_output=True, text=True)
    try:
        return pwd.getpwnam(USER)  # made now, or by a test run beside this one
    except KeyError:
        raise AssertionError(f"cannot create the test user {USER}: {made.stderr}") from None


def _others_may_enter(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXOTH)


def _reachability_script(needed: list[Path]) -> str:
    """Shell lines (run as root in a private mount namespace) that make ``needed`` reachable
    by any user: each topmost folder others may not enter is covered by a tmpfs into which only
    the needed paths are bound back."""
    lines = ["set -e", "stash=$(mktemp -d)"]
    covered: dict[Path, list[Path]] = {}
    for path in needed:
        for anc in [*reversed(path.parents), path]:
            if anc != Path("/") and not _others_may_enter(anc):
                covered.setdefault(anc, []).append(path)
                break
    for i, (anc, paths) in enumerate(covered.items()):
        lines += [f"mkdir -p $stash/{i}", f"mount --bind '{anc}' $stash/{i}",
                  f"mount -t tmpfs -o mode=0755 tmpfs '{anc}'"]
        for p in paths:
            rel = p.relative_to(anc)
            lines += [f"mkdir -p '{p}'", f"mount --bind \"$stash/{i}/{rel}\" '{p}'"]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def unprivileged_run() -> dict:
    work = Path(tempfile.mkdtemp(prefix="arena-unpriv-"))
    try:
        work.chmod(0o755)
        bots = work / "bots"
        bots.mkdir()
        for name in BOTS:
            shutil.copytree(HOSTILE / name, bots / name)
        shutil.copytree(RANDOM_BOT, bots / "random_bot")
        # issue 35: the spinner, and the counter bot it must not starve
        shutil.copytree(HOSTILE / "spinner", bots / "spinner")
        shutil.copytree(HOSTILE.parent / "bots" / "counter", bots / "counter")
        for name, mode in {**HOLDERS, "memory_holder-tmpfs_pool": "tmpfs 200"}.items():
            shutil.copytree(HOSTILE / "memory_holder", bots / name)
            (bots / name / "mode.txt").write_text(mode)
        for name, (source, mode, limit) in KERNEL_BOTS.items():
            shutil.copytree(HOSTILE / source, bots / name)
            (bots / name / "mode.txt").write_text(mode)
            (bots / name / "limit.txt").write_text(str(limit))
        (bots / "sock_squatter" / "marker.txt").write_text(f"unprivsquat{os.getpid()}")
        (bots / "sock_symlink" / "target.txt").write_text(str(bots / "host-service.sock"))
        secrets = {}  # issue 35: one sender folder per match, with its secret
        for k in range(kernel_surface.MATCHES):
            secrets[f"colluder-sender-{k}"] = kernel_surface.make_secret(random.Random())
            shutil.copytree(HOSTILE / "colluder", bots / f"colluder-sender-{k}")
            (bots / f"colluder-sender-{k}" / "secret.txt").write_text(
                "\n".join(f"{w:04x}" for w in secrets[f"colluder-sender-{k}"]))
        cmd = [sys.executable, "-m", "tests.referee.unprivileged_referee", str(bots)]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": str(PROJECT), "LANG": "C.UTF-8"}
        uid = None
        if os.geteuid() == 0:
            user = _test_user()
            uid = user.pw_uid
            os.chown(bots, uid, user.pw_gid)  # it writes its host socket here
            needed = sorted({*sandbox._python_roots(), Path(sys.prefix), PROJECT})
            wrapper = (_reachability_script(needed) + "\nexec setpriv "
                       f"--reuid={uid} --regid={user.pw_gid} --clear-groups --inh-caps=-all "
                       '--bounding-set=-all -- "$@"')
            cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", wrapper, "sh", *cmd]
        done = subprocess.run(cmd, cwd=PROJECT, env=env, capture_output=True, text=True, timeout=300)
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
        assert line is not None, f"the unprivileged referee failed:\n{done.stdout}\n{done.stderr}"
        result = json.loads(line[len("RESULT "):])
        result["secrets"] = secrets
        if uid is not None:
            result["survivors"] = sandbox.pids_of_uid(uid)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _forfeit(run: dict, reason: str) -> dict:
    assert [(f["seat"], f["reason"]) for f in run["forfeits"]] == [(0, reason)], run["forfeits"]
    return run["forfeits"][0]


def test_the_referee_really_was_not_root(unprivileged_run: dict) -> None:
    assert unprivileged_run["uid"] != 0 and unprivileged_run["euid"] != 0
    assert unprivileged_run.get("survivors", []) == []  # nothing of that user runs afterwards


def test_fork_bomb_hits_the_process_limit_of_its_user_namespace(unprivileged_run: dict) -> None:
    run = unprivileged_run["fork_bomb"]
    forfeit = _forfeit(run, "crash")
    forks = int(forfeit["log_tail"].split("fork failed after ")[1].split()[0])
    assert forks < 64
    assert run["left_running"] == []  # its sleeping children died with the sandbox


def test_memory_in_forked_children_is_bounded_by_the_watch(unprivileged_run: dict) -> None:
    run = unprivileged_run["fork_hog"]
    assert run["forfeits"] == []  # the largest processes (the children) were killed, not the bot
    killed, ok = (int(part.split("=")[1]) for part in run["comment"].split())
    assert killed + ok == 5 and killed >= 2  # 5 x 100 MiB cannot fit in 300 MiB
    assert unprivileged_run["memory_kills"] >= 2
    assert run["left_running"] == []


def test_a_4_gib_allocation_fails_inside_the_address_space_limit(unprivileged_run: dict) -> None:
    forfeit = _forfeit(unprivileged_run["memory_hog"], "bot_error")
    assert "MemoryError allocating 4 GiB" in forfeit["log_tail"]


def test_tmp_and_dev_shm_are_capped_and_the_rest_is_read_only(unprivileged_run: dict) -> None:
    run = unprivileged_run["space_filler"]
    assert run["forfeits"] == []
    notes = dict(part.split("=", 1) for part in run["comment"].split(" | "))
    assert notes["/tmp"] in ("256MiB ENOSPC", "255MiB ENOSPC"), notes
    assert notes["/dev/shm"] in ("64MiB ENOSPC", "63MiB ENOSPC"), notes
    assert notes["/dropped"] == "EROFS" and notes["/dev/dropped"] == "EROFS", notes
    assert notes["/arena/dropped"] == "EROFS", notes
    assert run["cpu_ms"] is not None and run["cpu_ms"] > 0


def test_socket_folder_writes_stay_in_a_capped_tmpfs(unprivileged_run: dict) -> None:
    run = unprivileged_run["sock_squatter"]
    assert run["forfeits"] == []
    before, after = run["comment"].split(" after:")
    if landlock_abi() > 0:
        # Landlock: its socket and nothing else, before and after it is ready, although the
        # folder is its own uid's.
        assert (before, after) == ("before:mkdir=EACCES", "mkdir=EACCES"), run["comment"]
    else:
        kib = [int(p.split("wrote=")[1].split("KiB")[0]) for p in (before, after) if "wrote=" in p]
        assert "ENOSPC" in before and sum(kib) <= 1024, run["comment"]  # one 1 MiB tmpfs in all
    tmp = tempfile.gettempdir()
    marker = f"unprivsquat{os.getpid()}"
    assert not any(marker in name for _, dirs, files in os.walk(tmp) for name in dirs + files
                   if not name.startswith("pytest"))


def test_files_without_end_are_stopped_at_the_file_limit(unprivileged_run: dict) -> None:
    run = unprivileged_run["file_spray"]
    forfeit = _forfeit(run, "crash")
    assert "files in its tmpfs, over the limit of 4096" in forfeit["message"], forfeit["message"]
    assert run["left_running"] == []


def test_a_symlinked_socket_is_refused(unprivileged_run: dict) -> None:
    forfeit = _forfeit(unprivileged_run["sock_symlink"], "start_failed")
    if landlock_abi() > 0:
        assert "os.symlink" in forfeit["log_tail"] and "Permission denied" in forfeit["log_tail"]
    else:
        assert "symbolic link" in forfeit["message"]
    assert unprivileged_run["host_socket_dialled"] is False


def test_seccomp_and_no_nested_namespaces_without_root(unprivileged_run: dict) -> None:
    forfeit = _forfeit(unprivileged_run["syscall_probe"], "bot_error")
    line = next(ln for ln in forfeit["log_tail"].splitlines() if ln.startswith("PROBE "))
    report = json.loads(line[len("PROBE "):])
    wrong = {n: report["calls"][n] for n in seccomp.DENIED if report["calls"][n] != "EPERM"}
    assert wrong == {}
    assert report["calls"]["clone(CLONE_NEWUSER)"] == "EPERM"
    for cmd in ("unshare -Urm", "unshare -Ur", "nested bwrap", "nested bwrap pid"):
        assert not report[cmd].startswith("rc=0"), (cmd, report[cmd])
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(report["status"][cap], 16) == 0, cap


# --- issue 26: memory no resident sum sees, socket families, the other bot, the pool ---------


@pytest.mark.parametrize("kind", ["memfd", "memfd_mapped", "sysv"])
def test_memory_outside_every_process_cannot_be_made(unprivileged_run: dict, kind: str) -> None:
    run = unprivileged_run[f"memory_holder-{kind}"]
    assert run["forfeits"] == [] and run["comment"] == "held=0MiB EPERM", run


@pytest.mark.parametrize(("kind", "cap"), [("posix_shm", 64), ("tmpfs", 256)])
def test_unlinked_files_in_tmpfs_stop_at_its_size(unprivileged_run: dict, kind: str, cap: int) -> None:
    run = unprivileged_run[f"memory_holder-{kind}"]
    assert run["forfeits"] == [], run
    assert run["comment"] in (f"held={cap}MiB ENOSPC", f"held={cap - 1}MiB ENOSPC"), run


@pytest.mark.parametrize("kind", ["heap", "mmap_shared", "tmpfs_heap"])
def test_memory_over_the_limit_is_killed_by_the_watch_and_named(unprivileged_run: dict,
                                                                 kind: str) -> None:
    """tmpfs_heap: 256 MiB in unlinked /tmp files and 200 MiB of heap pass 400 MiB only if the
    watch counts the tmpfs: it does, and the forfeit says memory."""
    run = unprivileged_run[f"memory_holder-{kind}"]
    forfeit = _forfeit(run, "crash")
    assert "SIGKILL" in forfeit["message"] and "out of memory" in forfeit["message"], forfeit
    assert "400 MiB limit" in forfeit["message"]
    assert run["other_forced"] == 0 and run["left_running"] == []


def test_only_unix_sockets_can_be_made(unprivileged_run: dict) -> None:
    run = unprivileged_run["socket_families"]
    assert run["forfeits"] == []
    assert run["comment"] == "AF_UNIX=OK pair:AF_UNIX=OK refused=24/24", run["comment"]


def test_sockets_without_end_are_stopped_at_the_socket_limit(unprivileged_run: dict) -> None:
    run = unprivileged_run["socket_hoarder"]
    forfeit = _forfeit(run, "crash")
    assert "sockets, over the limit of 256" in forfeit["message"], forfeit["message"]
    assert run["other_forced"] == 0 and run["left_running"] == []


def test_the_other_bot_cannot_be_found_or_signalled(unprivileged_run: dict) -> None:
    """Both bots run as the referee's own uid here: only the pid namespace keeps them apart."""
    run = unprivileged_run["signal_other"]
    assert run["forfeits"] == [] and run["other_forced"] == 0
    own, foreign, killed = (int(p.split("=")[1]) for p in run["comment"].split())
    assert own >= 2 and foreign == 0 and killed == 0


@pytest.mark.parametrize(("name", "reason"), [("stale_id", "illegal_option"),
                                              ("illegal_id", "illegal_option"),
                                              ("sleeper", "timeout")])
def test_wrong_and_slow_answers_forfeit(unprivileged_run: dict, name: str, reason: str) -> None:
    run = unprivileged_run[name]
    _forfeit(run, reason)
    assert run["other_forced"] == 0


def test_output_floods_before_and_after_ready(unprivileged_run: dict) -> None:
    assert _forfeit(unprivileged_run["flood_at_start"], "output_flood")["decision"] == 0
    run = unprivileged_run["flooder"]
    _forfeit(run, "output_flood")
    # The CPU read after the kill once came out 90-130 ms below the one before (issue 26).
    assert all(ms is None or ms >= 0 for ms in run["decision_cpu_ms"]), run["decision_cpu_ms"]
    assert run["cpu_ms"] is None or run["cpu_ms"] >= 0


def test_writes_stop_at_the_file_size_limit_and_code_is_read_only(unprivileged_run: dict) -> None:
    run = unprivileged_run["file_writer"]
    assert run["forfeits"] == []
    assert "big=64MiB EFBIG" in run["comment"] and "/arena/bot/dropped.txt=EROFS" in run["comment"]


def test_the_pool_retires_a_bot_keeping_unlinked_files(unprivileged_run: dict) -> None:
    held = unprivileged_run["pool:memory_holder-tmpfs_pool"]
    assert held["forfeits"] == [] and held["reuses"] == 1  # its opponent's; never the holder
    assert set(held["retired"]) == {"files"}, held
    clean = unprivileged_run["pool:random_bot"]
    assert clean == {"forfeits": [], "retired": {}, "reuses": 2}


# --- issue 35: a clock no bot can turn into a void match --------------------------------------


def test_a_bot_cannot_turn_its_lost_clock_into_a_void_match(unprivileged_run: dict) -> None:
    """Busy helpers stopped before a sleep on a host made busy: a plain ``timeout`` (rated, the
    other seat playing on), never a void match."""
    run = unprivileged_run["void_attacker"]
    assert "void" not in run, run.get("void")
    forfeit = _forfeit(run, "timeout")
    assert forfeit["decision"] > 0 and run["other_forced"] == 0


def test_a_bot_cannot_lower_its_autogroup_weight(unprivileged_run: dict) -> None:
    """/proc is read-only in the sandbox: the write to its autogroup is refused; it plays on."""
    run = unprivileged_run["autogroup_starver"]
    assert run["forfeits"] == [] and "Read-only file system" in run["comment"], run


# --- issue 35: the shared kernel, reaped children, two bots at one table -----------------------


def test_the_shared_kernel_surfaces_are_shut(unprivileged_run: dict) -> None:
    forfeit = _forfeit(unprivileged_run["syscall_probe"], "bot_error")
    line = next(ln for ln in forfeit["log_tail"].splitlines() if ln.startswith("PROBE "))
    kernel_surface.check(json.loads(line[len("PROBE "):])["issue35"])


def test_cpu_of_children_the_kernel_would_reap_is_counted(unprivileged_run: dict) -> None:
    run = unprivileged_run["reaped_burners"]
    assert run["forfeits"] == [], run
    kernel_surface.check_burners(run["comments"], run["cpu_ms"])


@pytest.mark.parametrize("channel", [
    pytest.param(c, marks=pytest.mark.xfail(reason=kernel_surface.KNOWN_OPEN[c], strict=False))
    if c in kernel_surface.KNOWN_OPEN else c
    for c in (*kernel_surface.WIDE, *kernel_surface.NARROW)])
def test_two_bots_at_one_table_cannot_pass_bits(unprivileged_run: dict, channel: str) -> None:
    matches = unprivileged_run["collusion"]
    assert len(matches) == kernel_surface.MATCHES and all(m["forfeits"] == [] for m in matches)
    pairs = [(unprivileged_run["secrets"][m["sender"]], m["comments"]) for m in matches]
    right, n = kernel_surface.decoded(pairs)[channel]
    assert right <= kernel_surface.allowed(channel, n), (kernel_surface.NAMES[channel], right, n)


# --- issue 35: socket buffers, pipes and mappings, counted by the watch ----------------------


def test_raised_socket_buffers_are_counted_by_the_watch(unprivileged_run: dict) -> None:
    """80 sockets at SO_SNDBUF = wmem_max: each is charged the most it can hold, which passes
    400 MiB; the forfeit names the sockets."""
    run = unprivileged_run["socket_buffers"]
    if ceilings().buffers_fixed:  # SO_SNDBUF is a no-op: 80 default buffers are ~17 MiB
        wmem_default = Path("/proc/sys/net/core/wmem_default").read_text().strip()
        assert run["forfeits"] == [] and run["comment"].endswith(f"sndbuf={wmem_default}"), run
        return
    forfeit = _forfeit(run, "crash")
    assert "out of memory" in forfeit["message"] and "400 MiB limit" in forfeit["message"], forfeit
    assert "in the buffers of" in forfeit["message"] and "sockets" in forfeit["message"], forfeit
    assert run["other_forced"] == 0 and run["left_running"] == []


def test_pipe_buffers_are_counted_by_the_watch(unprivileged_run: dict) -> None:
    run = unprivileged_run["pipe_hoarder"]
    if ceilings().pipes_fixed:  # F_SETPIPE_SZ denied: 120 pipes of 64 KiB are 7.5 MiB
        assert run["forfeits"] == [] and run["comment"] == "pipes=120 buffered=7MiB", run
        return
    forfeit = _forfeit(run, "crash")
    assert "out of memory" in forfeit["message"] and "pipes" in forfeit["message"], forfeit
    assert run["other_forced"] == 0 and run["left_running"] == []


def test_many_small_mappings_stop_at_the_mapping_cap(unprivileged_run: dict) -> None:
    run = unprivileged_run["map_spray"]
    forfeit = _forfeit(run, "crash")
    assert "memory mappings, over the limit of 32768" in forfeit["message"], forfeit
    assert run["other_forced"] == 0 and run["left_running"] == []


def test_the_pool_retires_a_bot_keeping_full_socket_buffers(unprivileged_run: dict) -> None:
    held = unprivileged_run["pool:socket_buffers_pool"]
    if ceilings().buffers_fixed:  # 70 default buffers (~15 MiB) are within the idle limit
        assert held == {"forfeits": [], "retired": {}, "reuses": 2}, held
        return
    assert held["forfeits"] == [] and held["reuses"] == 1, held  # its opponent's, never its own
    assert set(held["retired"]) == {"sockets"}, held


def test_a_bot_that_hides_from_the_watch_is_killed(unprivileged_run: dict) -> None:
    """Not dumpable, its descriptors and mappings are unreadable to a referee that is not root:
    unreadable for a second, the sandbox is killed (a process dying after a kill is unreadable
    only for a moment). As root the referee reads it, and it plays on (test_hostile_bots.py)."""
    run = unprivileged_run["undumpable"]
    forfeit = _forfeit(run, "crash")
    assert "hid their descriptors or mappings from the memory watch" in forfeit["message"], forfeit
    assert run["other_forced"] == 0 and run["left_running"] == []


@pytest.mark.parametrize("mode", ["socket", "pipe"])
def test_pages_pinned_by_splice_are_stopped(unprivileged_run: dict, mode: str) -> None:
    """600 MiB of huge pages unmapped after one byte of each went into a pipe (or on into a
    socket) under a 400 MiB limit: no memory cgroup would see them, so the filter denies the
    calls (ENOSYS) and nothing is pinned."""
    run = unprivileged_run[f"splice_pin-{mode}"]
    denied = run["forfeits"] == [] and run["comment"] == "pinned=0MiB vmsplice ENOSYS"
    assert denied, run
    assert run["other_forced"] == 0 and run["left_running"] == []


# --- issue 35: a bot's CPU outside its turn does not run ---------------------------------------


def test_a_spinning_opponent_does_not_run_while_the_other_seat_thinks(unprivileged_run: dict) -> None:
    """Without root there is no freezer group: every process of the spinner's sandbox is sent
    SIGSTOP through its own /proc, walk after walk, although one of them forks without end and
    all of them send SIGCONT to each other (tests/referee/starve.py says how it is judged)."""
    from tests.referee import starve

    run = unprivileged_run["starve"]
    starve.check(run["calm"], run["spinner"])
