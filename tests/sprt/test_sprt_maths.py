"""The SPRT statistics against values known in closed form and fishtest's approximations."""

from __future__ import annotations

import math

import pytest

from arena.evaluation import sprt


def wald(wins: int, losses: int, elo0: float, elo1: float) -> float:
    """Wald's classical SPRT for wins/losses only: the GSPRT must equal it (no draws)."""
    s0, s1 = sprt.expected_score(elo0), sprt.expected_score(elo1)
    return wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))


def test_expected_score_and_elo_are_inverse() -> None:
    assert sprt.expected_score(0) == 0.5
    assert sprt.expected_score(400) == pytest.approx(10 / 11)
    for elo in (-300, -20, 0, 5, 150):
        assert sprt.elo_of(sprt.expected_score(elo)) == pytest.approx(elo)


def test_bounds_are_walds() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944438979)
    assert upper == pytest.approx(2.944438979)


@pytest.mark.parametrize("wins,losses", [(30, 20), (12, 25), (100, 100)])
def test_trinomial_without_draws_equals_walds_sprt(wins: int, losses: int) -> None:
    # [losses, draws, wins]; the 1e-3 prior on the empty draw cell moves the value a hair.
    value = sprt.llr([losses, 0, wins], 0, 50)
    assert value == pytest.approx(wald(wins, losses, 0, 50), abs=2e-3)


def test_pentanomial_close_to_fishtest_gsprt_approximation() -> None:
    # LLR_alt2 (fishtest): N (s1 - s0)(2 s - s0 - s1) / (2 var), accurate for small elo gaps.
    results = [40, 180, 420, 200, 60]
    n = sum(results)
    mean = sum(c * i / 4 for i, c in enumerate(results)) / n
    var = sum(c * (i / 4 - mean) ** 2 for i, c in enumerate(results)) / n
    s0, s1 = sprt.expected_score(0), sprt.expected_score(10)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / var / 2
    assert sprt.llr(results, 0, 10) == pytest.approx(approx, rel=0.02)


def test_mle_distribution_has_the_requested_mean() -> None:
    pdf = [(0, 0.1), (0.25, 0.2), (0.5, 0.4), (0.75, 0.2), (1, 0.1)]
    q = sprt.mle_expected(pdf, 0.6)
    assert sum(p for _, p in q) == pytest.approx(1)
    assert sum(a * p for a, p in q) == pytest.approx(0.6)


def test_stronger_side_accepts_weaker_rejects() -> None:
    strong = sprt.SprtState(sprt.SprtSettings())
    weak = sprt.SprtState(sprt.SprtSettings())
    for _ in range(40):
        strong.add_pair(1, 1)
        strong.add_pair(1, 0.5)
        weak.add_pair(0, 0)
        weak.add_pair(0.5, 0)
    assert strong.status == sprt.ACCEPTED and strong.llr > 2.94
    assert weak.status == sprt.REJECTED and weak.llr < -2.94
    summary = strong.summary()
    assert summary["games"] == 160 and summary["pairs"] == 80
    assert summary["score"] == pytest.approx(7 / 8)
    assert summary["elo"] > 300 and 0 < summary["elo_error"] < 200


def test_even_results_stay_running_then_inconclusive() -> None:
    state = sprt.SprtState(sprt.SprtSettings(max_pairs=3))
    assert state.add_pair(1, 0) == sprt.RUNNING
    assert state.add_pair(0, 1) == sprt.RUNNING
    assert state.add_pair(0.5, 0.5) == sprt.INCONCLUSIVE
    assert state.summary()["elo"] == pytest.approx(0, abs=1e-9)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="elo0"):
        sprt.SprtSettings(elo0=10, elo1=5).check()
    with pytest.raises(ValueError, match="alpha"):
        sprt.SprtSettings(alpha=0.7).check()
    with pytest.raises(ValueError, match="replace"):
        sprt.SprtSettings(replace="never").check()
