"""Run by test_unprivileged_referee.py as a user that is not root: plays the hostile bots'
matches with this unprivileged referee and prints one JSON line of what happened."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

from referee import registry, sandbox
from referee.bot_pool import BotPool
from referee.engine import TimeControl
from referee.match import HostOverloaded, MatchConfig, SeatSpec, run_match
from referee.sandbox import SandboxLimits
from referee.sandbox_watch import MEMORY_WATCH
from tests.referee.load import hogs
from tests.toy_game import ToyState

registry.register(ToyState)
BOTS = Path(sys.argv[1])
RANDOM = str(BOTS / "random_bot")


def own_processes() -> list[int]:
    """Processes of this uid other than this referee: what outlived a match."""
    uid = os.getuid()
    return [p for p in sandbox.pids_of_uids(uid, uid) if p != os.getpid()]


def play(name: str, **kwargs) -> dict:
    record = run_match(MatchConfig("toy", [SeatSpec("a", str(BOTS / name)), SeatSpec("b", RANDOM)],
                                   seed=1, match_id=f"unpriv-{name}", **kwargs))
    return {
        "forfeits": [{"seat": f.seat, "reason": f.reason, "message": f.message,
                      "decision": f.decision, "log_tail": f.log_tail[-8000:]} for f in record.forfeits],
        "comment": next((d.comment for d in record.decisions if d.seat == 0 and not d.forced), ""),
        "cpu_ms": record.totals[0].cpu_ms,
        "decision_cpu_ms": [d.cpu_ms for d in record.decisions if d.seat == 0],
        "other_forced": sum(1 for d in record.decisions if d.seat == 1 and d.forced),
        "left_running": own_processes(),
    }


def pooled(name: str) -> dict:
    """Two matches of one bot through a warm pool: was it seated again, or retired, and why."""
    pool = BotPool()
    try:
        records = [run_match(MatchConfig("toy", [SeatSpec("a", str(BOTS / name)), SeatSpec("b", RANDOM)],
                                         seed=seed, match_id=f"unpriv-pool-{name}-{seed}", pool=pool))
                   for seed in (1, 2)]
        return {"forfeits": [f.reason for r in records for f in r.forfeits],
                "retired": dict(pool.retired), "reuses": pool.reuses}
    finally:
        pool.close()


def collusion(bots: Path) -> list[dict]:
    """Issue 35: two colluder copies at one table, per match (a sender folder each, holding
    its secret): the receiver's comments. And reaped_burners' comments with its CPU."""
    out = []
    for k, sender in enumerate(sorted(bots.glob("colluder-sender-*"))):
        record = run_match(MatchConfig("toy", [SeatSpec("s", str(sender)),
                                               SeatSpec("r", str(bots / "colluder"))],
                                       seed=k + 1, match_id=f"unpriv-collude-{k}"))
        out.append({"forfeits": [f.reason for f in record.forfeits], "sender": sender.name,
                    "comments": [d.comment for d in record.decisions if d.seat == 1 and d.comment]})
    return out


def burners() -> dict:
    record = run_match(MatchConfig("toy", [SeatSpec("a", str(BOTS / "reaped_burners")),
                                           SeatSpec("b", RANDOM)], seed=1,
                                   match_id="unpriv-reaped_burners"))
    mine = [d for d in record.decisions if d.seat == 0 and not d.forced]
    return {"forfeits": [f.reason for f in record.forfeits], "messages": [f.message for f in record.forfeits],
            "comments": [d.comment for d in mine],
            "cpu_ms": [d.cpu_ms for d in mine], "left_running": own_processes()}


def starve_run() -> dict:
    """Issue 35: the counter bot against a calm opponent and against the spinner, alternating
    (tests/referee/starve.py)."""
    from tests.referee import starve

    out: dict = {"calm": [], "spinner": []}
    for seed in (1, 2):
        for side, bot in (("calm", RANDOM), ("spinner", str(BOTS / "spinner"))):
            record = run_match(MatchConfig("toy", [SeatSpec("c", str(BOTS / "counter")), SeatSpec("o", bot)],
                                           seed=seed, match_id=f"unpriv-starve-{side}-{seed}"))
            out[side].append(starve.figures(record))
    out["left_running"] = own_processes()
    return out


def main() -> None:
    host_sock = BOTS / "host-service.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(host_sock))
    listener.listen()
    listener.setblocking(False)
    out = {"uid": os.getuid(), "euid": os.geteuid()}
    for name in ("fork_bomb", "space_filler", "sock_squatter", "sock_symlink", "syscall_probe",
                 "memory_hog"):
        out[name] = play(name)
    out["file_spray"] = play("file_spray", time_control=TimeControl(5000, 20000))
    out["fork_hog"] = play("fork_hog", limits=SandboxLimits(memory_mb=300))
    for path in sorted(BOTS.glob("memory_holder-*")):  # one per kind of memory (mode.txt)
        if not path.name.endswith("_pool"):
            out[path.name] = play(path.name, limits=SandboxLimits(memory_mb=400))
    for name in ("socket_families", "signal_other", "stale_id", "flooder", "flood_at_start",
                 "file_writer", "illegal_id", "socket_hoarder"):
        out[name] = play(name)
    out["sleeper"] = play("sleeper", time_control=TimeControl(decision_ms=300, bank_ms=300))
    # issue 35: bots that would turn a lost clock into a void match, on a host made busy.
    with hogs(8, limit_s=90):
        try:
            out["void_attacker"] = play("void_attacker", time_control=TimeControl(decision_ms=1000, bank_ms=0))
        except HostOverloaded as exc:
            out["void_attacker"] = {"void": str(exc), "forfeits": []}
    # Its autogroup's weight is no knob of its own (a read-only /proc): a plain timeout.
    out["autogroup_starver"] = play("autogroup_starver")
    # Kernel memory in no process (issue 35): mode.txt and the memory limit in limit.txt.
    for name in ("socket_buffers", "pipe_hoarder", "map_spray", "splice_pin-socket",
                 "splice_pin-pipe", "undumpable"):
        mb = int((BOTS / name / "limit.txt").read_text())
        out[name] = play(name, limits=SandboxLimits(memory_mb=mb),
                         time_control=TimeControl(5000, 20000))
    out["pool:socket_buffers_pool"] = pooled("socket_buffers_pool")
    out["pool:memory_holder-tmpfs_pool"] = pooled("memory_holder-tmpfs_pool")
    out["pool:random_bot"] = pooled("random_bot")
    out["collusion"] = collusion(BOTS)
    out["reaped_burners"] = burners()
    out["starve"] = starve_run()  # issue 35
    out["memory_kills"] = MEMORY_WATCH.kills
    try:
        listener.accept()
        out["host_socket_dialled"] = True
    except BlockingIOError:
        out["host_socket_dialled"] = False
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
