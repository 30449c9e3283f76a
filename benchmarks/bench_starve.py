"""Can a bot starve the seat that is thinking? The sample ISMCTS bot's iterations per decision
against a calm opponent (the random bot) and against ``spinner`` (a hostile bot that answers at
once but keeps six busy processes running all the time), in both referee modes.

Bots do not ponder: every hosted seat is frozen while it is not on turn (docs/referee.md, "Bots
do not ponder"), so the spinner's processes do not run while the ISMCTS bot thinks and the
ratio ``spinner / calm`` of its median iterations per decision should stay near 1 (goal
>= 0.95). The same run also plays the spinner with freezing switched off in this process
(``unfrozen``; root mode only, a benchmark-only patch), to show what the defence is worth on
the same machine at the same time.

Matches alternate (calm, spinner, [unfrozen]) round by round with the same seeds, so each side
sees the same games and the same noise of a shared machine; figures are medians over every
searched decision (a decision with one legal option is not searched).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.bot_client import BotClient
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from referee.sandbox import BotProcess

PROJECT = Path(__file__).resolve().parents[1]
ISMCTS = PROJECT / "sample_bots" / "ismcts"
CALM = PROJECT / "sample_bots" / "random_bot"
SPINNER = PROJECT / "tests" / "referee" / "hostile_bots" / "spinner"
GAME = "solenia"
GOAL = 0.95


@contextlib.contextmanager
def _no_freezing() -> Iterator[None]:
    """Freezing off in this process (what the referee did before bots were frozen)."""
    original = BotProcess.freeze
    BotProcess.freeze = lambda self: True  # type: ignore[method-assign]
    try:
        yield
    finally:
        BotProcess.freeze = original  # type: ignore[method-assign]


@contextlib.contextmanager
def _launched() -> Iterator[list[BotClient]]:
    """The clients the runner launches, in seat order (it launches them one by one)."""
    seen: list[BotClient] = []
    original = BotClient.__dict__["launch"]

    def launch(cls: type[BotClient], *args: Any, **kwargs: Any) -> BotClient:
        client = original.__func__(cls, *args, **kwargs)
        seen.append(client)
        return client

    BotClient.launch = classmethod(launch)  # type: ignore[method-assign,assignment]
    try:
        yield seen
    finally:
        BotClient.launch = original  # type: ignore[method-assign]


def play(opponent: Path, seed: int, decision_ms: int) -> dict[str, Any]:
    """One match, ISMCTS in seat 0: its iterations per searched decision, both seats' CPU, any
    forfeit (reported, not hidden: the searched decisions before it still count), and the CPU
    the opponent used while the ISMCTS bot was on turn — read at each decision event, which
    comes between turns: what it could have taken from it, unlike the iteration count not moved
    by the other work of a shared machine."""
    taken = {"last": None, "ms": 0.0}

    def on_event(event: dict[str, Any], seen: list[BotClient]) -> None:
        if event["type"] != "decision" or len(seen) < 2:
            return
        cpu = seen[1].cpu_ms()
        if cpu is None:
            return
        if event["seat"] == 0 and taken["last"] is not None:
            taken["ms"] += cpu - taken["last"]
        taken["last"] = cpu

    with _launched() as seen:
        record = run_match(MatchConfig(GAME, [SeatSpec("ismcts", str(ISMCTS)), SeatSpec("other", str(opponent))],
                                       seed=seed, match_id=f"starve-{opponent.name}-{seed}",
                                       time_control=TimeControl(decision_ms, decision_ms * 10)),
                           on_event=lambda event: on_event(event, seen))
    iterations = [int(d.comment.split()[1]) for d in record.decisions
                  if d.seat == 0 and not d.forced and d.comment.startswith("ISMCTS ")]
    return {"iterations": iterations, "ismcts_cpu_ms": record.totals[0].cpu_ms or 0.0,
            "other_cpu_ms": record.totals[1].cpu_ms or 0.0, "taken_ms": taken["ms"],
            "forfeits": [f"seat {f.seat} {f.reason} at decision {f.decision}: {f.message}"
                         for f in record.forfeits]}


def measure(rounds: int, decision_ms: int, unfrozen: bool) -> dict[str, Any]:
    """Alternate the opponents ``rounds`` times; medians and ratios of iterations per decision."""
    sides = {"calm": CALM, "spinner": SPINNER}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in [*sides, *(["unfrozen"] if unfrozen else [])]}
    for r in range(rounds):
        for name, bot in sides.items():
            runs[name].append(play(bot, 1000 + r, decision_ms))
        if unfrozen:
            with _no_freezing():
                runs["unfrozen"].append(play(SPINNER, 1000 + r, decision_ms))
    out: dict[str, Any] = {"uid": os.geteuid()}
    for name, matches in runs.items():
        its = [i for m in matches for i in m["iterations"]]
        out[name] = {"iterations_per_decision": statistics.median(its), "decisions": len(its),
                     "ismcts_cpu_ms": round(sum(m["ismcts_cpu_ms"] for m in matches)),
                     "opponent_cpu_ms": round(sum(m["other_cpu_ms"] for m in matches)),
                     "opponent_cpu_while_ismcts_on_turn_ms": round(sum(m["taken_ms"] for m in matches)),
                     "forfeits": [f for m in matches for f in m["forfeits"]]}
    calm = out["calm"]["iterations_per_decision"]
    out["ratio"] = round(out["spinner"]["iterations_per_decision"] / calm, 3)
    if unfrozen:
        out["ratio_unfrozen"] = round(out["unfrozen"]["iterations_per_decision"] / calm, 3)
    return out


def bench(rounds: int = 3, decision_ms: int = 200, modes: tuple[str, ...] = ("root", "unprivileged"),
          unfrozen: bool = True) -> dict[str, Any]:
    """The figures of every mode asked for: ``root`` in this process, ``unprivileged`` as a user
    that is not root (:mod:`benchmarks.as_user`). Run by a user that is not root, the
    unprivileged mode is measured in this process and the root mode cannot be."""
    if not SPINNER.is_dir():
        raise FileNotFoundError(f"the spinner bot is not here ({SPINNER}): run from a clone of the repository")
    out: dict[str, Any] = {"game": GAME, "decision_ms": decision_ms, "rounds": rounds, "goal": f"ratio >= {GOAL}"}
    if os.geteuid() != 0:
        if "root" in modes:
            out["root"] = "not measured: this process is not root"
        if "unprivileged" in modes:
            out["unprivileged"] = measure(rounds, decision_ms, unfrozen)
        return out
    if "root" in modes:
        out["root"] = measure(rounds, decision_ms, unfrozen)
    if "unprivileged" in modes:
        from benchmarks.as_user import run_module

        text = run_module("benchmarks.bench_starve", ["--inner", str(rounds), str(decision_ms)],
                          timeout_s=120 + rounds * 90)
        line = next((ln for ln in text.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            raise RuntimeError(f"the unprivileged run printed no result:\n{text[-2000:]}")
        out["unprivileged"] = json.loads(line[len("RESULT "):])
    return out


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inner", nargs=2, type=int, metavar=("ROUNDS", "DECISION_MS"),
                        help="measure in this process only and print one RESULT line (the unprivileged run)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.inner:
        print("RESULT " + json.dumps(measure(args.inner[0], args.inner[1], unfrozen=False)), flush=True)
        return
    for key, value in bench(args.rounds).items():
        print(f"{key:<14} {json.dumps(value) if isinstance(value, dict) else value}")


if __name__ == "__main__":
    main(sys.argv[1:])
