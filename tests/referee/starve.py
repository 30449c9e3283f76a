"""Shared by the root and the unprivileged run of the ``spinner`` attack (issue 35): what a match
of the CPU-bound counter bot against an opponent shows, and the checks on it.

Why two measures: the counter's work per decision is the thing to protect, but on a shared,
loaded two-core machine it moves by 30% or more between matches whatever the opponent does, so
it can only be held to "not reduced beyond noise". What is exact is the opponent's CPU outside
its turns: each of its decisions is charged the CPU its sandbox used since its previous one,
its opponent's turns included, so a spinner that kept running would show the counter's whole
thinking time there, and a frozen one shows no more than its own short turns could hold."""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import Any

from referee.record import MatchRecord

COUNTER = Path(__file__).parent / "bots" / "counter"
#: Reading the CPU of a sandbox without cgroups is in 10 ms ticks, the memory watch adds its
#: children's up to 50 ms late, and on a loaded host a freeze of six busy processes lands tens of
#: ms late (seen: 249 ms against a 222 ms bound in a full two-worker run): the slack allowed
#: beyond what its own turns could hold. A spinner left running while the counter thinks (150 ms
#: a decision) takes well over a second of CPU a match, so the bound still tells the two apart.
CPU_SLACK_MS = 200.0


def figures(record: MatchRecord) -> dict[str, Any]:
    """The counter (seat 0) against the opponent (seat 1): JSON-ready."""
    other = [d for d in record.decisions if d.seat == 1 and not d.forced]
    return {
        "forfeits": [(f.seat, f.reason, f.message) for f in record.forfeits],
        "rated": record.result is not None and record.result.get("ranks") is not None,
        "counts": [int(d.comment.split()[0].removeprefix("count=")) for d in record.decisions
                   if d.seat == 0 and not d.forced],
        "other_cpu_ms": sum(d.cpu_ms or 0.0 for d in other),
        "other_wall_ms": sum(d.wall_ms for d in other),
        "other_comments": [d.comment for d in other],
    }


def check(calm: list[dict[str, Any]], spinner: list[dict[str, Any]]) -> None:
    """Every match was played to a rated end; the spinner kept its processes busy, yet used no
    more CPU than its own turns could hold; the counter's work was not reduced beyond noise."""
    for run in calm + spinner:
        assert run["forfeits"] == [] and run["rated"], run
    cores = os.cpu_count() or 1
    for run in spinner:
        assert any(c == "busy=6" for c in run["other_comments"]), run["other_comments"]
        bound = cores * run["other_wall_ms"] + CPU_SLACK_MS
        assert run["other_cpu_ms"] <= bound, (
            f"the spinner used {run['other_cpu_ms']:.0f} ms of CPU in turns of {run['other_wall_ms']:.0f} ms "
            f"(at most {bound:.0f} ms on {cores} cores): it ran outside its turns")
    # A guard against a gross loss only: other test runs on the machine move this by half in
    # either direction between two matches (seen: 0.34 and 3.3 with the same bots); the CPU
    # check above is the one that tells a frozen spinner from a running one.
    calm_work = statistics.median(c for run in calm for c in run["counts"])
    spin_work = statistics.median(c for run in spinner for c in run["counts"])
    assert spin_work >= 0.4 * calm_work, (spin_work, calm_work)
