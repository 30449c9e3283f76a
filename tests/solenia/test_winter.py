"""Advanced rule 1: the winter side (solenia.ko.txt < 겨울면을 사용하는 상급 규칙 1 >)."""

from __future__ import annotations

from referee.solenia.personal_board import winter_slots
from referee.solenia.state import P_DROP, P_GAIN, P_OVER, P_PAY, P_SLOT
from tests.solenia.scenario import fresh, hand, ids, market, play

E = -1


def test_winter_slot_prerequisites() -> None:
    # 보급품 타일 배치 규칙: 처음엔 레벨 1; 레벨 2 첫 타일은 레벨 1에 1개; 레벨 3 첫 타일은 레벨 1, 2에 각각 1개;
    # 레벨 2·3의 두 번째 타일은 한 단계 낮은 레벨 2칸이 모두 차 있어야 합니다
    assert winter_slots([E] * 6) == [0, 1]
    assert winter_slots([5, E, E, E, E, E]) == [1, 2, 3]
    assert winter_slots([5, E, 6, E, E, E]) == [1, 4, 5]
    assert winter_slots([5, 7, 6, E, E, E]) == [3, 4, 5]
    assert winter_slots([5, 7, 6, E, 8, E]) == [3]
    assert winter_slots([5, 7, 6, 9, 8, E]) == [5]


def _city_turn(variant: str = "winter"):
    st = fresh(2, variant)
    hand(st, 0, [4, 5, 6], deck=[7])
    market(st, [0, 6, 2], [24, 25, 26], day_pile=[9])
    return st


def test_first_tile_chooses_a_level_one_slot_and_1b_gives_a_choice() -> None:
    # 레벨 1-B낮: 즉시 나무 1개 또는 밀 1개를 받습니다
    st = _city_turn()
    st.res[0] = [0, 2, 0, 0]
    play(st, "card:4", "cell:23", "tile:0")
    assert st.phase == P_SLOT and ids(st) == ["slot:1A", "slot:1B"]
    play(st, "slot:1B")
    assert st.phase == P_GAIN and ids(st) == ["gain:wood", "gain:wheat"]
    play(st, "gain:wheat")
    assert st.rows[0][0] == [E, 0, E, E, E, E] and st.res[0] == [0, 0, 1, 0]
    assert st.market[0] == [9, 6, 2]


def test_storage_six_expanded_by_the_leftmost_slots() -> None:
    # 창고를 확장하지 않으면 자원을 6개까지만; 맨 왼쪽 칸(1-A)에 놓으면 창고 확장, 최대 8개
    st = fresh(2, "winter")
    assert st.limit(0) == 6
    st.rows[0][0][0] = 3
    assert st.limit(0) == 7
    st.rows[0][1][0] = 30
    assert st.limit(0) == 8
    st = fresh(2, "winter")
    hand(st, 0, [10, 4, 5])
    st.res[0] = [0, 5, 0, 0]
    play(st, "card:10", "cell:16")
    assert st.phase == P_DROP and sum(st.res[0]) == 7
    play(st, "drop:wood")
    assert st.res[0] == [1, 5, 0, 0]


def test_waivers_of_levels_2a_and_3a() -> None:
    # 레벨 2-A: 밀 1개를 지불하지 않아도 됨; 레벨 3-A낮: 나무 1개; 3-A밤: 돌 1개 (자기 턴에 1번)
    st = _city_turn()
    st.rows[0][0] = [3, 4, 5, E, 8, E]  # day 1A 1B 2A, 3A
    st.res[0] = [0, 1, 0, 1]
    market(st, [17, 6, 12], [24, 25, 26])  # 17: 1 wood 2 stone 1 water
    play(st, "card:4")
    assert "cell:23" not in ids(st)  # wood waived, but 17 still needs 2 stone
    st = _city_turn()
    st.rows[0][0] = [3, 4, 5, E, 8, E]
    st.res[0] = [0, 2, 0, 1]
    market(st, [17, 15, 2], [24, 25, 26])  # 15: 2 stone 1 wheat 1 water
    play(st, "card:4", "cell:23")
    assert ids(st) == ["tile:0", "tile:1", "tile:2"]
    play(st, "tile:1")  # wheat waived by 2-A
    assert st.res[0] == [0, 0, 0, 0] and st.rows[0][0] == [3, 4, 5, 15, 8, E]
    st = _city_turn()
    st.rows[0][0] = [3, 4, 5, E, 8, E]
    st.res[0] = [0, 2, 0, 1]
    market(st, [17, 6, 12], [24, 25, 26])
    play(st, "card:4", "cell:23", "tile:0")  # wood waived by 3-A; 2B is the only open slot
    assert st.res[0] == [0, 0, 0, 0] and st.rows[0][0] == [3, 4, 5, 17, 8, E]


def test_winter_end_effects_and_no_set_bonus() -> None:
    # 2-B낮: 밀 1개당 1점(최대 12), 2-B밤: 물 1개당 1점, 3-B: 6점, 세트 추가 점수 없음
    st = fresh(2, "winter")
    st.rows[0][0] = [4, 10, 15, 20, 22, 16]  # all six day slots
    st.rows[0][1] = [34, 44, 46, 39, E, E]  # night up to 2B
    st.phase = P_OVER
    b = st.result().details["breakdown"][0]
    wheat = (1 + 1 + 1 + 1 + 1 + 0) + (1 + 2 + 1 + 1)  # printed on all completed tiles
    water = (0 + 1 + 1 + 2 + 1 + 2) + (1 + 1 + 1 + 1)
    assert (wheat, water) == (10, 11)
    assert b["winter_board"] == wheat + water + 6  # day 2B, night 2B, day 3B
    assert "sets" not in b


def test_printed_points_capped_at_twelve() -> None:
    # 2-B: 이 효과로 받을 수 있는 점수는 최대 12점입니다
    st = fresh(2, "winter")
    st.rows[0][1] = [43, 47, 38, 33, 31, E]  # plenty of wheat, but 2B of the night row counts water
    st.rows[0][0] = [4, 10, 15, 20, E, E]
    st.phase = P_OVER
    b = st.result().details["breakdown"][0]
    # day 2B: wheat 4 + (3+3+3+3+2) = 18, capped at 12; night 2B: water 0+1+1+2 on day tiles
    assert b["winter_board"] == 12 + 4


def test_several_ways_to_pay_are_offered() -> None:
    # 기술 타일 1단계 A: 나무는 밀로, 밀은 나무로 지불 (payment choice)
    st = _city_turn("winter-tech")
    st.tech1[0] = 0  # storage_wood_wheat
    st.rows[0][0][0] = 3
    st.rows[0][1][0] = 27
    market(st, [11, 6, 2], [24, 25, 26])  # 11: 1 wood 1 stone 1 water
    st.res[0] = [1, 1, 1, 1]
    play(st, "card:4", "cell:23", "tile:0")
    assert st.phase == P_PAY and ids(st) == ["pay:0-1-1-1", "pay:1-1-0-1"]


def test_night_3a_waives_a_stone() -> None:
    # 레벨 3-A밤: 보급품 타일에 표시된 자원을 지불할 때, 자기 턴에 1번 돌 1개를 지불하지 않아도 됩니다
    st = _city_turn()
    st.rows[0][1] = [24, 25, 26, E, 27, E]  # night 3A filled
    st.res[0] = [0, 1, 0, 1]
    market(st, [13, 6, 12], [24, 25, 26])  # 6: 2 stone 1 water -> 1 stone 1 water with the waiver
    play(st, "card:4", "cell:23")
    assert ids(st) == ["tile:1"]
    play(st, "tile:1")
    assert st.res[0] == [0, 0, 0, 0]


def test_day_and_night_2a_each_waive_a_wheat() -> None:
    # 레벨 2-A낮 / 레벨 2-A밤: 각각 자기 턴에 1번 밀 1개를 지불하지 않아도 됩니다 (two spaces, two wheat)
    st = _city_turn()
    st.rows[0][0] = [3, 4, 5, E, E, E]  # day 1A 1B 2A
    st.rows[0][1] = [24, 25, 26, E, E, E]  # night 1A 1B 2A
    st.res[0] = [1, 0, 0, 0]
    market(st, [0, 1, 2], [31, 25, 26])  # 31: 1 wood 2 wheat -> only the wood is paid
    st.owner[3] = 0
    st.card[3] = 11
    play(st, "card:4", "cell:9", "tile:0", "slot:2B")
    assert st.res[0] == [0, 0, 0, 0] and st.rows[0][1][3] == 31
