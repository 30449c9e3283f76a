"""Self-play of Orbital's designed data: the greedy bot in every seat, per player count.

``python -m benchmarks.orbital_selfplay --games 200`` prints the table kept in
``referee/orbital/RULES_NOTES.md``: VP spread, station size, how often each colour's majority is
won (per game: the share of the 5 year-end scorings in which somebody scored it) and the share of the
game winner's majority VP that came from each colour, events and attacks
played, and how often each module card ends up in a winner's station more than expected.
"""

from __future__ import annotations

import argparse
from collections import Counter
from statistics import mean, pstdev
from typing import Any

from referee.orbital.data import CARD_NAME, COLOURS
from referee.orbital.state import OrbitalState
from sample_bots.orbital_greedy.bot import choose


def play(players: int, seed: int, variant: str = "standard") -> tuple[OrbitalState, Counter[str]]:
    """One greedy-vs-greedy game; also counts who won each colour's majority at each year end."""
    st = OrbitalState.new(players, seed, variant)
    majority: Counter[str] = Counter()
    while not st.is_over():
        seat = st.to_move()
        assert seat is not None
        for line in st.apply(choose(st.observation(seat), st.option_ids())):
            if " majority (" in line:
                colour = line.split()[0]
                majority[colour] += 1
                who, _, gain = line.partition("): ")[2].rpartition(" +")
                for name in who.split(", "):
                    majority[f"{name}:{colour}"] += int(gain.split()[0])
    return st, majority


def table(players: int, games: int) -> dict[str, Any]:
    vp_spread, win_vp, mods, events, attacks, damage = [], [], [], [], [], []
    colour_scored: Counter[str] = Counter()
    winner_cards: Counter[str] = Counter()
    winner_colour_vp: Counter[str] = Counter()
    all_cards: Counter[str] = Counter()
    for seed in range(games):
        st, maj = play(players, seed)
        colour_scored.update({c: maj[c] for c in COLOURS})
        vp = st.vp[: st.players]
        vp_spread.append(max(vp) - min(vp))
        win_vp.append(max(vp))
        mods.extend(len(st.mods[a]) for a in range(st.players))
        events.append(sum(st.events_played) / players)
        attacks.append(sum(st.attacks) / players)
        damage.append(st.damage_dealt)
        best = max(range(st.players), key=lambda a: st.tiebreak(a))
        for c in COLOURS:
            winner_colour_vp[c] += maj[f"P{best + 1}:{c}"]
        for a in range(st.players):
            names = {CARD_NAME[m[0]] for m in st.mods[a][1:]}
            all_cards.update(names)
            if a == best:
                winner_cards.update(names)
    years = 5 * games
    share = {c: round(colour_scored[c] / years, 2) for c in COLOURS}
    lift = {n: round(winner_cards[n] / max(1, all_cards[n]) * players, 2) for n in all_cards if all_cards[n] >= games / 4}
    top = sorted(lift.items(), key=lambda kv: -kv[1])[:3]
    return {
        "players": players,
        "games": games,
        "winner_vp": round(mean(win_vp), 1),
        "vp_spread": f"{mean(vp_spread):.1f} ± {pstdev(vp_spread):.1f}",
        "modules_per_station": f"{mean(mods):.1f} (min {min(mods)}, max {max(mods)})",
        "colour_majority_share": share,
        "winner_vp_share_by_colour": {c: round(winner_colour_vp[c] / max(1, sum(winner_colour_vp.values())), 2)
                                      for c in COLOURS},
        "events_per_player": round(mean(events), 1),
        "attacks_per_player": round(mean(attacks), 1),
        "damage_per_game": round(mean(damage), 1),
        "winner_card_lift_top3": top,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    args = ap.parse_args()
    for p in args.players:
        print(table(p, args.games))


if __name__ == "__main__":
    main()
