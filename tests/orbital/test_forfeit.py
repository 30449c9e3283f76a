"""A forfeited seat's fallback disturbs the others as little as the rules allow (issue 15, item 3).

star-scrappers-orbital.ko.txt 게임 라운드: a game is five years whatever the seats do, and in a
year the players act in turn until everyone has passed in succession; » 패스: a seat that passed
may act again when its turn comes round. So a forfeited seat cannot shorten the game, and what it
can change for the others is what their turns hold: an attack, an event, a module bought from
the market or a majority taken from them. The fallback passes whenever it may (the quietest
move: nothing taken from the market, no station touched); the set-up keep, the income colour
and the hand-limit discard are the seat's own business.

The bound: with seat 0 forfeited from decision 0 and the greedy bot in the other seats, every
game still runs five years and the others' mean number of actions (their turns that are not a
pass) is at most 20% below the all-greedy games over the same seeds, and at most 35% above (2-4
players, 4 seeds; 2-5 players, 40 seeds with --full). Measured (greedy, seeds 0-9), actions per
other seat, all greedy -> seat 0 forfeited: 2 players 43.7 -> 45.9, 3 players 44.0 -> 45.2, 4
players 42.4 -> 43.1, 5 players 38.4 -> 42.3 (they lose nothing to its attacks and events).
Since the greedy bot values its money modules' yield twice as high (issue 10) an unharassed
station grows faster: 2 players 47.0 -> 57.8 (+23%) on the 4 short-form seeds, 47.9 -> 60.4
(+26%) on seeds 0-19, 47.3 -> 58.4 (+23%) on seeds 0-39 (the bot before: -3% on the short-form
seeds, +19% on seeds 0-19), so the gain is bounded at 35% and the loss stays at 20%. The length
bound alone would not catch a careless fallback (the first legal option: 43.7 -> 35.7 with 2
players, -18%); the checks that it never builds, attacks, plays an event or upgrades do.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import pytest

from arena.sdk import Option
from referee.orbital.data import RED
from referee.orbital.state import P_MAIN, OrbitalState
from sample_bots.orbital_greedy.bot import act

#: the others may lose at most this share of their actions to the forfeit (a careless fallback
#: takes 18%), and gain at most ``GAIN`` (nobody attacks them or competes for the market)
BOUND = 0.20
GAIN = 0.35


def _play(players: int, seed: int, forfeit: Callable[[OrbitalState], str] | None) -> tuple[OrbitalState, float]:
    """One game, greedy bots and seat 0 forfeited; the others' mean number of actions."""
    s = OrbitalState.new(players, seed, "standard")
    actions = [0] * players
    while not s.is_over():
        seat = s.to_move()
        assert seat is not None
        if seat == 0 and forfeit is not None:
            s.apply(forfeit(s))
            continue
        choice = act(s.observation(seat), [Option(o.id, o.label) for o in s.legal_options()])
        if s.phase == P_MAIN and choice != "pass":
            actions[seat] += 1
        s.apply(choice)
    return s, statistics.mean(actions[1:])


def _first_option(s: OrbitalState) -> str:
    """A careless fallback: the first legal option (a build, an upgrade, a purchase …)."""
    return s.option_ids()[0]


@pytest.mark.timeout(3600)  # --full: 80 greedy games of up to 5 players on a shared machine
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_forfeited_seat_keeps_the_others_turns(players: int, full_run: bool) -> None:
    if players >= 4 and not full_run:
        pytest.skip("4 and 5 players with --full (the longest games: 72 s for 4 on a loaded host)")
    seeds = range(40 if full_run else 4)
    normal, forfeited = [], []
    for seed in seeds:
        normal.append(_play(players, seed, None)[1])
        s, others = _play(players, seed, OrbitalState.fallback_option)
        assert s.year == 5  # 게임 종료: five years, forfeit or not
        forfeited.append(others)
    mean_normal, mean_forfeited = statistics.mean(normal), statistics.mean(forfeited)
    assert (1 - BOUND) * mean_normal <= mean_forfeited <= (1 + GAIN) * mean_normal, (players, mean_normal, mean_forfeited)


def test_the_fallback_never_touches_the_others() -> None:
    # no attack, no event, no module built, nothing bought from the market: it only passes
    for players, seed in ((2, 1), (3, 2)):
        s, _ = _play(players, seed, OrbitalState.fallback_option)
        assert s.attacks[0] == s.events_played[0] == s.built[0] == 0, (players, seed)
        assert s.core[0] == RED  # no upgrade taken from the row the others share


def test_the_check_catches_a_careless_fallback() -> None:
    s, _ = _play(2, 1, _first_option)
    assert s.built[0] + s.attacks[0] + s.events_played[0] > 0 or s.core[0] != RED


def test_fallback_passes_in_the_main_phase() -> None:
    # » 패스 is always legal in the main phase, and the fallback takes it over any other action
    s = OrbitalState.new(2, 3, "standard")
    while s.phase != P_MAIN or s.to_move() != 0:
        s.apply(s.fallback_option())
    assert "pass" in s.option_ids() and len(s.option_ids()) > 1
    assert s.fallback_option() == "pass"
