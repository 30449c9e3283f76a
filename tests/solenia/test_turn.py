"""Resource regions, cities, the bonus track and the storage limit (solenia.ko.txt 3. 게임의 진행)."""

from __future__ import annotations

from referee.solenia.state import P_CARD, P_DROP, P_GAIN, P_TILE
from tests.solenia.scenario import fresh, hand, ids, market, play


def test_resource_region_gives_the_cards_number() -> None:
    # < 자원 지역 >: 우주선 카드 위에 적혀있는 숫자만큼 ... 자원을 받습니다
    st = fresh()
    hand(st, 0, [10, 4, 5], deck=[6])
    play(st, "card:10", "cell:16")  # <2> on wood
    assert st.res[0] == [2, 0, 0, 0]
    assert st.hand[0] == [4, 5, 6] and st.cur == 1 and st.phase == P_CARD


def test_zero_card_gives_nothing_and_moves_the_ship() -> None:
    # < 보급 우주선 규칙 >: <0>우주선 카드를 사용하면, 즉시 보급 우주선을 1칸 이동
    st = fresh()
    hand(st, 0, [0, 4, 5], deck=[6])
    events = play(st, "card:0", "cell:18")
    assert st.res[0] == [0, 0, 0, 0]
    assert any("moves 1 cell" in e for e in events)
    assert st.board_at == [1, 2, 3, 4, 0] and st.ship_col == 2


def test_city_stars_then_tile_paid_in_full_bonus_and_reveal() -> None:
    # < 도시 지역 >: 별 토큰, 보급품 타일의 모든 자원을 지불, 위 칸 왼쪽부터, 보너스, 즉시 공개
    st = fresh()
    hand(st, 0, [14, 4, 5], deck=[6])
    market(st, [0, 6, 2], [24, 25, 26], day_pile=[9, 12])
    st.res[0] = [0, 3, 0, 1]
    play(st, "card:14", "cell:23")
    assert st.stars[0] == 2 and st.phase == P_TILE
    assert ids(st) == ["tile:0", "tile:1", "tile:2"]
    play(st, "tile:1")  # 2 stone 1 water, 4 points
    assert st.res[0] == [0, 1, 0, 0]
    assert st.rows[0][0][0] == 6 and st.rows[0][1][0] == -1
    assert st.phase == P_GAIN and st.bonus_left == 1  # bonus level 1
    play(st, "gain:wheat")
    assert st.res[0] == [0, 1, 1, 0]
    assert st.market[0] == [0, 12, 2] and st.tile_deck[0] == [9]
    assert st.cur == 1


def test_night_tile_goes_to_the_lower_row_and_levels_climb() -> None:
    # 밤의 도시 보급품 타일은 아래 칸에 왼쪽 빈칸부터; 보너스 레벨 6단계
    # the night city at 9 is not around the ship: an own card at 3 opens it
    st = fresh()
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [24, 25, 26])
    st.rows[0][1][:2] = [30, 31]
    st.res[0] = [2, 0, 0, 0]
    st.owner[3] = 0
    st.card[3] = 11
    play(st, "card:4", "cell:9", "tile:0")
    assert st.rows[0][1][:3] == [30, 31, 24]
    assert st.stars[0] == 1 and st.bonus_left == 2  # level 3 gives two resources


def test_storage_limit_eight_player_chooses_what_to_keep() -> None:
    # 중요!!! 자원이 8개가 넘어갈 경우 플레이어가 필요한 자원을 선택하여 8개를 남기고 버립니다
    st = fresh()
    hand(st, 0, [10, 4, 5])
    st.res[0] = [1, 3, 3, 0]
    play(st, "card:10", "cell:16")
    assert st.res[0] == [3, 3, 3, 0]
    assert st.phase == P_DROP and st.to_move() == 0
    assert ids(st) == ["drop:wood", "drop:stone", "drop:wheat"]
    play(st, "drop:stone")
    assert st.res[0] == [3, 2, 3, 0] and st.phase == P_CARD and st.cur == 1


def test_full_row_closes_that_city() -> None:
    # designed: a summer row has 6 slots (6 bonus levels); a seventh tile has nowhere to go
    st = fresh()
    hand(st, 0, [4, 5, 6])
    market(st, [0, 1, 2], [24, 25, 26])
    st.res[0] = [0, 4, 0, 4]
    st.rows[0][0] = [3, 4, 5, 7, 8, 9]
    play(st, "card:4")
    assert "cell:23" not in ids(st) and "cell:25" not in ids(st)


def test_bonus_track_levels_one_to_six() -> None:
    # 보너스의 레벨은 총 6단계, 레벨이 높아질수록 더 많은 자원 (designed amounts 1,1,2,2,3,3)
    gains = []
    for filled in range(6):
        st = fresh()
        hand(st, 0, [4, 5, 6])
        market(st, [0, 1, 2], [24, 25, 26])
        st.rows[0][0][:filled] = [3, 4, 5, 7, 8, 9][:filled]
        st.res[0] = [0, 2, 0, 0]
        play(st, "card:4", "cell:23", "tile:0")
        assert st.rows[0][0][filled] == 0
        gains.append(st.bonus_left)
    assert gains == [1, 1, 2, 2, 3, 3]


def test_zero_card_on_a_city_gives_no_star_but_still_buys_a_tile() -> None:
    # 도시 지역: 카드 숫자만큼 별 토큰 (0개), 그리고 보급품 타일을 가져갑니다; <0>이므로 우주선 이동
    st = fresh()
    hand(st, 0, [0, 5, 6])
    market(st, [0, 1, 2], [24, 25, 26])
    st.res[0] = [0, 2, 0, 0]
    play(st, "card:0", "cell:23")
    assert st.stars[0] == 0 and st.phase == P_TILE
    play(st, "tile:0", "gain:water")
    assert st.rows[0][0][0] == 0 and st.board_at == [1, 2, 3, 4, 0]
