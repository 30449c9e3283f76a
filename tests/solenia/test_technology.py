"""Advanced rule 2: technology tiles (solenia.ko.txt < 겨울편과 기술 타일을 사용하는 상급 규칙 2 >)."""

from __future__ import annotations

from referee.solenia.data import TECH_EFFECT
from referee.solenia.draft import can_pair
from referee.solenia.state import P_CARD, P_DRAFT, P_OVER, P_SHIP, P_SPEND, SoleniaState
from tests.solenia.scenario import fresh, hand, ids, market, play, put

E = -1


def _tech(level1: int = E, day3: int = E, night3: int = E, **kw):
    st = fresh(2, "winter-tech", **kw)
    st.tech1 = [level1, E]
    st.tech3 = [[day3, night3], [E, E]]
    return st


def _activate_level1(st) -> None:
    st.rows[0][0][0] = 3
    st.rows[0][1][0] = 27


def test_draft_in_reverse_turn_order_one_of_each() -> None:
    # 기술 타일 드래프트 방법: 가장 마지막 플레이어부터, 1단계 1개 또는 3단계 1세트, 모두 1개씩 가질 때까지
    st = SoleniaState.new(3, 4, "winter-tech")
    assert st.phase == P_DRAFT and len(st.offer1) == 3 and len(st.offer3) == 3
    assert st.draft_queue == [2, 1, 0, 2, 1, 0] and st.to_move() == 2
    first = ids(st)
    assert sum(i.startswith("tech1:") for i in first) == 3 and sum(i.startswith("tech3:") for i in first) == 3
    play(st, first[0])
    play(st, ids(st)[-1])  # seat 1 takes a level-3 set
    play(st, ids(st)[0])  # seat 0 takes a level-1 tile
    assert st.to_move() == 2 and all(i.startswith("tech3:") for i in ids(st))
    while st.phase == P_DRAFT:
        play(st, ids(st)[0])
    assert all(t >= 0 for t in st.tech1) and all(d >= 0 and n >= 0 for d, n in st.tech3)
    assert st.phase == P_CARD and st.to_move() == 0


def test_identical_level3_tiles_are_never_paired() -> None:
    # Q&A 6: 낮과 밤 기술이 완전히 똑같은 3단계 타일(세트 3점, 남은 카드 3점)은 세트로 만들 수 없습니다
    assert not can_pair(8, 9) and not can_pair(22, 23)
    assert can_pair(8, 23) and can_pair(10, 11)
    for seed in range(200):
        st = SoleniaState.new(4, seed, "winter-tech")
        for d, n in st.offer3:
            assert TECH_EFFECT[d] != TECH_EFFECT[n] or TECH_EFFECT[d] not in ("set_three", "cards_left")


def test_level1_tile_needs_tiles_above_and_below() -> None:
    # 1단계 기술 타일의 능력을 사용하려면 위와 아래에 각각 낮과 밤의 도시 보급품 타일을 놓아야 합니다
    st = _tech(level1=1)
    assert st.limit(0) == 6 and st.tech1_effect(0) == ""
    st.rows[0][0][1] = 3
    assert st.tech1_effect(0) == ""
    st.rows[0][1][1] = 27
    assert st.tech1_effect(0) == "storage_stone_water" and st.limit(0) == 7  # +1 on the tile


def test_level3_tiles_need_a_tile_at_level_three() -> None:
    # 3단계 낮 타일은 위에 낮의 보급품 타일, 밤 타일은 아래에 밤의 보급품 타일
    st = _tech(day3=18, night3=19)
    st.res[0] = [0, 2, 0, 1]
    st.rows[0][1][4] = 40
    st.phase = P_OVER
    b = st.result().details["breakdown"][0]
    assert b["technology"] == 6  # night tile active (2 stone x 3), day tile inactive (1 water)


def test_swap_wood_and_wheat_any_number_of_times() -> None:
    # 1단계 A: 나무는 밀로, 밀은 나무로 지불 / Q&A 2: 여러 번 사용 가능
    st = _tech(level1=0)
    _activate_level1(st)
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [36, 25, 26])  # 36: 2 wood 2 wheat
    st.res[0] = [0, 0, 4, 0]
    st.owner[3] = 0
    st.card[3] = 11
    play(st, "card:4", "cell:9")
    assert "tile:0" in ids(st)
    play(st, "tile:0")
    assert st.res[0] == [0, 0, 0, 0]


def test_ship_two_cells_gives_a_star() -> None:
    # <<0>> 카드로 보급 우주선을 2칸 이동할 수 있고, 2칸 이동했다면 별 토큰 1개
    st = _tech(level1=2)
    _activate_level1(st)
    hand(st, 0, [0, 4, 5])
    play(st, "card:0", "cell:16")
    assert st.phase == P_SHIP and ids(st) == ["ship:1", "ship:2"]
    play(st, "ship:2")
    assert st.stars[0] == 1 and st.board_at == [2, 3, 4, 0, 1] and st.ship_col == 2
    st = _tech(level1=2)
    _activate_level1(st)
    hand(st, 0, [0, 4, 5])
    play(st, "card:0", "cell:16", "ship:1")
    assert st.stars[0] == 0 and st.board_at == [1, 2, 3, 4, 0]


def test_cheaper_distance_free_one_cell_away() -> None:
    # 자원을 버리고 다른 칸에 놓는 경우 1개 덜 지불; 1칸 떨어진 곳은 지불하지 않습니다
    st = _tech(level1=3)
    _activate_level1(st)
    hand(st, 0, [4, 5, 6])
    for p in (10, 16, 17, 18, 24, 23, 25):
        put(st, p, 1, 11)
    st.res[0] = [0, 0, 1, 0]
    play(st, "card:4")
    labels = {o.id: o.label for o in st.legal_options()}
    assert labels["cell:31"].endswith("discard 0") and labels["cell:4"].endswith("discard 1")
    play(st, "cell:4")
    assert st.phase == P_SPEND
    play(st, "spend:wheat")
    assert st.res[0] == [0, 0, 0, 1]


def test_zero_card_used_as_a_one_card() -> None:
    # <<0>> 카드를 <<1>> 카드처럼 사용; 단, 보급 우주선을 1칸 이동합니다
    st = _tech(level1=4)
    _activate_level1(st)
    hand(st, 0, [0, 4, 5])
    play(st, "card:0", "cell:16")
    assert st.res[0] == [1, 0, 0, 0] and st.board_at == [1, 2, 3, 4, 0]


def test_recovery_boosts() -> None:
    # 회수 효과 강화 A: <<1>> 카드 효과 2배; B: <<2>> 카드는 효과 대신 2점
    st = _tech(level1=5)
    _activate_level1(st)
    hand(st, 0, [0, 4, 5])
    put(st, 2, 0, 8)  # <1> region x1 on stone -> 2 stone
    put(st, 4, 0, 7)  # <1> water -> 2 water
    put(st, 0, 0, 10)  # <2> star on wood: not boosted by A -> 1
    play(st, "card:0", "cell:16")
    assert st.res[0] == [0, 2, 0, 2] and st.stars[0] == 1
    st = _tech(level1=6)
    _activate_level1(st)
    hand(st, 0, [0, 4, 5])
    put(st, 0, 0, 10)
    put(st, 2, 0, 14)
    play(st, "card:0", "cell:16")
    assert st.res[0] == [0, 0, 0, 0] and st.stars[0] == 4


def test_instant_points_infinity_and_laurel_timing() -> None:
    # Q&A 5: 무한대 — 타일 위에 보급품 타일을 놓은 이후부터 계속; 월계관 — 게임 종료 후 한번에
    st = _tech(day3=10, night3=15)  # A: +4 per later day tile; B(laurel): 2 per night tile at the end
    st.rows[0][0] = [3, 4, 5, 6, E, E]
    hand(st, 0, [4, 5, 6], deck=[7])
    market(st, [0, 1, 2], [24, 25, 26])
    st.res[0] = [0, 2, 0, 0]
    play(st, "card:4", "cell:23", "tile:0", "slot:3A")
    assert st.tech_pts[0] == [0, 0]  # "이 타일을 제외한": the activating tile scores nothing
    st.cur = 0
    st.phase = P_CARD
    hand(st, 0, [5, 6, 7])
    st.res[0] = [0, 0, 0, 2]
    play(st, "card:5", "cell:25", "tile:1")
    assert st.tech_pts[0] == [4, 0]
    st.rows[0][1] = [24, 25, 26, 27, 28, E]
    st.phase = P_OVER
    b = st.result().details["breakdown"][0]
    assert b["technology"] == 4 + 10


def test_level3_points_capped_at_twelve_each() -> None:
    # ※ 3단계 기술 타일 1개당 최대 12점 / Q&A 4: 2개로 최대 24점
    st = _tech(day3=18, night3=21)
    st.rows[0][0][4] = 22
    st.rows[0][1][4] = 46
    st.res[0] = [5, 0, 0, 5]
    st.phase = P_OVER
    assert st.result().details["breakdown"][0]["technology"] == 24


def test_cards_left_and_set_three() -> None:
    # 게임판에 남아 있는 우주선 카드 1장당 3점; 낮과 밤 세트 1개당 3점
    st = _tech(day3=22, night3=9)
    st.rows[0][0][:5] = [3, 4, 5, 6, 22]
    st.rows[0][1][:5] = [24, 25, 26, 27, 46]
    put(st, 30, 0, 5)
    put(st, 31, 0, 6)
    put(st, 32, 1, 6)
    st.phase = P_OVER
    assert st.result().details["breakdown"][0]["technology"] == 6 + 12


def test_printed_wood_counts_wood_on_completed_tiles() -> None:
    # 3단계: 게임 종료 시 완료한 보급품 타일에 표시된 나무 1개당 1점
    st = _tech(day3=16, night3=17)
    st.rows[0][0] = [5, 11, 16, 17, 21, E]  # wood printed 1 each: 5 (and 21 at level 3)
    st.rows[0][1] = [24, 32, E, E, E, E]  # 2 + 3 wood; night level 3 empty -> night tile inactive
    st.phase = P_OVER
    assert st.result().details["breakdown"][0]["technology"] == 5 + 5


def test_immediate_points_share_the_twelve_point_cap() -> None:
    # ※ 3단계 기술 타일 1개당 받을 수 있는 점수는 최대 12점 — immediate (무한대) points included
    st = _tech(night3=13)  # D: 3 points per night tile completed
    st.rows[0][1] = [24, 25, 26, 27, 28, E]
    st.tech_pts[0] = [0, 11]
    hand(st, 0, [4, 5, 6], deck=[7])
    market(st, [0, 1, 2], [30, 32, 33])
    st.res[0] = [3, 0, 0, 0]
    st.owner[3] = 0
    st.card[3] = 11
    events = play(st, "card:4", "cell:9", "tile:1")  # 32: 3 wood; goes to night 3B
    assert st.rows[0][1][5] == 32 and st.tech_pts[0] == [0, 12]
    assert "P1 scores 1 point from a technology tile" in events


def test_eighth_level1_tile_recovers_a_zero_card_with_one_more() -> None:
    # 1단계 기술 타일 (designed, the eighth tile: data/tech_tiles.json id 7): recovering a <0> card
    # gives 1 more — 3 of its region's resource, or 3 stars on a city — once the tile is active
    # (1단계 기술 타일의 능력을 사용하려면 위와 아래에 각각 낮과 밤의 도시 보급품 타일)
    for active, gain in ((True, 3), (False, 2)):
        st = _tech(level1=7)
        if active:
            _activate_level1(st)
        hand(st, 0, [0, 4, 5])
        put(st, 4, 0, 1)  # a <0> card on water (recovery: 2 of its region's resource)
        put(st, 1, 0, 2)  # a <0> card on the night city (2 stars)
        put(st, 2, 0, 8)  # a <1> card on stone: not a <0>, unchanged
        events = play(st, "card:0", "cell:16")
        assert st.res[0] == [0, 1, 0, gain] and st.stars[0] == gain, (active, st.res[0], st.stars[0])
        if active:
            assert "P1 recovers its <0> card: 3 water (technology: 1 more)" in events
            assert "P1 recovers its <0> card: 3 stars from the city (technology: 1 more)" in events


def test_eighth_level1_tile_label_says_what_it_does() -> None:
    st = SoleniaState.new(2, 1, "winter-tech")
    st.offer1 = [7, 0]
    st._cache = None
    label = next(o.label for o in st.legal_options() if o.id == "tech1:7")
    assert label == "level 1: recovering a <0> card gives 1 more (3 of its region's resource, or 3 stars on a city)"
