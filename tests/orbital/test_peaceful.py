"""1인 규칙 » 평화 버전: no events, two colour-track opponents, 22 VP or more wins."""

from __future__ import annotations

from referee.orbital.data import CARD_IS_EVENT, MODULE_COUNT
from referee.orbital.state import P_OVER, OrbitalState
from tests.orbital.helpers import N, card, fresh, put


def test_setup_removes_events_and_opponents_draw_three_each() -> None:
    # 준비: 카드 더미에서 모든 이벤트 카드를 제거; 빨강 트랙은 1에서 시작; 시작 카드를 가져올 때 3장씩
    st = OrbitalState.new(1, 2, "peaceful")
    everything = st.deck + st.discard + st.market + st.hands[0]
    assert not any(CARD_IS_EVENT[c] for c in everything) and len(everything) == MODULE_COUNT
    assert st.actors == 1 and len(st.track) == 2
    assert [sum(t) for t in st.track] == [1 + 3, 1 + 3]
    assert all(t[0] >= 1 for t in st.track)
    assert len(st.discard) == 6


def test_opponent_tracks_compete_for_majorities() -> None:
    st = fresh(1, "peaceful")
    st.track = [[1, 2, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0]]
    put(st, 0, card("Hydroponics"), 0, N)
    st.apply("pass")
    # red: tie 1-1-1 (+1 each); green: opponent 1 has 2 > 1; yellow: opponent 2 only
    assert st.vp[0] == 1 and st.opp_vp == [2, 2]
    assert st.option_ids() == ["income:red", "income:green"]
    st.apply("income:green")
    # 한 해의 끝에 카드를 가져올 때 각각의 상대를 위해서 카드를 3장씩 뽑습니다
    assert [sum(t) for t in st.track] == [3 + 3, 2 + 3] and st.year == 2


def test_weapons_cannot_touch_the_opponents() -> None:
    # 카드의 효과가 상대에게 영향을 줄 수 없습니다
    st = fresh(1, "peaceful")
    wp = put(st, 0, card("Weapon Platform"), 0, N)
    assert f"act:{wp}" not in st.option_ids()


def test_twenty_two_vp_wins() -> None:
    # 5라운드를 마치고 22점 이상을 달성했다면 승리
    st = fresh(1, "peaceful")
    st.year = 5
    st.track = [[1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
    st.vp[0] = 20
    st.apply("pass")
    assert st.phase == P_OVER and st.vp[0] == 22
    r = st.result()
    assert r.details["won"] is True and r.ranks == (1,)
    st2 = fresh(1, "peaceful")
    st2.year = 5
    st2.vp[0] = 19
    st2.apply("pass")
    r2 = st2.result()
    assert r2.details["won"] is False
    # a solo result ranks the seat against the goal (referee.engine.solo_outcome): a loss is rank 2
    assert r.details["beat_automaton"] is True and r.details["outcome"] == "tied with the 22 VP goal (a shared win), 22 to 22"
    assert r2.ranks == (2,) and r2.details["automaton_rank"] == 1 and r2.details["outcome"].startswith("lost to")


def test_competitive_solo_ranks_the_player_against_the_bot_players() -> None:
    # 1인 규칙 » 경쟁 버전: the player wins by beating both bot players (게임 종료 tie-breakers)
    for bot_vp, rank, words in ((30, 2, "lost to the bot players, 0 to 3"), (0, 1, "beat the bot players")):
        st = fresh(1, "competitive")
        st.year = 5
        st.vp = [0, bot_vp, 0] if bot_vp else [40, 0, 0]
        while st.phase != P_OVER:
            st.apply("pass" if "pass" in st.option_ids() else st.option_ids()[0])
        r = st.result()
        assert r.ranks == (rank,) and r.details["won"] is (rank == 1)
        assert r.details["automaton"] == "the bot players" and r.details["outcome"].startswith(words[:20])
        assert r.details["automaton_rank"] == (2 if rank == 1 else 1)


def test_competitive_solo_tie_is_decided_by_the_tie_breakers() -> None:
    # 게임 종료: equal VP, then population on undamaged modules, then MC decide
    st = fresh(1, "competitive")
    st.year = 5
    st.vp = [10, 10, 0]
    st.mc = [50, 0, 0]
    st.phase = P_OVER
    r = st.result()
    assert st.vp[0] == st.vp[1] and r.details["won"] is True and r.ranks == (1,)
    assert r.details["outcome"] == "beat the bot players on the tie-breaker, 10 to 10 VP"
    assert r.details["automaton_rank"] == 2
