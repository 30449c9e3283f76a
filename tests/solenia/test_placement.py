"""Spaceship card placement (solenia.ko.txt 3. 게임의 진행 < 우주선 카드 사용 규칙 >)."""

from __future__ import annotations

from referee.solenia.state import P_CARD, P_SPEND
from tests.solenia.scenario import fresh, hand, ids, market, play, put


def test_cells_on_or_around_the_ship() -> None:
    # 우주선 카드 사용 규칙 2: '보급 우주선이 있는 칸 또는 주위' (cities need a payable tile)
    st = fresh()
    hand(st, 0, [4, 5, 6])
    play(st, "card:4")
    assert ids(st) == ["cell:10", "cell:16", "cell:17", "cell:18", "cell:24"]


def test_cities_open_only_when_a_tile_can_be_paid() -> None:
    # 도시 지역 중요!!!: 보급품 타일에 표시된 자원을 낼 수 있는 경우에만 놓을 수 있습니다
    st = fresh()
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [24, 25, 26])
    st.res[0] = [0, 1, 0, 0]
    play(st, "card:4")
    assert "cell:23" not in ids(st)
    st = fresh()
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [24, 25, 26])
    st.res[0] = [0, 2, 0, 0]
    play(st, "card:4")
    assert "cell:23" in ids(st) and "cell:25" in ids(st)


def test_cells_around_own_cards_and_never_occupied() -> None:
    # 우주선 카드 사용 규칙 1-2: 빈칸에만; '이미 내가 놓은 우주선 카드 주위'
    st = fresh()
    hand(st, 0, [4, 5, 6])
    put(st, 3, 0, 10)  # own card far left: neighbours 10, 11, 4, 2, 9
    put(st, 18, 1, 11)  # opponent's card next to the ship
    play(st, "card:4")
    options = ids(st)
    assert "cell:18" not in options and "cell:3" not in options
    assert {"cell:2", "cell:4"} <= set(options)
    assert "cell:9" not in options and "cell:11" not in options  # night cities, nothing to pay


def test_discard_and_advance_or_pay_when_nothing_fits() -> None:
    # 우주선 카드 사용 규칙 3 / Q&A 3: 카드를 버리고 전진하거나 자원을 버리고 다른 칸에 놓는다
    st = fresh()
    hand(st, 0, [4, 5, 6], deck=[7])
    for p in (10, 16, 17, 18, 24, 23, 25):
        put(st, p, 1, 11)
    st.res[0] = [1, 0, 0, 0]
    options = ids(st)
    assert options == ["card:4", "card:5", "card:6", "discard:4", "discard:5", "discard:6"]
    events = play(st, "discard:5")
    assert any("advances the supply ship" in e for e in events)
    assert st.out_cards[0] == [5] and st.used[0] == 1
    assert st.board_at == [1, 2, 3, 4, 0] and st.side_at[-1] == 1  # board 0 flipped to day
    assert st.hand[0] == [4, 6, 7] and st.cur == 1


def test_pay_one_resource_per_cell_between() -> None:
    # <자원을 버리고 다른 칸에 우주선 카드 놓기>: 사이의 칸수만큼 자원을 버립니다
    st = fresh()
    hand(st, 0, [4, 5, 6])
    for p in (10, 16, 17, 18, 24, 23, 25):
        put(st, p, 1, 11)
    st.res[0] = [0, 0, 2, 0]
    play(st, "card:4")
    labels = {o.id: o.label for o in st.legal_options()}
    assert "cell:9" not in labels  # night city: nothing to pay a tile with
    assert labels["cell:31"].endswith("discard 1")  # two steps from the ship: one cell between
    assert labels["cell:3"].endswith("discard 1")
    assert labels["cell:4"].endswith("discard 2")
    assert "cell:0" not in labels  # three cells between, only 2 resources
    play(st, "cell:4")
    assert st.phase == P_SPEND and st.pay_left == 2
    play(st, "spend:wheat", "spend:wheat")
    assert st.res[0] == [0, 0, 0, 1]  # the <1> card on the water region gives 1 water
    assert st.owner[4] == 0 and st.phase == P_CARD and st.cur == 1


def test_identical_cards_are_one_option() -> None:
    st = fresh()
    hand(st, 0, [0, 1, 4])
    assert ids(st) == ["card:0", "card:4"]
    assert st.phase == P_CARD
