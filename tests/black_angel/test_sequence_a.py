"""Sequence A: card play, dice, Ravager effects, drawing (black-angel.ko.txt [4] 시퀀스 A)."""

from __future__ import annotations

from referee.black_angel import data as D
from referee.black_angel.sequence_a import action_value, die_uses
from tests.black_angel.helpers import blank, give_die, ids, play

ORANGE, GRAY, GREEN = 0, 1, 2


def _grid_row0(s, tiles):  # type: ignore[no-untyped-def]
    s.grid[0] = [-1] * 9
    for cell, t in enumerate(tiles):
        s.grid[0][cell] = t


def test_sequence_b_required_when_a_impossible() -> None:
    # black-angel.ko.txt [4] 알림: 시퀀스 A를 수행할 수 없다면, 시퀀스 B를 수행해야 합니다
    s = blank()
    s.res[0] = 0
    assert ids(s) == ["B"]
    give_die(s, 0, ORANGE, 1)
    assert ids(s) == ["A", "B"]


def test_mission_card_activates_same_colour_tiles_only() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 1: 미션 카드 -> 같은 색상인 것만 활성화
    s = blank()
    give_die(s, 0, ORANGE, 1)
    _grid_row0(s, [0, 16, 32])  # orange +2 VP, gray +1 debris +1 VP, green +2 VP
    s.hand_m[0] = [1]  # an orange mission
    vp, deb = s.vp[0], s.deb[0]
    play(s, "A", "card:m1", "slot:R1")
    assert s.vp[0] == vp + 2 and s.deb[0] == deb
    assert s.slots[0][0] == 1 and s.hand_m[0] == []
    assert s.phase == "a_die"


def test_ravager_card_activates_all_tiles_in_any_order() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 1: 약탈자 카드 -> 색상에 관계없이; 알림: 원하는 순서로
    s = blank()
    give_die(s, 0, ORANGE, 1)
    _grid_row0(s, [0, 16, 32])
    s.hand_r[0] = [100]
    vp, deb = s.vp[0], s.deb[0]
    play(s, "A", "card:r", "slot:R1")
    assert sorted(ids(s)) == ["tile:0", "tile:1", "tile:2"]
    play(s, "tile:2")
    assert sorted(ids(s)) == ["tile:0", "tile:1"]
    play(s, "tile:0")  # the last tile is activated without asking
    assert s.phase == "a_die"
    assert (s.vp[0], s.deb[0]) == (vp + 5, deb + 1)
    assert s.hand_r[0] == [] and s.slots[0][0] == 100


def test_advanced_tiles_are_never_activated() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 1 알림: 고급 기술 타일은 활성화하지 않습니다
    s = blank()
    give_die(s, 0, ORANGE, 1)
    _grid_row0(s, [0, 200, -1])
    s.hand_r[0] = [100]
    vp = s.vp[0]
    play(s, "A", "card:r", "slot:R1")
    assert s.vp[0] == vp + 2 and s.phase == "a_die"


def test_occupied_slot_cannot_take_a_card() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 1: 이미 카드가 놓여있는 곳에는 플레이할 수 없습니다
    s = blank()
    give_die(s, 0, ORANGE, 1)
    s.hand_m[0] = [1]
    s.slots[0][0] = 2
    play(s, "A", "card:m1")
    assert "slot:R1" not in ids(s) and "slot:R2" in ids(s)


def test_buying_a_die_pays_its_owner_and_reserved_dice_are_safe() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 2: 구매 비용은 자원 1개 ... 주인에게; 보안 주사위는 구매 불가
    s = blank()
    give_die(s, 0, GRAY, 1)
    give_die(s, 1, ORANGE, 3)
    give_die(s, 1, GREEN, 3, secure=True)
    s.res[0], s.res[1] = 1, 0
    play(s, "A")
    opts = ids(s)
    assert "buy:1:0" in opts and "buy:1:1" not in opts
    play(s, "buy:1:0")
    assert (s.res[0], s.res[1]) == (0, 1)
    assert s.comp[1] == [GREEN * 8 + 4 + 3]
    assert not any(o.startswith("flip") for o in ids(s))  # 중요사항: a bought die cannot be flipped


def test_no_resource_no_buying() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 2: 구매 비용은 자원 1개
    s = blank()
    give_die(s, 0, GRAY, 1)
    give_die(s, 1, ORANGE, 3)
    s.res[0] = 0
    play(s, "A")
    assert not any(o.startswith("buy") for o in ids(s))


def test_star_die_only_commands() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 2: 눈이 0(☆)이면 '자신의 우주선 지휘'를 부분적으로 ... 외에는 불가
    s = blank()
    s.hand_m[0] = []
    assert die_uses(s, 0, ORANGE, 0) == []  # no mission to place: nothing at all
    assert [u for u, _ in die_uses(s, 0, ORANGE, 1)][:1] == ["act:1"]


def test_damaged_action_value_and_star() -> None:
    # black-angel.ko.txt [4] 손상된 액션: 2 cubes -> -1; 1 cube -> no effect; 알림: ☆ stays 0
    s = blank()
    s.dmg[0] = 1
    assert action_value(s, 0, 3) == 3
    s.dmg[0] = 2
    assert action_value(s, 0, 3) == 2
    assert action_value(s, 0, 1) == 0
    assert action_value(s, 0, 0) == 0


def test_top_ravager_effect_first() -> None:
    # black-angel.ko.txt [4] 약탈자 카드: 제일 위 약탈자 카드의 영구 효과를 먼저 처리
    s = blank()
    give_die(s, 0, ORANGE, 1)
    s.rav_on[0] = [101, 100]  # top: action 1, lose a resource
    s.res[0], s.deb[0] = 2, 3
    vp = s.vp[0]
    play(s, "A", "use:0", "act:1")
    assert s.res[0] == 1 and s.deb[0] == 3 and s.vp[0] == vp
    assert s.phase == "discover"  # the action is then performed


def test_ravager_effect_impossible_costs_one_vp() -> None:
    # black-angel.ko.txt [4] 약탈자 카드: 처리 불가능할 때에만 승점 1점을 잃고, 액션은 정상 수행
    s = blank()
    give_die(s, 0, ORANGE, 1)
    s.rav_on[0] = [100]
    s.res[0] = 0
    vp = s.vp[0]
    play(s, "A", "use:0", "act:1")
    assert s.vp[0] == vp - 1 and s.phase == "discover"


def test_ravager_discard_mission_is_chosen() -> None:
    # black-angel.ko.txt [4] 약탈자 카드 (designed effect: discard a mission of your choice)
    s = blank()
    give_die(s, 0, ORANGE, 1)
    s.rav_on[0] = [104]
    s.hand_m[0] = [3, 25]
    play(s, "A", "nocard", "use:0", "act:1")
    assert sorted(ids(s)) == ["discard:25", "discard:3"]
    play(s, "discard:25")
    assert s.hand_m[0] == [3] and s.m_disc[GRAY] == [25]


def test_draw_card_of_die_colour_and_die_to_supply() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 3: 같은 색상 카드 1장 뽑기, 주사위는 공급처에
    s = blank()
    give_die(s, 0, GREEN, 1)
    supply = s.supply[GREEN]
    top = s.m_deck[GREEN][-1]
    play(s, "A", "use:0", "act:5")
    assert s.hand_m[0] == [top]
    assert s.supply[GREEN] == supply + 1
    assert s.seat == 1 and s.phase == "turn"


def test_hand_limit_six_missions_ravagers_do_not_count() -> None:
    # black-angel.ko.txt [4] 중요사항: 턴 종료 시 미션 카드 6장 초과 불가; 약탈자 카드는 세지 않음
    s = blank()
    give_die(s, 0, GREEN, 1)
    s.hand_m[0] = [0, 1, 2, 3, 4, 5]
    s.hand_r[0] = [100, 101, 102, 103, 104, 105, 106]
    top = s.m_deck[GREEN][-1]
    play(s, "A", "nocard", "use:0", "act:5")
    assert s.phase == "hand_limit" and s.seat == 0
    assert f"discard:{top}" in ids(s)
    play(s, "discard:0")
    assert len(s.hand_m[0]) == 6 and len(s.hand_r[0]) == 7
    assert s.seat == 1


def test_empty_mission_deck_is_reshuffled() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 3 알림: 더미가 바닥나면 버리는 카드 더미를 섞어 새 더미
    s = blank()
    give_die(s, 0, GREEN, 1)
    s.m_deck[GREEN] = []
    s.m_disc[GREEN] = [41, 43]
    play(s, "A", "use:0", "act:5")
    assert len(s.hand_m[0]) == 1 and s.hand_m[0][0] in (41, 43)
    assert len(s.m_deck[GREEN]) == 1 and s.m_disc[GREEN] == []


def test_no_cards_left_no_draw() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 3 알림: 버리는 카드 더미에도 없다면 더 이상 보충하지 않습니다
    s = blank()
    give_die(s, 0, GREEN, 1)
    s.m_deck[GREEN], s.m_disc[GREEN] = [], []
    play(s, "A", "use:0", "act:5")
    assert s.hand_m[0] == []


def test_debris_flips_a_die_to_its_opposite_face() -> None:
    # black-angel.ko.txt [4] 잔해 큐브: 보관소의 잔해로 자기 객실 주사위 뒤집기; 반대면 차이는 2
    s = blank()
    give_die(s, 0, ORANGE, 1)
    s.deb[0] = 1
    s.gdeb[0][0] = 1  # debris on a tile cannot be used
    play(s, "A", "flip:0")
    assert s.comp[0] == [ORANGE * 8 + 3] and s.deb[0] == 0
    assert not any(o.startswith("flip") for o in ids(s))


def test_use_mission_in_space_and_owner_free_activation() -> None:
    # black-angel.ko.txt [4] 활성미션 + 중요사항: 소유자도 1회 (주사위 없이) 활성화
    s = blank()
    hk = s.strips[1] * 5
    s.cards[hk] = [20, 1]  # gray active mission owned by seat 1: +1 debris per activation
    give_die(s, 0, GRAY, 2)
    d0, d1 = s.deb[0], s.deb[1]
    assert f"mis:{hk}" not in [u for u, _ in die_uses(s, 0, GRAY, 2)]  # neither robot nor ship there
    s.ships.append([0, hk])
    assert f"mis:{hk}" in [u for u, _ in die_uses(s, 0, GRAY, 2)]
    assert f"mis:{hk}" not in [u for u, _ in die_uses(s, 0, ORANGE, 2)]  # the die colour must match
    play(s, "A", "use:0", f"mis:{hk}")
    assert s.deb[0] == d0 + 2 and s.deb[1] == d1 + 1


def test_owner_activating_own_mission_gets_no_extra() -> None:
    # black-angel.ko.txt [4] 중요사항: the free activation is for the owner when someone else activates
    s = blank()
    hk = s.strips[1] * 5
    s.cards[hk] = [20, 0]
    give_die(s, 0, GRAY, 1)
    d0 = s.deb[0]
    play(s, "A", "use:0", f"mis:{hk}")
    assert s.deb[0] == d0 + 1


def test_neutral_missions_cannot_be_activated() -> None:
    # black-angel.ko.txt [4] 중립 미션: 활성화할 수 없지만 배출될 때 효과
    s = blank()
    hk = s.strips[1] * 5
    s.cards[hk] = [21, 0]
    assert D.MISSION[21]["kind"] == "neutral"
    assert f"mis:{hk}" not in [u for u, _ in die_uses(s, 0, GRAY, 3)]


def test_card_needed_by_a_star_die_cannot_be_played_first() -> None:
    # black-angel.ko.txt [4] 알림 (시퀀스 A를 수행할 수 없다면 B): A must stay playable after A1
    s = blank()
    s.strips = [0, 1, 2, 3, 4]
    s.side = [0] * 7
    s.ships = [[0, 1 * 5 + 2]]  # on an orange hex
    s.shp[0] = 0
    s.deb[0] = 0
    s.res[0] = 0
    give_die(s, 0, ORANGE, 0)
    s.hand_m[0] = [0, 20]
    play(s, "A")
    assert ids(s) == ["nocard", "card:m20"]
