"""Referee overhead per decision against a bare gRPC call, and sandboxed bot start-up time.

Overhead per decision = (wall time of the match's decision loop − the bots' own think time) /
decisions. It includes everything the referee does for a decision: asking the engine for
options and the observation, encoding them, the gRPC round trip over the bot's Unix socket, the
clock, CPU accounting, applying the option and recording it. The baseline is a bare unary
``Act`` call with the same payload to the same sandboxed bot over the same socket, timed in the
same run, with the bot's think time subtracted the same way (the bot reports it in its comment).

The match is a benchmark-only game (``bench_counter``) so that one match has as many decisions
as asked and the engine's own cost stays small and fixed; the referee must not be credited or
blamed for a particular rulebook. ``solenia`` figures with a real engine are added when it loads.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.act_requests import _act_request, sample_request  # noqa: F401 - their names here too
from referee import registry
from referee._proto import bot_pb2, bot_pb2_grpc
from referee.bot_client import BotClient, BotSource
from referee.engine import GameSpec, GameState, Option, Result, TimeControl, competition_ranks
from referee.match import MatchConfig, SeatSpec, run_match

BENCH_BOT = Path(__file__).resolve().parent / "bench_bot"
OPTIONS = 8


class BenchCounterState(GameState):
    """Seats take turns choosing one of eight numbers until ``length`` decisions are made.

    The observation is sized like a real game's (a board, a hand, scores: about 1 KB of JSON).
    """

    spec = GameSpec(
        name="bench_counter",
        title="Benchmark counter",
        configurations=((2, "base"),),
        default_variant="base",
        time_control=TimeControl(decision_ms=1000, bank_ms=10000),
    )
    length = 2000

    @classmethod
    def new(cls, players: int, seed: int, variant: str | None = None) -> BenchCounterState:
        s = cls.__new__(cls)
        s.players, s.variant, s.seed = players, cls.spec.check(players, variant), seed
        s.n, s.scores = 0, [0] * players
        s.board = [[(r * 13 + c * 7 + seed) % 10 for c in range(10)] for r in range(8)]
        return s

    def to_move(self) -> int | None:
        return None if self.n >= self.length else self.n % self.players

    def legal_options(self) -> list[Option]:
        return [Option(f"take:{k}", f"take {k} points") for k in range(OPTIONS)]

    def apply(self, option_id: str) -> list[str]:
        if not option_id.startswith("take:") or not option_id[5:].isdigit() or int(option_id[5:]) >= OPTIONS:
            raise self.illegal(option_id)
        seat = self.n % self.players
        self.scores[seat] += int(option_id[5:])
        self.n += 1
        return [f"seat {seat} takes {option_id[5:]}"]

    def observation(self, seat: int) -> dict[str, Any]:
        return {"n": self.n, "seat": seat, "scores": list(self.scores), "board": self.board,
                "hand": [f"card-{i}" for i in range(12)], "log": ["a recent event line"] * 5}

    def spectator_view(self) -> dict[str, Any]:
        return self.observation(0)

    def clone(self) -> BenchCounterState:
        s = BenchCounterState.__new__(BenchCounterState)
        s.players, s.variant, s.seed, s.n = self.players, self.variant, self.seed, self.n
        s.scores, s.board = list(self.scores), self.board
        return s

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "seed": self.seed, "n": self.n, "scores": self.scores}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BenchCounterState:
        s = cls.new(data["players"], data["seed"])
        s.n, s.scores = data["n"], list(data["scores"])
        return s

    def determinise(self, seat: int, seed: int) -> BenchCounterState:
        return self.clone()

    def result(self) -> Result:
        return Result(tuple(float(x) for x in self.scores), competition_ranks(self.scores))


def _think_ms(comment: str) -> float:
    return int(comment[2:]) / 1e6 if comment.startswith("t=") else 0.0


def measure_startup(runs: int = 5) -> dict[str, float]:
    """Launch a sandboxed bot and time it to its first Act answer (StartMatch included)."""
    state = BenchCounterState.new(2, 0)
    request = _act_request(state, 0)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        client = BotClient.launch(BotSource("hosted", str(BENCH_BOT)), sandbox=True)
        try:
            client.start_match(bot_pb2.MatchStart(protocol_version=1, match_id="bench",
                                                  game="bench_counter", players=2), 10.0)
            client.act(request.SerializeToString(), 5.0)
            times.append((time.perf_counter() - t0) * 1000)
        finally:
            client.close()
    return {"median_ms": statistics.median(times), "max_ms": max(times)}


def measure_bare_call(calls: int, request: bot_pb2.ActRequest, bots: int = 1) -> float:
    """Per-call time (ms) of a plain stub ``Act`` to sandboxed bots, minus their think time.

    With ``bots=2`` the calls alternate between two bots, as a two-seat match does: each bot
    then sleeps between its calls and must be woken, which a single hot bot never is.
    """
    clients = [BotClient.launch(BotSource("hosted", str(BENCH_BOT)), sandbox=True) for _ in range(bots)]
    try:
        for client in clients:
            client.start_match(bot_pb2.MatchStart(protocol_version=1, match_id="bench"), 10.0)
        stubs = [bot_pb2_grpc.BotStub(client.channel) for client in clients]
        for i in range(200):  # warm-up
            stubs[i % bots].Act(request, timeout=5.0)
        think = 0.0
        t0 = time.perf_counter()
        for i in range(calls):
            think += _think_ms(stubs[i % bots].Act(request, timeout=5.0).comment)
        total = (time.perf_counter() - t0) * 1000
    finally:
        for client in clients:
            client.close()
    return (total - think) / calls


def measure_match(game: str, decisions: int, players: int = 2, seed: int = 1) -> dict[str, float]:
    """Play matches of ``game`` until ``decisions`` decisions are made; time the decision loops."""
    loop_ms = think_ms = engine_ms = 0.0
    made = matches = 0
    while made < decisions:
        marks: dict[str, float] = {}

        def on_event(event: dict, marks: dict[str, float] = marks) -> None:
            if event["type"] == "ready":
                marks["ready"] = time.perf_counter()
            elif event["type"] == "decision":
                marks["last"] = time.perf_counter()

        config = MatchConfig(game, [SeatSpec(f"b{i}", str(BENCH_BOT)) for i in range(players)],
                             seed=seed + matches)
        record = run_match(config, on_event=on_event)
        if record.forfeits:
            raise RuntimeError(f"benchmark bot forfeited: {record.forfeits}")
        loop_ms += (marks["last"] - marks["ready"]) * 1000
        think_ms += sum(_think_ms(d.comment) for d in record.decisions)
        engine_ms += time_engine(record)
        made += len(record.decisions)
        matches += 1
    return {"per_decision_ms": (loop_ms - think_ms) / made, "engine_ms": engine_ms / made,
            "decisions": made, "matches": matches}


def time_engine(record) -> float:
    """The engine's share of a match (ms): options, observation JSON, prompt and apply for the
    same decisions, without any bot. Part of the overhead, but not the referee's doing."""
    state = registry.new_game(record.game, record.players, record.seed, record.variant)
    t0 = time.perf_counter()
    for d in record.decisions:
        state.legal_options()
        json.dumps(state.observation(d.seat), separators=(",", ":"))
        state.decision_prompt()
        state.apply(d.option)
    return (time.perf_counter() - t0) * 1000


def compare(game: str, decisions: int, rounds: int = 3) -> dict[str, float]:
    """Bare call and referee overhead for one game, measured in alternating rounds.

    A two-core machine's noise (another process waking up) easily moves a figure by 20%;
    alternating rounds and taking medians keeps both sides exposed to the same noise.
    """
    request = sample_request(game)
    per_round = max(200, decisions // rounds)
    bares, alternating, overheads, engines, made = [], [], [], [], 0
    for _ in range(rounds):
        bares.append(measure_bare_call(per_round, request))
        alternating.append(measure_bare_call(per_round, request, bots=2))
        match = measure_match(game, per_round)
        overheads.append(match["per_decision_ms"])
        engines.append(match["engine_ms"])
        made += match["decisions"]
    bare, alt, over, engine = (
        statistics.median(x) for x in (bares, alternating, overheads, engines)
    )
    return {
        "bare_grpc_call_ms": round(bare, 4),
        "bare_call_alternating_two_bots_ms": round(alt, 4),
        "referee_overhead_per_decision_ms": round(over, 4),
        "overhead_ratio": round(over / bare, 3),
        "engine_ms_per_decision": round(engine, 4),
        "overhead_ratio_without_engine": round((over - engine) / bare, 3),
        "overhead_ratio_vs_alternating": round(over / alt, 3),
        "decisions": made,
        "payload_bytes": len(request.SerializeToString()),
    }


def bench(decisions: int = 2000) -> dict:
    """Run every measurement once and return the figures (milliseconds unless named).

    The headline figures use ``bench_counter``; each real engine that loads adds its own line
    (its engine time — options, observation, apply — counts as referee overhead there).
    """
    BenchCounterState.length = max(200, decisions // 3)
    registry.register(BenchCounterState)
    measure_bare_call(200, sample_request("bench_counter"))  # warm caches and code paths
    out: dict[str, Any] = {**compare("bench_counter", decisions), "overhead_goal": "<= 1.5"}
    startup = measure_startup()
    out["bot_start_to_first_answer_ms"] = round(startup["median_ms"], 1)
    out["bot_start_max_ms"] = round(startup["max_ms"], 1)
    out["bot_start_goal"] = "< 500 ms"
    for game in ("solenia", "black_angel"):
        try:
            registry.get_game(game)
        except Exception:  # noqa: BLE001 - an engine not present yet only drops its line
            out[game] = "engine not loadable"
            continue
        out[game] = compare(game, decisions)
    from benchmarks.bench_dialin import measure as measure_dialin

    # The worker's route (the server in its own process) is the headline; a server without a
    # broker plays its own matches, so the relay and the referee share its process.
    out["dialin"] = {**measure_dialin(sample_request("solenia"), "solenia", calls=decisions),
                     "goal": "dialin_ratio <= 1.5"}
    out["dialin_in_process"] = measure_dialin(sample_request("solenia"), "solenia", calls=decisions,
                                              server="in-process")
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for key, value in bench(n).items():
        print(f"{key:<36} {value}")
