"""The rating-history chart: mu as a line inside a ±sigma band, drawn as inline SVG.

Drawn on the server so the bot page needs no chart library and no JavaScript: the geometry is
a few dozen numbers, and the page template only places the resulting path strings.
"""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 640, 240
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 12, 12, 28
#: Beyond this many points the line is thinned: a chart 600 px wide cannot show more anyway.
MAX_POINTS = 600


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class RatingChart:
    width: int
    height: int
    mu_path: str
    band_path: str
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    #: Where a new version of the bot took over (x position, "v2").
    version_marks: list[Tick]
    points: int


def _nice_step(span: float, target: int) -> float:
    raw = span / max(target, 1)
    for step in (0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100):
        if step >= raw:
            return step
    return raw


def rating_chart(
    history: list[tuple[float, float]], versions: list[int] | None = None
) -> RatingChart | None:
    """The chart for ``(mu, sigma)`` points in match order (``versions``: the version number
    of each point); ``None`` with no history."""
    if not history:
        return None
    total = len(history)
    kept = list(range(total))
    if total > MAX_POINTS:
        stride = total / MAX_POINTS
        kept = sorted({int(i * stride) for i in range(MAX_POINTS)} | {total - 1})
    points = [history[i] for i in kept]
    lows = [mu - sigma for mu, sigma in points]
    highs = [mu + sigma for mu, sigma in points]
    y_min, y_max = min(lows), max(highs)
    if y_max - y_min < 1:
        y_min, y_max = y_min - 0.5, y_max + 0.5
    step = _nice_step(y_max - y_min, 5)
    y_min = step * (y_min // step)
    y_max = step * -(-y_max // step)
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    n = len(points)

    def x(k: int) -> float:
        return PAD_LEFT + (plot_w * k / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return PAD_TOP + plot_h * (1 - (v - y_min) / (y_max - y_min))

    # Each point's x, formatted once for its three uses (the line, the band's top and bottom):
    # the chart is drawn on every view of a bot's page, ~300 points at 1,000,000 matches.
    xs = [f"{x(k):.1f}," for k in range(n)]
    mu_path = "M" + " L".join(f"{xs[k]}{y(mu):.1f}" for k, (mu, _) in enumerate(points))
    upper = [f"{xs[k]}{y(h):.1f}" for k, h in enumerate(highs)]
    lower = [f"{xs[k]}{y(lo):.1f}" for k, lo in reversed(list(enumerate(lows)))]
    band_path = "M" + " L".join(upper + lower) + " Z"
    y_ticks = []
    v = y_min
    while v <= y_max + 1e-9:
        y_ticks.append(Tick(round(y(v), 1), f"{v:g}"))
        v += step
    x_step = max(1, round(_nice_step(max(n - 1, 1), 6)))
    x_ticks = [Tick(round(x(k), 1), str(kept[k] + 1)) for k in range(0, n, int(x_step))]
    marks = []
    if versions and len(versions) == total:
        for k in range(1, n):
            if versions[kept[k]] != versions[kept[k - 1]]:
                marks.append(Tick(round(x(k), 1), f"v{versions[kept[k]]}"))
    return RatingChart(WIDTH, HEIGHT, mu_path, band_path, y_ticks, x_ticks, marks, total)
