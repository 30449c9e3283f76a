"""Full matches through gRPC with sandboxed bots, the runner's bookkeeping, and set-up errors."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from arena.sdk import make_server
from referee import registry, sandbox
from referee.engine import ConfigError, TimeControl
from referee.match import MatchConfig, MatchSetupError, SeatSpec, run_match
from referee.replay import replay
from tests.referee.helpers import RANDOM_BOT, needs_bwrap, play

pytestmark = needs_bwrap


def _configuration(game: str) -> tuple[int, str]:
    """The smallest table of at least two seats (a solitaire game: one seat)."""
    configs = sorted(registry.get_spec(game).configurations)
    multi = [c for c in configs if c[0] >= 2]
    return (multi or configs)[0]


@pytest.mark.parametrize("game", sorted({*registry.game_names(), "toy"}))
def test_full_match_with_sandboxed_random_bots(game: str) -> None:
    players, variant = _configuration(game)
    record = play(game, [str(RANDOM_BOT)] * players, seed=11, variant=variant)
    assert record.forfeits == []
    assert record.decisions and not any(d.forced for d in record.decisions)
    assert sorted({d.seat for d in record.decisions}) == list(range(players))
    # Someone finished first: a seat, or the best bot player an Orbital ``bots-N`` table adds.
    automaton_rank = record.result.get("details", {}).get("automaton_rank")
    assert min([*record.result["ranks"], automaton_rank or 99]) == 1
    assert [t.decisions for t in record.totals] == [
        sum(1 for d in record.decisions if d.seat == s) for s in range(players)
    ]
    # CPU time is measured for hosted bots (the start-up imports alone use some).
    assert all(t.cpu_ms is not None for t in record.totals)
    assert all(t.ready_ms is not None and t.ready_ms > 0 for t in record.totals)
    replay(record)


def test_three_seats_dice_variant_and_event_stream() -> None:
    events: list[dict] = []
    cfg = MatchConfig(
        game="toy",
        seats=[SeatSpec(f"r{i}", str(RANDOM_BOT)) for i in range(3)],
        seed=5,
        variant="dice",
    )
    record = run_match(cfg, on_event=events.append)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "end"
    decisions = [e for e in events if e["type"] == "decision"]
    assert [e["option"] for e in decisions] == [d.option for d in record.decisions]
    json.dumps(events)  # the stream is JSON-ready
    assert record.variant == "dice" and record.players == 3
    assert record.time_control == {"decision_ms": 2000, "bank_ms": 5000}  # the toy's spec default


def test_remote_bot_over_tcp_plays_against_a_hosted_one() -> None:
    def act(observation: dict, options: list):
        return options[-1].id, f"hand {observation['hand']}"

    server, port = make_server(act, "127.0.0.1:0", name="remote")
    server.start()
    try:
        record = play("toy", [f"127.0.0.1:{port}", str(RANDOM_BOT)], seed=3)
    finally:
        server.stop(0)
    assert record.seats[0]["kind"] == "remote" and record.seats[1]["kind"] == "hosted"
    assert record.forfeits == []
    mine = [d for d in record.decisions if d.seat == 0]
    assert mine and all(d.comment.startswith("hand ") for d in mine)
    assert record.totals[0].cpu_ms is None  # a remote bot's CPU cannot be measured


def test_unreachable_remote_bot_forfeits_and_the_other_seat_finishes() -> None:
    record = play("toy", ["127.0.0.1:1", str(RANDOM_BOT)], seed=3, startup_ms=2500)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "unreachable")]
    assert all(d.forced for d in record.decisions if d.seat == 0)
    assert not any(d.forced for d in record.decisions if d.seat == 1)
    assert record.result["ranks"] == [2, 1]


@pytest.mark.parametrize(
    ("game", "sources", "message"),
    [
        ("chess", [str(RANDOM_BOT)] * 2, "unknown game"),
        ("toy", [str(RANDOM_BOT)] * 5, "not 5"),
        ("toy", [str(RANDOM_BOT), os.path.dirname(__file__)], "has no bot.py"),
        ("toy", [str(RANDOM_BOT), "localhost:99999"], "port must be"),
        ("toy", [str(RANDOM_BOT), "not a bot"], "neither a folder"),
    ],
)
def test_bad_configuration_is_a_clear_error(game: str, sources: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        play(game, sources)


def test_without_bwrap_hosted_bots_are_refused_unless_unsafe(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found (prlimit is not needed here)
    assert sandbox.bwrap_path() is None
    with pytest.raises(MatchSetupError, match="--unsafe-no-sandbox"):
        play("toy", [str(RANDOM_BOT)] * 2)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    record = play("toy", [str(RANDOM_BOT)] * 2, sandbox=False)
    assert record.forfeits == []


@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, RuntimeError])
def test_every_sandbox_dies_when_the_match_is_interrupted(exc_type) -> None:
    seen = threading.Event()

    def on_event(event: dict) -> None:
        if event["type"] == "decision" and event["n"] == 3:
            seen.set()
            raise exc_type("stop here")

    cfg = MatchConfig("toy", [SeatSpec(f"r{i}", str(RANDOM_BOT)) for i in range(2)], seed=1)
    with pytest.raises(exc_type):
        run_match(cfg, on_event=on_event)
    assert seen.is_set()
    # the autouse fixture checks that no sandboxed process and no socket folder is left


def test_time_control_override_reaches_the_record() -> None:
    record = play("toy", [str(RANDOM_BOT)] * 2, tc=TimeControl(decision_ms=300, bank_ms=700))
    assert record.time_control == {"decision_ms": 300, "bank_ms": 700}
    assert all(t.bank_left_ms == 700 for t in record.totals)


def test_parallel_matches_use_separate_uids() -> None:
    # Each running bot needs a uid of its own (RLIMIT_NPROC counts per uid): leases never clash,
    # even inside one process, and a released uid can be leased again.
    if os.geteuid() != 0:
        pytest.skip("uid leases are only used when the referee runs as root")
    leases = [sandbox.lease_uid() for _ in range(4)]
    try:
        assert len({lease.uid for lease in leases}) == 4
    finally:
        for lease in leases:
            lease.release()
    records: list = []
    errors: list = []

    def one(seed: int) -> None:
        try:
            records.append(play("toy", [str(RANDOM_BOT)] * 2, seed=seed))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(s,)) for s in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(records) == 3 and all(r.forfeits == [] for r in records)


@pytest.mark.parametrize("game", ["solenia", "black_angel"])
def test_a_sandboxed_bot_can_import_the_engine(game: str) -> None:
    expected = registry.get_game(game).__name__
    players, variant = _configuration(game)
    engine_user = str(Path(__file__).parent / "bots" / "engine_user")
    record = play(game, [engine_user] + [str(RANDOM_BOT)] * (players - 1), variant=variant)
    assert record.forfeits == []
    assert {d.comment for d in record.decisions if d.seat == 0} == {f"engine={expected}"}
