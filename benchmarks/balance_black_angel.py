"""Black Angel balance: how greedy self-play games end, measured over many seeds.

Why: the rulebook describes a race to Spes (10 advances with 7 strips, 7 with 5); the designed
strips decide how many Ravagers each placed mission calls, and so whether the Ravager deck ends
the game first. This plays the sample greedy bot in every seat (solo: against Hal) and reports,
per configuration: the share of games ended by Spes vs by the Ravager deck, the earliest round
the deck ran out, rounds per game, missions placed and ejected, advanced tiles scored.

Run: ``arena bench balance black_angel [--games N] [--advanced]`` or
``python -m benchmarks.balance_black_angel [N] [--advanced]``.
"""

from __future__ import annotations

import statistics
import sys
from typing import Any

from arena.sdk import Option
from referee.black_angel.scoring import advanced_tiles, advanced_vp
from referee.black_angel.state import BlackAngelState
from sample_bots.black_angel_greedy.bot import act

#: (players, variant) rows of the table: every player count, and solo against Hal.
CONFIGS: tuple[tuple[int, str], ...] = ((2, "base"), (3, "base"), (4, "base"), (1, "solo"))
#: The same with the advanced rules (boost sides, draw 2 keep 1), on request.
ADVANCED: tuple[tuple[int, str], ...] = ((2, "advanced"), (3, "advanced"), (4, "advanced"), (1, "solo-advanced"))


def play_greedy(players: int, seed: int, variant: str = "base") -> dict[str, Any]:
    """One game with the greedy bot in every seat; what the balance table counts."""
    s = BlackAngelState.new(players, seed, variant)
    placed = ejected = 0
    trigger_round, by_spes = -1, False
    before = {hk: c[0] for hk, c in s.cards.items()}
    while not s.is_over():
        seat = s.to_move()
        assert seat is not None
        opts = [Option(o.id, o.label) for o in s.legal_options()]
        s.apply(act(s.observation(seat), opts))
        now = {hk: c[0] for hk, c in s.cards.items()}
        placed += sum(1 for hk, m in now.items() if before.get(hk) != m)
        ejected += sum(1 for hk, m in before.items() if now.get(hk) != m)
        before = now
        if s.end_trig and trigger_round < 0:
            trigger_round, by_spes = s.round, s.spes_reached
    tiles = sum(len(advanced_tiles(s, p)) for p in range(players))
    scoring = sum(1 for p in range(players) if advanced_vp(s, p) > 0)
    return {
        "rounds": s.round,
        "by_spes": by_spes,
        "trigger_round": trigger_round,
        "placed": placed,
        "ejected": ejected,
        "advanced_tiles": tiles,
        "advanced_vp": sum(advanced_vp(s, p) for p in range(players)),
        "seats_scoring_advanced": scoring,
        "scores": list(s.result().scores),
    }


def measure(players: int, variant: str, games: int, first_seed: int = 0) -> dict[str, Any]:
    """Aggregate ``games`` greedy games of one configuration into one table row."""
    runs = [play_greedy(players, seed, variant) for seed in range(first_seed, first_seed + games)]
    deck = [r for r in runs if not r["by_spes"]]
    return {
        "players": players,
        "variant": variant,
        "games": games,
        "spes_share": round(sum(r["by_spes"] for r in runs) / games, 3),
        "ravager_share": round(len(deck) / games, 3),
        "ravager_earliest_round": min((r["trigger_round"] for r in deck), default=None),
        "rounds_mean": round(statistics.mean(r["rounds"] for r in runs), 2),
        "rounds_min": min(r["rounds"] for r in runs),
        "rounds_max": max(r["rounds"] for r in runs),
        "placed_mean": round(statistics.mean(r["placed"] for r in runs), 2),
        "ejected_mean": round(statistics.mean(r["ejected"] for r in runs), 2),
        "advanced_tiles_mean": round(statistics.mean(r["advanced_tiles"] for r in runs), 2),
        "advanced_vp_mean": round(statistics.mean(r["advanced_vp"] for r in runs), 2),
    }


def bench(games: int = 200, first_seed: int = 0, advanced: bool = False) -> dict[str, Any]:
    """Every configuration in :data:`CONFIGS` (or :data:`ADVANCED`); one row each."""
    configs = ADVANCED if advanced else CONFIGS
    return {"rows": [measure(p, v, games, first_seed) for p, v in configs]}


HEADER = ("players", "variant", "games", "by Spes", "by Ravagers", "deck earliest round",
          "rounds mean (min-max)", "missions placed", "missions ejected", "advanced tiles",
          "advanced VP")


def markdown(rows: list[dict[str, Any]]) -> str:
    """The table as it goes into RULES_NOTES.md."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        earliest = "—" if r["ravager_earliest_round"] is None else str(r["ravager_earliest_round"])
        lines.append(
            f"| {r['players']} | {r['variant']} | {r['games']} | {r['spes_share']:.1%} | "
            f"{r['ravager_share']:.1%} | {earliest} | {r['rounds_mean']} ({r['rounds_min']}-{r['rounds_max']}) | "
            f"{r['placed_mean']} | {r['ejected_mean']} | {r['advanced_tiles_mean']} | {r['advanced_vp_mean']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    advanced = "--advanced" in args
    numbers = [a for a in args if a.isdigit()]
    games = int(numbers[0]) if numbers else 200
    print(markdown(bench(games, advanced=advanced)["rows"]))


if __name__ == "__main__":
    main()
