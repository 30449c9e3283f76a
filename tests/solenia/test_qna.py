"""The answers of solenia.ko.txt 4. Q&A, one test each."""

from __future__ import annotations

from referee.solenia.data import BOARD_SIDES, DAY_CITY, NIGHT_CITY, SIDE_NAMES
from referee.solenia.draft import can_pair
from referee.solenia.payment import payments
from referee.solenia.state import P_OVER
from tests.solenia.scenario import fresh, hand, ids, market, play, put

E = -1


def test_qna1_mixed_boards_have_day_and_night_cities() -> None:
    # Q&A 1: 낮과 밤이 섞여있는 게임판의 도시는 흰색(낮) / 어두운 파란색(밤)으로 구분
    for side in (0, 1):
        cells = BOARD_SIDES[2][side]
        assert SIDE_NAMES[2][side] in ("dawn", "dusk")
        assert DAY_CITY in cells and NIGHT_CITY in cells
    st = fresh()
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [24, 25, 26])
    st.res[0] = [2, 0, 0, 0]
    put(st, 15, 0, 9)  # an own card next to the dawn board's night city (14)
    play(st, "card:4", "cell:14", "tile:0")
    assert st.rows[0][1][0] == 24 and st.rows[0][0][0] == E


def test_qna2_swap_usable_many_times() -> None:
    # Q&A 2: 돌은 물로, 물은 돌로 — 여러 번 사용 가능
    cost = (0, 3, 0, 1)  # 3 stone 1 water
    assert payments(cost, [0, 0, 0, 4], (), False, True) == [(0, 0, 0, 4)]
    assert (0, 1, 0, 3) in payments(cost, [0, 2, 0, 4], (), False, True)


def test_qna3_two_choices_when_no_cell_fits() -> None:
    # Q&A 3: 1. 자원을 버리고 다른 칸에 놓는다 2. 카드를 버리고 보급 우주선을 전진
    st = fresh()
    hand(st, 0, [4, 9, 12])
    for p in (10, 16, 17, 18, 24, 23, 25):
        put(st, p, 1, 11)
    st.res[0] = [0, 1, 0, 0]
    options = ids(st)
    assert "card:4" in options and "discard:4" in options
    st.res[0] = [0, 0, 0, 0]
    st._cache = None
    assert all(o.startswith("discard:") for o in ids(st))  # nothing to pay with: only discarding


def test_qna4_at_most_twelve_per_level3_tile() -> None:
    # Q&A 4: 3단계 기술 타일 1개로 최대 12점, 2개로 최대 24점
    st = fresh(2, "winter-tech")
    st.tech3[0] = [20, 21]  # 3 per wheat held / 3 per wood held
    st.rows[0][0][4] = 22
    st.rows[0][1][4] = 46
    st.res[0] = [4, 0, 4, 0]
    st.phase = P_OVER
    assert st.result().details["breakdown"][0]["technology"] == 24
    st.res[0] = [4, 0, 1, 0]
    assert st.result().details["breakdown"][0]["technology"] == 12 + 3


def test_qna5_laurel_at_the_end_infinity_from_placement_on() -> None:
    # Q&A 5: 월계관 — 게임 종료 후 한번에; 무한대 — 그 위에 보급품 타일을 놓은 이후부터
    st = fresh(2, "winter-tech")
    st.tech3[0] = [14, 13]  # day laurel: 2 per day tile at the end; night infinity: 3 per night tile
    st.rows[0][1] = [24, 25, 26, 27, E, E]
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [28, 30, 32])
    st.res[0] = [3, 0, 0, 1]
    put(st, 15, 0, 9)
    play(st, "card:4", "cell:14", "tile:0", "slot:3A")
    assert st.tech_pts[0] == [0, 3]  # infinity: paid at once, this tile included
    st.rows[0][0] = [0, 1, 2, 3, E, E]
    st.phase = P_OVER
    assert st.result().details["breakdown"][0]["technology"] == 3  # day tile inactive: no level 3
    st.rows[0][0][4] = 5
    assert st.result().details["breakdown"][0]["technology"] == 3 + 2 * 5


def test_qna6_identical_day_night_tiles_never_form_a_set() -> None:
    # Q&A 6: 세트 3점 타일, 남은 카드 3점 타일은 낮·밤 세트로 만들 수 없습니다
    assert not can_pair(8, 9)
    assert not can_pair(22, 23)
    assert can_pair(8, 23) and can_pair(22, 9)
    # "이 규칙에 해당하는 기술 타일은 총 2개": the two printed-wood tiles may form a set
    assert can_pair(16, 17)
