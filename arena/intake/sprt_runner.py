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

**Against the house bots too** (``SprtSettings.house``, ``arena submit --sprt-house``). What the
test then measures: whether the candidate does better than its predecessor, judged both head to
head and *through* the house bots (random, greedy, search; :mod:`arena.intake.house`). After every
head-to-head pair (seed s) comes one *house comparison* on the same seed, the house bots taking
turns: the candidate plays house bot h from seat 0 and seat 1, the predecessor plays h from the
same seats on the same seed, and each seat gives one comparison score — 1 when the candidate
scored more against h than the predecessor did, 0.5 when as much, 0 when less. The two
comparisons form a pair that goes into the same pentanomial as the head-to-head pairs.

Why this is sound: under "equally strong" the candidate and the predecessor are exchangeable
against h on a given seed and seat, so a comparison is won or lost with equal probability — its
expected score is 0.5 exactly, as a head-to-head game's is; the null hypothesis (elo0 = 0, the
default) is the same for both kinds of pair and pooling them keeps the error rates alpha/beta.
Pairs stay independent (one seed each), and the two comparisons of a seed are correlated like
the two games of a head-to-head pair, which the pentanomial model accounts for. What changes is
the Elo scale of the alternative: a comparison saturates when both versions always beat (or
lose to) h — random, usually — so it dilutes the evidence (more pairs to a verdict) but cannot
make a version look stronger than it is. The reported Elo is then the Elo of the pooled score
(head-to-head and comparisons), an index of improvement rather than a head-to-head Elo; the
house part is shown separately (``house_pairs``, ``house_pentanomial``). A version that only
learned to exploit its predecessor gains head to head but not through the house bots: the
pooled test needs both. Pairs of both kinds count toward ``max_pairs``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from arena.db.models import Bot, BotVersion, SprtTest, utcnow
from arena.db.session import session_scope
from arena.evaluation import ratings
from arena.evaluation.sprt import ACCEPTED, FAILED, RUNNING, SprtSettings, SprtState
from arena.intake.table import RANDOM_BOT, table_for
from referee.engine import TimeControl
from referee.match import HostOverloaded, MatchConfig, SeatSpec, run_match
from referee.rng import match_seed

log = logging.getLogger("arena.evaluation.sprt")
#: A game voided by an overloaded host (referee.match.HostOverloaded) is played again, as often
#: as this, with a pause growing by VOID_PAUSE_S; then the test fails as before. A second void
#: at the same seat's decisions is that seat's forfeit (void_limit) instead: the candidate
#: cannot replay a game it is losing by making its clock look starved.
VOID_REPLAYS = 3
VOID_PAUSE_S = 5.0


@dataclass(frozen=True)
class Table:
    """Where the pairs are played (the qualification table) and how."""

    game: str
    variant: str
    players: int
    sandbox: bool = True
    time_control: TimeControl | None = None
    startup_ms: int = 10000
    #: The StartMatch budget (the match runner's default); tests on a loaded machine raise it.
    start_budget_ms: int = 2000


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
    voids: dict[int, int] = {}  # per seat: a second void at one seat's decisions is its forfeit
    for attempt in range(1, VOID_REPLAYS + 1):
        try:
            record = run_match(MatchConfig(
                game=table.game, seats=seats, seed=seed, variant=table.variant,
                time_control=table.time_control, sandbox=table.sandbox, startup_ms=table.startup_ms,
                start_budget_ms=table.start_budget_ms, earlier_voids=dict(voids),
            ))
            break
        except HostOverloaded as exc:  # void, not a result: the same game is played again
            voids[exc.seat] = voids.get(exc.seat, 0) + 1
            if attempt == VOID_REPLAYS:
                raise
            log.warning("SPRT game (seed %d) was void, playing it again: %s", seed, exc)
            time.sleep(VOID_PAUSE_S * attempt)
    forfeited = {f.seat for f in record.forfeits}
    return candidate_score(record.result, forfeited, candidate_seat, other)


def comparison(candidate: float, baseline: float) -> float:
    """1, 0.5 or 0: the candidate scored more than, as much as or less than the baseline
    against the same house bot (same seed, same seat)."""
    return 1.0 if candidate > baseline else 0.5 if candidate == baseline else 0.0


def play(table: Table, settings: SprtSettings, candidate: str, baseline: str, seeds: Iterator[int],
         on_pair: Callable[[SprtState], None] = lambda _s: None, opponent: str = "",
         state: SprtState | None = None, houses: Sequence[str] = ()) -> SprtState:
    """Play pairs until the test ends; ``on_pair`` sees the state after every pair; ``state``:
    the counts so far (a test resumed after a server restart goes on from them); ``houses``:
    the house bots' sources, used when ``settings.house`` (module docstring)."""
    state = state or SprtState(settings.check())
    other = opponent or str(RANDOM_BOT)
    while state.status == RUNNING:
        seed = next(seeds)
        first = play_game(table, seed, candidate, baseline, 0, other)
        second = play_game(table, seed, candidate, baseline, 1, other)
        state.add_pair(first, second)
        on_pair(state)
        if settings.house and houses and state.status == RUNNING:
            house = houses[state.house_pairs % len(houses)]  # in turn, also after a resume
            pair = [comparison(play_game(table, seed, candidate, house, seat, other),
                               play_game(table, seed, baseline, house, seat, other)) for seat in (0, 1)]
            state.add_pair(*pair, house=True)
            on_pair(state)
    return state


def random_seeds() -> Iterator[int]:
    while True:
        yield match_seed()


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
        replace=settings.replace, house=settings.house, house_pentanomial=[0] * 5, status=RUNNING, llr=0.0, lower=lower, upper=upper, games=0,
        pairs=0, score=0.5, elo=0.0, elo_error=0.0, pentanomial=[0] * 5, trinomial=[0] * 3,
        replaced=False, message="",
    )
    session.add(test)
    session.flush()
    return test


def settings_of(test: SprtTest) -> SprtSettings:
    return SprtSettings(test.elo0, test.elo1, test.alpha, test.beta, test.max_pairs, test.replace,
                        bool(test.house))


def _store(url: str | None, test_id: int, summary: dict) -> None:
    with session_scope(url) as s:
        test = s.get(SprtTest, test_id)
        for key in ("llr", "games", "pairs", "score", "elo", "elo_error", "pentanomial", "trinomial",
                    "house_pentanomial"):
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
             seeds: Iterator[int] | None = None, houses: Sequence[str] | None = None,
             start_budget_ms: int = 2000) -> str:
    """Play test ``test_id`` to its verdict (stored after every pair); returns the status.
    ``houses``: the house bots' sources for a test with ``house`` (default: the game's,
    :func:`arena.intake.house.house_sources`)."""
    with session_scope(url) as s:
        test = s.get(SprtTest, test_id)
        if test.status != RUNNING:
            return test.status
        settings = settings_of(test)
        players, _ = table_for(test.game)
        table = Table(test.game, test.variant, players, sandbox, time_control, startup_ms, start_budget_ms)
        candidate, baseline = test.candidate.source, test.baseline.source
        so_far = SprtState(settings, list(test.pentanomial or [0] * 5), list(test.trinomial or [0] * 3),
                           list(test.house_pentanomial or [0] * 5))
    if settings.house and houses is None:
        from arena.intake.house import house_sources

        houses = list(house_sources(table.game).values())
    try:
        state = play(table, settings, candidate, baseline, seeds or random_seeds(),
                     lambda st: _store(url, test_id, st.summary()), state=so_far, houses=houses or ())
    except Exception as exc:  # noqa: BLE001 - the verdict says so; the log has the traceback
        log.exception("SPRT %s failed", test_id)
        finish(url, test_id, FAILED, f"the test could not be played: {exc}")
        return FAILED
    finish(url, test_id, state.status)
    return state.status
