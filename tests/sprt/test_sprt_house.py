"""SPRT against the house bots too (issue 14 item 4): comparisons through a house bot join the
head-to-head pairs in one test, with the null hypothesis unchanged."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from arena.db import Bot, dispose_all, session_scope
from arena.db.models import BotVersion, SprtTest
from arena.evaluation import sprt
from arena.intake import bots, sprt_runner
from arena.intake.qualification import RANDOM_BOT, table_for
from referee.engine import TimeControl

HERE = Path(__file__).resolve().parent
HIGH = str(HERE / "bots" / "high_card")
LOW = str(HERE / "bots" / "low_card")
ILLEGAL = str(HERE / "bots" / "illegal")  # forfeits every game at once: clearly weaker
#: Very wide hypotheses and 20 % errors: a handful of pairs settle the forfeiting bot.
QUICK = sprt.SprtSettings(elo0=0, elo1=400, alpha=0.2, beta=0.2, house=True)


def _table() -> sprt_runner.Table:
    """The toy table with a generous clock: on a loaded machine a slow start must not forfeit a
    game, or identical versions would not compare even."""
    players, variant = table_for("toy")
    return sprt_runner.Table("toy", variant, players, sandbox=False,
                             time_control=TimeControl(decision_ms=10000, bank_ms=30000), startup_ms=30000,
                             start_budget_ms=30000)


def test_comparison_and_house_tallies() -> None:
    assert [sprt_runner.comparison(c, b) for c, b in ((1, 0), (0.5, 0.5), (0, 1), (1, 0.5))] == [1, 0.5, 0, 1]
    state = sprt.SprtState(QUICK)
    state.add_pair(1, 1)
    state.add_pair(1, 0.5, house=True)
    assert state.pentanomial == [0, 0, 0, 1, 1] and state.house_pentanomial == [0, 0, 0, 1, 0]
    assert (state.pairs, state.house_pairs, state.games) == (2, 1, 6)  # 2 head-to-head + 4 house games
    assert state.summary()["house_pairs"] == 1


def test_identical_versions_compare_even_through_a_house_bot() -> None:
    """The null hypothesis: the same (deterministic) bot as candidate and baseline scores the
    same against the house bot on the same seed and seat — every comparison is 0.5."""
    state = sprt_runner.play(_table(), sprt.SprtSettings(max_pairs=2, house=True), HIGH, HIGH,
                             itertools.count(50), houses=[LOW])
    assert state.status == sprt.INCONCLUSIVE and state.house_pairs == 1
    assert state.house_pentanomial == [0, 0, 1, 0, 0]


def test_a_stored_house_test_keeps_both_kinds_of_pair(tmp_path: Path) -> None:
    """Short form: two pairs (one head to head, one through the house bot) stored on the test
    row and shown through the API message; "always" replaces even when inconclusive."""
    from arena.server import convert

    url = f"sqlite:///{tmp_path / 'sprt.sqlite3'}"
    try:
        with session_scope(url) as s:
            v1 = bots.register_version(s, "toy", str(shutil.copytree(LOW, tmp_path / "v1")), name="subject").id
            v2 = bots.register_version(s, "toy", str(shutil.copytree(HIGH, tmp_path / "v2")), name="subject").id
            bot = s.scalar(__import__("sqlalchemy").select(Bot).where(Bot.name == "subject"))
            settings = sprt.SprtSettings(max_pairs=2, replace="always", house=True)
            test = sprt_runner.start_test(s, bot, s.get(BotVersion, v2), s.get(BotVersion, v1), settings).id
        status = sprt_runner.run_test(url, test, sandbox=False, seeds=itertools.count(1000),
                                      time_control=_table().time_control, startup_ms=30000, start_budget_ms=30000,
                                      houses=[LOW])
        assert status == sprt.INCONCLUSIVE
        with session_scope(url) as s:
            row = s.get(SprtTest, test)
            assert row.house and row.replaced and (row.pairs, row.games) == (2, 6)
            assert sum(row.house_pentanomial) == 1
            message = convert.sprt_test(row)
            assert message.settings.house and message.house_pairs == 1
            assert list(message.house_pentanomial) == row.house_pentanomial
    finally:
        dispose_all()


@pytest.mark.slow
def test_house_pairs_alternate_and_the_stronger_version_is_accepted(tmp_path: Path) -> None:
    """A stored test with ``house``: head-to-head and house pairs alternate, both stored, the
    stronger version is accepted and replaces its predecessor; the weaker one is rejected,
    also through the house bot (the forfeiting bot scores less against it)."""
    url = f"sqlite:///{tmp_path / 'sprt.sqlite3'}"
    try:
        with session_scope(url) as s:
            v1 = bots.register_version(s, "toy", str(shutil.copytree(ILLEGAL, tmp_path / "v1")), name="subject").id
            v2 = bots.register_version(s, "toy", str(shutil.copytree(HIGH, tmp_path / "v2")), name="subject").id
            bot = s.scalar(__import__("sqlalchemy").select(Bot).where(Bot.name == "subject"))
            test = sprt_runner.start_test(s, bot, s.get(BotVersion, v2), s.get(BotVersion, v1), QUICK).id
        seen: list[tuple[int, int]] = []
        real_store = sprt_runner._store

        def store(u: str | None, tid: int, summary: dict) -> None:
            seen.append((summary["pairs"], summary["house_pairs"]))
            real_store(u, tid, summary)

        sprt_runner._store = store
        try:
            status = sprt_runner.run_test(url, test, sandbox=False, seeds=itertools.count(1000),
                                          time_control=_table().time_control, startup_ms=30000,
                                          start_budget_ms=30000,
                                          houses=[str(RANDOM_BOT), HIGH])
        finally:
            sprt_runner._store = real_store
        assert status == sprt.ACCEPTED
        # Pair 1 head to head, pair 2 through a house bot, and so on.
        assert [h for _, h in seen] == [(p // 2) for p, _ in seen] and seen[0] == (1, 0)
        with session_scope(url) as s:
            row = s.get(SprtTest, test)
            assert row.house and row.replaced and sum(row.house_pentanomial) >= 1
            assert row.pairs == sum(row.pentanomial) and row.games == 2 * row.pairs + 2 * sum(row.house_pentanomial)
        narrower = sprt.SprtSettings(elo0=0, elo1=200, alpha=0.1, beta=0.1, house=True)  # not at pair 1
        weak = sprt_runner.play(_table(), narrower, ILLEGAL, HIGH, itertools.count(1000), houses=[str(RANDOM_BOT)])
        # The forfeiting bot never does better than the other against a house bot.
        assert weak.status == sprt.REJECTED and weak.house_pairs >= 1
        assert weak.house_pentanomial[3:] == [0, 0]
    finally:
        dispose_all()
