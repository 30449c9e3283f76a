"""The collusion report: pairs of authors whose results against each other the ratings do not
explain.

Why: the author rule (:mod:`arena.intake.authors`) keeps one author's bots apart, but two accounts can
still agree that one of their bots loses on purpose to the other — *soft play*, the classic
rating farm. The record shows it: the soft bot loses to its partner far more often than the
ratings predict, while against everyone else it plays normally. This module reads the record and
says which pairs look like that, for an organiser to look at (``arena collusion``, the website's
organiser page); it punishes no one.

**Parties.** Bots are grouped by author (:func:`arena.intake.authors.author_of`); an exempt bot (house,
``local``) is a party of its own (``owner/name``).

**Games.** Every rated match of the game that finished (``matches.rated``, a ``rating_seq``),
taken apart into its pairwise placings: at a table of k seats, each two seats of different
parties give one *comparison* — 1 to the seat that finished ahead, ½ each for a tie (a forfeit
ranks last, as recorded). A two-seat match is one comparison.

**Prediction.** For each comparison, the probability that seat a finishes ahead of seat b from
the versions' current TrueSkill ratings: ``Φ((μa − μb) / sqrt(2β² + σa² + σb²))`` (β of the
game's environment, :func:`arena.evaluation.ratings.environment`). Current ratings, not those before each
match: a new version's early ratings predict 50 % against everyone, and honest strong bots would
"beat the prediction" against weak ones for no other reason.

**Statistics** (per unordered pair of parties A, B with ``n`` comparisons, A the one that scored
more than the field predicts):

* ``z`` — A's score against B against the ratings: ``(W − E) / sqrt(V)`` with ``W`` A's score,
  ``E = Σ p`` and ``V = Σ p(1 − p)`` over the comparisons, ``p`` TrueSkill's win probability
  from the versions' current ratings (the normal approximation of the Poisson-binomial count
  of wins). Shown, but not what flags: soft play drags the loser's rating down and lifts the
  winner's, so the ratings come to predict much of the result that was bought (in the test's
  planted pair, 27 of its 46.5 points were "predicted"), and the underrated loser's honest
  opponents then beat the prediction too.
* ``z_field`` — the flag: the pair's games against what **the rest of the field** says of the
  two. Every party's strength is fitted from all pairwise results *except this pair's*
  (:func:`field_strengths`, a Thurstone model on TrueSkill's own scale and prior,
  ``P(A ahead of B) = Φ((s_A − s_B) / (√2·β))``), and the pair is tested with a likelihood
  ratio: ``LR = 2·(ℓ(rest | the fit without the pair) + ℓ(pair | its own rate) − ℓ(all | the
  fit of all))``, ``z_field = ±√LR`` (the sign: whether A scored above the field's
  prediction), a standard normal for an honest pair. A soft player that plays its partner
  badly and everyone else properly is as strong as its partner by the field's account, and
  loses to it far more often than that: "a seat that loses far more often to one opponent
  than to the field". Flags are found one at a time, strongest first, each flagged pair then
  left out of every later fit (:func:`_interaction_tests`).

Parties are authors, so an author's several bots are one strength in the fit (a coarse
summary, but the unit that can collude). Cost: each round of flagging fits the field once,
screens every pair by one Newton step from that fit (one inverse of the k×k information
matrix, Sherman-Morrison per pair) and refits exactly only the pairs within
:data:`SCREEN_MARGIN` of the threshold: 0.3 s of CPU for 30 authors who all met (435 pairs),
3 s for 60 (1,770 pairs); refitting every pair took 23 s at 30.

A pair is **flagged** when ``n ≥ min_games`` and ``z_field`` reaches ``Φ⁻¹(1 − α/m)``, where
``m`` is the number of pairs with at least ``min_games`` comparisons and ``α`` the threshold,
a family-wise significance level (default 0.01): Bonferroni's correction, so that a report of
honest authors flags any pair at all with probability at most about α (under the normal
approximation), however many pairs it tests — 28 pairs need z ≥ 3.38, 435 pairs (30 authors)
z ≥ 4.08. A flag asks an organiser to look at the games; it proves nothing.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.db.models import Bot, BotVersion, Match, MatchSeat, Rating
from arena.evaluation import ratings
from arena.intake.authors import author_of

#: Defaults of ``arena collusion`` and the organiser page.
DEFAULT_MIN_GAMES = 10
#: The family-wise significance level: the chance that a report of honest authors flags any
#: pair (the threshold each pair's z_field must reach grows with the pairs tested).
DEFAULT_THRESHOLD = 0.01


def party(owner: str, bot_name: str) -> str:
    """Whom a bot's results count for: its author, or the bot itself when its owner is exempt."""
    author = author_of(owner)
    return author if author is not None else f"{owner}/{bot_name}"


def win_probability(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float, beta: float) -> float:
    """TrueSkill's probability that a finishes ahead of b (no draw margin)."""
    denom = math.sqrt(2 * beta * beta + sigma_a * sigma_a + sigma_b * sigma_b)
    return 0.5 * (1.0 + math.erf((mu_a - mu_b) / denom / math.sqrt(2.0)))


@dataclass
class _Tally:
    """Comparisons of a against b: count, a's score, expected score, variance."""

    n: int = 0
    score: float = 0.0
    expected: float = 0.0
    variance: float = 0.0

    def add(self, score: float, p: float) -> None:
        self.n += 1
        self.score += score
        self.expected += p
        self.variance += p * (1.0 - p)


@dataclass(frozen=True)
class PairRow:
    """One pair of parties: ``winner`` scored more against ``loser`` than predicted."""

    winner: str
    loser: str
    #: The bots of each party that met, by label (``name vN``).
    winner_bots: list[str]
    loser_bots: list[str]
    games: int  # pairwise comparisons
    matches: int  # matches they shared
    score: float  # the winner's score against the loser (1 a win, ½ a tie)
    expected: float
    z: float
    #: The winner's expected score against the loser from what the rest of the field says of
    #: both (:func:`field_strengths` without this pair), and the z score of the real one.
    field_expected: float
    z_field: float
    flagged: bool

    def to_dict(self) -> dict[str, Any]:
        """As JSON takes it: a z score with no variance behind it (every prediction certain) is
        null, not Infinity."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Report:
    game: str
    min_games: int
    threshold: float
    matches: int  # rated matches read
    pairs: list[PairRow]
    #: Pairs with at least ``min_games`` comparisons: the tests made (Bonferroni's m).
    tested: int = 0
    #: The z_field a pair needs: Φ⁻¹(1 − threshold / tested).
    z_critical: float = math.inf

    @property
    def flagged(self) -> list[PairRow]:
        return [p for p in self.pairs if p.flagged]

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "min_games": self.min_games, "threshold": self.threshold,
                "matches": self.matches, "tested": self.tested,
                "z_critical": self.z_critical if math.isfinite(self.z_critical) else None,
                "pairs": [p.to_dict() for p in self.pairs]}


def _phi_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def field_strengths(adjacency: dict[str, list[tuple[str, int, float]]], scale: float,
                    without: frozenset[frozenset[str]] = frozenset(), start: dict[str, float] | None = None,
                    sweeps: int = 60) -> dict[str, float]:
    """Each party's strength from its pairwise results, on TrueSkill's scale: the maximum a
    posteriori of the Thurstone model ``P(a ahead of b) = Φ((s_a − s_b) / scale)`` with
    ``scale = √2·β`` (TrueSkill's own win probability between two settled ratings) and the
    TrueSkill prior N(0, σ₀²), ties counting half. ``without``: leave these pairs' results out —
    what the rest of the field alone says of them. Coordinate-wise Fisher scoring (the
    log-likelihood is concave), warm-started from ``start``."""
    prior = 1.0 / (ratings.SIGMA0 * ratings.SIGMA0)
    s = dict(start) if start is not None else dict.fromkeys(adjacency, 0.0)
    for _ in range(sweeps):
        moved = 0.0
        for i, cells in adjacency.items():
            grad, info = -s[i] * prior, prior
            for j, n, w in cells:
                if without and frozenset((i, j)) in without:
                    continue
                d = (s[i] - s[j]) / scale
                p = min(max(_phi_cdf(d), 1e-12), 1.0 - 1e-12)
                dens = math.exp(-0.5 * d * d) / math.sqrt(2.0 * math.pi)
                grad += (w - n * p) * dens / (scale * p * (1.0 - p))
                info += n * dens * dens / (scale * scale * p * (1.0 - p))
            step = grad / info
            s[i] += step
            moved = max(moved, abs(step))
        if moved < 1e-6:
            break
    return s


def _z(excess: float, variance: float) -> float:
    if variance <= 0:
        return 0.0 if abs(excess) < 1e-12 else math.copysign(math.inf, excess)
    return excess / math.sqrt(variance)


def report(session: Session, game: str, min_games: int = DEFAULT_MIN_GAMES,
           threshold: float = DEFAULT_THRESHOLD) -> Report:
    """The collusion report of ``game`` (module docstring): every pair of parties that met,
    most suspicious first."""
    if min_games < 1:
        raise ValueError("the minimum number of games must be at least 1")
    if not 0.0 < threshold < 1.0:
        raise ValueError("the threshold is a significance level between 0 and 1 (e.g. 0.01)")
    beta = ratings.environment(game).beta
    rows = session.execute(
        select(MatchSeat.match_id, MatchSeat.rank, MatchSeat.bot_version_id)
        .join(Match, Match.id == MatchSeat.match_id)
        .where(Match.game == game, Match.status == "done", Match.rated.is_(True), Match.rating_seq.is_not(None),
               MatchSeat.rank.is_not(None))
    ).all()
    tables: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for match_id, rank, vid in rows:
        tables[match_id].append((rank, vid))
    vids = {vid for _, _, vid in rows}
    info: dict[int, tuple[str, str, float, float]] = {}
    for vid, owner, name, number, mu, sigma in session.execute(
        select(BotVersion.id, Bot.owner, Bot.name, BotVersion.number, Rating.mu, Rating.sigma)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .join(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == game))
        .where(BotVersion.id.in_(vids))
    ) if vids else ():
        info[vid] = (party(owner, name), f"{name} v{number}", mu, sigma)
    pair: dict[tuple[str, str], _Tally] = defaultdict(_Tally)  # (a, b): a's results against b
    shared: dict[frozenset[str], int] = defaultdict(int)
    bots: dict[tuple[str, str], set[str]] = defaultdict(set)  # (party, opposing party): its bots met
    for seated in tables.values():
        seated = [(rank, vid) for rank, vid in seated if vid in info]
        met: set[frozenset[str]] = set()
        for i, (rank_a, a) in enumerate(seated):
            for rank_b, b in seated[i + 1:]:
                pa, la, mu_a, sg_a = info[a]
                pb, lb, mu_b, sg_b = info[b]
                if pa == pb:
                    continue  # one author's bots never share a rated table (arena.intake.authors)
                p = win_probability(mu_a, sg_a, mu_b, sg_b, beta)
                s = 1.0 if rank_a < rank_b else 0.0 if rank_a > rank_b else 0.5
                pair[(pa, pb)].add(s, p)
                pair[(pb, pa)].add(1.0 - s, 1.0 - p)
                met.add(frozenset((pa, pb)))
                bots[(pa, pb)].add(la)
                bots[(pb, pa)].add(lb)
        for key in met:
            shared[key] += 1
    cells = {(a, b): t for (a, b), t in pair.items() if a < b}
    adjacency: dict[str, list[tuple[str, int, float]]] = defaultdict(list)
    for (a, b), t in cells.items():
        adjacency[a].append((b, t.n, t.score))
        adjacency[b].append((a, t.n, t.n - t.score))
    scale = math.sqrt(2.0) * beta
    tested = sum(1 for t in cells.values() if t.n >= min_games)
    z_crit = critical_z(threshold, tested)
    tests = _interaction_tests(adjacency, cells, scale, min_games, z_crit)
    out: list[PairRow] = []
    for (a, b), t in cells.items():
        z_field, p, flagged = tests[(a, b)]
        if z_field < 0 or (z_field == 0 and t.score < t.n / 2):
            a, b, p, z_field = b, a, 1.0 - p, -z_field  # from the side that scored above the field's word
        mine = pair[(a, b)]
        out.append(PairRow(
            winner=a, loser=b, winner_bots=sorted(bots[(a, b)]), loser_bots=sorted(bots[(b, a)]),
            games=mine.n, matches=shared[frozenset((a, b))], score=mine.score, expected=mine.expected,
            z=_z(mine.score - mine.expected, mine.variance), field_expected=mine.n * p,
            z_field=z_field, flagged=flagged,
        ))
    out.sort(key=lambda r: (not r.flagged, -r.z_field, r.winner, r.loser))
    return Report(game, min_games, threshold, len(tables), out, tested, z_crit)


def _log_posterior(adjacency: dict[str, list[tuple[str, int, float]]], s: dict[str, float], scale: float,
                   without: frozenset[frozenset[str]]) -> float:
    """The log-likelihood of every pair's results but ``without``'s under strengths ``s``, plus
    the log prior (up to a constant)."""
    total = -sum(v * v for v in s.values()) / (2.0 * ratings.SIGMA0 * ratings.SIGMA0)
    for i, cells in adjacency.items():
        for j, n, w in cells:
            if i < j and frozenset((i, j)) not in without:
                p = min(max(_phi_cdf((s[i] - s[j]) / scale), 1e-12), 1.0 - 1e-12)
                total += w * math.log(p) + (n - w) * math.log(1.0 - p)
    return total


def _saturated(n: int, w: float) -> float:
    """The log-likelihood of a pair's results given a probability of its own (w/n)."""
    total = 0.0
    for k, q in ((w, w / n), (n - w, 1.0 - w / n)):
        if k > 0:
            total += k * math.log(q)
    return total


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix (Gauss-Jordan; the platform has no
    numpy): O(k³) for k authors, ~0.1 s of CPU at 60."""
    k = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(k)] for i, row in enumerate(matrix)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        head = a[col]
        scale = 1.0 / head[col]
        for j in range(col, 2 * k):
            head[j] *= scale
        for r in range(k):
            if r != col and a[r][col] != 0.0:
                factor = a[r][col]
                row = a[r]
                for j in range(col, 2 * k):
                    row[j] -= factor * head[j]
    return [row[k:] for row in a]


def _one_step(adjacency: dict[str, list[tuple[str, int, float]]], cells: dict[tuple[str, str], _Tally],
              base: dict[str, float], scale: float, freed: frozenset[frozenset[str]],
              base_ll: float) -> dict[tuple[str, str], tuple[float, float]]:
    """Every pair's (z, p) of :func:`_interaction_tests` approximated without refitting: the fit
    without a pair is one Newton step from the fit of all (the Fisher information of all but that
    pair inverted by Sherman-Morrison from one inverse of the whole), the likelihood ratio its
    quadratic gain plus the pair's own. A screen: the pairs near the threshold are refitted."""
    parties = list(adjacency)
    index = {p: i for i, p in enumerate(parties)}
    prior = 1.0 / (ratings.SIGMA0 * ratings.SIGMA0)
    info = [[0.0] * len(parties) for _ in parties]
    for i in range(len(parties)):
        info[i][i] = prior
    terms: dict[tuple[str, str], tuple[float, float, float]] = {}
    for (a, b), t in cells.items():
        d = (base[a] - base[b]) / scale
        p = min(max(_phi_cdf(d), 1e-12), 1.0 - 1e-12)
        dens = math.exp(-0.5 * d * d) / math.sqrt(2.0 * math.pi)
        weight = t.n * dens * dens / (scale * scale * p * (1.0 - p))
        grad = (t.score - t.n * p) * dens / (scale * p * (1.0 - p))
        terms[(a, b)] = (p, weight, grad)
        if frozenset((a, b)) in freed:
            continue
        i, j = index[a], index[b]
        info[i][i] += weight
        info[j][j] += weight
        info[i][j] -= weight
        info[j][i] -= weight
    inv = _inverse(info)
    out = {}
    for (a, b), t in cells.items():
        p, weight, grad = terms[(a, b)]
        i, j = index[a], index[b]
        q = inv[i][i] + inv[j][j] - 2.0 * inv[i][j]
        q_without = q / max(1.0 - weight * q, 1e-12)
        moved = (base[a] - base[b]) - grad * q_without
        own = t.score * math.log(p) + (t.n - t.score) * math.log(1.0 - p)
        ratio = grad * grad * q_without + 2.0 * (_saturated(t.n, t.score) - own)
        p_field = _phi_cdf(moved / scale)
        out[(a, b)] = (math.copysign(math.sqrt(max(ratio, 0.0)), t.score - t.n * p_field), p_field)
    del base_ll
    return out


#: Pairs whose one-step z is within this of the threshold are refitted exactly (and so is the
#: strongest pair each round, whatever its z).
SCREEN_MARGIN = 1.5


def _interaction_tests(adjacency: dict[str, list[tuple[str, int, float]]], cells: dict[tuple[str, str], _Tally],
                       scale: float, min_games: int, z_crit: float) -> dict[tuple[str, str], tuple[float, float, bool]]:
    """For every pair (a, b): its signed likelihood-ratio z (positive when a scored above what
    the rest of the field says), the field's probability that a finishes ahead of b, and
    whether it is flagged. Flags are found one at a time, the strongest first, each flagged
    pair's results then left out of every later fit: one colluding pair distorts the field's
    view of both its members, and so the tests of their honest opponents, until it is set
    aside (module docstring). Each round screens every pair with :func:`_one_step` and refits
    exactly those near the threshold (:data:`SCREEN_MARGIN`) and the strongest one."""
    freed: frozenset[frozenset[str]] = frozenset()
    flagged: dict[tuple[str, str], tuple[float, float, bool]] = {}
    while True:
        base = field_strengths(adjacency, scale, without=freed)
        base_ll = _log_posterior(adjacency, base, scale, freed)
        rough = _one_step(adjacency, {c: t for c, t in cells.items() if c not in flagged}, base, scale, freed,
                          base_ll)
        strongest = max(rough, key=lambda c: abs(rough[c][0]), default=None)
        found: dict[tuple[str, str], tuple[float, float, bool]] = {}
        for (a, b), (z_rough, p_rough) in rough.items():
            t = cells[(a, b)]
            if abs(z_rough) < z_crit - SCREEN_MARGIN and (a, b) != strongest:
                found[(a, b)] = (z_rough, p_rough, False)
                continue
            key = freed | {frozenset((a, b))}
            alone = field_strengths(adjacency, scale, without=key, start=base)
            ratio = 2.0 * (_log_posterior(adjacency, alone, scale, key) + _saturated(t.n, t.score) - base_ll)
            p = _phi_cdf((alone[a] - alone[b]) / scale)
            found[(a, b)] = (math.copysign(math.sqrt(max(ratio, 0.0)), t.score - t.n * p), p, False)
        best = max(((abs(z), pair) for pair, (z, _, _) in found.items() if cells[pair].n >= min_games),
                   default=None)
        if best is None or best[0] < z_crit:
            return {**found, **flagged}
        pair = best[1]
        z, p, _ = found[pair]
        flagged[pair] = (z, p, True)
        freed = freed | {frozenset(pair)}


def critical_z(alpha: float, tests: int) -> float:
    """The one-sided z a pair must reach so that, over ``tests`` honest pairs, the chance that
    any is flagged stays below ``alpha`` (Bonferroni; normal approximation)."""
    if tests < 1:
        return math.inf
    return -NormalDist().inv_cdf(alpha / tests)  # the upper tail, exact for tiny alpha too


def format_report(rep: Report, limit: int | None = 20) -> str:
    """The report as the CLI prints it: the flagged pairs (``!``), then the most suspicious
    others. ``pred``: the winner's expected score from the TrueSkill ratings; ``field``: from
    what the rest of the field says of both."""
    head = (f"{'':1} {'winner':<20} {'loser':<20} {'games':>5} {'score':>6} {'pred':>6} {'z':>6} "
            f"{'field':>6} {'z_fld':>6}")
    lines = [f"collusion report — {rep.game}: {rep.matches} rated match(es), {len(rep.pairs)} pair(s) of "
             f"authors, {rep.tested} with ≥ {rep.min_games} games; flagged at family-wise level "
             f"{rep.threshold:g} (z_field ≥ {_show(rep.z_critical)}): {len(rep.flagged)}", head, "-" * len(head)]
    shown = rep.pairs if limit is None else rep.pairs[:max(limit, len(rep.flagged))]
    for r in shown:
        lines.append(
            f"{'!' if r.flagged else ' '} {r.winner[:20]:<20} {r.loser[:20]:<20} {r.games:>5} {r.score:>6.1f} "
            f"{r.expected:>6.1f} {_show(r.z):>6} {r.field_expected:>6.1f} {_show(r.z_field):>6}")
    if len(shown) < len(rep.pairs):
        lines.append(f"  … {len(rep.pairs) - len(shown)} more pair(s) (--all lists every one)")
    return "\n".join(lines)


def _show(z: float) -> str:
    return "inf" if math.isinf(z) else f"{z:.2f}"
