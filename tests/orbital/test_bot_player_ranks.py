"""1인 규칙 » "원한다면 여러 명이 플레이할 때에도 봇 플레이어를 추가할 수 있습니다" (bots-N) with
게임 종료's tie-breakers: the result of a game with added bot players ranks the seats counting
the bot players, as one finisher at the best bot player's place — the way the rating has them
(arena.evaluation.ratings.automaton_table) — so a seat beaten by a bot player never shows as first.
"""

from __future__ import annotations

from arena.evaluation import ratings
from referee.conformance import check_result
from referee.engine import competition_ranks
from referee.orbital.state import OrbitalState
from referee.record import final_ranks
from referee.rng import Rng

BOT_CONFIGS = [(p, v) for p, v in OrbitalState.spec.configurations if v.startswith("bots-")]


def _random_game(players: int, variant: str, seed: int) -> OrbitalState:
    st = OrbitalState.new(players, seed, variant)
    pick = Rng(seed * 31 + 7)
    while not st.is_over():
        opts = st.legal_options()
        st.apply(opts[pick.below(len(opts))].id)
    return st


def test_bots_n_ranks_are_the_ratings_ranks() -> None:
    """Random games of every bots-N configuration: the result's ranks and automaton rank are
    exactly the seats' and the pseudo-player's ranks in the rated table, the places still rank
    every actor, and the result passes the conformance check (competition ranks)."""
    assert BOT_CONFIGS, "no bots-N configuration"
    for players, variant in BOT_CONFIGS:
        for seed in range(4):
            st = _random_game(players, variant, seed)
            result = check_result(st)
            places = result.details["places"]
            assert places == list(competition_ranks([st.tiebreak(a) for a in range(st.actors)]))
            seats, auto = ratings.automaton_table(result.to_json(), players)
            assert list(result.ranks) == seats
            assert result.details["automaton_rank"] == auto
            # The runner's forfeit handling (referee.record.final_ranks) keeps them as they are.
            assert final_ranks(list(result.ranks), set(), auto) == seats


def test_a_seat_beaten_by_both_bot_players_is_not_first() -> None:
    """The bug of issue 26: the ranks listed only the seats, so the best seat showed rank 1
    even when both bot players finished ahead of it. Now it ranks behind the best bot player."""
    found = 0
    for seed in range(60):
        st = _random_game(2, "bots-2", seed)
        result = st.result()
        places = result.details["places"]
        best_seat = min(places[:2])
        if all(p < best_seat for p in places[2:]):
            top = places.index(best_seat)
            assert result.ranks[top] == 2  # behind the bot players' one finisher, not first
            assert result.details["automaton_rank"] == 1
            assert sorted(result.ranks) in ([2, 2], [2, 3])
            found += 1
    assert found, "no game in 60 where both bot players beat both seats"


def test_a_seat_ahead_of_the_bot_players_keeps_first() -> None:
    for seed in range(30):
        st = _random_game(3, "bots-1", seed)
        result = st.result()
        places = result.details["places"]
        for s in range(3):
            ahead_of_bot = places[s] < places[3]
            tied = places[s] == places[3]
            seats_ahead = sum(1 for o in range(3) if places[o] < places[s])
            assert result.ranks[s] == 1 + seats_ahead + (0 if ahead_of_bot or tied else 1)
