"""Ratings only from games that were played (issue 26 item 6) and anchors that hold still
(issue 30 item 6): arena/evaluation/ratings.py (idle_seats, settle, is_anchored), arena/records/recording.py and
the rebuild. Database tests run on SQLite and PostgreSQL (``db_url``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.competition import tournaments
from arena.db import Match, MatchSeat, Rating, RatingHistory, RatingLock, Tournament, session_scope
from arena.evaluation import ratings
from arena.evaluation.ratings import Skill
from arena.intake import bots
from arena.records import recording
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from tests.platform.conftest import RANDOM_BOT

GAME = "toy"


def _folder(tmp_path: Path, name: str, body: str = "") -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(f"# {name}\n{body}\n")
    return str(folder)


def _record(ranks: list[int], forfeits: list[dict], decisions: list[dict]) -> dict:
    return {"result": {"scores": [float(-r) for r in ranks], "ranks": ranks, "details": {}},
            "forfeits": forfeits, "decisions": decisions}


def _moves(*seats: int, forced: bool = False) -> list[dict]:
    return [{"n": n, "seat": s, "option": "x", "forced": forced} for n, s in enumerate(seats)]


def _rating(s, vid: int) -> Rating:  # noqa: ANN001
    return s.get(Rating, (vid, GAME), populate_existing=True)


# --- the rules on their own -------------------------------------------------------------------


def test_idle_seats_are_the_forfeited_seats_that_never_chose_a_move() -> None:
    never = {"seat": 0, "reason": "start_failed", "decision": 0}
    late = {"seat": 1, "reason": "timeout", "decision": 3}
    # Seat 1 chose at decision 1, then timed out: it played. Seat 0 never connected.
    chose = [{"seat": 0, "forced": True}, {"seat": 1, "forced": False},
             {"seat": 0, "forced": True}, {"seat": 1, "forced": True}]
    assert ratings.idle_seats([never, late], chose) == {0}
    # Seat 1's first answer (decision 1) was its fault and everything after was the fallback's.
    assert ratings.idle_seats([never, {"seat": 1, "reason": "illegal_option", "decision": 1}],
                              _moves(0, 1, 0, 1, forced=True)) == {0, 1}
    # A seat that never forfeited played; without the decisions only decision 0 proves idleness.
    assert ratings.idle_seats([], []) == set()
    assert ratings.idle_seats([never, late], None) == {0}


def test_settle_keeps_anchors_and_never_lets_an_idle_seat_gain() -> None:
    before = [Skill(30.0, 1.5), Skill(25.0, 25 / 3), Skill(22.0, 4.0)]
    after = ratings.rate(GAME, before, [1, 3, 2])
    got = ratings.settle(before, after, [True, False, False], [False, True, False])
    assert got[0] == before[0]  # the anchor keeps its rating
    assert after[1].mu < before[1].mu and after[1].conservative < before[1].conservative
    assert got[1] == after[1]  # an idle seat's loss that lowers it: taken
    assert got[2] == after[2]  # the update computed against the anchor's fixed rating
    strong = [Skill(45.0, 1.5), Skill(25.0, 25 / 3)]
    raised = ratings.rate(GAME, strong, [1, 2])
    assert raised[1].conservative > strong[1].conservative  # TrueSkill's gain for a no-show
    assert ratings.settle(strong, raised, [False, False], [False, True]) == [raised[0], strong[1]]
    assert ratings.is_anchored("house", ratings.CALIBRATED_SIGMA)
    assert not ratings.is_anchored("house", ratings.CALIBRATED_SIGMA + 1e-9)
    assert not ratings.is_anchored("alice", 0.5)


def test_a_seat_that_never_played_never_gains_whatever_the_table() -> None:
    """Random tables of 2-5 seats, some idle (tied last, as forfeits are): an idle seat's
    mu - 3 sigma never rises — although TrueSkill alone would raise it (a loss to a much
    stronger seat shrinks sigma more than it costs mu; idle seats tied with each other)."""
    rng = random.Random(26)
    raw_gain = 0
    for _ in range(400):
        n = rng.randint(2, 5)
        before = [Skill(rng.uniform(0, 50), rng.uniform(0.8, 25 / 3)) for _ in range(n)]
        idle = [i > 0 and rng.random() < 0.5 for i in range(n)]
        playing = [i for i in range(n) if not idle[i]]
        ranks = [0] * n
        for pos, i in enumerate(playing):
            ranks[i] = pos + 1
        for i in range(n):
            if idle[i]:
                ranks[i] = len(playing) + 1
        after = ratings.rate(GAME, before, ranks)
        got = ratings.settle(before, after, [False] * n, idle)
        for i in range(n):
            if idle[i]:
                raw_gain += after[i].conservative > before[i].conservative
                assert got[i].conservative <= before[i].conservative
                assert got[i].mu <= before[i].mu and got[i] in (after[i], before[i])
            else:
                assert got[i] == after[i]
    assert raw_gain > 0  # the rule is needed: plain TrueSkill does let such seats gain


# --- recording and rebuilding -----------------------------------------------------------------


def test_a_match_nobody_played_is_recorded_but_not_rated(db_url: str, tmp_path: Path) -> None:
    """Issue 26: a tournament match where both seats forfeited before the first decision (the
    bug: both ranked 1, both ratings moved, a bot that never connected rose to 2nd), and one
    where no seat ever chose a legal move (the first seat's first answer illegal, the second's
    too late): done, ranked, counted in the tournament, but no rating, history row or sequence
    number — and the next match played takes sequence number 1."""
    with session_scope() as s:
        ids = [bots.register_version(s, GAME, _folder(tmp_path, f"b{i}"), name=f"b{i}").id for i in range(2)]
        t = tournaments.create_tournament(s, GAME, ids, players=2, rounds=1, seed=3)
        tid = t.id
        mids = [m.id for m in s.scalars(select(Match).where(Match.tournament_id == tid))]
        later = recording.create_match(s, GAME, "base", ids, seed=9).id
    assert len(mids) == 2
    both_gone = _record([1, 2], [{"seat": 0, "reason": "start_failed", "message": "exit 3", "decision": 0},
                                 {"seat": 1, "reason": "unreachable", "message": "no", "decision": 0}],
                        _moves(0, 1, 0, 1, forced=True))
    no_legal = _record([2, 1], [{"seat": 0, "reason": "illegal_option", "message": "x", "decision": 0},
                                {"seat": 1, "reason": "timeout", "message": "late", "decision": 1}],
                       _moves(0, 1, 0, 1, forced=True))
    for mid, rec in zip(mids, (both_gone, no_legal), strict=True):
        with session_scope() as s:
            assert recording.record_result(s, mid, rec) is True
            assert recording.record_result(s, mid, rec) is False  # a duplicate changes nothing
    with session_scope() as s:
        for mid in mids:
            m = s.get(Match, mid)
            assert (m.status, m.rating_seq, m.automaton_version_id) == ("done", None, None)
            seats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == mid).order_by(MatchSeat.seat)).all()
            assert [x.rank for x in seats] == [1, 1]  # both forfeited: tied last, as recorded
            assert all(x.forfeit and x.mu_before is None and x.mu_after is None for x in seats)
        for vid in ids:
            r = _rating(s, vid)
            assert (r.mu, r.sigma, r.games_played) == (ratings.MU0, ratings.SIGMA0, 0)
        assert s.scalar(select(func.count()).select_from(RatingHistory)) == 0
        assert s.get(Tournament, tid).matches_done == 2 and s.get(Tournament, tid).status == "done"
        assert not s.scalar(select(RatingLock.last_seq).where(RatingLock.game == GAME))
        assert ratings.compare_with_stored(s, GAME) == []
    played = _record([1, 2], [], _moves(0, 1, 0, 1))
    with session_scope() as s:
        assert recording.record_result(s, later, played) is True
        assert s.get(Match, later).rating_seq == 1
        assert _rating(s, ids[0]).mu > ratings.MU0
        assert ratings.compare_with_stored(s, GAME) == []


def test_a_bot_that_never_connected_does_not_gain(db_url: str, tmp_path: Path) -> None:
    """A real match: a bot whose process exits before it is ready (start_failed at decision 0)
    against a strong, calibrated house bot that plays it out. TrueSkill alone would raise the
    no-show's mu - 3 sigma (its sigma shrinks more than the expected loss costs); it keeps its
    rating instead, the anchor holds still, and the rebuild gives the same numbers."""
    broken = _folder(tmp_path, "no-show", "import sys\nsys.exit(3)")
    with session_scope() as s:
        gone = bots.register_version(s, GAME, broken, name="no-show", owner="alice").id
        strong = bots.register_version(s, GAME, RANDOM_BOT, name="house-random", owner="house").id
        anchor = _rating(s, strong)
        anchor.mu, anchor.sigma = 45.0, 1.5  # calibrated long ago
        mid = recording.create_match(s, GAME, "base", [gone, strong], seed=4, sandbox=False).id
    plain = ratings.rate(GAME, [Skill(ratings.MU0, ratings.SIGMA0), Skill(45.0, 1.5)], [2, 1])
    assert plain[0].conservative > Skill(ratings.MU0, ratings.SIGMA0).conservative  # the trap
    # The runner itself, with a start-up deadline and clock that a loaded test machine cannot
    # overrun (the house bot must start and play; the no-show exits at once whatever the limit).
    config = MatchConfig(game=GAME, seats=[SeatSpec("no-show v1", broken), SeatSpec("house-random v1", RANDOM_BOT)],
                         seed=4, match_id=mid, sandbox=False, startup_ms=120_000, start_budget_ms=60_000,
                         time_control=TimeControl(decision_ms=30_000, bank_ms=120_000))
    record = run_match(config)
    with session_scope() as s:
        assert recording.record_result(s, mid, record.to_dict()) is True
    with session_scope() as s:
        m = s.get(Match, mid)
        assert [f["reason"] for f in m.forfeits] == ["start_failed"] and m.rating_seq == 1
        r = _rating(s, gone)
        assert (r.mu, r.sigma, r.games_played) == (ratings.MU0, ratings.SIGMA0, 1)
        assert ratings.conservative(r.mu, r.sigma) <= 0.0
        assert (_rating(s, strong).mu, _rating(s, strong).sigma) == (45.0, 1.5)  # anchored
        seat = s.get(MatchSeat, (mid, 0))
        assert (seat.rank, seat.forfeit) == (2, "start_failed")
        # The rebuild starts the anchor at its initial rating: give it the calibrated one.
        s.get(Match, mid).seats[1].version.initial_mu = 45.0
        s.get(Match, mid).seats[1].version.initial_sigma = 1.5
        s.flush()
        assert ratings.compare_with_stored(s, GAME) == []


def test_anchors_hold_still_once_calibrated_and_the_rebuild_agrees(db_url: str, tmp_path: Path) -> None:
    """Issue 30: a house bot is rated while it calibrates, then fixed from the match at which
    its sigma reached CALIBRATED_SIGMA: from then on every match moves only the other seats
    (computed against the anchor's fixed rating, as the package computes them). The rebuild
    fixes it at the same match and gives identical floats."""
    rng = random.Random(30)
    with session_scope() as s:
        anchor = bots.register_version(s, GAME, _folder(tmp_path, "h"), name="house-greedy", owner="house").id
        others = [bots.register_version(s, GAME, _folder(tmp_path, f"o{i}"), name=f"o{i}").id for i in range(6)]
        mids = [recording.create_match(s, GAME, "base", [anchor, rng.choice(others)], seed=i).id
                for i in range(60)]
    fixed_at = None
    for n, mid in enumerate(mids):
        with session_scope() as s:
            seat_vid = s.get(MatchSeat, (mid, 1)).bot_version_id
            a0, o0 = _rating(s, anchor), _rating(s, seat_vid)
            a0, o0 = Skill(a0.mu, a0.sigma), Skill(o0.mu, o0.sigma)
            win = rng.random() < 0.6
            assert recording.record_result(s, mid, _record([1, 2] if win else [2, 1], [], _moves(0, 1)))
            a1, o1 = _rating(s, anchor), _rating(s, seat_vid)
            expected = ratings.rate(GAME, [a0, o0], [1, 2] if win else [2, 1])
            assert (o1.mu, o1.sigma) == (expected[1].mu, expected[1].sigma)
            if a0.sigma <= ratings.CALIBRATED_SIGMA:
                fixed_at = n if fixed_at is None else fixed_at
                assert (a1.mu, a1.sigma) == (a0.mu, a0.sigma)  # holds still
                assert (o1.mu, o1.sigma) != (o0.mu, o0.sigma)  # the other seat moves
            else:
                assert (a1.mu, a1.sigma) == (expected[0].mu, expected[0].sigma)  # calibrating
    assert fixed_at is not None and 10 < fixed_at < 50, fixed_at
    with session_scope() as s:
        assert ratings.compare_with_stored(s, GAME) == []
        assert _rating(s, anchor).games_played == 60
        rows = {r.label.split(" ")[0]: r for r in tournaments.leaderboard(s, GAME)}
        assert rows["house-greedy"].house and rows["house-greedy"].anchored
        assert not rows["o0"].house and not rows["o0"].anchored
        text = tournaments.format_leaderboard(list(rows.values()))
        assert sum("anchor (fixed)" in line for line in text.splitlines()) == 1
        from arena.server.results import leaderboard

        assert {r.bot: r.house for r in leaderboard(s, GAME, 50).rows}["house-greedy v1"] is True


def test_the_rebuild_applies_the_rules_to_matches_rated_before_them(db_url: str, tmp_path: Path) -> None:
    """A history written before the rules (a both-forfeited match that moved both ratings):
    the rebuild leaves that match out, ``arena ratings rebuild`` reports the difference and
    ``--write`` puts the numbers right, after which it reports them identical."""
    from click.testing import CliRunner

    from arena.cli import cli

    with session_scope() as s:
        ids = [bots.register_version(s, GAME, _folder(tmp_path, f"c{i}"), name=f"c{i}").id for i in range(2)]
        old = recording.create_match(s, GAME, "base", ids, seed=1)
        old.status, old.rating_seq = "done", 1
        old.forfeits = [{"seat": 0, "reason": "start_failed", "decision": 0},
                        {"seat": 1, "reason": "start_failed", "decision": 0}]
        moved = ratings.rate(GAME, [Skill(ratings.MU0, ratings.SIGMA0)] * 2, [1, 1])
        for seat, skill in zip(old.seats, moved, strict=True):
            seat.rank = 1
            r = _rating(s, seat.bot_version_id)
            r.mu, r.sigma = skill.mu, skill.sigma  # what the old recorder did
        s.add(RatingLock(game=GAME, last_seq=1))
    out = CliRunner().invoke(cli, ["ratings", "rebuild", GAME])
    assert out.exit_code == 1 and "2 rating(s) differ" in out.output, out.output
    out = CliRunner().invoke(cli, ["ratings", "rebuild", GAME, "--write"])
    assert out.exit_code == 0 and "rewrote 2 rating(s)" in out.output, out.output
    out = CliRunner().invoke(cli, ["ratings", "rebuild", GAME])
    assert out.exit_code == 0 and "all identical" in out.output, out.output
    with session_scope() as s:
        assert all((_rating(s, v).mu, _rating(s, v).sigma) == (ratings.MU0, ratings.SIGMA0) for v in ids)


@pytest.mark.parametrize("players", [2, 3])
def test_bots_n_matches_rate_against_the_anchored_bot_players(db_url: str, players: int) -> None:
    """Orbital with one bot player added: the recorded seat ranks are the result's own (which
    now count the bot player), and a calibrated bot-player automaton holds still."""
    from arena.intake import house

    with session_scope() as s:
        # one author each: two bots of one author never share a rated table (arena.intake.authors)
        seats = [bots.register_version(s, "orbital", RANDOM_BOT, name=f"r{i}", owner=f"bob{i}").id
                 for i in range(players)]
        auto = house.ensure_automaton(s, "orbital", house.automaton_name("orbital", "bots-1", players))
        r = s.get(Rating, (auto, "orbital"))
        r.mu, r.sigma = 28.0, 1.9
        mid = recording.create_match(s, "orbital", "bots-1", seats, seed=11, sandbox=False).id
    config = MatchConfig(game="orbital", seats=[SeatSpec(f"r{i} v1", RANDOM_BOT) for i in range(players)],
                         seed=11, variant="bots-1", match_id=mid, sandbox=False, startup_ms=120_000,
                         start_budget_ms=60_000, time_control=TimeControl(decision_ms=30_000, bank_ms=120_000))
    with session_scope() as s:
        assert recording.record_result(s, mid, run_match(config).to_dict()) is True
    with session_scope() as s:
        m = s.get(Match, mid)
        assert not m.forfeits
        stored = [x.rank for x in sorted(m.seats, key=lambda x: x.seat)]
        assert stored == m.result["ranks"]
        assert m.automaton_rank == m.result["details"]["automaton_rank"]
        assert (s.get(Rating, (auto, "orbital")).mu, s.get(Rating, (auto, "orbital")).sigma) == (28.0, 1.9)
        assert all(s.get(Rating, (v, "orbital")).sigma < ratings.SIGMA0 for v in seats)


# --- anchors set from their calibration (issue 39 item 7) --------------------------------------


def test_mu_from_score_reads_the_performance_model() -> None:
    assert ratings.mu_from_score(0.5, 100) == 25.0  # level with the fixed point
    # TrueSkill's own two-player win probability at that gap gives the score back
    mu = ratings.mu_from_score(0.8, 100)
    gap = (mu - 25.0) / (2 ** 0.5 * ratings.SIGMA0 / 2)
    from statistics import NormalDist
    assert NormalDist().cdf(gap) == pytest.approx(0.8)
    # a clean sweep is finite: placed where one more game could have moved it
    assert ratings.mu_from_score(1.0, 40) == ratings.mu_from_score(1 - 1 / 80, 40) < 50
    assert ratings.mu_from_score(0.0, 40) > 0


def test_a_calibrated_house_bot_starts_at_its_calibration_and_holds_there(db_url: str, tmp_path: Path) -> None:
    """The fixed point (house-random) starts at mu 25 with ANCHOR_SIGMA, already anchored: its
    first games move only the other seat, and the rebuild agrees. A house bot of a game with a
    measured calibration starts at that mu; one without falls back to being rated until
    calibrated; a user's bot named like a house bot gets nothing of it."""
    point = ratings.anchor_skill(GAME, "house-random")
    assert point == Skill(25.0, ratings.ANCHOR_SIGMA) and ratings.is_anchored("house", point.sigma)
    with session_scope() as s:
        anchor = bots.register_version(s, GAME, _folder(tmp_path, "r"), name="house-random", owner="house").id
        uncalibrated = bots.register_version(s, GAME, _folder(tmp_path, "i"), name="house-ismcts", owner="house").id
        impostor = bots.register_version(s, GAME, _folder(tmp_path, "x"), name="house-random", owner="mallory").id
        other = bots.register_version(s, GAME, _folder(tmp_path, "o"), name="o").id
        assert (_rating(s, anchor).mu, _rating(s, anchor).sigma) == (25.0, ratings.ANCHOR_SIGMA)
        assert (_rating(s, uncalibrated).mu, _rating(s, uncalibrated).sigma) == (ratings.MU0, ratings.SIGMA0)
        assert (_rating(s, impostor).mu, _rating(s, impostor).sigma) == (ratings.MU0, ratings.SIGMA0)
        mids = [recording.create_match(s, GAME, "base", [anchor, other], seed=i).id for i in range(12)]
    for i, mid in enumerate(mids):
        with session_scope() as s:
            before = _rating(s, other).mu
            ranks = [2, 1] if i % 3 else [1, 2]
            assert recording.record_result(s, mid, _record(ranks, [], _moves(0, 1)))
            assert (_rating(s, anchor).mu, _rating(s, anchor).sigma) == (25.0, ratings.ANCHOR_SIGMA)
            assert _rating(s, other).mu != before
    with session_scope() as s:
        assert ratings.compare_with_stored(s, GAME) == []
        assert _rating(s, anchor).games_played == 12


@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_every_greedy_house_bot_has_a_measured_calibration(game: str) -> None:
    """anchors.json holds a measurement for each game's greedy house bot, and its mu is what
    the documented formula gives for the recorded score."""
    import json

    entry = json.loads(ratings.ANCHORS_FILE.read_text())["games"][game]["house-greedy"]
    assert entry["wins"] + entry["draws"] + entry["losses"] == entry["games"] > 0
    assert entry["score"] == pytest.approx((entry["wins"] + entry["draws"] / 2) / entry["games"], abs=1e-4)
    assert entry["mu"] == pytest.approx(ratings.mu_from_score(entry["score"], entry["games"]), abs=1e-3)
    assert ratings.anchor_skill(game, "house-greedy") == Skill(entry["mu"], ratings.ANCHOR_SIGMA)
