"""Solo game against the virtual player (solenia.ko.txt < 1인용 규칙 >)."""

from __future__ import annotations

import pytest

from referee.solenia.data import solo_message
from referee.solenia.state import P_CARD, P_OVER, P_VPCELL, VP, SoleniaState
from tests.solenia.scenario import fresh, hand, ids, market, play, put


class FixedDie:
    """Stands in for the generator so a test chooses the virtual player's roll."""

    def __init__(self, *rolls: int) -> None:
        self.rolls = list(rolls)
        self.state = 0

    def randint(self, a: int, b: int) -> int:
        return self.rolls.pop(0)


def _solo(roll: int, vp_card: int = 4, variant: str = "summer"):
    st = fresh(1, variant)
    st.vp_deck = [vp_card]
    st.rng = FixedDie(roll)
    hand(st, 0, [4, 5, 6], deck=[7])
    return st


@pytest.mark.parametrize(("roll", "cell"), [(1, 24), (2, 25), (3, 18), (4, 10), (5, 16), (6, 23)])
def test_die_face_one_is_the_direction_of_travel_then_clockwise(roll: int, cell: int) -> None:
    # 주사위 값이 1이면 보급 우주선이 진행하는 방향, 시계방향으로 1씩 증가
    st = _solo(roll)
    play(st, "card:4", "cell:17")  # player's card on the ship's own cell
    assert st.owner[cell] == VP and st.vp_used == 1
    assert st.phase == P_CARD and st.to_move() == 0


def test_players_card_sends_it_to_the_next_number() -> None:
    # ※ 이미 내 카드가 놓여있다면 1이 더 큰 칸에 (예시: 3 -> 4)
    st = _solo(3)
    play(st, "card:4", "cell:18")  # the player takes cell 3 (18)
    assert st.owner[10] == VP


def test_own_card_lets_the_player_choose_a_neighbouring_cell() -> None:
    # ※ 이미 가상의 플레이어 카드가 놓여 있다면, 그 카드에 인접한 칸 중 내가 원하는 곳에
    st = _solo(1)
    put(st, 24, VP, 9)
    play(st, "card:4", "cell:16")
    assert st.phase == P_VPCELL and st.to_move() == 0
    assert ids(st) == ["vpcell:31", "vpcell:32", "vpcell:25", "vpcell:17", "vpcell:23", "vpcell:30"]
    play(st, "vpcell:30")
    assert st.owner[30] == VP and st.phase == P_CARD


def test_own_card_without_free_neighbours_passes_to_the_next_number() -> None:
    # 인접한 칸에 놓을 수 없다면 <<이미 내 우주선 카드가 놓여 있는 경우>>와 같은 규칙
    st = _solo(1)
    put(st, 24, VP, 9)
    for p in (17, 31, 32, 25, 30, 23):
        put(st, p, 0, 11)
    play(st, "card:4", "cell:16")
    assert st.owner[18] == VP  # 2 (25) is the player's, 3 (18) is free


def test_cannot_place_discards_and_advances() -> None:
    # ※ 보급 우주선 주위에 플레이어의 카드가 모두 있으면 카드는 버려지고 보급 우주선은 1칸 전진
    st = _solo(2)
    for p in (24, 25, 18, 10, 23):
        put(st, p, 0, 11)
    play(st, "card:4", "cell:16")
    assert VP not in st.owner and st.board_at == [1, 2, 3, 4, 0] and st.vp_used == 1


def test_city_takes_the_rightmost_tile_and_the_row_shifts() -> None:
    # 가장 오른쪽 보급품 타일을 가져오고, 나머지를 오른쪽으로 밀고, 가장 왼쪽에 새 타일
    st = _solo(2)
    market(st, [0, 1, 2], [24, 25, 26], day_pile=[9, 12])
    play(st, "card:4", "cell:16")
    assert st.owner[25] == VP and st.vp_tiles == [2]
    assert st.market[0] == [12, 0, 1] and st.tile_deck[0] == [9]


def test_zero_card_applies_the_ship_rule() -> None:
    # 가상의 플레이어가 <<0>> 카드를 뽑은 경우, 보급 우주선 규칙을 적용합니다
    st = _solo(3, vp_card=0)
    put(st, 2, 0, 7)  # the player's <1> water card on the board that leaves
    play(st, "card:4", "cell:16")
    assert st.board_at == [1, 2, 3, 4, 0] and st.owner[18 - 7] == VP
    assert st.res[0] == [1, 0, 0, 1]


def test_end_after_both_used_sixteen_cards_with_the_final_message() -> None:
    # 게임이 종료: 플레이어와 가상의 플레이어가 16장을 모두 사용 / 최종 점수 비교 메시지
    st = SoleniaState.new(1, 11)
    while st.phase != P_OVER:
        play(st, ids(st)[0])
    assert st.vp_used == 16 and st.used[0] == 16
    result = st.result()
    assert result.details["solo_message"] == solo_message(int(result.scores[0]))
    # ranked against the virtual player: first-option play scores below it, a loss is rank 2
    assert result.details["automaton"] == "the virtual player"
    assert result.scores[0] < result.details["automaton_score"] and result.ranks == (2,)
    assert result.details["outcome"].startswith("lost to the virtual player")


def test_virtual_player_score_and_solo_ranks() -> None:
    # 1인용 규칙: 가상의 플레이어는 자원이나 별 모양 승점 토큰을 사용하지 않습니다; 점수를 계산하는
    # 방법은 기본 규칙과 같습니다 (tile points + summer day-night sets); 동점이면 승리를 함께 나눕니다
    from referee.solenia.data import DAY, TILE_KIND, TILE_POINTS
    from referee.solenia.scoring import set_bonus, virtual_player_score

    st = fresh(1, "summer")
    day = [t for t in range(48) if TILE_KIND[t] == DAY][:2]
    night = [t for t in range(48) if TILE_KIND[t] != DAY][:1]
    st.vp_tiles = day + night
    expected = sum(TILE_POINTS[t] for t in day + night) + set_bonus(2, 1)
    assert virtual_player_score(st) == expected
    st.phase = P_OVER
    st.stars[0] = 0
    base = int(st.result().scores[0])
    assert expected > base + 1
    for delta, rank, words in ((1, 1, "beat"), (0, 1, "tied with"), (-1, 2, "lost to")):
        st.stars[0] = expected + delta - base  # the player's score: the virtual player's + delta
        result = st.result()
        assert result.scores[0] == expected + delta and result.details["automaton_score"] == expected
        assert result.ranks == (rank,) and result.details["outcome"].startswith(words), (delta, result)


@pytest.mark.parametrize(
    ("score", "start"),
    [(0, "보급품이"), (39, "보급품이"), (40, "솔레니아에 적응"), (49, "솔레니아에 적응"), (50, "솔레니아에 사는"),
     (60, "다른 행성에서"), (70, "솔레니아를 살기"), (74, "솔레니아를 살기"), (75, "다른 행성의 사람들도")],
)
def test_score_bands(score: int, start: str) -> None:
    # 최종 점수를 아래 점수와 비교하세요 (40 미만 … 75 이상)
    assert solo_message(score).startswith(start)


@pytest.mark.parametrize("variant", ["winter", "winter-tech"])
def test_solo_plays_winter_and_technology(variant: str) -> None:
    # 1인용: 여름면 또는 겨울면, 기술 타일 — 1단계, 3단계 각각 2개씩, 단계별로 1개씩
    st = SoleniaState.new(1, 2, variant)
    if variant == "winter-tech":
        assert len(st.offer1) == 2 and len(st.offer3) == 2 and st.draft_queue == [0, 0]
        play(st, ids(st)[0])
        play(st, ids(st)[0])
        assert st.tech1[0] >= 0 and st.tech3[0][0] >= 0
    assert st.vp_used == 1 and st.phase == P_CARD


def test_virtual_players_opening_move_is_reported_as_set_up_events() -> None:
    # 1인용 규칙 게임의 진행: 가상의 플레이어부터 — its first move happens during set-up, so its
    # lines come from opening_events() and survive clone and to_json/from_json.
    st = SoleniaState.new(1, 7, "summer")
    opening = st.opening_events()
    assert opening[0].startswith("the boards are joined ")
    assert any(line.startswith("day supply tiles revealed: ") for line in opening)
    draws = [line for line in opening if line.startswith("the virtual player draws ")]
    assert len(draws) == 1 and draws[0].endswith(f"rolls {st.vp_die}")
    assert any(line.startswith("the virtual player puts its card") or "cannot place" in line for line in opening)
    assert st.clone().opening_events() == opening
    assert SoleniaState.from_json(st.to_json()).opening_events() == opening
    opening.append("changed by the caller")
    assert "changed by the caller" not in st.opening_events()


def test_opening_events_without_a_virtual_player() -> None:
    # 2. 게임의 준비 6: 3인 플레이 — 세번째 차례인 사람은 나무 1개 (reported as a set-up line)
    st = SoleniaState.new(3, 7, "summer")
    opening = st.opening_events()
    assert "P3 starts with 1 wood" in opening
    assert not any("virtual player" in line for line in opening)
    # 상급 규칙 2 + 1인용: the draft comes first, so the opening move is reported by the last pick
    solo = SoleniaState.new(1, 7, "winter-tech")
    assert not any("virtual player" in line for line in solo.opening_events())
    play(solo, ids(solo)[0])
    events = play(solo, ids(solo)[0])
    assert any(line.startswith("the virtual player draws ") for line in events)


def test_city_with_an_exhausted_pile_packs_the_row_to_the_right() -> None:
    # 1인용 규칙: 가장 오른쪽 보급품 타일을 가져와 … 나머지 보급품 타일을 오른쪽으로 밀어 놓습니다
    # (with an empty pile no new tile is revealed, so a gap stays on the left)
    st = _solo(2)
    market(st, [0, 1, -1], [24, 25, 26], day_pile=[])
    play(st, "card:4", "cell:16")
    assert st.owner[25] == VP and st.vp_tiles == [1]
    assert st.market[0] == [-1, -1, 0]


def test_next_number_after_six_is_one() -> None:
    # ※ 이미 내 카드가 놓여있다면 1이 더 큰 주사위 눈금 칸에 (after 6 the count starts again at 1)
    st = _solo(6)
    put(st, 23, 0, 9)  # the player's card on number 6
    play(st, "card:4", "cell:16")
    assert st.owner[24] == VP
