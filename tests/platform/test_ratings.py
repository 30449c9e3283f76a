"""TrueSkill per game (arena/evaluation/ratings.py): what the trueskill package gives for the same ranks."""

from __future__ import annotations

import math

import pytest
import trueskill

from arena.evaluation import ratings
from arena.evaluation.ratings import Skill, effective_ranks, rate


def _package(game: str, skills: list[Skill], ranks: list[int], backend: str | None = None):
    env = trueskill.TrueSkill(
        mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300,
        draw_probability=ratings.draw_probability(game), backend=backend,
    )
    out = env.rate([(env.create_rating(s.mu, s.sigma),) for s in skills], ranks=ranks)
    return [Skill(float(t[0].mu), float(t[0].sigma)) for t in out]


START = [Skill(25.0, 25 / 3), Skill(30.0, 4.0), Skill(20.0, 6.0), Skill(27.0, 2.5), Skill(22.0, 8.0)]


@pytest.mark.parametrize(
    "ranks",
    [
        [1, 2],  # a win
        [1, 1],  # a two-player tie
        [2, 1, 3, 4],  # four-seat free-for-all
        [1, 2, 2, 4],  # a tie in the middle (competition ranks)
        [1, 1, 1, 4, 5],  # three share first
        [3, 1, 2, 5, 4],  # five seats, all different
    ],
)
def test_free_for_all_matches_the_package(ranks: list[int]) -> None:
    skills = START[: len(ranks)]
    assert rate("solenia", skills, ranks) == _package("solenia", skills, ranks)


def test_tie_moves_ratings_towards_each_other() -> None:
    a, b = rate("solenia", [Skill(30, 3), Skill(20, 3)], [1, 1])
    assert a.mu < 30 and b.mu > 20


def test_forfeits_are_ranked_last_whatever_the_score() -> None:
    # Engine ranks say seat 1 won, but it forfeited; seats 0 and 3 forfeited too (tied last).
    assert effective_ranks([2, 1, 3, 4], forfeited=[1]) == [1, 4, 2, 3]
    assert effective_ranks([2, 1, 1, 4], forfeited=[1, 3]) == [2, 3, 1, 3]
    assert effective_ranks([1, 1, 3], forfeited=[]) == [1, 1, 3]


def test_forfeit_rating_equals_the_package_with_the_forfeiter_last() -> None:
    skills = START[:4]
    engine_ranks, forfeited = [1, 2, 3, 4], [0]
    ranks = effective_ranks(engine_ranks, forfeited)
    assert ranks == [4, 1, 2, 3]
    new = rate("black_angel", skills, ranks)
    assert new == _package("black_angel", skills, [4, 1, 2, 3])
    assert new[0].mu < skills[0].mu  # the forfeiting favourite loses rating


def test_draw_probability_is_chosen_per_game() -> None:
    assert ratings.draw_probability("toy") == 0.40
    assert ratings.draw_probability("black_angel") == 0.10
    assert ratings.draw_probability("solenia") == 0.03
    assert ratings.draw_probability("unknown") == ratings.DEFAULT_DRAW_PROBABILITY
    # The draw margin differs, so a tie moves ratings differently per game.
    assert rate("toy", START[:2], [1, 1]) != rate("solenia", START[:2], [1, 1])


def test_extreme_ratings_fall_back_to_mpmath() -> None:
    skills = [Skill(-100.0, 0.5), Skill(200.0, 0.5)]
    with pytest.raises(FloatingPointError):
        _package("solenia", skills, [1, 2])  # the float backend gives up here
    new = rate("solenia", skills, [1, 2])
    assert new == _package("solenia", skills, [1, 2], backend="mpmath")
    assert all(math.isfinite(s.mu) and s.sigma > 0 for s in new)


def test_leaderboard_key_and_provisional_threshold() -> None:
    assert Skill(30.0, 2.0).conservative == 24.0
    assert ratings.is_provisional(ratings.SIGMA0)
    assert not ratings.is_provisional(ratings.PROVISIONAL_SIGMA - 0.01)


def test_a_match_needs_two_seats() -> None:
    with pytest.raises(ValueError):
        rate("solenia", [Skill(25, 8)], [1])


def _random_two_seats(rng, game: str) -> tuple[list[Skill], list[int]]:
    kind = rng.random()
    if kind < 0.5:
        skills = [Skill(rng.gauss(25, 8), rng.uniform(0.5, 8.5)) for _ in range(2)]
    elif kind < 0.75:
        skills = [Skill(rng.uniform(-100, 200), rng.uniform(0.01, 20)) for _ in range(2)]
    elif kind < 0.85:
        skills = [Skill(rng.uniform(-1e3, 1e3), 10 ** rng.uniform(-4, 2)) for _ in range(2)]
    else:  # a chain of real updates from the start, as a ladder produces them
        skills = [ratings.initial_skill(), ratings.initial_skill()]
        for _ in range(rng.randint(1, 40)):
            skills = rate(game, skills, rng.choice([[1, 2], [2, 1], [1, 1]]))
    return skills, rng.choice([[1, 2], [2, 1], [1, 1], [2, 2], [1, 3], [3, 1]])


def _package_path(game: str, skills: list[Skill], ranks: list[int]) -> list[Skill]:
    """What rate() computes through the package: its float backend, else mpmath."""
    teams = [(trueskill.Rating(mu=s.mu, sigma=s.sigma),) for s in skills]
    try:
        new = ratings.environment(game).rate(teams, ranks=list(ranks))
        out = [Skill(float(t[0].mu), float(t[0].sigma)) for t in new]
        if all(math.isfinite(s.mu) and math.isfinite(s.sigma) and s.sigma > 0 for s in out):
            return out
    except FloatingPointError:
        pass
    new = ratings.environment(game, "mpmath").rate(teams, ranks=list(ranks))
    return [Skill(float(t[0].mu), float(t[0].sigma)) for t in new]


def test_two_seat_updates_are_the_package_bit_for_bit() -> None:
    """rate() computes two-seat matches without the package's factor graph
    (ratings._rate_two); ratings are rebuilt and compared with ``==``, so it must give exactly
    the package's floats — or take the package's path (extreme inputs: mpmath, or its error)."""
    import random

    rng = random.Random(12)
    fast = 0
    for i in range(4000):
        game = ("black_angel", "solenia", "toy", "unknown")[i % 4]
        skills, ranks = _random_two_seats(rng, game)
        try:
            expected: object = _package_path(game, skills, ranks)
        except (ArithmeticError, ValueError) as exc:
            expected = type(exc)
        try:
            got: object = rate(game, skills, ranks)
        except (ArithmeticError, ValueError) as exc:
            got = type(exc)
        assert got == expected, (game, skills, ranks)
        try:
            ratings._rate_two(game, *skills, *ranks)
            fast += 1
        except (ArithmeticError, ValueError):
            pass
    assert fast > 3000  # most of them took the fast path
