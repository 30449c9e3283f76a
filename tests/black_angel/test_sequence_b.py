"""Sequence B (black-angel.ko.txt [4] 시퀀스 B) and the 2-player neutral player ([6] 2인 게임)."""

from __future__ import annotations

from referee.black_angel import board as B
from referee.black_angel import space as S
from tests.black_angel.helpers import at, blank, give_die, ids, play

ORANGE, GRAY, GREEN = 0, 1, 2


def test_unused_dice_cost_their_value() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 1: 남은 주사위 활성 수치의 총합만큼 승점을 잃습니다
    s = blank()
    give_die(s, 0, ORANGE, 3)
    give_die(s, 0, GRAY, 0)
    give_die(s, 0, GREEN, 2, secure=True)
    s.res[0] = 0
    vp = s.vp[0]
    play(s, "B")
    assert s.vp[0] == vp - 5
    assert len(s.comp[0]) == 3 and sorted(B.die_colour(c) for c in s.comp[0]) == [0, 1, 2]


def test_one_die_per_workstation_robot_limited_by_supply() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 1 알림: 공급처 주사위가 적으면 가능한 만큼만
    s = blank()
    s.work[0] = [2, 0, 3]
    s.supply = [4, 4, 1]
    s.res[0] = 0
    play(s, "B")
    assert sorted(B.die_colour(c) for c in s.comp[0]) == [0, 0, 2]


def test_damaged_die_costs_one_vp_and_cube_returns() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 1 알림: 손상된 주사위마다 승점 1점, 큐브는 공급처로; 굴림은 거부할 수 없음
    s = blank()
    s.supply = [1, 4, 1]  # only the damaged orange and green dice are left
    s.sdmg = [1, 0, 1]
    s.res[0] = 0
    vp = s.vp[0]
    play(s, "B")
    assert s.vp[0] == vp - 2 and s.sdmg == [0, 0, 0] and len(s.comp[0]) == 3


def test_undamaged_dice_are_taken_before_damaged_ones() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 1: the roller takes the dice from the supply; an undamaged die
    # is the same die without the penalty, so a damaged one is rolled only when no other is left
    s = blank()
    s.sdmg = [1, 0, 1]  # 4 dice per colour in the supply, one orange and one green damaged
    s.res[0] = 0
    vp = s.vp[0]
    play(s, "B")
    assert s.vp[0] == vp and s.sdmg == [1, 0, 1]


def test_score_track_never_goes_below_zero() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 1: 남은 주사위 활성 수치의 총합만큼 승점을 잃음 — on the score
    # track, whose lowest space is 0 (reading, RULES_NOTES.md)
    s = blank()
    give_die(s, 0, 0, 3)
    give_die(s, 0, 1, 3)
    s.vp[0] = 4
    s.res[0] = 0
    play(s, "B")
    assert s.vp[0] == 0


def test_reserve_one_die_for_a_resource() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 1: 자원 1개로 주사위 1개를 보안구역으로 (2개 이상 불가)
    s = blank()
    s.res[0] = 2
    play(s, "B")
    assert s.phase == "b_reserve" and ids(s)[0] == "none"
    play(s, "reserve:1")
    assert s.res[0] == 1
    assert [B.die_secure(c) for c in s.comp[0]] == [False, True, False]
    assert s.seat == 1  # only one die can be reserved


def test_reset_discards_played_cards_and_returns_tile_debris() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 2: 카드 6곳 버림; 기술 타일 위 잔해 -> 보관소; 배출된 카드는 그대로
    s = blank()
    s.res[0] = 0
    s.slots[0] = [3, -1, 104, -1, 25, -1]
    s.gdeb[0] = [1, 0, 0, 0, 1, 0, 0, 0, 0]
    s.ej_cards[0][ORANGE] = [7]
    deb = s.deb[0]
    play(s, "B")
    assert s.slots[0] == [-1] * 6
    assert s.m_disc[ORANGE] == [3] and s.m_disc[GRAY] == [25] and s.rav_disc == [104]
    assert s.deb[0] == deb + 2 and s.gdeb[0] == [0] * 9
    assert s.ej_cards[0][ORANGE] == [7]


def _fixed(s):  # type: ignore[no-untyped-def]
    s.strips = [0, 1, 2, 3, 4]
    s.side = [0] * 7
    s.spes_token = 4
    s.spes_tile = -1
    s.cards = {}
    s.ships = []
    s.res[0] = 0
    return s


def test_black_angel_advance_ejects_the_first_strip() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 3: 첫 우주 타일의 미션 배출, 중립 미션 효과 (이번에 배출된 카드 제외),
    # 카드는 소유주의 배출 칸으로, 로봇과 우주선은 공급처로; 첫 타일을 뒤집어 마지막으로
    s = _fixed(blank())
    s.cards[at(s, 0, 0)] = [5, 1]  # orange neutral: 2 VP per own card in space (max 6)
    s.cards[at(s, 0, 4)] = [2, 1]  # another card of seat 1, ejected at the same time
    s.cards[at(s, 3, 0)] = [40, 1]  # stays in space
    s.ships = [[1, at(s, 0, 4)], [0, at(s, 0, 1)], [0, at(s, 3, 1)]]
    vp1, rsup0, rsup1 = s.vp[1], s.rsup[0], s.rsup[1]
    play(s, "B")
    assert s.vp[1] == vp1 + 2  # only the card that stays counts
    assert sorted(s.ej_cards[1][0]) == [2, 5]
    assert s.rsup[1] == rsup1 + 3  # two reward robots and one pilot
    assert s.rsup[0] == rsup0 + 1
    assert s.ships == [[0, 3 * 5 + 1]]
    assert s.strips == [1, 2, 3, 4, 0] and s.side[0] == 1
    assert list(s.cards) == [3 * 5]


def test_neutral_effects_are_resolved_before_the_strip_is_cleared() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 3: 중립 미션 효과를 모두 처리한 "후에" 카드는 소유주에게, 로봇과
    # 우주선은 공급처로 — a ship still standing on the first strip counts for "own ships"
    s = _fixed(blank())
    s.cards[at(s, 0, 0)] = [3, 1]  # orange neutral: 2 VP per own ship in space (max 6)
    s.ships = [[1, at(s, 0, 0)], [1, at(s, 3, 1)]]
    vp1 = s.vp[1]
    play(s, "B")
    assert s.vp[1] == vp1 + 4
    assert s.ships == [[1, 3 * 5 + 1]]


def test_ships_in_the_black_angels_asteroid_field_are_destroyed() -> None:
    # black-angel.ko.txt [4] 지휘 1 알림: 블랙 엔젤이 이동하면 그 칸에 남아 있던 우주선은 모두 파괴
    s = _fixed(blank())
    bahex = S.ba_hex(s)
    assert S.hex_type(s, bahex) == "asteroid"
    safe = at(s, 2, 1)
    s.ships = [[0, bahex], [1, bahex], [1, safe]]
    play(s, "B")
    assert s.ships == [[1, safe]]


def test_spes_token_becomes_the_spes_tile() -> None:
    # black-angel.ko.txt [4] 시퀀스 B 3 중요사항: 희망 행성 토큰 제거, 마지막 자리에서 가운데 칸에 희망 타일
    s = _fixed(blank())
    s.spes_token = 0
    play(s, "B")
    assert s.spes_token == -1 and s.spes_tile == 0 and s.strips[-1] == 0
    assert S.hex_type(s, 0 * 5 + 2) == "spes"
    assert not s.end_trig


def test_reaching_spes_triggers_the_end() -> None:
    # black-angel.ko.txt [5]: 블랙엔젤 피규어가 희망 행성에 도착한다 (시퀀스 B에서)
    s = _fixed(blank())
    s.spes_token = -1
    s.spes_tile = 3
    play(s, "B")
    assert s.spes_reached and s.end_trig and s.last_round == s.round + 1


def test_neutral_player_dice_are_bought_from_the_supply_side() -> None:
    # black-angel.ko.txt [6] 2인 게임: 중립 플레이어의 주사위를 구매 (자원은 공급처에); 뒤집을 수 없음
    s = blank()
    give_die(s, 2, ORANGE, 3)
    give_die(s, 0, GRAY, 1)
    s.res = [1, 0]
    s.deb[0] = 1
    play(s, "A")
    opts = ids(s)
    assert "buy:2:0" in opts and "flip:0" in opts and all(not o.startswith("flip:") or o == "flip:0" for o in opts)
    play(s, "buy:2:0")
    assert s.res == [0, 0] and s.comp[2] == []


def test_neutral_reroll_only_used_or_star_dice() -> None:
    # black-angel.ko.txt [6] 2인 게임: 이미 사용했거나 ☆인 주사위만 새로 굴림; 1-3은 그대로
    s = blank()
    give_die(s, 2, GRAY, 0)
    give_die(s, 2, GREEN, 2)
    s.res[0] = 0
    play(s, "B")
    cols = sorted(B.die_colour(c) for c in s.comp[2])
    assert cols == [0, 1, 2]
    assert B.die(GREEN, 2) in s.comp[2]


def test_worker_removes_the_neutral_robot() -> None:
    # black-angel.ko.txt [6] 2인 게임: 워크스테이션에 로봇 추가 시 중립 로봇 제거; 그 색은 더 굴리지 않음
    s = blank()
    B.add_worker(s, 0, GREEN)
    assert s.nwork == [1, 1, 0] and s.work[0] == [1, 1, 2]
    s.res[0] = 0
    play(s, "B")
    assert sorted(B.die_colour(c) for c in s.comp[2]) == [0, 1]
