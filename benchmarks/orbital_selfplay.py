"""Self-play of Orbital's designed data, and the greedy bot against the random bot.

``python -m benchmarks.orbital_selfplay --games 200`` prints the self-play table kept in
``referee/orbital/RULES_NOTES.md`` (the greedy bot in every seat, per player count): VP spread,
station size, how often each colour's majority is won (per game: the share of the 5 year-end
scorings in which somebody scored it) and the share of the game winner's majority VP that came
from each colour, events and attacks played, and how often each module card ends up in a
winner's station more than expected.

``--versus-random`` prints instead the rows of the "greedy against random" table: one greedy
seat (rotating with the seed) against random seats in 2- and 5-player games, and the peaceful
and competitive solo games played by the greedy bot and by the random bot on the same seeds.
The tests in ``tests/orbital/test_greedy_bot.py`` play exactly these games.

Games are independent, so ``--jobs N`` spreads them over N processes (default: all cores).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from statistics import mean, pstdev
from typing import Any, TypeVar

from referee.orbital.data import CARD_NAME, COLOURS
from referee.orbital.state import OrbitalState
from sample_bots.orbital_greedy.bot import choose

T = TypeVar("T")
R = TypeVar("R")


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


def play_mixed(players: int, variant: str, seed: int, greedy: set[int]) -> OrbitalState:
    """A game where the seats in ``greedy`` play the greedy bot and the rest play at random.

    The random seats draw from one generator seeded by the game seed, so a seed replays exactly
    (the tests use the same function).
    """
    st = OrbitalState.new(players, seed, variant)
    rnd = random.Random(seed * 7 + 1)
    while not st.is_over():
        seat = st.to_move()
        assert seat is not None
        ids = st.option_ids()
        st.apply(choose(st.observation(seat), ids) if seat in greedy else rnd.choice(ids))
    return st


def greedy_seat(players: int, seed: int) -> int:
    """The seat the greedy bot takes in game ``seed``: it rotates so no seat order is favoured."""
    return seed % players


def versus_random(players: int, seed: int) -> dict[str, Any]:
    """One greedy seat against random seats: did it win, and ahead of how many seats.

    Places follow the rulebook's end of game (게임 종료: most VP, then population icons on
    undamaged modules, then MC; a tie left after those is shared, and a shared first place is
    not counted as a win). ``most_vp`` is the stricter count that ignores the tie-breakers.
    """
    g = greedy_seat(players, seed)
    st = play_mixed(players, "standard", seed, {g})
    others = [a for a in range(players) if a != g]
    mine = st.tiebreak(g)
    return {"won": mine > max(st.tiebreak(a) for a in others),
            "beaten": sum(mine > st.tiebreak(a) for a in others),
            "most_vp": st.vp[g] > max(st.vp[a] for a in others), "vp": st.vp[g],
            "best_other": max(st.vp[a] for a in others)}


def solo(variant: str, seed: int, greedy: bool) -> dict[str, Any]:
    """A solo game (peaceful or competitive) played by the greedy bot or the random bot."""
    st = play_mixed(1, variant, seed, {0} if greedy else set())
    return {"won": bool(st.result().details["won"]), "vp": st.vp[0]}


def _self_play_game(args: tuple[int, int]) -> dict[str, Any]:
    """The per-game figures the self-play table needs (picklable, for the process pool)."""
    players, seed = args
    st, maj = play(players, seed)
    best = max(range(st.players), key=lambda a: st.tiebreak(a))
    vp = st.vp[: st.players]
    return {
        "colour_scored": {c: maj[c] for c in COLOURS},
        "spread": max(vp) - min(vp),
        "win_vp": max(vp),
        "mods": [len(st.mods[a]) for a in range(st.players)],
        "events": sum(st.events_played) / players,
        "attacks": sum(st.attacks) / players,
        "damage": st.damage_dealt,
        "winner_colour_vp": {c: maj[f"P{best + 1}:{c}"] for c in COLOURS},
        "cards": [sorted({CARD_NAME[m[0]] for m in st.mods[a][1:]}) for a in range(st.players)],
        "best": best,
    }


def _run(fn: Callable[[T], R], jobs: Iterable[T], workers: int) -> list[R]:
    """Map ``fn`` over ``jobs`` in ``workers`` processes (in this process when 1)."""
    items = list(jobs)
    if workers <= 1:
        return [fn(x) for x in items]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items, chunksize=1))


def table(players: int, games: int, workers: int = 1) -> dict[str, Any]:
    """The self-play row for one player count over seeds ``0 .. games-1``."""
    rows = _run(_self_play_game, ((players, seed) for seed in range(games)), workers)
    colour_scored: Counter[str] = Counter()
    winner_cards: Counter[str] = Counter()
    winner_colour_vp: Counter[str] = Counter()
    all_cards: Counter[str] = Counter()
    mods: list[int] = []
    for r in rows:
        colour_scored.update(r["colour_scored"])
        winner_colour_vp.update(r["winner_colour_vp"])
        mods.extend(r["mods"])
        for a, names in enumerate(r["cards"]):
            all_cards.update(names)
            if a == r["best"]:
                winner_cards.update(names)
    years = 5 * games
    share = {c: round(colour_scored[c] / years, 2) for c in COLOURS}
    lift = {n: round(winner_cards[n] / max(1, all_cards[n]) * players, 2) for n in all_cards if all_cards[n] >= games / 4}
    top = sorted(lift.items(), key=lambda kv: -kv[1])[:3]
    spread = [r["spread"] for r in rows]
    return {
        "players": players,
        "games": games,
        "winner_vp": round(mean(r["win_vp"] for r in rows), 1),
        "vp_spread": f"{mean(spread):.1f} ± {pstdev(spread):.1f}",
        "modules_per_station": f"{mean(mods):.1f} (min {min(mods)}, max {max(mods)})",
        "colour_majority_share": share,
        "winner_vp_share_by_colour": {c: round(winner_colour_vp[c] / max(1, sum(winner_colour_vp.values())), 2)
                                      for c in COLOURS},
        "events_per_player": round(mean(r["events"] for r in rows), 1),
        "attacks_per_player": round(mean(r["attacks"] for r in rows), 1),
        "damage_per_game": round(mean(r["damage"] for r in rows), 1),
        "winner_card_lift_top3": top,
    }


def _versus_job(args: tuple[str, int, int, bool]) -> dict[str, Any]:
    kind, players, seed, greedy = args
    if kind == "standard":
        return versus_random(players, seed)
    return solo(kind, seed, greedy)


def run_games(variant: str, players: int, seeds: Iterable[int], workers: int = 1, greedy: bool = True) -> list[dict[str, Any]]:
    """The greedy-against-random games of ``variant`` on ``seeds``: :func:`versus_random` rows for
    the standard game, :func:`solo` rows (played by the greedy bot, or the random one) otherwise."""
    return _run(_versus_job, ((variant, players, s, greedy) for s in seeds), workers)


def versus_table(games: int, workers: int = 1) -> list[str]:
    """The "greedy against random" rows over seeds ``0 .. games-1``."""
    lines = []
    for players in (2, 5):
        rows = run_games("standard", players, range(games), workers)
        won = sum(r["won"] for r in rows)
        beaten = sum(r["beaten"] for r in rows)
        most_vp = sum(r["most_vp"] for r in rows)
        lines.append(f"{players} players, one greedy seat: first place in {won}/{games} ({100 * won / games:.1f}%; "
                     f"most VP outright in {most_vp}); ahead of a given random seat in "
                     f"{beaten}/{(players - 1) * games}; average VP "
                     f"{mean(r['vp'] for r in rows):.1f} against the best other seat's {mean(r['best_other'] for r in rows):.1f}")
    for variant in ("peaceful", "competitive"):
        parts = []
        for who, greedy in (("greedy", True), ("random", False)):
            rows = run_games(variant, 1, range(games), workers, greedy)
            parts.append(f"{who} won {sum(r['won'] for r in rows)}/{games}, average {mean(r['vp'] for r in rows):.1f} VP")
        lines.append(f"{variant} solo: " + "; ".join(parts))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50, help="seeds 0 .. games-1 (default 50)")
    ap.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5], help="player counts of the self-play table")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    ap.add_argument("--versus-random", action="store_true", help="the greedy-against-random rows instead of self-play")
    args = ap.parse_args()
    if args.games < 1:
        ap.error("--games must be at least 1")
    if any(p not in (2, 3, 4, 5) for p in args.players):
        ap.error("--players takes player counts from 2 to 5")
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    start = time.perf_counter()
    if args.versus_random:
        for line in versus_table(args.games, args.jobs):
            print(line)
    else:
        for p in args.players:
            print(table(p, args.games, args.jobs))
    print(f"# {time.perf_counter() - start:.0f} s wall with {args.jobs} process(es)")


if __name__ == "__main__":
    main()
