"""``arena bench starve``, the short form: one round in the root mode prints the ISMCTS bot's
iterations per decision against the calm bot and against ``spinner``, and their ratio."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from benchmarks.command import bench_group
from tests.referee.helpers import needs_bwrap

pytestmark = needs_bwrap


@pytest.mark.skipif(os.geteuid() != 0, reason="the root mode is measured as root")
def test_a_short_run_prints_both_opponents_and_the_ratio() -> None:
    result = CliRunner().invoke(bench_group, ["starve", "--rounds", "1", "--decision-ms", "200",
                                              "--mode", "root"])
    assert result.exit_code == 0, result.output
    lines = dict(line.split(None, 1) for line in result.output.splitlines() if line.strip())
    assert lines["game"] == "solenia" and lines["goal"] == "ratio >= 0.95"
    import json

    root = json.loads(lines["root"])
    for side in ("calm", "spinner", "unfrozen"):
        assert root[side]["decisions"] >= 10 and root[side]["iterations_per_decision"] > 0, root
    assert root["spinner"]["opponent_cpu_ms"] > root["calm"]["opponent_cpu_ms"]  # it did spin
    # What the spinner took while the ISMCTS bot was on turn: frozen, next to nothing.
    taken = {side: root[side]["opponent_cpu_while_ismcts_on_turn_ms"] for side in ("spinner", "unfrozen")}
    assert taken["spinner"] < taken["unfrozen"] / 4, taken
    # One round on a shared machine is noisy: a gross loss only (the figures are in the docs).
    assert root["ratio"] > 0.5, root
    assert "unprivileged" not in lines


def test_a_bad_option_is_a_clear_message() -> None:
    result = CliRunner().invoke(bench_group, ["starve", "--mode", "sideways"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "'sideways' is not one of" in result.output
