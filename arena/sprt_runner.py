"""Playing a new version's SPRT against its predecessor, and the replacement rule.

After qualification a version that has a predecessor on the ladder is stored *held*
(:attr:`arena.db.models.BotVersion.held`): the scheduler keeps playing the predecessor while
:func:`run_test` plays pairs of matches on the qualification table (two seats, the game's
default variant) — each seed twice, the candidate in seat 0 and then in seat 1 — and updates the
``sprt_tests`` row after every pair so progress is visible as it happens. When the test ends:

* ``replace="accept"`` (the default): the candidate replaces the predecessor only if the test
  accepted H1; otherwise it stays held and the predecessor keeps playing.
* ``replace="always"`` (the owner's choice): it replaces the predecessor whatever the verdict,
  and the verdict is still recorded and shown.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena import ratings
from arena.db.models import Bot, BotVersion, SprtTest, utcnow
from arena.db.session import session_scope
from arena.qualification import table_for
from arena.sprt import ACCEPTED, FAILED, RUNNING, SprtSettings, SprtState
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match

log = logging.getLogger("arena.sprt")


@dataclass(frozen=True)
class Table:
    """Where the pairs are played (the qualification table) and how."""

    game: str
    variant: str
    players: int
    sandbox: bool = True
    time_control: TimeControl | None = None
    startup_ms: int = 10000


def candidate_score(result: dict, forfeited: set[int], candidate: int, baseline: int) -> float:
    """1, 0.5 or 0: the candidate finished ahead of, level with or behind the baseline."""
    ranks = ratings.effective_ranks(result["ranks"], sorted(forfeited))
    if ranks[candidate] < ranks[baseline]:
        return 1.0
    return 0.5 if ranks[candidate] == ranks[baseline] else 0.0


def play_game(table: Table, seed: int, candidate: str, baseline: str, candidate_seat: int,
              opponent: str) -> float:
    """One match on ``table``; seats other than the two tested ones get ``opponent``."""
    seats = [SeatSpec(f"opponent-{i}", opponent) for i in range(table.players)]
    other = 1 - candidate_seat
    seats[candidate_seat] = SeatSpec("candidate", candidate)
    seats[other] = SeatSpec("baseline", baseline)
    record = run_match(MatchConfig(
        game=table.game, seats=seats, seed=seed, variant=table.variant, time_control=table.time_control,
        sandbox=table.sandbox, startup_ms=table.startup_ms,
    ))
    forfeited = {f.seat for f in record.forfeits}
    return candidate_score(record.result, forfeited, candidate_seat, other)


def play(table: Table, settings: SprtSettings, candidate: str, baseline: str, seeds: Iterator[int],
         on_pair: Callable[[SprtState], None] = lambda _s: None, opponent: str = "",
         state: SprtState | None = None) -> SprtState:
    """Play pairs until the test ends; ``on_pair`` sees the state after every pair; ``state``:
    the counts so far (a test resumed after a server restart goes on from them)."""
    from arena.qualification import RANDOM_BOT

    state = state or SprtState(settings.check())
    while state.status == RUNNING:
        seed = next(seeds)
        first = play_game(table, seed, candidate, baseline, 0, opponent or str(RANDOM_BOT))
        second = play_game(table, seed, candidate, baseline, 1, opponent or str(RANDOM_BOT))
        state.add_pair(first, second)
        on_pair(state)
    return state


def random_seeds() -> Iterator[int]:
    while True:
        yield secrets.randbits(31)


def start_test(session, bot: Bot, candidate: BotVersion, baseline: BotVersion,  # noqa: ANN001
               settings: SprtSettings) -> SprtTest:
    """Hold ``candidate`` back and create its test row (status running)."""
    settings.check()
    players, variant = table_for(bot.game)
    state = SprtState(settings)
    lower, upper = state.bounds
    candidate.held = True
    test = SprtTest(
        bot_id=bot.id, candidate_version_id=candidate.id, baseline_version_id=baseline.id,
        game=bot.game, variant=variant, elo0=settings.elo0, elo1=settings.elo1,
        alpha=settings.alpha, beta=settings.beta, max_pairs=settings.max_pairs,
        replace=settings.replace, status=RUNNING, llr=0.0, lower=lower, upper=upper, games=0,
        pairs=0, score=0.5, elo=0.0, elo_error=0.0, pentanomial=[0] * 5, trinomial=[0] * 3,
        replaced=False, message="",
    )
    session.add(test)
    session.flush()
    return test


def settings_of(test: SprtTest) -> SprtSettings:
    return SprtSettings(test.elo0, test.elo1, test.alpha, test.beta, test.max_pairs, test.replace)


def _store(url: str | None, test_id: int, summary: dict) -> None:
    with session_scope(url) as s:
        test = s.get(SprtTest, test_id)
        for key in ("llr", "games", "pairs", "score", "elo", "elo_error", "pentanomial", "trinomial"):
            setattr(test, key, summary[key])


def finish(url: str | None, test_id: int, status: str, message: str = "") -> bool:
    """Record the verdict and apply the replacement rule; returns whether the candidate replaced
    its predecessor."""
    with session_scope(url) as s:
        test = s.get(SprtTest, test_id)
        test.status = status
        test.message = message
        test.finished_at = utcnow()
        replace = status == ACCEPTED or (test.replace == "always" and status != FAILED)
        test.replaced = replace
        s.get(BotVersion, test.candidate_version_id).held = not replace
        return replace


def run_test(url: str | None, test_id: int, *, sandbox: bool = True,
             time_control: TimeControl | None = None, startup_ms: int = 10000,
             seeds: Iterator[int] | None = None) -> str:
    """Play test ``test_id`` to its verdict (stored after every pair); returns the status."""
    with session_scope(url) as s:
        test = s.get(SprtTest, test_id)
        if test.status != RUNNING:
            return test.status
        settings = settings_of(test)
        players, _ = table_for(test.game)
        table = Table(test.game, test.variant, players, sandbox, time_control, startup_ms)
        candidate, baseline = test.candidate.source, test.baseline.source
        so_far = SprtState(settings, list(test.pentanomial or [0] * 5), list(test.trinomial or [0] * 3))
    try:
        state = play(table, settings, candidate, baseline, seeds or random_seeds(),
                     lambda st: _store(url, test_id, st.summary()), state=so_far)
    except Exception as exc:  # noqa: BLE001 - the verdict says so; the log has the traceback
        log.exception("SPRT %s failed", test_id)
        finish(url, test_id, FAILED, f"the test could not be played: {exc}")
        return FAILED
    finish(url, test_id, state.status)
    return state.status
