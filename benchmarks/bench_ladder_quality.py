"""How many ladder matches it takes to rank bots correctly, per pairing rule (`arena bench ladder-quality`).

Synthetic bots of known strength play a fast toy game: bot *i* has a true skill drawn from the
rating prior (N(25, (25/3)²)); a two-player match is decided by TrueSkill's own performance
model (each side performs its true skill plus N(0, β²) noise, β = 25/6; the better performance
wins). Ratings are updated with the ``trueskill`` package directly, with the platform's
parameters (μ₀ 25, σ₀ 25/3, β σ₀/2, τ σ₀/100), so no referee, database or worker is involved —
only the choice of tables differs between rules.

The ladder is simulated as it runs: each tick tops a queue of ``queue`` matches up (the rule sees
the matches already queued, as :func:`arena.competition.ladder.tick` does), then the queued matches are
played and rated. After every ``bots / 2`` matches (one match per bot on average) the Kendall τ
between the true strengths and the leaderboard order (μ − 3σ, what the site shows) is measured;
the figure reported is the number of matches per bot at which τ first reaches the target (0.9).

Rules compared: every rule of :data:`arena.competition.ladder.RULES`, run through
:func:`arena.competition.ladder.plan_table` on a :class:`arena.competition.ladder.Field` per tick, as the ladder runs them:

* ``random`` — two bots drawn uniformly;
* ``mu-nearest`` — the bot with the fewest games (queued ones count) against the bot closest in μ;
* ``uncertainty`` — the rule the ladder had before issue #30: the least certain bot (highest σ)
  against the μ-nearest pool, the table of highest match quality, opponents met often penalised;
* ``thompson`` — the same anchor against the bot closest in μ to a skill drawn from the anchor's
  rating N(μ, σ²): uncertain bots meet the whole range they may belong to.

(A fifth rule, opponents drawn from the whole field with probability ∝ match quality, was tried
while building this and needed more matches than ``uncertainty`` at 1,000 bots — 47 against 41 —
at O(N) per table; it was dropped.)
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable

import trueskill

from arena.competition import ladder
from arena.competition.ladder import Candidate

MU0, SIGMA0 = 25.0, 25.0 / 3
BETA, TAU = SIGMA0 / 2, SIGMA0 / 100
#: The game whose TrueSkill parameters the ladder code uses for the toy game (any game name
#: without a draw probability of its own gets the default, as the toy game does).
GAME = "toy"

RULES = ladder.RULES


def kendall_tau(xs: list[float], ys: list[float]) -> float:
    """Kendall's τ-a of ``ys`` against ``xs`` (no ties in ``xs``; a pair tied in ``ys`` counts as
    unordered), in O(n log n): inversions of ys in the order of xs, counted by merge sort."""
    n = len(xs)
    order = sorted(range(n), key=xs.__getitem__)
    seq = [ys[i] for i in order]

    def sort_count(a: list[float]) -> tuple[list[float], int]:
        if len(a) < 2:
            return a, 0
        mid = len(a) // 2
        left, x = sort_count(a[:mid])
        right, y = sort_count(a[mid:])
        merged, inv, i, j = [], x + y, 0, 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                inv += len(left) - i
                j += 1
        merged += left[i:]
        merged += right[j:]
        return merged, inv

    _, inversions = sort_count(seq)
    pairs = n * (n - 1) // 2
    # A pair tied in ys (bots with identical ratings, e.g. unplayed) is not ordered: it counts
    # as neither concordant nor discordant.
    tied = sum(k * (k - 1) // 2 for k in Counter(ys).values())
    return (pairs - 2 * inversions - tied) / pairs if pairs else 1.0


def simulate(rule: str, bots: int, seed: int, queue: int = 8, max_per_bot: int = 100,
             target: float = 0.9) -> dict:
    """One ladder run of ``rule`` over ``bots`` synthetic bots until τ ≥ ``target`` (or
    ``max_per_bot`` matches per bot): matches per bot needed (None if never), τ curve, CPU s."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; choose from {', '.join(RULES)}")
    rng = random.Random(seed)  # the bots' strengths and the match outcomes: the same for every rule
    pick_rng = random.Random(seed * 7919 + 1)
    env = trueskill.TrueSkill(mu=MU0, sigma=SIGMA0, beta=BETA, tau=TAU, draw_probability=0.0)
    skill = [rng.gauss(MU0, SIGMA0) for _ in range(bots)]
    cands = [Candidate(version_id=i, mu=MU0, sigma=SIGMA0) for i in range(bots)]
    every = max(1, bots // 2)  # one match per bot on average
    played, curve, reached = 0, [], None
    cpu0 = time.process_time()
    while played < max_per_bot * bots // 2:
        tables = []
        field = ladder.Field(cands, pick_rng)  # a tick, as arena.competition.ladder.tick runs it: one index of
        for _ in range(queue):  # the field, the queue topped up, queued matches seen by the rule
            a, b = ladder.plan_table(GAME, field, 2, pick_rng, rule)
            a.pending += 1
            b.pending += 1
            tables.append((a, b))
        for a, b in tables:
            a.pending -= 1
            b.pending -= 1
            a_wins = rng.gauss(skill[a.version_id], BETA) > rng.gauss(skill[b.version_id], BETA)
            winner, loser = (a, b) if a_wins else (b, a)
            rw, rl = trueskill.rate_1vs1(trueskill.Rating(winner.mu, winner.sigma),
                                         trueskill.Rating(loser.mu, loser.sigma), env=env)
            winner.mu, winner.sigma, loser.mu, loser.sigma = rw.mu, rw.sigma, rl.mu, rl.sigma
            for me, other in ((a, b), (b, a)):
                me.games += 1
                key = str(other.version_id)
                me.opponent_counts[key] = me.opponent_counts.get(key, 0) + 1
            for seat, c in enumerate((a, b)):
                per = c.seat_counts.setdefault("2", {})
                per[str(seat)] = per.get(str(seat), 0) + 1
            played += 1
            if played % every == 0:
                tau = kendall_tau(skill, [c.mu - 3 * c.sigma for c in cands])
                curve.append(round(tau, 3))
                if tau >= target and reached is None:
                    reached = round(2 * played / bots, 1)
        if reached is not None:
            break
    return {"matches_per_bot": reached, "curve": curve, "cpu_s": time.process_time() - cpu0}


def bench(bots: tuple[int, ...] = (100, 1000), seeds: int = 3, queue: int = 8, max_per_bot: int = 100,
          target: float = 0.9, rules: tuple[str, ...] = tuple(RULES),
          progress: Callable[[str], None] | None = None) -> dict:
    """Median (over ``seeds`` runs) matches per bot to reach Kendall τ ``target``, per rule and
    field size; the rule that needs fewest at the largest field is named ``best``."""
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise ValueError(f"unknown rule(s) {', '.join(unknown)}; choose from {', '.join(RULES)}")
    rows = []
    for n in bots:
        for rule in rules:
            runs = [simulate(rule, n, seed, queue, max_per_bot, target) for seed in range(1, seeds + 1)]
            needed = [r["matches_per_bot"] for r in runs]
            # A run that never reached the target counts as past the cap (median stays honest).
            ranked = [math.inf if x is None else x for x in needed]
            median = statistics.median(ranked)
            row = {
                "bots": n, "rule": rule,
                "matches_per_bot": None if math.isinf(median) else median,
                "runs": needed,
                "final_tau": statistics.median(r["curve"][-1] for r in runs if r["curve"]),
                "cpu_s": round(sum(r["cpu_s"] for r in runs), 1),
            }
            rows.append(row)
            if progress:
                progress(f"{n} bots, {rule}: {row['matches_per_bot']} matches per bot (runs {needed})")
    largest = max(bots)
    scored = [(math.inf if r["matches_per_bot"] is None else r["matches_per_bot"], r["rule"])
              for r in rows if r["bots"] == largest]
    return {"target_tau": target, "queue": queue, "seeds": seeds, "max_matches_per_bot": max_per_bot,
            "best": min(scored)[1], "rows": rows}
