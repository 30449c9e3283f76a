"""The collusion report (arena/collusion.py, ``arena collusion``): a soft-playing pair planted
among honest bots in real recorded toy matches — one bot that deliberately loses to its partner
and plays properly against everyone else — is the one pair flagged; no honest pair is."""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena import collusion, recording, tournaments
from arena.cli import cli
from arena.db import Match, dispose_all, session_scope
from referee.rng import Rng
from tests.web.seed import add_bot, play_record

GAME = "solenia"
Policy = Callable[[dict[str, Any], list[Any]], str]
ROOT = Path(__file__).resolve().parents[2]


def _greedy_act() -> Policy:
    """The sample greedy Solenia bot's ``act``, loaded from its folder as a bot author ships it."""
    spec = importlib.util.spec_from_file_location("collusion_solenia_greedy", ROOT / "sample_bots/solenia_greedy/bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.act


def careless(seed: int) -> Policy:
    """A random legal move: far weaker than greedy — and how the soft bot plays its partner."""
    rng = Rng(seed)
    return lambda _obs, options: options[rng.below(len(options))].id


#: (owner, bot name, how it plays). tick (trent's) plays greedy, except in every game mole
#: (mallory's) sits in, where it moves at random; two accounts, so the author rule cannot stop
#: them. The honest field: two more greedy bots and two random ones.
FIELD = [("alice", "ace", "greedy"), ("bob", "bolt", "greedy"), ("dave", "dart", "careless"),
         ("erin", "echo", "careless"), ("mallory", "mole", "greedy"), ("trent", "tick", "soft")]


def _play_field(url: str, players: int, rounds: int, seed: int) -> dict[str, int]:
    """A round-robin of :data:`FIELD` at ``players`` seats, every match played by the Solenia
    engine with the bots' policies and recorded through arena.recording (ratings and all)."""
    greedy = _greedy_act()
    with session_scope(url) as s:
        versions = {owner: add_bot(s, name, GAME, owner=owner).id for owner, name, _ in FIELD}
        t = tournaments.create_tournament(s, GAME, list(versions.values()), players, rounds=rounds, seed=seed)
        todo = [(m.id, m.variant, [x.bot_version_id for x in m.seats]) for m in t.matches]
    owner_of = {vid: owner for owner, vid in versions.items()}
    style = {owner: kind for owner, _, kind in FIELD}
    for n, (mid, variant, seated) in enumerate(todo):
        owners = [owner_of[v] for v in seated]
        policies: list[Policy | None] = []
        for i, owner in enumerate(owners):
            kind = style[owner]
            throws = kind == "soft" and "mallory" in owners
            policies.append(careless(seed * 100_003 + n * 11 + i) if kind == "careless" or throws else greedy)
        record = play_record(mid, owners, seed * 7919 + n, game=GAME, variant=variant, policies=policies)
        with session_scope(url) as s:
            assert recording.record_result(s, mid, record.to_dict())
    return versions


@pytest.fixture(scope="module")
def two_seat_field(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The field played at two seats, 6 rounds (every pair meets 12 times): 180 matches."""
    url = f"sqlite:///{tmp_path_factory.mktemp('collusion') / 'arena.sqlite3'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARENA_DATABASE_URL", url)
        dispose_all()
        _play_field(url, 2, 6, 1)
        yield url
    dispose_all()


def _check_only_the_planted_pair(url: str) -> collusion.Report:
    with session_scope(url) as s:
        assert s.query(Match).filter(Match.rated.is_(True), Match.status == "done").count() >= 60
        rep = collusion.report(s, GAME)
    flagged = [(p.winner, p.loser) for p in rep.flagged]
    assert flagged == [("mallory", "trent")], collusion.format_report(rep)
    top = rep.pairs[0]
    assert top.games >= collusion.DEFAULT_MIN_GAMES and top.z_field >= rep.z_critical
    assert top.loser_bots == ["tick v1"] and top.winner_bots == ["mole v1"]
    return rep


def test_the_soft_playing_pair_is_flagged_and_no_honest_pair(two_seat_field: str) -> None:
    rep = _check_only_the_planted_pair(two_seat_field)
    assert rep.tested == 15 and rep.z_critical == pytest.approx(3.21, abs=0.01)
    print(collusion.format_report(rep))


def test_at_three_seats_pairwise_placings_find_it_too(sqlite_url: str) -> None:
    _check_only_the_planted_pair_at(sqlite_url)


def _check_only_the_planted_pair_at(url: str) -> None:
    _play_field(url, 3, 8, 2)
    rep = _check_only_the_planted_pair(url)
    print(collusion.format_report(rep))


def test_the_command_prints_flags_and_json_and_exits_3(two_seat_field: str) -> None:
    result = CliRunner().invoke(cli, ["collusion", GAME])
    assert result.exit_code == 3, result.output
    flagged = [line for line in result.output.splitlines() if line.startswith("!")]
    assert len(flagged) == 1 and flagged[0].split()[1:3] == ["mallory", "trent"]
    result = CliRunner().invoke(cli, ["collusion", GAME, "--json", "--threshold", "1e-12"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["threshold"] == 1e-12 and not any(p["flagged"] for p in data["pairs"])
    assert len(data["pairs"]) == 15  # every pair of six authors met
    result = CliRunner().invoke(cli, ["collusion", "toy"])
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
        rep = collusion.report(s, "toy")
    assert (rep.matches, rep.pairs) == (0, [])
    assert "0 rated match(es)" in collusion.format_report(rep)
