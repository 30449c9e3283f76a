"""``arena bench ladder`` and ``arena bench ladder-quality`` in a short form (200 bots; a few
dozen synthetic bots): the structure and sanity of what they report, never timings — the
figures come from the full runs (docs/tournaments-and-ratings.md, "A ladder for 10,000 bots")."""

from __future__ import annotations

import json
import random
from itertools import combinations

from click.testing import CliRunner

from arena.cli import cli
from arena.competition import ladder
from benchmarks import bench_ladder_quality as quality


def _fields(output: str) -> dict[str, str]:
    out = {}
    for line in output.splitlines():
        key, _, value = line.partition("  ")
        if key and value:
            out[key.strip()] = value.strip()
    return out


def test_bench_ladder_200_bots_short_form() -> None:
    result = CliRunner().invoke(cli, ["bench", "ladder", "--bots", "200", "--ticks", "2", "--queue", "6"])
    assert result.exit_code == 0, result.output
    fields = _fields(result.stdout)
    assert fields["bots"] == "200" and fields["database"] == "sqlite"
    assert fields["default_rule"] == ladder.DEFAULT_RULE
    for rule in ladder.RULES:
        figures = json.loads(fields[rule])
        assert figures["matches_per_tick"] == 6  # the whole queue is filled every tick
        assert figures["tick_ms"] > 0 and figures["tick_cpu_ms"] > 0
        assert 0 < figures["ms_per_match"] <= figures["tick_ms"]
        assert 0 < figures["cpu_ms_per_match"] <= figures["tick_cpu_ms"]
        assert 0 < figures["load_ms"] and figures["tick_peak_alloc_mb"] > 0
        cached = figures["cached"]  # the process's population cache: one full read, then changes
        assert cached["matches_per_tick"] == 6 and cached["full_reloads"] == 1
        assert 0 < cached["cpu_ms_per_match"] <= cached["tick_cpu_ms"] and cached["first_tick_cpu_ms"] > 0
        assert cached["cache_entries"] == 200 and cached["cache_mb"] > 0
        # Only the seats of the matches rated since the last tick are read again (6 tables of 2-4).
        assert 0 < cached["rows_read_per_tick"] <= 6 * 4
    assert float(fields["peak_rss_mb"]) > 0


def test_kendall_tau_matches_the_pair_count_and_counts_ties_as_unordered() -> None:
    rng = random.Random(4)
    xs = [rng.random() for _ in range(120)]
    ys = [round(x + rng.gauss(0, 0.2), 1) for x in xs]  # rounded: many ties
    pairs = list(combinations(range(120), 2))
    brute = sum((xs[i] - xs[j]) * (ys[i] - ys[j]) > 0 for i, j in pairs) \
        - sum((xs[i] - xs[j]) * (ys[i] - ys[j]) < 0 for i, j in pairs)
    assert abs(quality.kendall_tau(xs, ys) - brute / len(pairs)) < 1e-12
    assert quality.kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert quality.kendall_tau([1, 2, 3], [0, 0, 0]) == 0.0


def test_ladder_quality_short_form_ranks_bots_with_every_rule() -> None:
    """40 synthetic bots, τ 0.6: every rule gets there, the ranking improves as matches are
    played, and the report names the best rule among those compared."""
    result = quality.bench(bots=(40,), seeds=1, queue=4, max_per_bot=80, target=0.6)
    rows = result["rows"]
    assert [r["rule"] for r in rows] == list(quality.RULES)
    for row in rows:
        assert row["matches_per_bot"] is not None and 0 < row["matches_per_bot"] <= 80, row
        assert row["final_tau"] >= 0.6
    assert result["best"] in quality.RULES
    run = quality.simulate("uncertainty", 40, seed=2, queue=4, max_per_bot=40, target=1.0)  # never reached
    assert run["matches_per_bot"] is None and len(run["curve"]) == 40
    assert run["curve"][-1] > run["curve"][0] + 0.2  # ratings converge towards the true order


def test_bench_ladder_quality_command() -> None:
    result = CliRunner().invoke(cli, ["bench", "ladder-quality", "--bots", "20", "--seeds", "1",
                                      "--max-per-bot", "60", "--target", "0.5", "--rule", "random",
                                      "--rule", "uncertainty"])
    assert result.exit_code == 0, result.output
    table = [line.split() for line in result.stdout.splitlines() if line.startswith("   20 ")]
    assert [row[1] for row in table] == ["random", "uncertainty"]
    bad = CliRunner().invoke(cli, ["bench", "ladder-quality", "--rule", "elo-magic"])
    assert bad.exit_code != 0 and "unknown rule" in bad.output
