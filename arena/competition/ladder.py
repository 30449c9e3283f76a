"""The ladder: continuous matchmaking per game that keeps a queue of matches filled.

How a table is chosen (:func:`plan_table`), and why:

1. **Player count** — among the counts the game allows (2+ players, in the ladder's variant),
   the one with the fewest ladder matches so far, so a game playable by 2-5 gets each count
   fairly (counts kept in ``ladders.player_counts``). A solo-only variant plays one seat
   against the engine's automaton, rated as a pseudo-player (:mod:`arena.intake.house`).
2. **Anchor** — the bot with the fewest games, matches already queued counted (so the queue
   spreads over bots); a random one among equals. A new version (no games yet) is played first.
3. **Opponents** — the bots closest in mu to the anchor (:class:`Field`: an index by mu built
   once per tick, so choosing a table costs O(log N) at any number of bots), never a second bot
   of an author already at the table (:mod:`arena.intake.authors`: one author, one seat at a rated
   table; house and command-line bots are exempt).

   Steps 2-3 are the ``mu-nearest`` rule (:data:`DEFAULT_RULE`): of the rules in :data:`RULES`
   it ranked synthetic bots of known strength correctly (Kendall tau 0.9) in the fewest matches,
   at 100 and at 1,000 bots (``arena bench ladder-quality``; figures in
   docs/tournaments-and-ratings.md). The ladder's earlier rule, ``uncertainty`` — the least
   certain bot against the combination of its mu-neighbours with the highest TrueSkill match
   quality, penalising opponents queued or met often — needed 8-25 % more matches, and spreads
   opponents wider (``tick(..., rule="uncertainty")``).
4. **Seats** — the permutation that gives each bot the seat it has taken least often at this
   player count (``ratings.seat_counts``), so over time every bot gets every seat.

A new version keeps its predecessor's mu with sigma reset (:mod:`arena.intake.bots`) and is provisional
until sigma falls below :data:`arena.evaluation.ratings.PROVISIONAL_SIGMA`; games played and opponents met
are updated with every result (:mod:`arena.records.recording`).
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Protocol

import orjson
import trueskill
from sqlalchemy import Text, and_, cast, select
from sqlalchemy.orm import Session

from arena.competition import dialin_presence as dialin
from arena.db.models import Bot, BotVersion, Ladder, Match, Rating, utcnow
from arena.evaluation import ratings
from arena.intake.authors import author_of, retire_superseded
from arena.quoting import shorten
from arena.records import recording
from referee import dialin_client, registry
from referee.engine import ConfigError
from referee.rng import match_seed


@dataclass
class Candidate:
    """A bot version as the matchmaker sees it."""

    version_id: int
    mu: float
    sigma: float
    games: int = 0
    seat_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    opponent_counts: dict[str, int] = field(default_factory=dict)
    pending: int = 0  # ladder matches already queued for it
    #: Its owner as :func:`arena.intake.authors.author_of` counts it (None: exempt, a house or
    #: command-line bot): no table seats two bots of one author.
    author: str | None = None


def authors_at(table: list[Candidate]) -> set[str]:
    """The authors already seated at ``table`` (exempt bots count none)."""
    return {c.author for c in table if c.author is not None}


def free_of(c: Candidate, authors: set[str]) -> bool:
    """Whether ``c`` may join a table whose authors are ``authors``."""
    return c.author is None or c.author not in authors


def seatable(candidates: list[Candidate]) -> int:
    """How many bots of ``candidates`` can share one table: one per author, every exempt bot."""
    return len(authors_at(candidates)) + sum(1 for c in candidates if c.author is None)


class CandidateSource(Protocol):
    """Where :func:`tick` reads the candidates from instead of :func:`load_candidates`: the
    process's cache, :class:`arena.competition.ladder_population.PopulationCache`. A protocol, not
    an import of it: the cache is built on this module (its candidates), so importing it here
    would close a circle."""

    def candidates(self, session: Session, game: str) -> dict[int, Candidate]: ...


def ladder_counts(game: str, variant: str | None) -> list[int]:
    """Player counts the ladder plays for ``game`` in ``variant``: 2+ seats; in a solo-only
    variant (Black Angel ``solo-*``, Orbital ``competitive``/``peaceful``) one seat against the
    engine's rated automaton (:func:`arena.intake.house.automaton_name`). A variant that has both
    (Solenia) keeps its ladder multi-player: a solo table would take a share of its matches."""
    from arena.intake.house import automaton_name

    spec = registry.get_spec(game)
    variant = variant or spec.default_variant
    out = []
    for players in spec.player_counts:
        if players < 2:
            continue
        try:
            spec.check(players, variant)
        except ConfigError:
            continue
        out.append(players)
    if not out and (1, variant) in spec.configurations and automaton_name(game, variant, 1):
        out.append(1)
    return out


def choose_player_count(allowed: list[int], played: dict[str, int], available: int) -> int | None:
    """The allowed count (≤ available bots) with the fewest ladder matches; ties: the larger."""
    usable = [c for c in allowed if c <= available]
    if not usable:
        return None
    return min(usable, key=lambda c: (played.get(str(c), 0), -c))


def choose_seats(table: list[Candidate], players: int, rng: random.Random) -> list[Candidate]:
    """Seat order minimising how often each bot has already had its seat (k ≤ 5: ≤ 120 tries)."""
    key = str(players)
    best: list[Candidate] = table
    best_cost: tuple[int, float] | None = None
    for order in permutations(table):
        cost = sum(c.seat_counts.get(key, {}).get(str(seat), 0) for seat, c in enumerate(order))
        score = (cost, rng.random())
        if best_cost is None or score < best_cost:
            best, best_cost = list(order), score
    return best


class Field:
    """The bots one tick chooses tables from: the list, and an index by mu built once per tick
    (ratings do not change within a tick, only ``pending`` does), so the bots nearest an anchor
    in mu are found in O(log N + k) rather than by sorting the whole field for every table —
    the difference between seconds and milliseconds per tick at 10,000 bots."""

    def __init__(self, candidates: list[Candidate], rng: random.Random) -> None:
        self.candidates = list(candidates)
        self.by_mu = sorted(self.candidates, key=lambda c: (c.mu, rng.random()))  # random among equals
        self.mus = [c.mu for c in self.by_mu]
        self.index = {id(c): i for i, c in enumerate(self.by_mu)}
        self.rng = rng
        self._heaps: dict[Callable[[Candidate], tuple], list[tuple[tuple, float, int]]] = {}

    def __len__(self) -> int:
        return len(self.candidates)

    def nearest(self, anchor: Candidate, k: int, mu: float | None = None,
                one_per_author: bool = True) -> list[Candidate]:
        """The ``k`` bots closest in mu to ``anchor`` (not itself), closest first; to ``mu``
        instead of the anchor's own when given. ``one_per_author``: skip a bot whose author is
        the anchor's or one already taken (:mod:`arena.intake.authors`); False lists every bot (a
        pool that a caller filters itself)."""
        taken = {anchor.author} if one_per_author and anchor.author is not None else set()
        n, mus = len(self.by_mu), self.mus
        if mu is None:
            i, mu = self.index[id(anchor)], anchor.mu
            lo, hi = i - 1, i + 1
        else:
            hi = bisect.bisect_left(mus, mu)
            lo = hi - 1
        out: list[Candidate] = []
        while len(out) < k and (lo >= 0 or hi < n):
            if lo >= 0 and self.by_mu[lo] is anchor:
                lo -= 1
                continue
            if hi < n and self.by_mu[hi] is anchor:
                hi += 1
                continue
            below = mu - mus[lo] if lo >= 0 else math.inf
            above = mus[hi] - mu if hi < n else math.inf
            if below < above or (below == above and self.rng.random() < 0.5):
                pick = self.by_mu[lo]
                lo -= 1
            else:
                pick = self.by_mu[hi]
                hi += 1
            if one_per_author and pick.author is not None:
                if pick.author in taken:
                    continue
                taken.add(pick.author)
            out.append(pick)
        return out

    def least(self, key: Callable[[Candidate], tuple]) -> Candidate:
        """The bot with the smallest ``key`` (a random one among equals), from a heap built once
        per tick. Within a tick a key only grows (``pending`` goes up as tables are planned), so
        an entry is re-keyed lazily when it reaches the top: O(log N) per table."""
        heap = self._heaps.get(key)
        if heap is None:
            heap = self._heaps[key] = [(key(c), self.rng.random(), i) for i, c in enumerate(self.candidates)]
            heapq.heapify(heap)
        while True:
            stored, _, i = heap[0]
            now = key(self.candidates[i])
            if now == stored:
                return self.candidates[i]
            heapq.heapreplace(heap, (now, self.rng.random(), i))


def _anchor_key(c: Candidate) -> tuple:
    """The anchor: fewest queued matches, then least certain, then fewest games."""
    return (c.pending, -c.sigma, c.games)


def _fewest_games_key(c: Candidate) -> tuple:
    """The mu-nearest rule's anchor: fewest games, counting queued ones."""
    return (c.games + c.pending,)


def _uncertain_table(env: trueskill.TrueSkill, field: Field, players: int, rng: random.Random) -> list[Candidate]:
    """The ``uncertainty`` rule: the least certain bot (fewest queued matches first) against the
    combination of its mu-neighbours with the highest TrueSkill match quality (the draw
    probability of the table), slightly favouring uncertain bots and penalising opponents
    already queued or met often."""
    anchor = field.least(_anchor_key)
    pool = field.nearest(anchor, max(players + 3, 2 * (players - 1)), one_per_author=False)
    pool = [c for c in pool if free_of(c, authors_at([anchor]))]
    best: tuple[float, list[Candidate]] | None = None
    for combo in combinations(pool, players - 1):
        if len(authors_at(list(combo))) < sum(1 for c in combo if c.author is not None):
            continue  # two bots of one author
        table = [anchor, *combo]
        quality = env.quality([(trueskill.Rating(c.mu, c.sigma),) for c in table])
        met = sum(anchor.opponent_counts.get(str(c.version_id), 0) for c in combo)
        score = (
            quality
            + 0.02 * sum(c.sigma for c in combo) / ratings.SIGMA0
            - 0.1 * sum(c.pending for c in combo)
            - 0.02 * met / max(1, anchor.games)
        )
        if best is None or score > best[0]:
            best = (score, table)
    if best is None:  # every combination of the pool repeats an author: the mu-nearest table
        return [anchor, *field.nearest(anchor, players - 1)]
    return best[1]


def _thompson_table(field: Field, players: int, rng: random.Random) -> list[Candidate]:
    """The ``thompson`` rule: the same anchor; its opponents are the bots closest in mu to a skill
    drawn from the anchor's rating, N(mu, sigma²) — a bot whose place is uncertain meets bots all
    over the range it may belong to, a settled one its neighbours."""
    anchor = field.least(_anchor_key)
    return [anchor, *field.nearest(anchor, players - 1, mu=rng.gauss(anchor.mu, anchor.sigma))]


def _mu_nearest_table(field: Field, players: int, rng: random.Random) -> list[Candidate]:  # noqa: ARG001
    """The ``mu-nearest`` rule (the default; steps 2-3 of the module docstring)."""
    anchor = field.least(_fewest_games_key)
    return [anchor, *field.nearest(anchor, players - 1)]


#: The pairing rules :func:`plan_table` knows (``arena bench ladder-quality`` compares them):
#: ``mu-nearest`` (the module docstring), ``uncertainty``, ``thompson`` and ``random``.
RULES = ("mu-nearest", "uncertainty", "thompson", "random")
#: The rule the ladder plays: the best of :data:`RULES` in ``arena bench ladder-quality``.
DEFAULT_RULE = "mu-nearest"


def plan_table(
    game: str, candidates: list[Candidate] | Field, players: int, rng: random.Random, rule: str | None = None
) -> list[Candidate]:
    """The bots of one new table, in seat order (see the module docstring); ``rule`` one of
    :data:`RULES` (default :data:`DEFAULT_RULE`). A :class:`Field` saves re-indexing the bots
    when one tick plans many tables."""
    if len(candidates) < players:
        raise ValueError(f"{players} seats need {players} bots; only {len(candidates)} available")
    rule = rule or DEFAULT_RULE
    if rule not in RULES:
        raise ValueError(f"unknown pairing rule {rule!r}; choose from {', '.join(RULES)}")
    field = candidates if isinstance(candidates, Field) else Field(candidates, rng)
    if players == 1:  # a solo table: the anchor against the engine's automaton
        return [field.least(_anchor_key)]
    if rule == "uncertainty":
        table = _uncertain_table(ratings.environment(game), field, players, rng)
    elif rule == "thompson":
        table = _thompson_table(field, players, rng)
    elif rule == "mu-nearest":
        table = _mu_nearest_table(field, players, rng)
    else:
        table = []
        for c in rng.sample(field.candidates, len(field.candidates)):
            if free_of(c, authors_at(table)):
                table.append(c)
                if len(table) == players:
                    break
    if len(table) < players:
        raise ValueError(f"{players} seats need bots of {players} different authors; the field has fewer")
    return choose_seats(table, players, rng)


# --- the ladder in the database ---------------------------------------------------------------


def ensure_ladder(
    session: Session,
    game: str,
    variant: str | None = None,
    queue_target: int = 4,
    decision_ms: int | None = None,
    bank_ms: int | None = None,
    sandbox: bool = True,
    house: bool | None = None,
) -> Ladder:
    """Create or update (and enable) the ladder of ``game``; ``house``: True seats the house
    bots (:mod:`arena.intake.house`, the rating scale's reference points), False takes them off,
    None leaves them as they are."""
    spec = registry.get_spec(game)
    variant = variant or spec.default_variant
    if not ladder_counts(game, variant):
        raise ConfigError(f"{game} variant {shorten(variant)!r} has no multi-player configuration (nor a rated "
                          "solo automaton) to ladder")
    ladder = session.get(Ladder, game)
    if ladder is None:
        ladder = Ladder(game=game, player_counts={})
        session.add(ladder)
    ladder.variant = variant
    ladder.enabled = True
    ladder.queue_target = queue_target
    ladder.decision_ms, ladder.bank_ms, ladder.sandbox = decision_ms, bank_ms, sandbox
    ladder.updated_at = utcnow()
    if house is not None:
        from arena.intake.house import set_house_bots_active

        set_house_bots_active(session, game, house)
    session.flush()
    return ladder


def queued_ladder_matches(session: Session, game: str) -> list[Match]:
    return list(
        session.scalars(
            select(Match).where(
                Match.game == game, Match.kind == "ladder", Match.status.in_(("pending", "running"))
            )
        )
    )


def _json_dict(text: str | None) -> dict:
    value = orjson.loads(text) if text else None
    return value if isinstance(value, dict) else {}


def load_candidates(session: Session, game: str, connected_only: bool = True) -> dict[int, Candidate]:
    """The ladder's population as the matchmaker sees it, by version id: the playing version of
    every active bot of ``game`` (:func:`arena.intake.bots.latest_versions`: the newest version not held
    back by an SPRT; a solo automaton never takes a seat) with its rating; a bot that dials in
    only while it is connected (:mod:`arena.competition.dialin_presence`). One query over the bots, versions and
    ratings — walking ``Bot.playing_version`` loaded each bot's versions in a query of its own,
    seconds per tick at 10,000 bots. ``connected_only=False`` keeps dial-in bots not connected
    now (:class:`arena.competition.ladder_population.PopulationCache` keeps them, and asks on every tick)."""
    rows = session.execute(
        select(BotVersion.bot_id, BotVersion.number, BotVersion.id, BotVersion.kind, BotVersion.source,
               Bot.owner, Rating.mu, Rating.sigma, Rating.games_played,
               # as text, decoded by orjson below: the JSON type's decoder was a third of the tick
               cast(Rating.seat_counts, Text).label("seat_counts"),
               cast(Rating.opponent_counts, Text).label("opponent_counts"))
        .join(Bot, Bot.id == BotVersion.bot_id)
        .outerjoin(Rating, and_(Rating.bot_version_id == BotVersion.id, Rating.game == game))
        .where(Bot.game == game, Bot.active.is_(True), BotVersion.held.is_(False))
    ).all()
    # Plain tuples from here: a Row's attributes by name cost more than the rest of the loop.
    playing: dict[int, tuple] = {}
    for row in map(tuple, rows):
        bot_id, number = row[0], row[1]
        if bot_id not in playing or number > playing[bot_id][1]:
            playing[bot_id] = row
    chosen = sorted((r for r in playing.values() if r[3] != "automaton" and r[6] is not None),
                    key=lambda r: r[0])
    dialing = [r[4] for r in chosen if dialin_client.is_source(r[4])]
    absent = set(dialing) - set(dialin.connected_among(dialing)) if connected_only else set()
    out: dict[int, Candidate] = {}
    for _, _, version_id, _, source, owner, mu, sigma, games, seats, opponents in chosen:
        if source not in absent:
            out[version_id] = Candidate(version_id, mu, sigma, games, _json_dict(seats), _json_dict(opponents),
                                        author=author_of(owner))
    return out


def count_seat(cand: Candidate, players: int, seat: int, copied: set[int]) -> None:
    """One more (queued) match of ``cand`` in ``seat`` at ``players``. The counts may be a
    :class:`arena.competition.ladder_population.PopulationCache`'s own: copied before the first change of
    a tick (``copied``: the version ids copied so far), so the cache keeps what the database
    holds."""
    if cand.version_id not in copied:
        copied.add(cand.version_id)
        cand.seat_counts = {k: dict(v) for k, v in cand.seat_counts.items()}
    per = cand.seat_counts.setdefault(str(players), {})
    per[str(seat)] = per.get(str(seat), 0) + 1


def tick(session: Session, game: str, rng: random.Random | None = None, rule: str | None = None,
         population: CandidateSource | None = None) -> list[str]:
    """Top the ladder's queue up to its target; returns the ids of the new matches (flushed,
    not committed — the caller commits and then enqueues them). ``rule``: the pairing rule
    (:data:`RULES`, default :data:`DEFAULT_RULE`). ``population``: the process's cache of the
    ladder's bots and ratings (:mod:`arena.competition.ladder_population`; the same candidates, reading
    only what changed since its last tick), else :func:`load_candidates` reads them all."""
    # Row lock: two ticks of one game (beat + `arena ladder run`) never both fill the same gap.
    ladder = session.get(Ladder, game, with_for_update=True)
    if ladder is None or not ladder.enabled:
        return []
    rng = rng or random.Random()
    queued = queued_ladder_matches(session, game)
    retired = retire_superseded(session, queued)  # an older version's queued matches (arena.intake.authors)
    queued = [m for m in queued if m.id not in retired]
    missing = ladder.queue_target - len(queued)
    if missing <= 0:
        return []
    candidates = population.candidates(session, game) if population is not None else load_candidates(session, game)
    copied: set[int] = set()
    # Matches already queued count as played for the quotas, so one tick does not queue the
    # same table again and again.
    for m in queued:
        for s in m.seats:
            cand = candidates.get(s.bot_version_id)
            if cand is not None:
                cand.pending += 1
                count_seat(cand, m.players, s.seat, copied)
    allowed = ladder_counts(game, ladder.variant)
    field = Field(list(candidates.values()), rng)
    created: list[str] = []
    counts = dict(ladder.player_counts or {})
    available = seatable(field.candidates)  # one seat per author at a table (arena.intake.authors)
    for _ in range(missing):
        players = choose_player_count(allowed, counts, available)
        if players is None:
            break
        table = plan_table(game, field, players, rng, rule)
        variant = registry.get_spec(game).check(players, ladder.variant)
        match = recording.create_match(
            session,
            game,
            variant,
            [c.version_id for c in table],
            seed=match_seed(),  # secret until the match ends
            kind="ladder",
            decision_ms=ladder.decision_ms,
            bank_ms=ladder.bank_ms,
            sandbox=ladder.sandbox,
            rated=len(authors_at(table)) == sum(1 for c in table if c.author is not None),
        )
        created.append(match.id)
        counts[str(players)] = counts.get(str(players), 0) + 1
        for seat, cand in enumerate(table):
            cand.pending += 1
            count_seat(cand, players, seat, copied)
    ladder.player_counts = counts
    ladder.updated_at = utcnow()
    session.flush()
    return created
