"""Ladder matchmaking (arena/competition/ladder.py): uncertainty first, similar mu, seat and count quotas."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.competition import ladder
from arena.competition.ladder import Candidate, choose_player_count, choose_seats, plan_table
from arena.db import BotVersion, Ladder, Match, Rating, session_scope
from arena.evaluation import ratings
from arena.intake import bots
from arena.records import recording


def _cands() -> list[Candidate]:
    return [
        Candidate(1, mu=25.0, sigma=2.0),
        Candidate(2, mu=40.0, sigma=8.0),  # least certain: the anchor
        Candidate(3, mu=38.0, sigma=3.0),
        Candidate(4, mu=12.0, sigma=3.0),
        Candidate(5, mu=41.0, sigma=2.5),
    ]


def test_anchor_is_the_least_certain_and_opponents_are_close_in_mu() -> None:
    """The ``uncertainty`` rule (the ladder's earlier default)."""
    table = plan_table("solenia", _cands(), 3, random.Random(1), rule="uncertainty")
    assert {c.version_id for c in table} == {2, 3, 5}


def test_bots_already_queued_are_not_the_anchor() -> None:
    cands = _cands()
    cands[1].pending = 2
    anchor_pick = plan_table("solenia", cands, 2, random.Random(1), rule="uncertainty")
    # Bot 5 (sigma 2.5) is not the least certain; with 2 queued, bot 2 stops being the anchor:
    # the anchor is now bot 3 or 4 (sigma 3), and its opponent the closest in mu.
    ids = {c.version_id for c in anchor_pick}
    assert ids in ({3, 5}, {4, 1})


def test_default_anchor_has_the_fewest_games_and_plays_its_mu_neighbours() -> None:
    """The default rule (mu-nearest): fewest games, queued matches counted; the closest in mu."""
    cands = _cands()
    for c, games in zip(cands, (9, 4, 3, 8, 7), strict=True):
        c.games = games
    assert ladder.DEFAULT_RULE == "mu-nearest"
    assert {c.version_id for c in plan_table("solenia", cands, 3, random.Random(1))} == {3, 2, 5}
    cands[2].pending = 2  # bot 3 is queued twice: bot 2 (4 games) is the anchor now
    assert {c.version_id for c in plan_table("solenia", cands, 2, random.Random(1))} == {2, 5}


def test_seats_go_to_the_bot_that_had_them_least() -> None:
    a = Candidate(1, 25, 8, seat_counts={"2": {"0": 5, "1": 0}})
    b = Candidate(2, 25, 8, seat_counts={"2": {"0": 0, "1": 5}})
    assert [c.version_id for c in choose_seats([a, b], 2, random.Random(0))] == [2, 1]


def test_player_count_quota() -> None:
    assert choose_player_count([2, 3, 4], {"2": 5, "3": 5, "4": 4}, available=6) == 4
    assert choose_player_count([2, 3, 4], {"2": 5, "3": 5, "4": 4}, available=3) == 3
    assert choose_player_count([3, 4], {}, available=2) is None


def _bot(tmp_path: Path, name: str) -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(f"# {name}\n")
    return str(folder)


@pytest.mark.parametrize("rule", ["mu-nearest", "uncertainty"])
def test_ladder_keeps_the_queue_full_with_fair_seats_and_counts(sqlite_url: str, tmp_path: Path, rule: str) -> None:
    """A simulated ladder on the toy game (2-4 players): play 120 ladder matches with made-up
    results, then check the quotas and that a new version starts provisional from its
    predecessor's mu and is played first — with the default rule and the earlier one (which
    also makes every bot meet every other; the default meets at least its neighbours)."""
    rng = random.Random(3)
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", _bot(tmp_path, f"b{i}"), name=f"b{i}").id for i in range(6)]
        ladder.ensure_ladder(s, "toy", queue_target=3)
    strength = {vid: i for i, vid in enumerate(ids)}
    for _ in range(40):
        with session_scope() as s:
            ladder.tick(s, "toy", rng, rule)
        with session_scope() as s:
            queued = ladder.queued_ladder_matches(s, "toy")
            assert len(queued) == 3
            todo = [(m.id, [x.bot_version_id for x in m.seats]) for m in queued]
        for mid, seats in todo:
            scores = [strength[v] + rng.random() for v in seats]
            ranks = [1 + sum(o > x for o in scores) for x in scores]
            with session_scope() as s:
                recording.record_result(s, mid, {"result": {"scores": scores, "ranks": ranks}})
    with session_scope() as s:
        counts = s.get(Ladder, "toy").player_counts
        assert set(counts) == {"2", "3", "4"} and max(counts.values()) - min(counts.values()) <= 1
        rows = {r.bot_version_id: r for r in s.scalars(select(Rating).where(Rating.game == "toy"))}
        for r in rows.values():
            for players, seats in r.seat_counts.items():
                per_seat = [seats.get(str(i), 0) for i in range(int(players))]
                assert max(per_seat) - min(per_seat) <= 2, (players, per_seat)
            assert r.distinct_opponents == 5 if rule == "uncertainty" else r.distinct_opponents >= 3
        # Stronger bots end higher; the strongest is no longer provisional.
        best = max(rows.values(), key=lambda r: r.mu)
        assert best.bot_version_id == ids[-1]
        assert ratings.compare_with_stored(s, "toy") == []
        # A new version of the best bot: predecessor's mu, sigma reset, provisional, played first.
        Path(tmp_path / "b5" / "bot.py").write_text("# b5 improved\n")
        v2 = bots.register_version(s, "toy", str(tmp_path / "b5"), name="b5")
        r2 = s.get(Rating, (v2.id, "toy"))
        assert (r2.mu, r2.sigma, r2.provisional) == (best.mu, ratings.SIGMA0, True)
    with session_scope() as s:
        for m in ladder.queued_ladder_matches(s, "toy"):
            recording.fail(s, m.id, "drained by the test")
        created = ladder.tick(s, "toy", rng, rule)
        first = s.get(Match, created[0])
        assert v2.id in [x.bot_version_id for x in first.seats]
        seated = {x.bot_version_id for mid in created for x in s.get(Match, mid).seats}
        assert ids[-1] not in seated  # the old version retired from the ladder


# --- issue #30 item 3: a ladder for 10,000 bots -------------------------------------------------


def test_field_nearest_is_the_mu_order_and_least_follows_queued_matches() -> None:
    """The per-tick index finds the same bots as sorting the field by distance in mu, and the
    anchor heap sees ``pending`` grow as tables are planned."""
    rng = random.Random(5)
    cands = [Candidate(i, mu=rng.uniform(0, 50), sigma=rng.uniform(1, 8)) for i in range(300)]
    field = ladder.Field(cands, rng)
    for anchor in rng.sample(cands, 20):
        expected = sorted((c for c in cands if c is not anchor), key=lambda c: abs(c.mu - anchor.mu))[:7]
        assert field.nearest(anchor, 7) == expected
    first = field.least(ladder._anchor_key)
    assert first.sigma == max(c.sigma for c in cands)
    first.pending += 1
    second = field.least(ladder._anchor_key)
    assert second is not first and second.sigma == max(c.sigma for c in cands if c is not first)


def test_every_rule_seats_distinct_bots_and_unknown_rules_are_refused() -> None:
    """Each pairing rule makes tables of distinct bots of the right size; mu-nearest seats the bot
    with the fewest games beside its neighbours in mu; thompson's opponents spread with the
    anchor's sigma; a rule that does not exist is a clear error."""
    rng = random.Random(2)
    cands = [Candidate(i, mu=float(i), sigma=1.0, games=10) for i in range(60)]
    cands[30].games, cands[30].sigma = 0, 8.0
    for rule in ladder.RULES:
        for players in (2, 3, 4):
            table = plan_table("toy", cands, players, rng, rule=rule)
            assert len({c.version_id for c in table}) == players, rule
    assert {c.version_id for c in plan_table("toy", cands, 3, rng, rule="mu-nearest")} == {29, 30, 31}
    spread = [abs(c.mu - 30) for _ in range(200) for c in plan_table("toy", cands, 2, rng, rule="thompson")
              if c is not cands[30]]
    assert 3 < sum(spread) / len(spread) < 10  # about sigma 8 away: E|N(0, 8²)| = 6.4
    try:
        plan_table("toy", cands, 2, rng, rule="nearest-please")
    except ValueError as exc:
        assert "unknown pairing rule" in str(exc)
    else:
        raise AssertionError("an unknown rule was accepted")


def test_load_candidates_is_the_playing_version_of_every_active_bot(sqlite_url: str, tmp_path: Path) -> None:
    """One query gives what ``bots.latest_versions`` gives (newest version not held back by an
    SPRT, active bots only), with each version's rating."""
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", _bot(tmp_path, f"c{i}"), name=f"c{i}").id for i in range(4)]
        Path(tmp_path / "c0" / "bot.py").write_text("# c0 v2\n")
        v2 = bots.register_version(s, "toy", str(tmp_path / "c0"), name="c0")
        Path(tmp_path / "c1" / "bot.py").write_text("# c1 v2, held by its SPRT\n")
        held = bots.register_version(s, "toy", str(tmp_path / "c1"), name="c1")
        held.held = True
        s.get(BotVersion, ids[3]).bot.active = False
        s.get(Rating, (ids[2], "toy")).opponent_counts = {str(ids[1]): 3}
        s.flush()
        expected = [v.id for v in bots.latest_versions(s, "toy")]
        found = ladder.load_candidates(s, "toy")
        assert list(found) == expected == [v2.id, ids[1], ids[2]]
        assert found[ids[2]].opponent_counts == {str(ids[1]): 3}
        assert found[v2.id].sigma == ratings.SIGMA0
