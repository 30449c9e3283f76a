"""Rules-audit scenarios: each test pins one rule the first version of the engine got wrong or
left open, and names the rulebook section (black-angel.ko.txt) it checks."""

from __future__ import annotations

import json

from referee.black_angel import board as B
from referee.black_angel.state import BlackAngelState
from tests.black_angel.helpers import at, blank, give_die, ids, play, started

ORANGE, GRAY, GREEN = 0, 1, 2


def fixed(players: int = 2, variant: str = "base"):  # type: ignore[no-untyped-def]
    """Strips 0..4 on side 0: the Black Angel's hex (position 2, row 2) is an asteroid field."""
    s = blank(players, variant)
    s.strips = [0, 1, 2, 3, 4]
    s.side = [0] * 7
    s.spes_token = 4
    s.cards, s.ships = {}, []
    return s


# --- debris flips ---------------------------------------------------------------------------
def test_any_own_die_may_be_flipped_and_more_than_once() -> None:
    # [4] 잔해 큐브: 시퀀스 A 중 언제라도, 보관소의 잔해로 자기 객실 주사위 1개를 뒤집음 — any die of
    # yours (e.g. a 3 you will not use, to cut sequence B's loss), once per debris
    s = blank()
    give_die(s, 0, ORANGE, 1)
    give_die(s, 0, GRAY, 3)
    s.deb[0] = 2
    play(s, "A")
    assert {"flip:0", "flip:1"} <= set(ids(s))
    play(s, "flip:1")  # gray 3 -> 1: not the die about to be used
    assert s.comp[0][1] == B.die(GRAY, 1) and s.deb[0] == 1
    play(s, "flip:0")  # and a second flip with the second debris
    assert s.comp[0][0] == B.die(ORANGE, 3) and s.deb[0] == 0
    assert not any(o.startswith("flip") for o in ids(s))


def test_flip_after_the_action_with_debris_just_repaired() -> None:
    # [4] 잔해 큐브 ("자신의 턴 언제라도") + [4] 수리: the debris a repair gives may flip a die before A3
    s = blank()
    s.deb[0] = 0
    s.grid[0] = [-1] * 9  # no lightning space: the debris goes to storage
    s.dmg[0] = 1
    give_die(s, 0, GRAY, 1)
    give_die(s, 0, GREEN, 3)
    play(s, "A", "use:0", "act:3", "fix:a1")
    assert s.phase == "a_endflip" and ids(s) == ["done", "flip:0"]
    play(s, "flip:0")
    assert s.comp[0] == [B.die(GREEN, 1)] and s.deb[0] == 0
    assert s.seat == 1  # no debris left: A3 followed and the turn passed


def test_a_flip_that_would_leave_no_die_use_is_not_offered() -> None:
    # [4] 알림: 시퀀스 A를 수행할 수 없다면 B — A2 is mandatory, so a 2 may not be flipped to a star
    # that cannot command when it is your only die and your last debris
    s = fixed()
    s.hand_m[0] = []
    s.deb[0] = 1
    s.res[0] = 0
    give_die(s, 0, ORANGE, 2)
    play(s, "A")
    assert ids(s) == ["use:0"]
    s.deb[0] = 2  # a second debris could flip it back: now the flip is legal
    s._opts = None
    assert ids(s) == ["use:0", "flip:0"]


# --- dice supply ------------------------------------------------------------------------------
def test_neutral_player_also_takes_undamaged_dice_first() -> None:
    # [6] 2인 게임 + [4] 시퀀스 B 1 알림: the neutral die is taken from the supply like yours
    s = blank()
    s.sdmg = [1, 1, 1]
    s.res[0] = 0
    play(s, "B")
    assert s.sdmg == [1, 1, 1] and len(s.comp[2]) == 3


# --- Ravagers -----------------------------------------------------------------------------------
def test_ravager_redraws_until_one_fits() -> None:
    # [4] 약탈자 출현 알림: 이미 3장이 놓인 곳이면 버리고 새로 1장을 뽑아 처리 — however many it takes
    s = fixed()
    for k in range(5):
        s.rav_on[k] = [100 + 5 * k, 101 + 5 * k, 102 + 5 * k]
    s.rav_deck = [119, 125, 103, 108, 113, 118]  # four cards for full actions above one for action 6
    s.rav_disc = []
    B.ravager_arrives(s)
    assert s.rav_on[5] == [125] and sorted(s.rav_disc) == [103, 108, 113, 118]
    assert s.rav_deck == [119] and s.dmg[5] == 1


def test_no_endless_redraw_when_every_action_is_full() -> None:
    # [4] 약탈자 출현 알림: with every action at 3 cards no card can ever be placed; the icon brings none
    s = fixed()
    s.rav_on = [[100 + 5 * k, 101 + 5 * k, 102 + 5 * k] for k in range(6)]
    s.rav_deck = [103, 104]
    s.rav_disc = [108]
    B.ravager_arrives(s)
    assert s.rav_deck == [103, 104] and s.rav_disc == [108] and not s.end_trig


def test_ravager_effect_at_zero_vp_costs_nothing_more() -> None:
    # [4] 약탈자 카드: 효과를 처리할 수 없을 때만 승점 1점을 잃음 — the score track stops at 0 (reading)
    s = blank()
    s.rav_on[0] = [100]  # lose a resource
    s.res[0] = 0
    s.vp[0] = 0
    give_die(s, 0, ORANGE, 1)
    play(s, "A", "use:0", "act:1")
    assert s.vp[0] == 0


# --- card play must leave A2 possible -----------------------------------------------------------
def test_card_play_whose_worker_tile_takes_the_needed_robot_is_refused() -> None:
    # [4] 시퀀스 A 1 + 지휘 2 알림 (☆는 반드시 미션 카드를 놓음; 로봇은 휴게실에서): a Ravager card in
    # row 1 would activate a workstation tile and take the last break-room robot the star needs
    s = fixed()
    s.grid[0] = [14, -1, -1, -1, -1, -1, -1, -1, -1]  # orange 'worker' tile in row 1 / column 1
    s.ships = [[0, at(s, 1, 2)]]  # on an orange hex
    s.shp[0] = 0
    s.rbreak[0] = 1
    s.deb[0] = 0
    s.res[0] = 0
    s.hand_m[0] = [0, 3]  # two orange missions: playing one still leaves one to place
    s.hand_r[0] = [100]
    give_die(s, 0, ORANGE, 0)
    play(s, "A")
    assert "card:r" in ids(s)
    play(s, "card:r")
    assert "slot:R1" not in ids(s) and "slot:C1" not in ids(s) and "slot:R2" in ids(s)


def test_optional_boost_flip_that_takes_the_needed_robot_is_refused() -> None:
    # [6] 상급자 규칙 중요사항 (부스트 면을 원하는 만큼 뒤집어 활성화) + [4] 알림 (A2는 필수): flipping a
    # boost workstation tile would take the last break-room robot the star die needs
    s = fixed(2, "advanced")
    s.grid[0] = [14, 0, -1, -1, -1, -1, -1, -1, -1]  # row 1: orange 'worker' and orange VP tile
    s.boost[0] = [1, 1, 0, 0, 0, 0, 0, 0, 0]
    s.ships = [[0, at(s, 1, 2)]]  # on an orange hex
    s.shp[0] = 0
    s.rbreak[0] = 1
    s.deb[0] = 0
    s.res[0] = 0
    s.hand_m[0] = [0]
    s.hand_r[0] = [100]
    give_die(s, 0, ORANGE, 0)
    play(s, "A", "card:r", "slot:R1")
    assert ids(s) == ["flip:1", "done"]  # the VP tile may be flipped, the worker tile not


# --- advanced rules -------------------------------------------------------------------------------
def test_star_die_is_never_boosted() -> None:
    # [4] A2 알림: 눈이 ☆인 주사위는 활성 수치가 0 — a '1x' +1 must not let a star move a ship
    s = fixed(2, "advanced")
    s.grid[0] = [4, -1, -1, -1, -1, -1, -1, -1, -1]  # boost side: +1 to command
    s.boost[0] = [1, 0, 0, 0, 0, 0, 0, 0, 0]
    hk = at(s, 1, 2)
    s.ships = [[0, hk]]
    s.shp[0] = 0
    s.hand_m[0] = [0]
    give_die(s, 0, ORANGE, 0)
    play(s, "A", "nocard", "use:0", "act:2")
    assert s.phase == "cmd_card" and ids(s) == ["place:0"]
    assert s.boost[0][0] == 1


def test_star_die_usable_through_a_recolour_boost() -> None:
    # [6] 상급자 규칙 '1x' (주사위 색상 변경): a star with no orange command may count as gray
    s = fixed(2, "advanced")
    cell = next(t for t in range(48) if _recolour(t))
    s.grid[0] = [cell, -1, -1, -1, -1, -1, -1, -1, -1]
    s.boost[0] = [1, 0, 0, 0, 0, 0, 0, 0, 0]
    hk = at(s, 0, 1)  # a gray hex
    s.ships = [[0, hk]]
    s.shp[0] = 0
    s.hand_m[0] = [20]  # gray mission only
    s.deb[0] = 0
    s.res[0] = 0
    give_die(s, 0, ORANGE, 0)
    assert ids(s) == ["A", "B"]
    play(s, "A", "nocard")
    assert ids(s) == ["use:0"]
    play(s, "use:0")
    assert ids(s) == ["rc1act:4"]


def _recolour(t: int) -> bool:
    from referee.black_angel import data as D

    return D.TILE[t]["boost"] == "recolour"


# --- opening events and views ---------------------------------------------------------------------
def test_opening_events_tell_the_set_up_and_survive_copies() -> None:
    # [3] 게임 준비 8 (opening Ravagers and damage), 15 (opening roll, advantages, free reserved die)
    s = BlackAngelState.new(4, 11)
    lines = s.opening_events()
    assert sum(1 for x in lines if x.startswith("opening Ravager")) == 2
    assert sum(1 for x in lines if " rolls " in x) == 4
    assert s.phase == "setup_reserve" and s.seat == 2
    log = s.apply("reserve:0")
    assert log[0] in s.opening_events() and "high-security" in log[0]
    s.apply("none")
    assert len(s.opening_events()) == len(lines) + 2
    copy = BlackAngelState.from_json(json.loads(json.dumps(s.to_json())))
    assert copy.opening_events() == s.opening_events() == s.clone().opening_events()
    assert s.spectator_view()["opening_events"] == s.opening_events()
    s.opening_events().append("changed by the caller")
    assert "changed by the caller" not in s.opening_events()
    solo = BlackAngelState.new(1, 3, "solo-d10")
    assert any(x.startswith("Hal (starting at 10 VP) rolls") for x in solo.opening_events())


def test_face_down_cards_show_only_their_backs_to_others() -> None:
    # [4] 시퀀스 A 1 알림: 비공개로 놓음; 카드 종류(미션/약탈자)와 색상(미션)만 중요 — the backs
    s = started(3)
    s.slots[1][0] = s.hand_m[1].pop(0)
    s.slots[1][1] = s.hand_r[1].pop()
    obs = s.observation(0)
    backs = obs["seats"][1]["slots_face_down"]
    assert backs[0] == {"kind": "mission", "colour": "orange"} and backs[1] == {"kind": "ravager"}
    assert "id" not in json.dumps(backs) and "slots" not in obs["seats"][1]
    assert obs["seats"][1]["hand_missions_by_colour"] == {"orange": 0, "gray": 1, "green": 1}
    view = s.spectator_view()
    assert view["seats"][1]["name"] == "seat 1"
    assert isinstance(view["decks"]["ravagers"][0]["effect_text"], str)
    assert set(view["decks"]["missions"]) == {"orange", "gray", "green"}


# --- components, dice, variants -------------------------------------------------------------------
def test_robots_are_limited_ships_and_resources_are_not() -> None:
    # [1] 구성품 알림: 로봇은 수가 제한된 구성품; 우주선, 자원, 손상/잔해 큐브는 무제한
    s = blank()
    s.rsup[0] = 1
    B.apply_effect(s, 0, {"robot": 1}, 3)  # only the one robot left in the supply comes
    assert s.rsup[0] == 0 and s.rbreak[0] == 6
    ships, res = s.shp[0], s.res[0]
    B.apply_effect(s, 0, {"ship": 1, "resource": 1}, 50)
    assert s.shp[0] == ships + 50 and s.res[0] == res + 50


def test_dice_faces_and_opposite_faces() -> None:
    # [4] A2 알림: 주사위 눈은 0(☆), 1, 1, 2, 3, 3; 한 눈과 반대면 눈의 차이는 항상 2
    from referee.black_angel import data as D

    assert sorted(D.FACES) == [0, 1, 1, 2, 3, 3]
    for face in (0, 1, 2, 3):
        other = B.die_face(B.flipped(B.die(GREEN, face)))
        assert abs(other - face) == 2 and B.die_colour(B.flipped(B.die(GREEN, face))) == GREEN
    s = blank()
    seen = {B.die_face(B.roll(s, ORANGE)) for _ in range(300)}
    assert seen == {0, 1, 2, 3}


def test_every_solo_difficulty_with_and_without_the_advanced_rules() -> None:
    # [6] 1인 게임: 난이도 = 할의 시작 승점 0/5/10/15; 1인 게임에 상급자 규칙을 적용할 수도 있음
    for variant, vp, adv in (("solo-d0", 0, False), ("solo", 5, False), ("solo-d10", 10, False),
                             ("solo-d15", 15, False), ("solo-advanced-d0", 0, True),
                             ("solo-advanced", 5, True), ("solo-advanced-d10", 10, True),
                             ("solo-advanced-d15", 15, True)):
        s = BlackAngelState.new(1, 5, variant)
        assert (s.hal_vp, s.adv, s.solo) == (vp, adv, True)  # Hal takes no player aid
    for variant in ("base", "advanced"):
        s = BlackAngelState.new(2, 5, variant)
        assert s.neutral and s.adv == (variant == "advanced")
