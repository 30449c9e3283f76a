"""A small real SPRT: paired toy matches over real bot processes, and the replacement rule."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from arena.db import Bot, dispose_all, session_scope
from arena.db.models import BotVersion, SprtTest
from arena.evaluation import sprt
from arena.intake import bots, sprt_runner
from arena.server.results import LeaderboardCache

HERE = Path(__file__).resolve().parent
HIGH = str(HERE / "bots" / "high_card")
LOW = str(HERE / "bots" / "low_card")


def seeds() -> itertools.count:
    return itertools.count(1000)


def test_candidate_score_reads_ranks_and_forfeits() -> None:
    assert sprt_runner.candidate_score({"ranks": [1, 2]}, set(), 0, 1) == 1.0
    assert sprt_runner.candidate_score({"ranks": [1, 1]}, set(), 1, 0) == 0.5
    assert sprt_runner.candidate_score({"ranks": [1, 2]}, {0}, 0, 1) == 0.0  # forfeit: last


#: Wide hypotheses and 10 % errors: the toy bots settle it in a handful of pairs.
QUICK = sprt.SprtSettings(elo0=0, elo1=200, alpha=0.1, beta=0.1)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["solenia", "black_angel"])
def test_stronger_version_accepts_weaker_rejects_at_default_settings(game: str) -> None:
    """The greedy bot against the random bot on the qualification table, default settings."""
    from arena.intake.qualification import RANDOM_BOT, table_for

    players, variant = table_for(game)
    table = sprt_runner.Table(game, variant, players, sandbox=False)
    greedy = str(HERE.parents[1] / "sample_bots" / f"{game}_greedy")
    seen: list[int] = []
    strong = sprt_runner.play(table, sprt.SprtSettings(), greedy, str(RANDOM_BOT), seeds(),
                              lambda st: seen.append(st.pairs))
    assert strong.status == sprt.ACCEPTED and seen == list(range(1, strong.pairs + 1))
    weak = sprt_runner.play(table, sprt.SprtSettings(), str(RANDOM_BOT), greedy, seeds())
    assert weak.status == sprt.REJECTED


@pytest.fixture
def db(tmp_path: Path):  # noqa: ANN201
    url = f"sqlite:///{tmp_path / 'sprt.sqlite3'}"
    yield url
    dispose_all()


def _versions(url: str, *sources: str) -> list[int]:
    with session_scope(url) as s:
        ids = [bots.register_version(s, "toy", src, name="subject").id for src in sources]
    return ids


def _test(url: str, candidate: int, baseline: int, settings: sprt.SprtSettings) -> int:
    with session_scope(url) as s:
        bot = s.scalar(__import__("sqlalchemy").select(Bot).where(Bot.name == "subject"))
        return sprt_runner.start_test(s, bot, s.get(BotVersion, candidate), s.get(BotVersion, baseline), settings).id


def _playing(url: str) -> int:
    with session_scope(url) as s:
        return [v.id for v in bots.latest_versions(s, "toy")][0]


def test_replacement_rule(db: str, tmp_path: Path) -> None:
    # Copies, so each version has its own folder (a version is its source).
    import shutil

    low1, high2, low3 = (shutil.copytree(src, tmp_path / name) for src, name in
                         ((LOW, "v1"), (HIGH, "v2"), (LOW, "v3")))
    v1, = _versions(db, str(low1))
    v2, = _versions(db, str(high2))
    test2 = _test(db, v2, v1, QUICK)
    assert _playing(db) == v1  # held while the test runs
    assert sprt_runner.run_test(db, test2, sandbox=False, seeds=seeds()) == sprt.ACCEPTED
    assert _playing(db) == v2
    v3, = _versions(db, str(low3))
    test3 = _test(db, v3, v2, QUICK)
    assert sprt_runner.run_test(db, test3, sandbox=False, seeds=seeds()) == sprt.REJECTED
    assert _playing(db) == v2  # rejected: the predecessor keeps its place
    with session_scope(db) as s:
        row = s.get(SprtTest, test3)
        assert not row.replaced and row.llr <= row.lower and row.games == 2 * row.pairs
        assert row.elo < 0 and row.score < 0.5 and sum(row.pentanomial) == row.pairs
        assert s.get(BotVersion, v3).held
    # The owner's choice "always": replaced whatever the verdict, the verdict still recorded.
    # (Two pairs only: the verdict is inconclusive, which alone would not replace it.)
    test4 = _test(db, v3, v2, sprt.SprtSettings(max_pairs=2, replace="always"))
    board = LeaderboardCache()
    token = board._token(db, "toy")
    assert sprt_runner.run_test(db, test4, sandbox=False, seeds=seeds()) == sprt.INCONCLUSIVE
    assert _playing(db) == v3
    # No new version, no rating: the verdict alone must move the leaderboard cache's token.
    assert board._token(db, "toy") != token
    with session_scope(db) as s:
        row = s.get(SprtTest, test4)
        assert row.replaced and row.pairs == 2 and row.finished_at is not None


def test_a_resumed_test_goes_on_from_its_stored_counts(db: str, tmp_path: Path) -> None:
    """After a server restart the running test continues: counts so far are kept."""
    import shutil

    v1, = _versions(db, str(shutil.copytree(LOW, tmp_path / "r1")))
    v2, = _versions(db, str(shutil.copytree(HIGH, tmp_path / "r2")))
    test = _test(db, v2, v1, sprt.SprtSettings(max_pairs=3))
    with session_scope(db) as s:  # as if two pairs were played before the restart
        row = s.get(SprtTest, test)
        row.pentanomial, row.trinomial, row.pairs, row.games = [0, 0, 2, 0, 0], [2, 0, 2], 2, 4
    assert sprt_runner.run_test(db, test, sandbox=False, seeds=seeds()) == sprt.INCONCLUSIVE
    with session_scope(db) as s:
        row = s.get(SprtTest, test)
        assert row.pairs == 3 and row.games == 6 and sum(row.pentanomial) == 3


def test_the_verdict_starts_the_sprt_where_it_is_recorded(db: str, tmp_path: Path) -> None:
    """``record_verdict`` (the in-process run and the Celery worker both end there): a passing
    later version is stored held with its test running, with the server's default settings
    unless the submission chose its own; a first version plays at once."""
    import shutil

    from arena.db.accounts import QUALIFYING, Submission
    from arena.intake import qualification

    passed = qualification.Outcome(True, "")
    with session_scope(db) as s:
        bot = Bot(owner="ola", name="subject", game="toy", active=False)
        s.add(bot)
        s.flush()
        subs = [Submission(bot_id=bot.id, number=n, kind="hosted", source=str(shutil.copytree(src, tmp_path / f"v{n}")),
                           status=QUALIFYING, sprt_settings={"max_pairs": 3} if n == 3 else None)
                for n, src in ((1, LOW), (2, HIGH), (3, LOW))]
        s.add_all(subs)
        s.flush()
        ids = [sub.id for sub in subs]
    assert qualification.record_verdict(ids[0], passed, db, sprt_default=QUICK) == "qualified"
    assert qualification.running_sprt_of(ids[0], db) is None  # nothing to replace
    v1 = _playing(db)
    assert qualification.record_verdict(ids[1], passed, db, sprt_default=QUICK) == "qualified"
    test2 = qualification.running_sprt_of(ids[1], db)
    assert test2 is not None and _playing(db) == v1
    with session_scope(db) as s:
        row = s.get(SprtTest, test2)
        assert (row.elo1, row.alpha, row.baseline_version_id) == (200, 0.1, v1)
    assert sprt_runner.run_test(db, test2, sandbox=False, seeds=seeds()) == sprt.ACCEPTED
    v2 = _playing(db)
    assert v2 != v1
    assert qualification.record_verdict(ids[2], passed, db, sprt_default=QUICK) == "qualified"
    with session_scope(db) as s:
        row = s.get(SprtTest, qualification.running_sprt_of(ids[2], db))
        assert row.max_pairs == 3 and row.elo1 == sprt.SprtSettings().elo1  # the submission's own
        assert row.baseline_version_id == v2  # the playing version, not the held v3 itself


@pytest.mark.skipif(len(__import__("os").sched_getaffinity(0)) < 2, reason="needs two CPUs to starve one")
def test_a_game_void_twice_at_the_candidates_decisions_is_its_forfeit(tmp_path: Path, monkeypatch,
                                                                      caplog) -> None:
    """Issue 35: a void game is played again, but a second void at the same seat's decisions is
    that seat's forfeit (void_limit), so the candidate loses the game rather than replaying it
    until it wins. Real sandboxed bots, the candidate kept starved at its start in every try."""
    import shutil

    from referee.sandbox import bwrap_path
    from tests.referee.load import Starver, hogs

    if bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    candidate = tmp_path / "cpu_start"
    shutil.copytree(HERE.parent / "referee" / "bots" / "cpu_start", candidate)
    (candidate / "spin_ms").write_text("300")
    monkeypatch.setattr(sprt_runner, "VOID_PAUSE_S", 0.1)
    caplog.set_level("WARNING", "arena.evaluation.sprt")
    table = sprt_runner.Table("toy", "base", 2, start_budget_ms=1000)
    with hogs(16, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        score = sprt_runner.play_game(table, 7, str(candidate), LOW, 0, LOW)
    assert caplog.text.count("was void, playing it again: server_error: seat 0") == 1  # one replay
    assert score == 0.0  # the second try: the candidate forfeited it
