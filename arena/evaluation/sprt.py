"""The sequential probability ratio test a new bot version must pass against its predecessor.

The statistics follow fishtest (official-stockfish/fishtest ``stats/LLRcalc.py``), written anew
without scipy:

* **Hypotheses** in logistic Elo: H0 ``elo = elo0`` against H1 ``elo = elo1``; an Elo difference
  ``e`` is an expected score ``L(e) = 1 / (1 + 10^(-e/400))``.
* **Results** are either trinomial ``[losses, draws, wins]`` (one count per game) or pentanomial
  ``[LL, LD+DL, LW+DD+WL, DW+WD, WW]`` (one count per *pair* of games: the same seed played
  twice with the seats swapped). Pairs are what we play, so pentanomial is the default: it
  accounts for the correlation between the two games of a pair (a seed that favours one seat).
* **GSPRT**: the log-likelihood ratio is ``N · Σ p̂_i (log q1_i − log q0_i)`` where ``p̂`` is the
  empirical distribution (zero counts regularised to 1e-3, as fishtest does) and ``q0``/``q1`` are
  the maximum-likelihood distributions whose mean is ``L(elo0)``/``L(elo1)``: ``q_i = p̂_i / (1 +
  x (a_i − s))`` where ``x`` solves the secular equation ``Σ p̂_i (a_i − s) / (1 + x (a_i − s)) =
  0`` (solved here by bisection: the left side is strictly decreasing in ``x``).
* **Bounds** (Wald): accept H1 when LLR ≥ log((1−β)/α), accept H0 when LLR ≤ log(β/(1−α)).
* **Elo estimate** from the mean score, with a 95 % interval from the standard error of the mean
  (per pair for pentanomial), reported as ± half its width.

With only wins and losses the GSPRT equals Wald's classical SPRT, which the tests use as a known
value: ``W log(s1/s0) + L log((1−s1)/(1−s0))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

ACCEPTED = "accepted"  # H1: the new version is at least elo1 stronger
REJECTED = "rejected"  # H0: it is not stronger than elo0
RUNNING = "running"
INCONCLUSIVE = "inconclusive"  # the game cap was reached between the bounds
FAILED = "failed"  # the test could not be played (the server's log says why)
FINISHED = (ACCEPTED, REJECTED, INCONCLUSIVE, FAILED)

Z95 = 1.959963984540054


def expected_score(elo: float) -> float:
    """Logistic Elo difference → expected score of the stronger side."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(score: float) -> float:
    """Expected score → logistic Elo difference (±inf at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def _pdf(results: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(N, [(score a_i, probability p_i)]) with zero counts replaced by 1e-3 (fishtest's prior)."""
    counts = [c if c > 0 else 1e-3 for c in results]
    n = sum(counts)
    last = len(counts) - 1
    return n, [(i / last, c / n) for i, c in enumerate(counts)]


def _secular(pdf: list[tuple[float, float]]) -> float:
    """The root x of Σ p_i a_i / (1 + x a_i) = 0 (the a_i straddle 0)."""
    lo_a = min(a for a, _ in pdf)
    hi_a = max(a for a, _ in pdf)
    if lo_a * hi_a >= 0:
        raise ValueError("the expected score must lie strictly between the worst and best result")
    lo, hi = -1 / hi_a, -1 / lo_a
    eps = 1e-12
    lo, hi = lo + eps * (hi - lo), hi - eps * (hi - lo)

    def f(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in pdf)

    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mle_expected(pdf: list[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The distribution closest (max likelihood) to ``pdf`` whose mean is ``s``."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [(a, p / (1 + x * (a - s))) for a, p in pdf]


def llr(results: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (elo1) against H0 (elo0) for ``results``."""
    if len(results) not in (3, 5):
        raise ValueError("results are trinomial (3 counts) or pentanomial (5 counts)")
    if sum(results) <= 0:
        return 0.0
    n, pdf = _pdf(results)
    q0 = mle_expected(pdf, expected_score(elo0))
    q1 = mle_expected(pdf, expected_score(elo1))
    return n * sum(p * (math.log(b[1]) - math.log(a[1])) for (_, p), a, b in zip(pdf, q0, q1, strict=True))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: below lower H0 is accepted, above upper H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_estimate(results: Sequence[float]) -> tuple[float, float]:
    """(Elo, ± half-width of the 95 % interval) from the observed results (no regularisation)."""
    n = sum(results)
    if n <= 0:
        return 0.0, 0.0
    last = len(results) - 1
    mean = sum(c * i / last for i, c in enumerate(results)) / n
    var = sum(c * (i / last - mean) ** 2 for i, c in enumerate(results)) / n
    err = math.sqrt(var / n)
    def clipped(score: float) -> float:  # finite even at 0 % or 100 % (±1200 Elo)
        return elo_of(min(max(score, 0.001), 0.999))

    lo, hi = clipped(mean - Z95 * err), clipped(mean + Z95 * err)
    return clipped(mean), (hi - lo) / 2


@dataclass(frozen=True)
class SprtSettings:
    """A test's parameters. Board-game bots differ by far more than chess engine patches, so
    the defaults look for 50 Elo (not fishtest's few), which a few hundred games settle."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    #: Pairs played at most; between the bounds after that the verdict is inconclusive.
    max_pairs: int = 200
    #: "accept": the new version replaces its predecessor only when the test accepts;
    #: "always": it replaces it whatever the verdict (the verdict is still shown).
    replace: str = "accept"
    #: Also compare the two versions against the house bots (:mod:`arena.intake.sprt_runner`).
    house: bool = False

    def check(self) -> SprtSettings:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie strictly between 0 and 0.5")
        if self.max_pairs < 1:
            raise ValueError("max_pairs must be at least 1")
        if self.replace not in ("accept", "always"):
            raise ValueError("replace is 'accept' or 'always'")
        return self


@dataclass
class SprtState:
    """A running test: pentanomial pair counts plus the per-game trinomial, and its verdict."""

    settings: SprtSettings
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    trinomial: list[int] = field(default_factory=lambda: [0] * 3)  # losses, draws, wins
    #: The part of ``pentanomial`` that came from house-bot comparisons (see add_pair).
    house_pentanomial: list[int] = field(default_factory=lambda: [0] * 5)

    def add_pair(self, first: float, second: float, house: bool = False) -> str:
        """Record a pair (the candidate's score in each game: 0, 0.5 or 1); returns the status.

        ``house``: the pair is a comparison through a house bot (each "score" says whether the
        candidate did better, as well or worse than the baseline against it); it counts in the
        test like a head-to-head pair and is also tallied in :attr:`house_pentanomial`."""
        for s in (first, second):
            if s not in (0, 0.5, 1):
                raise ValueError(f"a game score is 0, 0.5 or 1, not {s}")
            self.trinomial[int(s * 2)] += 1
        self.pentanomial[int((first + second) * 2)] += 1
        if house:
            self.house_pentanomial[int((first + second) * 2)] += 1
        return self.status

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def games(self) -> int:
        """Games played: a head-to-head pair is 2 games, a house comparison pair 4 (each
        version plays the house bot from both seats) but only 2 entries of the trinomial."""
        return sum(self.trinomial) + 2 * sum(self.house_pentanomial)

    @property
    def house_pairs(self) -> int:
        return sum(self.house_pentanomial)

    @property
    def score(self) -> float:
        """The candidate's mean score per head-to-head game or house comparison (0.5 = even)."""
        units = sum(self.trinomial)
        return (self.trinomial[2] + self.trinomial[1] / 2) / units if units else 0.5

    @property
    def llr(self) -> float:
        return llr(self.pentanomial, self.settings.elo0, self.settings.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.settings.alpha, self.settings.beta)

    @property
    def status(self) -> str:
        value, (lower, upper) = self.llr, self.bounds
        if value >= upper:
            return ACCEPTED
        if value <= lower:
            return REJECTED
        return INCONCLUSIVE if self.pairs >= self.settings.max_pairs else RUNNING

    def summary(self) -> dict:
        """Everything a reader needs, as plain values (what the database and the API store)."""
        lower, upper = self.bounds
        elo, err = elo_estimate(self.pentanomial)
        return {
            "status": self.status, "llr": self.llr, "lower": lower, "upper": upper,
            "games": self.games, "pairs": self.pairs, "house_pairs": self.house_pairs, "score": self.score,
            "elo": elo, "elo_error": err,
            "pentanomial": list(self.pentanomial), "trinomial": list(self.trinomial),
            "house_pentanomial": list(self.house_pentanomial),
        }
