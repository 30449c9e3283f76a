"""Commanding a ship (black-angel.ko.txt [4] 액션: 자신의 우주선 지휘, steps 1-4).

The board is fixed to strips 0..4 on side 0 (data/strips.json), so the Black Angel's hex is
strip position 3's middle hex, an asteroid field.
"""

from __future__ import annotations

from referee.black_angel import space as S
from tests.black_angel.helpers import at, blank, give_die, ids, play

ORANGE, GRAY, GREEN = 0, 1, 2


def board(players: int = 2):  # type: ignore[no-untyped-def]
    s = blank(players)
    s.strips = [0, 1, 2, 3, 4]
    s.side = [0] * 7
    s.spes_token = 4
    s.cards = {}
    s.ships = []
    return s


def test_geometry_of_the_fixed_board() -> None:
    s = board()
    assert S.ba_hex(s) == at(s, 2, 2) and S.hex_type(s, at(s, 2, 2)) == "asteroid"
    assert S.hex_type(s, at(s, 1, 2)) == "orange"
    # the Ravager ship hex above it carries the only icon around it (data/strips.json, designed)
    assert S.ravager_icons_around(s, at(s, 1, 2)) == 1


def test_launch_takes_a_robot_and_starts_at_the_black_angel() -> None:
    # black-angel.ko.txt [4] 지휘 1: 발진 - 휴게실 로봇 1개를 조종석에; 블랙 엔젤 칸에서 시작
    s = board()
    give_die(s, 0, ORANGE, 1)
    s.hand_m[0] = []
    play(s, "A", "use:0", "act:2")  # the only ship is the new one: no question asked
    assert s.phase == "cmd_move"
    assert (s.shp[0], s.rbreak[0]) == (0, 4)
    dests = ids(s)
    assert f"to:{at(s, 2, 2)}" in dests  # the asteroid under the Black Angel is protected
    assert f"to:{at(s, 1, 2)}" in dests and f"to:{at(s, 0, 2)}" not in dests  # 1 hex at most


def test_asteroids_block_stopping_and_passing() -> None:
    # black-angel.ko.txt [4] 지휘 1: 소행성 지대에서 멈추거나 통과할 수 없습니다
    s = board()
    start = at(s, 4, 0)
    two = S.destinations(s, start, 2, 0, -1)
    assert at(s, 4, 1) not in two  # an asteroid field
    assert at(s, 4, 2) not in two  # only reachable through it in 2
    assert at(s, 4, 2) in S.destinations(s, start, 3, 0, -1)


def test_black_angel_protects_its_asteroid_hex() -> None:
    # black-angel.ko.txt [4] 지휘 1 알림: 블랙 엔젤과 같은 소행성 칸은 통과하거나 둘 수 있음
    s = board()
    assert at(s, 3, 2) in S.destinations(s, at(s, 1, 2), 2, 0, -1)
    s.strips = [1, 2, 3, 4, 0]  # the Black Angel now sits on another hex
    assert S.hex_type(s, at(s, 1, 2)) == "asteroid"
    assert at(s, 1, 2) not in S.destinations(s, at(s, 0, 2), 1, 0, -1)


def test_two_ships_per_hex_of_different_players() -> None:
    # black-angel.ko.txt [4] 지휘 1 알림: 우주 칸 하나는 최대 2척 (서로 다른 플레이어)
    s = board(3)
    hk = at(s, 1, 2)
    s.ships = [[1, hk]]
    assert S.can_end_at(s, hk, 0, -1)
    assert not S.can_end_at(s, hk, 1, -1)
    s.ships.append([2, hk])
    assert not S.can_end_at(s, hk, 0, -1)


def test_place_mission_reward_ravagers_and_new_tiles() -> None:
    # black-angel.ko.txt [4] 지휘 2-4: same colour hex and card; robot from the break room on the
    # reward; adjacent icons call Ravagers; the card's icons push new tiles into the display
    s = board()
    give_die(s, 0, ORANGE, 1)
    s.hand_m[0] = [0, 3]  # orange missions; 0: reward 4 VP, icons orange+gray
    s.display = [5, 21, -1, -1, -1, -1]
    top_o, top_g = s.t_stack[ORANGE][-1], s.t_stack[GRAY][-1]
    s.rav_deck = [129, 100, 110]  # drawn from the end: action 3 (one icon around: one card)
    vp = s.vp[0]
    play(s, "A", "nocard", "use:0", "act:2", f"to:{at(s, 1, 2)}")
    assert sorted(ids(s)) == ["noplace", "place:0", "place:3"]
    play(s, "place:0")
    hk = at(s, 1, 2)
    assert s.cards[hk] == [0, 0]
    assert s.rbreak[0] == 3  # one pilot, one on the reward space
    assert s.vp[0] == vp + 4
    assert s.rav_on[2] == [110] and s.rav_on[0] == [] and s.rav_deck == [129, 100]
    assert s.dmg[2] == 1 and s.dmg[0] == 0
    assert s.display == [top_g, top_o, 5, 21, -1, -1]


def test_covered_icons_and_damage_overflow_onto_dice() -> None:
    # black-angel.ko.txt [4] 약탈자 출현: 카드가 아이콘을 가리면 출현이 막힘; 손상 큐브 2개면 주사위 위에
    s = board()
    assert S.ravager_icons_around(s, at(s, 0, 1)) == 2  # the orange hex above, the Ravager ship hex
    s.cards[at(s, 0, 0)] = [1, 1]  # an orange mission covers the icon of that orange hex
    assert S.ravager_icons_around(s, at(s, 0, 1)) == 1
    s.dmg[0] = 2
    s.supply[ORANGE] = 2
    s.sdmg[ORANGE] = 1
    s.rav_deck = [129, 100]
    from referee.black_angel.board import ravager_arrives

    ravager_arrives(s)
    assert s.dmg[0] == 2 and s.sdmg[ORANGE] == 2
    s.rav_deck = [129, 101]
    ravager_arrives(s)
    assert s.sdmg[ORANGE] == 2  # every die already damaged: no cube


def test_three_ravagers_per_action_at_most() -> None:
    # black-angel.ko.txt [4] 약탈자 출현 알림: 액션마다 최대 3장; 버리고 새로 1장
    s = board()
    s.rav_on[0] = [101, 102, 103]
    s.rav_deck = [129, 115, 100]
    from referee.black_angel.board import ravager_arrives

    ravager_arrives(s)
    assert s.rav_on[0] == [101, 102, 103] and s.rav_disc == [100]
    assert s.rav_on[3] == [115]


def test_one_card_whatever_the_value_and_optional() -> None:
    # black-angel.ko.txt [4] 지휘 2 알림: 카드 1장만; 놓지 않아도 됨 (2-4단계 건너뜀)
    s = board()
    give_die(s, 0, ORANGE, 3)
    s.hand_m[0] = [0, 3]
    play(s, "A", "nocard", "use:0", "act:2", f"to:{at(s, 1, 2)}", "noplace")
    assert s.cards == {} and s.hand_m[0][:2] == [0, 3]
    assert s.rav_on == [[] for _ in range(6)]


def test_die_colour_must_match_hex_and_card() -> None:
    # black-angel.ko.txt [4] 지휘 2: 사용한 주사위 색상과 칸, 카드의 색상이 일치해야
    s = board()
    give_die(s, 0, GRAY, 1)
    s.hand_m[0] = [0, 20]
    play(s, "A", "nocard", "use:0", "act:4", f"to:{at(s, 1, 2)}")  # an orange hex with a gray die
    assert s.phase == "turn"  # nothing to place: the turn went on
    assert s.cards == {}


def test_star_die_must_place_and_cannot_move() -> None:
    # black-angel.ko.txt [4] 지휘 1/2 알림: ☆ - 이동 불가, 2-4단계 수행; 반드시 미션 카드를 놓음
    s = board()
    hk = at(s, 1, 2)
    s.ships = [[0, hk]]
    s.shp[0] = 0
    give_die(s, 0, ORANGE, 0)
    s.hand_m[0] = [0]
    play(s, "A", "nocard", "use:0", "act:2")
    assert ids(s) == ["place:0"]
    play(s, "place:0")
    assert s.cards[hk] == [0, 0] and s.ships == [[0, hk]]


def test_no_robot_no_mission() -> None:
    # black-angel.ko.txt [4] 지휘 2 알림: 필요한 우주선이나 로봇이 없다면 수행할 수 없습니다
    s = board()
    s.ships = [[0, at(s, 1, 2)]]
    s.rbreak[0] = 0
    give_die(s, 0, ORANGE, 0)
    s.hand_m[0] = [0]
    assert not [o for o in ("act:2",) if o in [u for u, _ in __import__(
        "referee.black_angel.sequence_a", fromlist=["die_uses"]).die_uses(s, 0, ORANGE, 0)]]
    s.ships = []
    s.shp[0] = 0
    s.rbreak[0] = 5
    from referee.black_angel.sequence_a import die_uses

    assert die_uses(s, 0, ORANGE, 1)[0][0] == "act:1"
    assert "act:2" not in [u for u, _ in die_uses(s, 0, ORANGE, 1)]


def test_other_ship_on_the_hex_joins_the_card() -> None:
    # black-angel.ko.txt [4] 지휘 2 알림: 다른 우주선이 있어도 놓을 수 있고 그 소유자도 카드 사용 가능
    s = board()
    hk = at(s, 1, 2)
    s.ships = [[1, hk]]
    give_die(s, 0, ORANGE, 1)
    s.hand_m[0] = [0]
    play(s, "A", "nocard", "use:0", "act:2", f"to:{hk}", "place:0")
    from referee.black_angel.sequence_a import die_uses

    assert f"mis:{hk}" in [u for u, _ in die_uses(s, 1, ORANGE, 1)]


def test_ravager_deck_exhaustion_triggers_the_end_and_reshuffles() -> None:
    # black-angel.ko.txt [5]: 약탈자 카드 더미가 바닥난다 (시퀀스 A); 알림: 버리는 더미를 섞어 새로 더미
    s = board()
    s.rav_deck = [100]
    s.rav_disc = [110, 111]
    from referee.black_angel.board import ravager_arrives

    ravager_arrives(s)
    assert s.end_trig and s.last_round == s.round + 1
    assert sorted(s.rav_deck) == [110, 111] and s.rav_disc == []
