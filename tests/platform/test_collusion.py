"""The collusion report (arena/records/collusion.py, ``arena collusion``): a soft-playing pair planted
among honest bots in real recorded toy matches — one bot that deliberately loses to its partner
and plays properly against everyone else — is the one pair flagged; no honest pair is."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.competition import tournaments
from arena.db import dispose_all, session_scope
from arena.records import collusion, recording
from referee.rng import Rng
from tests.web.seed import add_bot, play_record

GAME = "toy"
Policy = Callable[[dict[str, Any], list[Any]], str]


def greedy(_obs: dict[str, Any], options: list[Any]) -> str:
    """The toy game's plain good play: the highest card, then a new one."""
    ids = [o.id for o in options]
    if "draw" in ids:
        return "draw"
    if "pass" in ids:
        return "pass"
    return max(ids, key=lambda i: int(i.split(":")[1]))


def throwing(_obs: dict[str, Any], options: list[Any]) -> str:
    """Lose on purpose, quietly: the lowest card every round (it still draws, so the game runs
    its length). Against greedy play it loses about 87 % of games; greedy against greedy 50 %."""
    ids = [o.id for o in options]
    if "draw" in ids:
        return "draw"
    if "pass" in ids:
        return "pass"
    return min(ids, key=lambda i: int(i.split(":")[1]))


def careless(seed: int) -> Policy:
    """A weaker honest bot: any legal move (greedy beats it about 70 % of games)."""
    rng = Rng(seed)
    return lambda _obs, options: options[rng.below(len(options))].id


#: (owner, bot name, how it plays). tick (trent's) throws every game mole (mallory's) sits in
#: and plays greedy against everyone else; two accounts, so the author rule cannot stop them.
FIELD = [("alice", "ace", "greedy"), ("bob", "bolt", "greedy"), ("carol", "cog", "greedy"),
         ("dave", "dart", "careless"), ("erin", "echo", "careless"), ("frank", "fig", "careless"),
         ("mallory", "mole", "greedy"), ("trent", "tick", "soft")]


def _play_field(url: str, rounds: int, seed: int) -> dict[str, int]:
    """A two-seat round-robin of :data:`FIELD` (every pair meets 2·``rounds`` times), every
    match played by the toy engine with the bots' policies and recorded through
    arena.records.recording (ratings and all)."""
    with session_scope(url) as s:
        versions = {owner: add_bot(s, name, GAME, owner=owner).id for owner, name, _ in FIELD}
        t = tournaments.create_tournament(s, GAME, list(versions.values()), 2, rounds=rounds, seed=seed)
        todo = [(m.id, [x.bot_version_id for x in m.seats]) for m in t.matches]
    owner_of = {vid: owner for owner, vid in versions.items()}
    style = {owner: kind for owner, _, kind in FIELD}
    for n, (mid, seated) in enumerate(todo):
        owners = [owner_of[v] for v in seated]
        policies: list[Policy | None] = []
        for i, owner in enumerate(owners):
            kind = style[owner]
            if kind == "soft":
                policies.append(throwing if "mallory" in owners else greedy)
            else:
                policies.append(careless(seed * 100_003 + n * 11 + i) if kind == "careless" else greedy)
        record = play_record(mid, owners, seed * 7919 + n, policies=policies)
        with session_scope(url) as s:
            assert recording.record_result(s, mid, record.to_dict())
    return versions


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The field played 24 rounds (every pair meets 48 times; 1,344 matches, a few seconds)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('collusion') / 'arena.sqlite3'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARENA_DATABASE_URL", url)
        dispose_all()
        _play_field(url, 24, 1)
        yield url
    dispose_all()


def _only_the_planted_pair(url: str) -> collusion.Report:
    with session_scope(url) as s:
        rep = collusion.report(s, GAME)
    assert rep.matches == 1344 and rep.tested == 28
    flagged = [(p.winner, p.loser) for p in rep.flagged]
    assert flagged == [("mallory", "trent")], collusion.format_report(rep)
    top = rep.pairs[0]
    assert top.z_field >= rep.z_critical and top.loser_bots == ["tick v1"] and top.winner_bots == ["mole v1"]
    return rep


def test_the_soft_playing_pair_is_flagged_and_no_honest_pair(planted: str) -> None:
    rep = _only_the_planted_pair(planted)
    assert rep.z_critical == pytest.approx(3.38, abs=0.01)  # Bonferroni over 28 pairs at 0.01
    # The honest pairs are nowhere near: the largest z_field of the other 27 (six seeds run
    # when this was written: 1.6-2.7, the planted pair 4.0-7.5).
    assert max(p.z_field for p in rep.pairs[1:]) < 3.0, collusion.format_report(rep)


@pytest.mark.parametrize("seed", [2, 3])
def test_other_seeds_flag_the_same_pair(sqlite_url: str, seed: int) -> None:
    _play_field(sqlite_url, 24, seed)
    _only_the_planted_pair(sqlite_url)


def test_the_command_prints_flags_and_json_and_exits_3(planted: str) -> None:
    result = CliRunner().invoke(cli, ["collusion", GAME])
    assert result.exit_code == 3, result.output
    flagged = [line for line in result.output.splitlines() if line.startswith("!")]
    assert len(flagged) == 1 and flagged[0].split()[1:3] == ["mallory", "trent"]
    result = CliRunner().invoke(cli, ["collusion", GAME, "--json", "--threshold", "1e-30"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["threshold"] == 1e-30 and not any(p["flagged"] for p in data["pairs"])
    assert len(data["pairs"]) == 28  # every pair of eight authors met
    result = CliRunner().invoke(cli, ["collusion", "solenia"])
    assert result.exit_code == 0 and "0 rated match(es)" in result.output
    result = CliRunner().invoke(cli, ["collusion", "chess"])
    assert result.exit_code == 2 and "unknown game 'chess'" in result.output
    result = CliRunner().invoke(cli, ["collusion", GAME, "--min-games", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_pairwise_placings_and_the_statistic() -> None:
    """The prediction is TrueSkill's pairwise win probability; equal ratings predict a half."""
    assert collusion.win_probability(25, 3, 25, 3, 25 / 6) == pytest.approx(0.5)
    p = collusion.win_probability(30, 2, 25, 2, 25 / 6)
    assert p == pytest.approx(0.5 * (1 + math.erf(5 / math.sqrt(2 * (25 / 6) ** 2 + 8) / math.sqrt(2))))
    assert collusion.party("house", "house-greedy") == "house/house-greedy"
    assert collusion.party("alice", "x") == "alice"


def test_an_empty_game_reports_nothing(sqlite_url: str) -> None:
    with session_scope(sqlite_url) as s:
        rep = collusion.report(s, GAME)
    assert (rep.matches, rep.pairs) == (0, [])
    assert "0 rated match(es)" in collusion.format_report(rep)
