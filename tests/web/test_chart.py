"""The server-drawn rating chart."""

from __future__ import annotations

import re

from web.chart import HEIGHT, MAX_POINTS, PAD_BOTTOM, PAD_TOP, rating_chart


def _ys(path: str) -> list[float]:
    return [float(y) for y in re.findall(r"[\d.]+,([\d.]+)", path)]


def test_no_history_no_chart() -> None:
    assert rating_chart([]) is None


def test_the_band_encloses_the_line_and_fits_the_plot() -> None:
    history = [(25 + i * 0.5, 8.3 - i * 0.2) for i in range(20)]
    chart = rating_chart(history)
    assert chart is not None and chart.points == 20
    mu = _ys(chart.mu_path)
    band = _ys(chart.band_path)
    upper, lower = band[:20], list(reversed(band[20:]))
    for m, hi, lo in zip(mu, upper, lower, strict=True):
        assert hi <= m <= lo  # SVG y grows downwards
    assert all(PAD_TOP <= y <= HEIGHT - PAD_BOTTOM for y in band)
    labels = [float(t.label) for t in chart.y_ticks]
    assert labels[0] <= min(m - s for m, s in history) and labels[-1] >= max(
        m + s for m, s in history
    )


def test_a_single_point_and_a_flat_history_still_draw() -> None:
    one = rating_chart([(25.0, 8.333)])
    assert one is not None and one.mu_path.startswith("M")
    flat = rating_chart([(20.0, 0.0)] * 5)
    assert flat is not None and len(flat.y_ticks) >= 2


def test_long_histories_are_thinned_but_keep_true_match_numbers_and_version_marks() -> None:
    n = 3 * MAX_POINTS
    history = [(20 + (i % 7), 3.0) for i in range(n)]
    versions = [1] * 1000 + [2] * (n - 1000)
    chart = rating_chart(history, versions)
    assert chart is not None and chart.points == n
    assert chart.mu_path.count("L") <= MAX_POINTS + 1
    assert chart.x_ticks[0].label == "1"
    assert int(chart.x_ticks[-1].label) > MAX_POINTS  # labels are match numbers, not positions
    assert [t.label for t in chart.version_marks] == ["v2"]
