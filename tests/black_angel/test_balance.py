"""Black Angel plays as the race to Spes the rulebook describes (issue 15, item 1).

black-angel.ko.txt [5] 게임 종료: the game ends when the Black Angel reaches Spes (10 advances with
7 strips, 7 with 5) or when the Ravager deck runs out. With the designed strips the greedy bot
in every seat (solo: against Hal) must reach Spes in most games: the Ravager deck ends at most
15% of games and never before round 6 (benchmarks/balance_black_angel.py; the table is in
referee/black_angel/RULES_NOTES.md). 200 games per configuration with --full, 12 by default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.balance_black_angel import ADVANCED, CONFIGS, markdown, measure

DATA = Path(__file__).resolve().parents[2] / "referee" / "black_angel" / "data"


def _check(row: dict) -> None:
    assert row["ravager_share"] <= 0.15, row
    assert row["ravager_earliest_round"] is None or row["ravager_earliest_round"] >= 6, row
    assert row["spes_share"] + row["ravager_share"] == pytest.approx(1.0)
    assert row["ejected_mean"] > 0.7 * row["placed_mean"], row  # missions live to be ejected


#: 200 games take about a minute of one idle core; on the shared machine (load 40 on 2 cores) one
#: configuration passed the default 600 s timeout, so the long runs get an hour.
LONG = pytest.mark.timeout(3600)


@pytest.mark.slow
@LONG
@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_balance_goals_over_200_greedy_games(players: int, variant: str) -> None:
    row = measure(players, variant, 200)
    _check(row)
    assert row["placed_mean"] >= 6, row


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_balance_goals_fast(players: int, variant: str) -> None:
    _check(measure(players, variant, 12, first_seed=1000))


def test_the_table_prints_every_configuration() -> None:
    rows = [measure(p, v, 2) for p, v in CONFIGS]
    table = markdown(rows).splitlines()
    assert len(table) == 2 + len(CONFIGS) and table[0].startswith("| players | variant | games | by Spes")


def test_strips_keep_the_rulebook_counts_and_marks() -> None:
    # [1] 구성품: 7 양면 우주 보드; hex contents are designed and stay marked so
    strips = json.loads((DATA / "strips.json").read_text())["strips"]
    assert len(strips) == 7 and all(len(s["sides"]) == 2 for s in strips)
    assert all(s["source"] == "designed" for s in strips)
    hexes = [h for s in strips for side in s["sides"] for h in side]
    assert len(hexes) == 70 and all(h["icons"] in (0, 1) for h in hexes)
    # every Ravager ship hex shows its icon; a mission can cover a coloured hex's icon
    assert all(h["icons"] == 1 for h in hexes if h["type"] == "ravager")
    assert sum(h["icons"] for h in hexes) <= 14


@pytest.mark.slow
@LONG
@pytest.mark.parametrize(("players", "variant"), ADVANCED)
def test_balance_goals_with_the_advanced_rules(players: int, variant: str) -> None:
    _check(measure(players, variant, 200))
