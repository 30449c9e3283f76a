"""The sample greedy bot against the random bot (issue 10), and the solo comparisons.

The default run plays a short form; ``--full`` plays seeds 0-199 (in two processes), the games
``python -m benchmarks.orbital_selfplay --versus-random --games 200`` plays. Measured figures
are in ``referee/orbital/RULES_NOTES.md``.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.orbital_selfplay import greedy_seat, play_mixed, run_games
from referee.orbital import rules
from referee.orbital import station as geo
from referee.orbital.data import CARD_COLOUR, MODULE_COUNT, RULES
from referee.orbital.state import P_MAIN, OrbitalState
from sample_bots.orbital_greedy import bot

FULL_SEEDS = 200
WORKERS = 2


def test_the_greedy_seat_rotates_and_a_seed_replays() -> None:
    # the figures are only comparable if a seed is the same game every time
    assert [greedy_seat(5, s) for s in range(6)] == [0, 1, 2, 3, 4, 0]
    a = play_mixed(2, "standard", 3, {1})
    b = play_mixed(2, "standard", 3, {1})
    assert a.vp == b.vp and a.mc == b.mc and a.is_over()


def _last_year_state(seed: int) -> OrbitalState:
    """A 2-player game played at random up to a main turn of seat 0 in year 5."""
    st = OrbitalState.new(2, seed)
    rnd = random.Random(seed)
    while not (st.year == RULES["years"] and st.phase == P_MAIN and st.to_move() == 0):
        assert not st.is_over()
        st.apply(rnd.choice(st.option_ids()))
    return st


def test_in_the_last_year_a_module_in_hand_counts_only_with_the_money_to_build_it() -> None:
    # 한 해의 끝 » 1. 승점 획득: cards and money score nothing at the end, so the bot credits a
    # module in hand with the majority it could still win, only while the money can pay for it
    st = _last_year_state(5)
    counts = [rules.colour_counts(st, a) for a in range(st.actors)]
    if not geo.free_slots(st.mods[0], ordered=False):
        pytest.skip("seat 0 has no free exit in this game")
    # the colour where one more module gains the most: seat 0 leads it by 0 or trails by at most 1
    gap = {c: counts[0][c] - counts[1][c] for c in range(6)}
    colour = max(range(6), key=lambda c: (gap[c] in (0, -1), -abs(gap[c])))
    assert gap[colour] in (0, -1), gap
    card = next(c for c in range(MODULE_COUNT) if CARD_COLOUR[c] == colour)
    st.hands[0] = [card]
    st.mc[0] = 0
    assert bot._reach(st, 0, counts) == 0.0
    st.mc[0] = 10
    broke = st.clone()
    broke.mc[0] = 0
    assert bot._reach(st, 0, counts) > 0.0
    assert bot.evaluate(st, 0) - bot.evaluate(broke, 0) > 0.1 * 10  # more than the money alone


def test_before_the_last_year_closing_the_station_costs_every_later_years_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    # 모듈 건설: a module is built only on a free exit, so a station with none can never grow
    # again; one game was lost with 29 MC and seven cards it could not place (RULES_NOTES.md)
    st = OrbitalState.new(2, 7)
    rnd = random.Random(7)
    while not (st.year == 2 and st.phase == P_MAIN and st.to_move() == 0):
        st.apply(rnd.choice(st.option_ids()))
    counts = [rules.colour_counts(st, a) for a in range(st.actors)]
    monkeypatch.setattr(geo, "free_slots", lambda mods, ordered=False: [(0, 0)])
    one_exit = bot.station_value(st, 0, counts)
    monkeypatch.setattr(geo, "free_slots", lambda mods, ordered=False: [])
    closed = bot.station_value(st, 0, counts)
    # more than the exit itself: the builds of years 3-5 are lost with it
    assert one_exit - closed > 0.8 + 2 * (RULES["years"] - st.year)


def test_greedy_beats_random_in_two_player_games(full_run: bool) -> None:
    seeds = FULL_SEEDS if full_run else 12  # the short form: ~35 s on a quiet machine
    rows = run_games("standard", 2, range(seeds), WORKERS if full_run else 1)
    wins = sum(r["won"] for r in rows)
    assert wins >= 0.9 * seeds, f"greedy won {wins}/{seeds}"


def test_greedy_against_four_random_bots(full_run: bool) -> None:
    """One greedy seat (rotating) against four random seats.

    Issue 10 asks a win in 90% of 200 seeds: first place by the rulebook's end of game (VP, then
    population, then MC). Measured (RULES_NOTES.md): 181/200 (90.5%; 89 of seeds 0-99, 92 of
    seeds 100-199; 179/200 on seeds 200-399), ahead of 775 of 800 random seats. The test
    asserts a level below the measured one (75% under ``--full``, 60% in the 10-game short
    form), so a regression fails; under ``--full`` a figure under 90% is reported as an expected
    failure (xfail) with the figure — the margin over 90% is one game's worth of noise.
    """
    seeds = FULL_SEEDS if full_run else 10
    rows = run_games("standard", 5, range(seeds), WORKERS if full_run else 1)
    wins = sum(r["won"] for r in rows)
    pairs = sum(r["beaten"] for r in rows)
    assert wins >= (0.75 if full_run else 0.6) * seeds, f"greedy won {wins}/{seeds}"
    assert pairs >= 0.85 * 4 * seeds, f"greedy beat {pairs}/{4 * seeds} random seats"
    if full_run and wins < 0.9 * seeds:
        pytest.xfail(f"issue 10 asks 90%: the greedy bot took first place in {wins}/{seeds} 5-player games")


def test_greedy_reaches_22_in_the_peaceful_solo_more_often_than_random(full_run: bool) -> None:
    # 1인 규칙 » 평화 버전: 22점 이상을 달성했다면 승리. The short form also compares average VP,
    # because a win (22+) is rare enough that a handful of seeds may show none.
    seeds = FULL_SEEDS if full_run else 8
    workers = WORKERS if full_run else 1
    greedy = run_games("peaceful", 1, range(seeds), workers)
    rand = run_games("peaceful", 1, range(seeds), workers, greedy=False)
    g_won = sum(r["won"] for r in greedy)
    r_won = sum(r["won"] for r in rand)
    assert sum(r["vp"] for r in greedy) > sum(r["vp"] for r in rand)
    if full_run:
        assert g_won > r_won, f"greedy {g_won}/{seeds}, random {r_won}/{seeds}"
    else:
        assert g_won >= r_won


@pytest.mark.slow
def test_greedy_beats_the_bot_players_more_often_than_random() -> None:
    # 1인 규칙 » 경쟁 버전: the bot players are strong (2 MC per unusable card, 5 cards a year)
    seeds = 100
    greedy = sum(r["won"] for r in run_games("competitive", 1, range(seeds), WORKERS))
    rand = sum(r["won"] for r in run_games("competitive", 1, range(seeds), WORKERS, greedy=False))
    assert greedy > rand and greedy >= 0.1 * seeds, f"greedy {greedy}/{seeds}, random {rand}/{seeds}"


@pytest.mark.parametrize("argv", [["--games", "0"], ["--players", "6"], ["--jobs", "0"]])
def test_the_benchmark_refuses_bad_arguments_in_one_line(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import orbital_selfplay

    monkeypatch.setattr("sys.argv", ["orbital_selfplay", *argv])
    with pytest.raises(SystemExit) as exc:
        orbital_selfplay.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
