"""The supply ship rule, recovery effects, the end and final scoring (solenia.ko.txt 3.)."""

from __future__ import annotations

from referee.solenia.data import SIDE_NAMES
from referee.solenia.scoring import set_bonus
from referee.solenia.state import P_DROP, P_OVER
from tests.solenia.scenario import fresh, hand, play, put


def test_leftmost_board_detached_cards_recovered_board_flipped_and_joined() -> None:
    # < 보급 우주선 규칙 >: 가장 왼쪽 게임판을 분리, 카드 회수 효과, 뒤집어 맨 오른쪽에 붙입니다
    st = fresh()
    hand(st, 0, [0, 4, 5], deck=[])
    put(st, 4, 0, 1)  # <0> region x2 on water -> 2 water (rulebook example 2)
    put(st, 1, 1, 2)  # <0> region x2 on a city -> 2 points (rulebook example 3)
    put(st, 0, 0, 10)  # <2> star-if-wood on wood -> 1 point (rulebook example 1)
    put(st, 2, 1, 7)  # <1> water -> 1 water (rulebook example 4)
    put(st, 6, 0, 14)  # <2> stone+wheat -> 1 stone, 1 wheat
    put(st, 3, 1, 12)  # <2> star-if-wheat on wheat -> 1 point
    put(st, 5, 0, 11)  # <2> star-if-stone on a city -> nothing
    put(st, 20, 1, 13)  # stays: not on the leftmost board
    play(st, "card:0", "cell:16")
    assert st.res[0] == [0, 1, 1, 2] and st.stars[0] == 1
    assert st.res[1] == [0, 0, 0, 1] and st.stars[1] == 3
    assert sorted(st.out_cards[0]) == [1, 10, 11, 14] and sorted(st.out_cards[1]) == [2, 7, 12]
    assert st.board_at == [1, 2, 3, 4, 0]
    assert SIDE_NAMES[0][st.side_at[4]] == "day"  # the night board comes back as day
    assert st.owner[20 - 7] == 1 and st.owner[16 - 7] == 0  # everything shifted one board left
    assert st.owner[28:] == [-1] * 7 and st.ship_col == 2


def test_recovery_can_overflow_another_players_store() -> None:
    # 중요!!! (8개 제한) also when recovered cards bring resources at the end of someone's turn
    st = fresh()
    hand(st, 0, [0, 4, 5])
    st.res[1] = [4, 0, 0, 3]
    put(st, 4, 1, 1)  # <0> region x2 on water
    play(st, "card:0", "cell:16")
    assert st.phase == P_DROP and st.to_move() == 1
    play(st, "drop:wood")
    assert st.res[1] == [3, 0, 0, 5] and st.cur == 1


def test_game_ends_after_the_last_card_including_the_final_ship_move() -> None:
    # < 게임의 종료 >: 마지막 차례에 <0> 카드로 이동한 경우 보급 우주선 규칙을 모두 적용한 후 종료
    st = fresh()
    hand(st, 0, [4], deck=[])
    hand(st, 1, [0], deck=[])
    put(st, 2, 0, 5)  # <1> stone, on the board that will leave
    play(st, "card:4", "cell:16")
    assert st.phase != P_OVER
    play(st, "card:0", "cell:18")
    assert st.phase == P_OVER and st.to_move() is None and st.legal_options() == []
    assert st.res[0] == [1, 1, 0, 0]  # the <1> wood card's region (wood) + recovered stone


def test_set_bonus_is_cumulative_and_capped_at_ten() -> None:
    # 낮과 밤 보급품 타일 세트 점수 (1세트 1점/2세트 2점/3세트 3점/4세트 4점/5~6세트 0점, 최대 10점)
    assert [set_bonus(k, k) for k in range(7)] == [0, 1, 3, 6, 10, 10, 10]
    assert set_bonus(6, 2) == 3


def test_final_score_adds_tiles_stars_half_resources_and_sets() -> None:
    # 최종 점수: 보급품 타일 점수 + 별 토큰 + 남은 자원 2개당 1점 + 세트 점수
    st = fresh()
    st.rows[0][0][:2] = [6, 0]  # 4 + 2
    st.rows[0][1][:1] = [24]  # 2
    st.stars[0] = 5
    st.res[0] = [1, 1, 1, 2]
    st.rows[1][0][:1] = [12]  # 6
    st.stars[1] = 8
    st.res[1] = [0, 0, 0, 1]
    st.phase = P_OVER
    result = st.result()
    assert result.details["breakdown"][0] == {"tiles": 8, "stars": 5, "resources": 2, "sets": 1, "total": 16}
    assert result.scores == (16.0, 14.0) and result.ranks == (1, 2)


def test_ties_are_shared_wins() -> None:
    # 만약 최종 점수가 동점이라면 승리의 기쁨을 함께 나누세요
    st = fresh(3)
    st.stars = [7, 7, 3]
    st.phase = P_OVER
    assert st.result().ranks == (1, 1, 3)


def test_overflow_after_recovery_is_trimmed_in_turn_order_from_the_active_player() -> None:
    # 중요!!! 8개가 넘어갈 경우 플레이어가 선택하여 8개를 남기고 버립니다 — after the boards are
    # detached (보급 우주선 규칙) every player over the limit chooses, starting with the active one
    st = fresh(3)
    st.cur = 1
    hand(st, 1, [0, 4, 5])
    st.res[0] = [0, 0, 0, 7]
    st.res[2] = [0, 0, 0, 8]
    put(st, 4, 0, 1)  # <0> region x2 on water -> 2 water for seat 0
    put(st, 2, 2, 5)  # <1> stone -> 1 stone for seat 2
    play(st, "card:0", "cell:16")
    assert st.phase == P_DROP and st.excess == [2, 0] and st.to_move() == 2
    play(st, "drop:stone")
    assert st.to_move() == 0
    play(st, "drop:water")
    assert st.res[0] == [0, 0, 0, 8] and st.res[2] == [0, 0, 0, 8] and st.cur == 2


def test_no_board_leaves_when_the_ship_did_not_move() -> None:
    # < 보급 우주선 규칙 >: the leftmost board leaves only after a turn in which the ship moved
    st = fresh()
    hand(st, 0, [4, 5, 6])
    put(st, 2, 1, 5)
    play(st, "card:4", "cell:16")
    assert st.board_at == [0, 1, 2, 3, 4] and st.owner[2] == 1 and st.res[1] == [0, 0, 0, 0]


def test_last_turn_discard_and_advance_resolves_the_ship_before_the_end() -> None:
    # 우주선 카드 사용 규칙 3 + < 게임의 종료 >: the last card discarded, the ship advances and the
    # leftmost board is recovered before the game ends
    st = fresh()
    hand(st, 0, [], deck=[])
    st.used[0] = 16
    st.cur = 1
    hand(st, 1, [4], deck=[])
    for p in (10, 16, 17, 18, 24, 23, 25):
        put(st, p, 0, 11)
    put(st, 3, 0, 6)  # seat 0's <1> wheat on the board that leaves
    assert [o.id for o in st.legal_options()] == ["discard:4"]
    play(st, "discard:4")
    assert st.phase == P_OVER and st.res[0] == [0, 0, 1, 0] and st.board_at == [1, 2, 3, 4, 0]
