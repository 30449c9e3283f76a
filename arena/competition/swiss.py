"""Swiss rounds for k-seat tables (k = 2..5): pairing, seats, byes and standings. No database.

A Swiss tournament plays a fixed number of rounds; each round is paired from the standings after
the previous one, so a large field (hundreds of bots) is ranked in a few rounds of N/k tables
where a round-robin would need every pair. One round, by :func:`pair_round`:

1. **Byes.** ``N mod k`` bots sit out (a table always has the game's seat count). They are the
   bots with the fewest byes so far, lowest in the standings first — so no bot has a second bye
   while another has none (``byes ≤ 1`` per bot while ``rounds·(N mod k) ≤ N``). A bye scores as
   a win (:data:`BYE_POINTS`) and changes no rating: no game is played.
2. **Seats.** A bot may sit only where it has sat least often (every seat when its counts are
   equal), so each bot's seat counts never differ by more than one (*seat spread ≤ 1*). A table
   is *seatable* when its bots can be given distinct allowed seats (Hall's condition, checked
   on the seat sets: k ≤ 5). Seatability is a hard rule; the other two are preferences below it.
3. **Tables.** The playing bots, in standing order (score, then the tie-breaks), are cut into
   tables greedily: each table starts with the best bot left and takes the next bots in order
   that keep it seatable and meet no one at it again. The tail of that greedy pass can be left
   with repeats; a *repair* then swaps bots between tables (nearest in the standings first)
   while that lowers (unseatable tables, repeated meetings, standing distance) —
   lexicographically, so a repair never buys similar standing with a repeat. Where repeats
   still remain, an exhaustive search with a budget (:data:`SEARCH_BUDGET` nodes) looks for a
   repeat-free, seatable cut; it decides small fields exactly. So a repeat happens only when no
   seatable repeat-free pairing exists (small fields, many rounds), or the budget ran out (not
   seen in the tested shapes, N = 10..300, within :func:`repeat_free_rounds`).
4. **Seat order** at each table: among the seat assignments every bot is allowed, the one that
   puts bots where they have sat least often, ties broken by the round's random generator.

"Similar standing" for several seats: the sorted field is cut into consecutive groups of k, and
the repair moves a bot only as far as it must.

Standings (:func:`standings`): points per game are the share of the table's other bots a bot
finished ahead of (a tie counts half): 1 for a win, ½ a draw, 0 a loss at two seats; 1, ⅔, ⅓, 0
for the four places of a four-seat table. Points are exact fractions (:class:`fractions.Fraction`)
from the table to the comparison, so equal scores are equal (as floats, 1/3 + 2/3 + … gives
1.9999999999999998 beside 2.0 and orders bots by rounding noise). A failed match (never played)
gives no points. Ties are broken, in order, by **Buchholz** — the sum over a bot's games of its
opponents' mean final score (a bye counts the bot's own score, as a virtual opponent of equal
strength) — then **Sonneborn-Berger** in its multi-seat form (per game, the opponents' final
scores weighted by the result against each, 1 / ½ / 0, over the k − 1 opponents: at two seats
the classic sum of beaten opponents' scores plus half of drawn ones'), then **direct encounter**
(the results among the still-tied bots, only when every pair of them has met), then the bot's
TrueSkill rating (mu − 3·sigma, the leaderboard's). Bots equal on all of these share a place
(entry order only lists them).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations

#: Points for a bye: a win (the bot could not play; it is not its fault).
BYE_POINTS = Fraction(1)
#: A tie's share of a point.
HALF = Fraction(1, 2)
#: Nodes the exhaustive search may visit before it settles for the repair's pairing.
SEARCH_BUDGET = 20_000


class SwissError(ValueError):
    """A Swiss round that cannot be paired (fewer bots than seats, …)."""


@dataclass
class History:
    """What pairing needs from the earlier rounds: who met whom, seat counts, byes."""

    seats: int
    met: defaultdict[int, defaultdict[int, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    seat_counts: dict[int, list[int]] = field(default_factory=dict)
    byes: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))

    def add_table(self, seated: Sequence[int]) -> None:
        for seat, bot in enumerate(seated):
            self.counts(bot)[seat] += 1
        for a, b in combinations(seated, 2):
            self.met[a][b] += 1
            self.met[b][a] += 1

    def add_bye(self, bot: int) -> None:
        self.byes[bot] += 1

    def add_round(self, pairing: Pairing) -> None:
        for table in pairing.tables:
            self.add_table(table)
        for bot in pairing.byes:
            self.add_bye(bot)

    def counts(self, bot: int) -> list[int]:
        if bot not in self.seat_counts:
            self.seat_counts[bot] = [0] * self.seats
        return self.seat_counts[bot]

    def allowed(self, bot: int) -> int:
        """Bit mask of the seats ``bot`` may take and keep its seat spread ≤ 1."""
        counts = self.counts(bot)
        low = min(counts)
        return sum(1 << s for s, c in enumerate(counts) if c == low)


@dataclass(frozen=True)
class Pairing:
    """One round: ``tables[i][s]`` is the bot in seat ``s`` of table ``i``; ``byes`` sit out."""

    tables: list[tuple[int, ...]]
    byes: list[int]
    repeats: int  # pairs at these tables that had met before (0 whenever it could be avoided)


def repeat_free_rounds(n: int, k: int) -> int:
    """Rounds for which a repeat-free pairing always exists, whatever the results: while every
    bot has met at most Δ = (r − 1)(k − 1) others, the Hajnal–Szemerédi theorem splits the
    ``T = ⌊n/k⌋·k`` players into ``⌊n/k⌋`` groups of k none of whom met (an equitable colouring
    of the "met" graph with ⌊n/k⌋ ≥ Δ + 1 colours). Seat balance is not part of that bound; the
    tests check repeat-free rounds within it for N = 10..300, k = 2..5."""
    return (n // k - 1) // (k - 1) + 1


@lru_cache(maxsize=4096)
def _seatable(masks: tuple[int, ...]) -> bool:
    """Hall's condition: every subset of the bots has at least as many allowed seats."""
    size = len(masks)
    for subset in range(1, 1 << size):
        union = 0
        count = 0
        for i in range(size):
            if subset >> i & 1:
                union |= masks[i]
                count += 1
        if union.bit_count() < count:
            return False
    return True


class _Round:
    """The working state of one pairing: positions, seat masks, meetings, tables."""

    def __init__(self, order: list[int], history: History) -> None:
        self.order = order
        self.pos = {b: i for i, b in enumerate(order)}
        self.mask = {b: history.allowed(b) for b in order}
        self.met = history.met

    def repeats(self, table: Sequence[int]) -> int:
        met = self.met
        return sum(met[a].get(b, 0) for a, b in combinations(table, 2) if a in met)

    def cost(self, table: Sequence[int]) -> tuple[int, int, int]:
        mask, pos = self.mask, self.pos
        seatable = _seatable(tuple(sorted(mask[b] for b in table)))
        distance = sum(abs(pos[a] - pos[b]) for a, b in combinations(table, 2))
        return (0 if seatable else 1, self.repeats(table), distance)


def _add(x: tuple[int, int, int], y: tuple[int, int, int]) -> tuple[int, int, int]:
    return (x[0] + y[0], x[1] + y[1], x[2] + y[2])


def _fits(counts: Mapping[int, int], cap: Sequence[int]) -> bool:
    """Can bots with these allowed-seat masks (mask -> how many) fill seats with exactly
    ``cap[s]`` places each? Hall's condition on every set S of seats: the bots allowed only
    within S are at most the places of S (totals are equal, so this is also sufficient).
    Both sides summed over all S at once (subset-sum transforms over k ≤ 5 bits)."""
    k = len(cap)
    full = 1 << k
    need = [0] * full
    for m, c in counts.items():
        need[m] += c
    places = [0] * full
    for subset in range(1, full):
        low = subset & -subset
        places[subset] = places[subset ^ low] + cap[low.bit_length() - 1]
    for bit in range(k):
        step = 1 << bit
        for subset in range(full):
            if subset & step:
                need[subset] += need[subset ^ step]
    return all(need[s] <= places[s] for s in range(1, full))


def _greedy(state: _Round, k: int) -> list[list[int]]:
    """Tables in standing order: the best bot left, then the next ones that meet no one at the
    table again (or, failing that, the fewest), each given a seat so that the bots still
    unplaced can fill the seats left (:func:`_fits`) — so the cut is seatable whenever the
    round is (:func:`_byes` makes sure it is)."""
    left = list(state.order)
    met, mask = state.met, state.mask
    counts: defaultdict[int, int] = defaultdict(int)
    for b in left:
        counts[mask[b]] += 1
    tables = []
    tables_left = len(left) // k
    while left:
        cap = [tables_left] * k
        table: list[int] = []
        taken = 0  # seats of this table already given
        for _slot in range(k):
            choice = None
            for want_clean in (True, False):
                best_rep = None
                for i, b in enumerate(left):
                    rep = sum(met[b].get(x, 0) for x in table) if b in met else 0
                    if want_clean and rep:
                        continue
                    if not want_clean and best_rep is not None and rep >= best_rep:
                        continue
                    seat = _seat_that_fits(mask[b] & ~taken, mask[b], counts, cap)
                    if seat is not None:
                        choice, best_rep = (i, seat), rep
                        if want_clean or rep == 0:
                            break
                if choice is not None:
                    break
            if choice is None:  # the round cannot be seated (never with byes from _byes): any bot
                choice = (0, next(s for s in range(k) if not taken >> s & 1))
            i, seat = choice
            taken |= 1 << seat
            b = left.pop(i)
            counts[mask[b]] -= 1
            cap[seat] -= 1
            table.append(b)
        tables.append(table)
        tables_left -= 1
    return tables


def _seat_that_fits(open_: int, m: int, counts: defaultdict[int, int], cap: list[int]) -> int | None:
    """A seat in ``open_`` (the bot's allowed seats still free at this table) after which the
    other unplaced bots (``m``: this bot's mask, counted in ``counts``) still fit; or None."""
    counts[m] -= 1
    try:
        for s in range(len(cap)):
            if open_ >> s & 1 and cap[s] > 0:
                cap[s] -= 1
                ok = _fits(counts, cap)
                cap[s] += 1
                if ok:
                    return s
        return None
    finally:
        counts[m] += 1


def _byes(standing: Sequence[int], k: int, history: History) -> list[int]:
    """The ``n mod k`` bots who sit out: fewest byes so far, lowest in the standings first —
    among such choices the first (in that order) after which the players can be seated."""
    n = len(standing)
    count = n % k
    place = {b: i for i, b in enumerate(standing)}
    order = sorted(standing, key=lambda b: (history.byes[b], -place[b]))
    if count == 0:
        return []
    cap = [(n - count) // k] * k
    masks = {b: history.allowed(b) for b in standing}
    every: defaultdict[int, int] = defaultdict(int)
    for b in standing:
        every[masks[b]] += 1
    fewest = history.byes[order[count - 1]]
    pool = [b for b in order if history.byes[b] <= fewest][: count + 12]  # C(16, 4) tries at most
    for chosen in combinations(pool, count):
        for b in chosen:
            every[masks[b]] -= 1
        ok = _fits(every, cap)
        for b in chosen:
            every[masks[b]] += 1
        if ok:
            return list(chosen)
    return order[:count]


def _repair(state: _Round, tables: list[list[int]]) -> None:
    """For every table with a fault (unseatable, or a repeat), swap one of its bots with one of
    another table — the nearest table in the standings where some swap lowers the two tables'
    faults, the best swap there — until no swap lowers any fault."""
    costs = [state.cost(t) for t in tables]
    count = len(tables)
    for _sweep in range(50):
        improved = False
        for x in range(count):
            if costs[x][:2] == (0, 0):
                continue
            for y in sorted(range(count), key=lambda y: abs(y - x))[1:]:
                base = _add(costs[x], costs[y])
                tx, ty = tables[x], tables[y]
                best = None
                for i in range(len(tx)):
                    for j in range(len(ty)):
                        nx = tx[:i] + [ty[j]] + tx[i + 1:]
                        ny = ty[:j] + [tx[i]] + ty[j + 1:]
                        cx, cy = state.cost(nx), state.cost(ny)
                        total = _add(cx, cy)
                        if total[:2] < base[:2] and (best is None or total < best[0]):
                            best = (total, nx, ny, cx, cy)
                if best is not None:
                    _total, tables[x], tables[y], costs[x], costs[y] = best
                    improved = True
                    break
        if not improved:
            return


def _search(state: _Round, k: int, budget: int) -> list[list[int]] | None:
    """Exhaustive search (in standing order, with a node budget) for seatable, repeat-free
    tables; None when there are none or the budget ran out."""
    met, mask = state.met, state.mask
    left = list(state.order)
    nodes = 0

    def clean(table: list[int], b: int) -> bool:
        if b in met and any(met[b].get(x, 0) for x in table):
            return False
        return _seatable(tuple(sorted([mask[x] for x in table] + [mask[b]])))

    def fill(remaining: list[int]) -> list[list[int]] | None:
        nonlocal nodes
        if not remaining:
            return []
        first, rest = remaining[0], remaining[1:]

        def grow(table: list[int], start: int) -> list[list[int]] | None:
            nonlocal nodes
            nodes += 1
            if nodes > budget:
                return None
            if len(table) == k:
                others = [b for b in rest if b not in table]
                found = fill(others)
                return None if found is None else [table, *found]
            for i in range(start, len(rest)):
                b = rest[i]
                if clean(table, b):
                    found = grow([*table, b], i + 1)
                    if found is not None:
                        return found
                    if nodes > budget:
                        return None
            return None

        return grow([first], 0)

    return fill(left)


def _seat(table: list[int], history: History, rng: random.Random) -> tuple[int, ...]:
    """The table's seat order: allowed seats only when possible, least-used seats first."""
    k = len(table)
    best, best_key = None, None
    for perm in permutations(range(k)):  # perm[i]: the seat of table[i]; k ≤ 5, ≤ 120 orders
        allowed = all(history.allowed(b) >> s & 1 for b, s in zip(table, perm, strict=True))
        load = sum(history.counts(b)[s] for b, s in zip(table, perm, strict=True))
        key = (0 if allowed else 1, load, rng.random())
        if best_key is None or key < best_key:
            best, best_key = perm, key
    seated = [0] * k
    for b, s in zip(table, best, strict=True):
        seated[s] = b
    return tuple(seated)


def _score_group_pairs(order: Sequence[int], scores: Mapping[int, Fraction],
                       history: History) -> list[tuple[int, int]] | None:
    """Two-seat tables by score group, in the spirit of the FIDE Dutch system, as one
    maximum-weight matching (the blossom algorithm, rustworkx's, exact on integer weights) over the
    pairs the hard rules allow — the two never met, and they can be seated keeping both seat
    spreads ≤ 1. Among perfect matchings it takes, lexicographically: (1) the fewest pairs
    across score groups (floaters), (2) the smallest sum of squared score gaps those bridge, (3)
    within a group, the Dutch shape: the top half against the bottom half (each pair's distance
    in the group as near half the group as can be). None when the rules leave no perfect
    matching (the general search then decides, repeats allowed where unavoidable).

    Every allowed pair is an edge, so the optimum is never lost to pruning: sparser graphs
    (partners near in the standings, blocks of score groups) were tried and lost it by 10-25 %.
    The speed comes from the compiled matching instead (:func:`_matching`: networkx's pure-Python
    blossom took 2.4 s a round at 300 bots; docs/tournaments-and-ratings.md has the figures)."""
    doubled = {b: int(scores.get(b, Fraction(0)) * 2)  # multiples of ½: whole numbers doubled
               for b in order}
    pairs = _block_pairs(list(order), doubled, history)
    if pairs is None:
        return None
    pos = {b: i for i, b in enumerate(order)}
    return sorted(((a, b) if pos[a] < pos[b] else (b, a) for a, b in pairs), key=lambda p: pos[p[0]])


def _block_pairs(block: list[int], doubled: Mapping[int, int], history: History) -> list[tuple[int, int]] | None:
    """A perfect matching of ``block`` (bots, best first; ``doubled`` their scores × 2) by the
    costs of :func:`_score_group_pairs`, or None."""
    n = len(block)
    if n % 2:
        return None
    group_of: dict[int, list[int]] = defaultdict(list)
    for b in block:
        group_of[doubled[b]].append(b)
    index = {b: i for g in group_of.values() for i, b in enumerate(g)}
    half = {b: len(group_of[doubled[b]]) // 2 for b in block}
    span = max(1, max(doubled[b] for b in block) - min(doubled[b] for b in block))
    tier3 = n + 1                       # one pair's shape term is below n
    tier2 = tier3 * (n // 2 + 1)        # above any matching's total shape term
    tier1 = tier2 * (span * span * (n // 2) + 1)  # above any matching's total gap term
    top = tier1 * (n // 2 + 1)          # every edge positive: more pairs always weigh more
    masks = {b: history.allowed(b) for b in block}
    edges: list[tuple[int, int, int]] = []
    for i, a in enumerate(block):
        mask_a, met_a, score_a, index_a = masks[a], history.met.get(a, {}), doubled[a], index[a]
        for j in range(i + 1, n):
            b = block[j]
            if met_a.get(b) or (mask_a == masks[b] and mask_a.bit_count() == 1):
                continue  # met before, or both may take only the same one seat
            gap = score_a - doubled[b]
            if gap:
                cost = tier1 + tier2 * gap * gap
            else:
                cost = abs(abs(index_a - index[b]) - half[a])
            edges.append((a, b, top - cost))
    matching = _matching(block, edges)
    return list(matching) if 2 * len(matching) == n else None


def _matching(order: Sequence[int], edges: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """A maximum-cardinality, maximum-weight matching of ``order`` over ``edges`` (a, b, weight).

    rustworkx's ``max_weight_matching`` is the same blossom algorithm as networkx's (Galil's
    O(N³) primal-dual method, a port of the same code) compiled in Rust, exact on integer
    weights: ~100 times faster, so a 300-bot round pairs in a fraction of a second on the full
    graph (docs/tournaments-and-ratings.md). networkx stays the benchmark's independent check."""
    import rustworkx as rx

    graph = rx.PyGraph()
    node = graph.add_nodes_from(list(order))
    index = {b: i for b, i in zip(order, node, strict=True)}
    graph.add_edges_from([(index[a], index[b], w) for a, b, w in edges])
    found = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return [(order[i], order[j]) for i, j in found]


def pair_round(standing: Sequence[int], k: int, history: History, seed: int,
               scores: Mapping[int, Fraction] | None = None) -> Pairing:
    """Pair one round: ``standing`` is every bot, best first (see :func:`standing_order`).
    With ``scores`` (each bot's points so far), two-seat rounds are paired by score group
    (:func:`_score_group_pairs`); without them, and at 3-5 seats, by the cut described above."""
    if not 2 <= k <= 5:
        raise SwissError("Swiss tables have 2 to 5 seats")
    n = len(standing)
    if n < k:
        raise SwissError(f"{k}-seat tables need at least {k} bots; got {n}")
    if len(set(standing)) != n:
        raise SwissError("a bot is listed twice")
    rng = random.Random(seed)
    place = {b: i for i, b in enumerate(standing)}
    byes = _byes(standing, k, history)
    out = set(byes)
    order = [b for b in standing if b not in out]
    state = _Round(order, history)
    matched = _score_group_pairs(order, scores, history) if k == 2 and scores is not None else None
    if matched is not None:
        seated = [_seat(list(t), history, rng) for t in matched]
        return Pairing(seated, sorted(byes, key=place.__getitem__), 0)
    tables = _greedy(state, k)
    _repair(state, tables)
    if any(state.cost(t)[:2] != (0, 0) for t in tables):
        found = _search(state, k, SEARCH_BUDGET)
        if found is not None:
            tables = found
            _repair(state, tables)
    seated = [_seat(t, history, rng) for t in tables]
    return Pairing(seated, sorted(byes, key=place.__getitem__), sum(state.repeats(t) for t in tables))


# --- standings ---------------------------------------------------------------------------------


def table_points(ranks: Sequence[int]) -> list[Fraction]:
    """Points of each seat of a finished table (rank 1 is first; equal ranks tie): the share of
    the other bots it finished ahead of, a tie counting half. Exact: sums of these fractions are
    compared, and ``1/3 + 2/3`` summed as floats is ``0.9999999999999999`` next to ``1.0``."""
    k = len(ranks)
    if k < 2:
        return [Fraction(0)] * k
    return [
        sum((_versus(r, o) for j, o in enumerate(ranks) if j != i), Fraction(0)) / (k - 1)
        for i, r in enumerate(ranks)
    ]


def _versus(mine: int, other: int) -> Fraction:
    """One bot's result against one other bot at the same table, from their ranks: 1, ½ or 0."""
    return Fraction(1) if mine < other else HALF if mine == other else Fraction(0)


def points_text(value: Fraction, digits: int = 2) -> str:
    """The one way points and tie-break sums are written (page, API text, CLI, exports): fixed
    ``digits`` decimals rounded half up from the exact fraction, so equal values always read the
    same and no float ever decides a digit."""
    scaled = abs(value) * 10**digits
    whole = (scaled.numerator * 2 + scaled.denominator) // (2 * scaled.denominator)  # half up
    sign = "-" if value < 0 and whole else ""
    if digits == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole // 10**digits}.{whole % 10**digits:0{digits}d}"


def fraction_text(value: Fraction) -> str:
    """A point total as an exact fraction (``7/3``; ``2`` when whole): the machine-readable form."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True)
class Game:
    """A finished (or failed) table for standings: bots in seat order, their ranks (None: the
    match failed and scores nothing)."""

    bots: tuple[int, ...]
    ranks: tuple[int, ...] | None


@dataclass(frozen=True)
class Standing:
    """One line of the standings. ``place`` is shared by bots equal on every tie-break up to and
    including the rating (entry order only lists them); ``decided_by`` names the first tie-break
    that separated this bot from the one above it ("" for the first line or a shared place)."""

    place: int
    bot: int
    score: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    direct: Fraction
    rating: float
    games: int
    byes: int
    decided_by: str = ""


#: The tie-breaks in the order they apply (the ``decided_by`` values), after the score.
TIE_BREAKS = ("score", "Buchholz", "Sonneborn-Berger", "direct encounter", "rating")


def standings(
    entrants: Sequence[int], games: Iterable[Game], byes: Iterable[int],
    rating: Mapping[int, float] | None = None,
) -> list[Standing]:
    """The table of the tournament so far, best first: score, then Buchholz, then
    Sonneborn-Berger (multi-seat form), then direct encounter, then rating; exact throughout."""
    rating = rating or {}
    games = list(games)
    zero = Fraction(0)
    score: dict[int, Fraction] = dict.fromkeys(entrants, zero)
    played: dict[int, int] = dict.fromkeys(entrants, 0)
    bye_count: dict[int, int] = dict.fromkeys(entrants, 0)
    opponents: dict[int, list[list[int]]] = {b: [] for b in entrants}
    # per game and bot: (result against each other bot at the table), for SB and direct encounter
    results: dict[int, list[list[tuple[int, Fraction]]]] = {b: [] for b in entrants}
    for game in games:
        for b in game.bots:
            opponents[b].append([o for o in game.bots if o != b])
            played[b] += 1
        if game.ranks is not None:
            for i, (b, p) in enumerate(zip(game.bots, table_points(game.ranks), strict=True)):
                score[b] += p
                results[b].append([(o, _versus(game.ranks[i], game.ranks[j]))
                                   for j, o in enumerate(game.bots) if j != i])
    for b in byes:
        bye_count[b] += 1
        score[b] += BYE_POINTS
    buchholz = {
        b: sum((sum((score[o] for o in opp), zero) / len(opp) for opp in opponents[b]), zero)
        + bye_count[b] * score[b]
        for b in entrants
    }
    # Sonneborn-Berger, multi-seat form: per game, each opponent's score weighted by the result
    # against that opponent (1 / ½ / 0), divided by the k − 1 opponents; at two seats the classic
    # sum of beaten opponents' scores plus half the drawn ones'.
    sonneborn = {
        b: sum((sum((r * score[o] for o, r in game), zero) / len(game) for game in results[b] if game), zero)
        for b in entrants
    }
    groups: dict[tuple[Fraction, Fraction, Fraction], list[int]] = defaultdict(list)
    for b in entrants:
        groups[(score[b], buchholz[b], sonneborn[b])].append(b)
    direct: dict[int, Fraction] = dict.fromkeys(entrants, zero)
    for members in groups.values():
        if len(members) > 1:
            direct.update(_direct_encounter(members, results))
    entry = {b: i for i, b in enumerate(entrants)}

    def key(b: int) -> tuple[Fraction, Fraction, Fraction, Fraction, float]:
        return (-score[b], -buchholz[b], -sonneborn[b], -direct[b], -rating.get(b, 0.0))

    ordered = sorted(entrants, key=lambda b: (*key(b), entry[b]))
    rows: list[Standing] = []
    place = 0
    for i, b in enumerate(ordered):
        decided = ""
        if i == 0 or key(ordered[i - 1]) != key(b):
            place = i + 1
            if i:
                above = key(ordered[i - 1])
                decided = next(TIE_BREAKS[j] for j, (x, y) in enumerate(zip(above, key(b), strict=True)) if x != y)
        rows.append(Standing(place, b, score[b], buchholz[b], sonneborn[b], direct[b], rating.get(b, 0.0),
                             played[b], bye_count[b], decided))
    return rows


def _direct_encounter(
    members: Sequence[int], results: Mapping[int, list[list[tuple[int, Fraction]]]],
) -> dict[int, Fraction]:
    """Direct encounter among bots tied on score, Buchholz and Sonneborn-Berger: each one's
    results (1 / ½ / 0 per other member at a shared finished table) against the others of the
    group. As in the FIDE rule it applies only when every pair of the group has met; otherwise
    every member gets 0 and the next tie-break decides."""
    group = set(members)
    met: set[frozenset[int]] = set()
    total = dict.fromkeys(members, Fraction(0))
    for b in members:
        for game in results[b]:
            for o, r in game:
                if o in group:
                    met.add(frozenset((b, o)))
                    total[b] += r
    if len(met) < len(members) * (len(members) - 1) // 2:
        return dict.fromkeys(members, Fraction(0))
    return total


def standing_order(rows: Sequence[Standing]) -> list[int]:
    """The bots of :func:`standings`, best first: the order :func:`pair_round` takes."""
    return [r.bot for r in rows]
