"""Set-up rules (solenia.ko.txt 2. 게임의 준비)."""

from __future__ import annotations

import pytest

from referee.engine import ConfigError
from referee.solenia.data import DECK_SIZE, LAYOUTS, SIDE_NAMES
from referee.solenia.state import P_CARD, P_DRAFT, VP, SoleniaState


@pytest.mark.parametrize(("players", "shown"), [(2, 3), (3, 3), (4, 4), (1, 3)])
def test_supply_tiles_revealed_by_player_count(players: int, shown: int) -> None:
    # solenia.ko.txt 2. 게임의 준비 3: 2~3인 3개씩, 4인 4개씩 공개 (1인용은 2인용 준비)
    st = SoleniaState.new(players, 5, "summer")
    assert [len(m) for m in st.market] == [shown, shown]
    assert all(t >= 0 for m in st.market for t in m)
    taken = len(st.vp_tiles)  # solo: the virtual player has already moved once
    assert len(st.tile_deck[0]) + len(st.tile_deck[1]) + taken == 48 - 2 * shown


def test_starting_resources_of_third_and_fourth_player() -> None:
    # solenia.ko.txt 2. 게임의 준비 6: 3인 — 세번째 나무 1개; 4인 — 세번째 나무 1개, 네번째 돌 1개
    three = SoleniaState.new(3, 1)
    assert three.res == [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]
    four = SoleniaState.new(4, 1)
    assert four.res == [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
    assert SoleniaState.new(2, 1).res == [[0, 0, 0, 0], [0, 0, 0, 0]]


def test_hands_of_three_from_sixteen_card_decks() -> None:
    # solenia.ko.txt 2. 게임의 준비 5, 8: 16장 더미, 3장을 뽑아 손에 듭니다
    st = SoleniaState.new(4, 9)
    for seat in range(4):
        assert len(st.hand[seat]) == 3 and len(st.deck[seat]) == 13
        assert sorted(st.hand[seat] + st.deck[seat]) == list(range(DECK_SIZE))


def test_boards_join_in_one_of_the_two_orders() -> None:
    # solenia.ko.txt 2. 게임의 준비 1: '밤-밤-새벽-낮-낮' 또는 '낮-낮-황혼-밤-밤'
    seen = set()
    for seed in range(20):
        st = SoleniaState.new(2, seed)
        names = tuple(SIDE_NAMES[b][s] for b, s in zip(st.board_at, st.side_at, strict=True))
        assert names in {("night", "night", "dawn", "day", "day"), ("day", "day", "dusk", "night", "night")}
        seen.add(names)
        assert st.ship_col == 2
    assert len(seen) == 2
    assert LAYOUTS["night_first"] != LAYOUTS["day_first"]


def test_first_player_starts_and_solo_virtual_player_moves_first() -> None:
    # solenia.ko.txt 3. 게임의 진행 (선 플레이어부터) / 1인용 규칙: 가상의 플레이어부터 진행
    st = SoleniaState.new(2, 3)
    assert st.to_move() == 0 and st.phase == P_CARD
    solo = SoleniaState.new(1, 3)
    assert solo.vp_used == 1 and sum(1 for o in solo.owner if o == VP) + (solo.vp_card == -1) >= 1
    assert solo.to_move() == 0


def test_technology_draft_happens_only_with_winter_tech() -> None:
    # solenia.ko.txt 2. 게임의 준비: 기본 규칙에서는 기술 타일을 사용하지 않습니다
    assert SoleniaState.new(3, 1, "winter").phase == P_CARD
    st = SoleniaState.new(3, 1, "winter-tech")
    assert st.phase == P_DRAFT and st.tech1 == [-1, -1, -1]


def test_unknown_variant_and_count_are_refused_clearly() -> None:
    with pytest.raises(ConfigError, match="no variant"):
        SoleniaState.new(2, 1, "autumn")
    with pytest.raises(ConfigError, match="1-4"):
        SoleniaState.new(5, 1)
