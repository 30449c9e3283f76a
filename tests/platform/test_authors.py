"""One author, one seat at a rated table (arena/intake/authors.py): the ladder never seats two bots of
one owner together (every pairing rule, with and without the population cache), a tournament
admits the organiser's number of entries per author and never rates a table of two of them, a
Swiss keeps them apart, and any match of two bots of one author is created unrated."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.cli import cli
from arena.competition import ladder, tournaments
from arena.competition.ladder import RULES, Candidate, plan_table
from arena.competition.ladder_population import PopulationCache
from arena.competition.round_robin import ScheduleError
from arena.db import Bot, BotVersion, Match, MatchSeat, session_scope
from arena.intake import authors, bots
from arena.records import recording
from arena.server.accounts import check_user_name
from arena.server.errors import ApiError

GAME = "toy"


def _bot(tmp_path: Path, owner: str, name: str) -> int:
    folder = tmp_path / f"{owner}-{name}"
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(f"# {owner}/{name}\n")
    with session_scope() as s:
        return bots.register_version(s, GAME, str(folder), name=name, owner=owner).id


def _owners_at(match_ids: list[str]) -> list[list[str]]:
    with session_scope() as s:
        return [[owner for (owner,) in s.execute(
            select(Bot.owner).join(BotVersion, BotVersion.bot_id == Bot.id)
            .join(MatchSeat, MatchSeat.bot_version_id == BotVersion.id)
            .where(MatchSeat.match_id == mid))] for mid in match_ids]


def test_every_rule_seats_one_bot_per_author_and_exempt_bots_together() -> None:
    """Four of six bots are alice's: every table of every rule has at most one of hers, and
    bots without an author (house, local) may share a table."""
    cands = [Candidate(i, mu=20.0 + i * 0.1, sigma=5.0, author="alice") for i in range(1, 5)]
    cands += [Candidate(5, mu=20.25, sigma=5.0, author="bob"), Candidate(6, mu=20.15, sigma=5.0),
              Candidate(7, mu=20.05, sigma=5.0)]
    assert ladder.seatable(cands) == 4  # alice, bob and the two exempt bots
    rng = random.Random(1)
    exempt_together = 0
    for rule in RULES:
        for players in (2, 3, 4):
            for _ in range(60):
                table = plan_table(GAME, cands, players, rng, rule=rule)
                assert len(table) == players
                named = [c.author for c in table if c.author is not None]
                assert len(named) == len(set(named)), (rule, [c.version_id for c in table])
                exempt_together += sum(c.author is None for c in table) == 2
    assert exempt_together > 0
    only_alice = [c for c in cands if c.author == "alice"] + [Candidate(9, 30.0, 5.0, author="bob")]
    with pytest.raises(ValueError, match="different authors"):
        plan_table(GAME, only_alice, 3, rng)


@pytest.mark.parametrize("cached", [False, True])
def test_ladder_ticks_never_seat_one_author_twice(sqlite_url: str, tmp_path: Path, cached: bool) -> None:
    """A real ladder of alice's three bots, bob's two, carol's one and a local bot, 2-4 seats:
    60 ticks of made-up results; no table seats two bots of one author, every match is rated,
    and a 4-seat table is still played (4 seatable authors)."""
    rng = random.Random(5)
    ids = ([_bot(tmp_path, "alice", f"a{i}") for i in range(3)] + [_bot(tmp_path, "bob", f"b{i}") for i in range(2)]
           + [_bot(tmp_path, "carol", "c0"), _bot(tmp_path, "local", "mine")])
    strength = {vid: i for i, vid in enumerate(ids)}
    cache = PopulationCache() if cached else None
    with session_scope() as s:
        ladder.ensure_ladder(s, GAME, queue_target=3)
    made: list[str] = []
    for _ in range(60):
        with session_scope() as s:
            made += ladder.tick(s, GAME, rng, population=cache)
        with session_scope() as s:
            todo = [(m.id, [x.bot_version_id for x in m.seats]) for m in ladder.queued_ladder_matches(s, GAME)]
        for mid, seats in todo:
            scores = [strength[v] + rng.random() for v in seats]
            ranks = [1 + sum(o > x for o in scores) for x in scores]
            with session_scope() as s:
                recording.record_result(s, mid, {"result": {"scores": scores, "ranks": ranks}})
    owners = _owners_at(made)
    assert len(made) >= 150
    for seated in owners:
        named = [o for o in seated if o != "local"]
        assert len(named) == len(set(named)), seated
    assert {len(o) for o in owners} == {2, 3, 4}
    with session_scope() as s:
        assert all(s.scalars(select(Match.rated).where(Match.id.in_(made))))


def test_any_match_of_two_bots_of_one_author_is_created_unrated(sqlite_url: str, tmp_path: Path) -> None:
    a1, a2, b1 = _bot(tmp_path, "alice", "one"), _bot(tmp_path, "alice", "two"), _bot(tmp_path, "bob", "b")
    h1, h2 = _bot(tmp_path, "house", "h1"), _bot(tmp_path, "house", "h2")
    with session_scope() as s:
        same = recording.create_match(s, GAME, "base", [a1, b1, a2], seed=1)
        other = recording.create_match(s, GAME, "base", [a1, b1], seed=2)
        house = recording.create_match(s, GAME, "base", [h1, h2, a1], seed=3)
        assert (same.rated, other.rated, house.rated) == (False, True, True)
        sid = same.id
    with session_scope() as s:
        recording.record_result(s, sid, {"result": {"scores": [3.0, 2.0, 1.0], "ranks": [1, 2, 3]},
                                         "decisions": [{"seat": 0, "forced": False}]})
    with session_scope() as s:
        m = s.get(Match, sid)
        assert (m.status, m.rated, m.rating_seq) == ("done", False, None)


def test_a_tournament_refuses_more_entries_of_an_author_than_it_allows(sqlite_url: str, tmp_path: Path) -> None:
    a1, a2, a3 = (_bot(tmp_path, "alice", n) for n in ("one", "two", "three"))
    b1, c1, h1, h2 = (_bot(tmp_path, o, n) for o, n in (("bob", "b"), ("carol", "c"), ("house", "h1"),
                                                         ("house", "h2")))
    with session_scope() as s:
        with pytest.raises(ScheduleError) as refused:
            tournaments.create_tournament(s, GAME, [a1, b1, a2, c1], 2)
        assert str(refused.value) == (
            "this tournament allows 1 entry per author, and 'alice' has 2 (one v1, two v1): enter fewer "
            "of their bots, or raise the limit (entries per author)")
        with pytest.raises(ScheduleError, match="allows 2 entries per author, and 'alice' has 3"):
            tournaments.create_tournament(s, GAME, [a1, a2, a3, b1], 2, entries_per_author=2)
        # House bots are exempt: two of them enter with one of alice's.
        t = tournaments.create_tournament(s, GAME, [a1, b1, h1, h2], 2)
        assert t.entries_per_author == 1
        assert all(m.rated for m in t.matches)


def test_two_entries_of_one_author_never_play_a_rated_game(sqlite_url: str, tmp_path: Path) -> None:
    """Allowed two entries, alice's pair meets in a round-robin only unrated; a Swiss of six
    does not pair them at all in the rounds it can avoid it."""
    a1, a2 = _bot(tmp_path, "alice", "one"), _bot(tmp_path, "alice", "two")
    others = [_bot(tmp_path, o, "x") for o in ("bob", "carol", "dave", "erin")]
    with session_scope() as s:
        t = tournaments.create_tournament(s, GAME, [a1, a2, *others], 2, entries_per_author=2)
        meetings = [(m.rated, {x.bot_version_id for x in m.seats}) for m in t.matches]
        assert len(meetings) == 30
        assert sorted(rated for rated, seated in meetings if seated == {a1, a2}) == [False, False]
        assert all(rated for rated, seated in meetings if seated != {a1, a2})
        for seed in range(8):
            swiss = tournaments.create_tournament(s, GAME, [a1, a2, *others], 2, rounds=3, format="swiss",
                                                  seed=seed, entries_per_author=2)
            seated = [{x.bot_version_id for x in m.seats} for m in swiss.matches]
            assert {a1, a2} not in seated and all(m.rated for m in swiss.matches)


def test_keep_per_author_takes_each_authors_best(sqlite_url: str, tmp_path: Path) -> None:
    """A tournament of every active bot (the API with no bot named) keeps one per author."""
    a1, a2, b1, h1, h2 = (_bot(tmp_path, o, n) for o, n in (("alice", "one"), ("alice", "two"), ("bob", "b"),
                                                             ("house", "h1"), ("house", "h2")))
    with session_scope() as s:
        keep, left = authors.keep_per_author(s, [a1, a2, b1, h1, h2], 1, {a1: 3.0, a2: 7.0, b1: 1.0})
    assert (keep, left) == ([a2, b1, h1, h2], [a1])


def test_the_cli_enters_database_bots_by_owner_and_says_why_it_refuses(sqlite_url: str, tmp_path: Path) -> None:
    _bot(tmp_path, "alice", "one"), _bot(tmp_path, "alice", "two"), _bot(tmp_path, "bob", "b")
    result = CliRunner().invoke(cli, ["tournament", GAME, "--bot", "@alice/one", "--bot", "@alice/two",
                                      "--bot", "@bob/b", "--unsafe-no-sandbox"])
    assert result.exit_code == 1
    assert "allows 1 entry per author, and 'alice' has 2 (one v1, two v1)" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["tournament", GAME, "--bot", "@nobody/x", "--unsafe-no-sandbox"])
    assert result.exit_code == 1 and "no active bot 'x' of 'nobody'" in result.output


@pytest.mark.parametrize("name", ["local", "LOCAL", "house"])
def test_the_exempt_owners_cannot_be_registered(name: str) -> None:
    with pytest.raises(ApiError, match="reserved"):
        check_user_name(name)


def test_an_older_versions_queued_ladder_matches_retire_when_a_new_one_goes_live(
        sqlite_url: str, tmp_path: Path) -> None:
    """v1 of alice's bot has ladder matches queued; v2 held by its SPRT changes nothing; once v2
    goes live the next tick retires v1's pending matches (a running one plays on) and seats v2."""
    v1 = _bot(tmp_path, "alice", "a")
    others = [_bot(tmp_path, o, "x") for o in ("bob", "carol", "dave")]
    with session_scope() as s:
        ladder.ensure_ladder(s, GAME, queue_target=4)
        made = ladder.tick(s, GAME, random.Random(2))
    with_v1 = [mid for mid, owners in zip(made, _owners_at(made), strict=True) if "alice" in owners]
    assert len(with_v1) >= 2
    with session_scope() as s:
        assert recording.claim(s, with_v1[0], "test-worker").outcome == "claimed"  # running now
    (tmp_path / "alice-a" / "bot.py").write_text("# alice/a, better\n")
    with session_scope() as s:
        v2 = bots.register_version(s, GAME, str(tmp_path / "alice-a"), name="a", owner="alice")
        v2.held = True  # its SPRT is running: v1 still plays
        v2_id = v2.id
    with session_scope() as s:
        assert ladder.tick(s, GAME, random.Random(3)) == []
        assert all(s.get(Match, mid).status in ("pending", "running") for mid in with_v1)
        s.get(BotVersion, v2_id).held = False  # the SPRT accepted: v2 goes live
    with session_scope() as s:
        new = ladder.tick(s, GAME, random.Random(4))
    with session_scope() as s:
        assert s.get(Match, with_v1[0]).status == "running"
        for mid in with_v1[1:]:
            m = s.get(Match, mid)
            assert m.status == "failed" and m.error == "retired: a newer version of 'a' went live before this " \
                                                       "ladder match started"
        seated = {x.bot_version_id for mid in new for x in s.get(Match, mid).seats}
        assert v1 not in seated and v2_id in seated
        assert set(others) & seated
