"""The Black Angel board's actions (black-angel.ko.txt [4] 액션: 기술 발견 / 수리 / 약탈자 격파)."""

from __future__ import annotations

from referee.black_angel import data as D
from tests.black_angel.helpers import blank, give_die, ids, play

ORANGE, GRAY, GREEN = 0, 1, 2


def _discover(s, face):  # type: ignore[no-untyped-def]
    give_die(s, 0, ORANGE, face)
    play(s, "A", "use:0", "act:1")


def test_discovery_costs_two_for_first_spaces_and_advanced() -> None:
    # black-angel.ko.txt [4] 기술 발견: 첫 2칸과 고급 기술 타일은 2, 나머지는 1
    s = blank()
    s.display = [0, 16, 32, 1, -1, -1]
    _discover(s, 1)
    assert sorted(ids(s)) == ["done", "take:d2", "take:d3"]
    s2 = blank()
    s2.display = [0, 16, 32, 1, -1, -1]
    _discover(s2, 2)
    assert {"take:d0", "take:d1", "take:a0", "take:a3"} <= set(ids(s2))


def test_no_refill_and_no_sliding_of_the_display() -> None:
    # black-angel.ko.txt [4] 기술 발견 알림: 빈자리에 바로 보충하지 않고, 남은 타일을 이동시키지도 않음
    s = blank()
    s.display = [0, 16, 32, 1, -1, -1]
    s.grid[0] = [-1] * 9
    _discover(s, 1)
    play(s, "take:d2")
    assert s.display == [0, 16, -1, 1, -1, -1]
    # [4] 기술 발견: a technology tile enters along any of the six coloured arrows
    assert ids(s) == ["arrow:row1-left", "arrow:col3-top", "arrow:row2-right", "arrow:col2-top",
                      "arrow:row3-right", "arrow:col1-top"]


def test_advanced_tile_is_refilled_at_once_until_the_pile_is_empty() -> None:
    # black-angel.ko.txt [4] 기술 발견 알림: 고급 기술 타일은 즉시 보충; 더미가 바닥나면 빈칸
    s = blank()
    s.a_disp = [200, 201, 202, 203]
    s.a_deck = [210]
    _discover(s, 3)
    play(s, "take:a1")
    assert s.a_disp == [200, 210, 202, 203] and s.a_deck == []
    assert ids(s) == ["arrow:row3-left", "arrow:col1-bottom"]  # black arrows only
    play(s, "arrow:row3-left")
    s.ctx["val"] = 2
    play(s, "take:a0")
    assert s.a_disp == [-1, 210, 202, 203]


def test_insertion_pushes_and_ejects_with_debris_back() -> None:
    # black-angel.ko.txt [4] 기술 발견: 새 타일은 기존 타일을 밀고 끝의 타일은 배출; 알림: 잔해 회수
    s = blank()
    s.display = [-1, -1, 1, -1, -1, -1]  # an orange tile at a cost-1 space
    s.grid[0] = [100, 101, 102, -1, -1, -1, -1, -1, -1]
    s.gdeb[0] = [0, 1, 1, 0, 0, 0, 0, 0, 0]
    deb = s.deb[0]
    _discover(s, 1)
    play(s, "take:d2", "arrow:row1-left")  # row 1 from the left
    assert s.grid[0][:3] == [1, 100, 101]
    assert s.gdeb[0][:3] == [0, 0, 1]  # debris travels with its tile
    assert s.ej_tiles[0] == [102] and s.deb[0] == deb + 1


def test_push_stops_at_a_gap() -> None:
    # black-angel.ko.txt [4] 기술 발견: 배출될 수 '있습니다' - only a full line ejects
    s = blank()
    s.display = [-1, -1, 1, -1, -1, -1]
    s.grid[0] = [100, -1, 102, -1, -1, -1, -1, -1, -1]
    _discover(s, 1)
    play(s, "take:d2", "arrow:row1-left")
    assert s.grid[0][:3] == [1, 100, 102] and s.ej_tiles[0] == []


def test_ejected_advanced_tile_goes_to_a_chosen_space() -> None:
    # black-angel.ko.txt [4] 고급 기술 타일의 배출: 배출된 고급 기술타일 놓는 칸 셋 중 하나로
    s = blank()
    s.display = [-1, -1, 1, -1, -1, -1]
    s.grid[0] = [100, 101, 205, -1, -1, -1, -1, -1, -1]
    _discover(s, 1)
    play(s, "take:d2", "arrow:row1-left")
    assert ids(s) == ["eslot:0", "eslot:1", "eslot:2"]
    play(s, "eslot:1")
    assert s.ej_adv[0] == [-1, 205, -1]


def test_ejected_advanced_tile_beyond_three_spaces() -> None:
    # black-angel.ko.txt [4] 고급 기술 타일의 배출: 3곳을 다 채운 후에 배출된 타일은 제한 4점
    s = blank()
    s.display = [-1, -1, 1, -1, -1, -1]
    s.grid[0] = [100, 101, 205, -1, -1, -1, -1, -1, -1]
    s.ej_adv[0] = [200, 201, 202]
    _discover(s, 1)
    play(s, "take:d2", "arrow:row1-left")
    assert s.ej_over[0] == [205]


def test_repair_removes_cubes_and_places_debris() -> None:
    # black-angel.ko.txt [4] 수리: 손상 큐브 -> 잔해 큐브; 번개 칸에 놓고 즉시 효과, 혹은 보관소
    s = blank()
    s.dmg[0] = 2
    s.sdmg[GREEN] = 1
    s.grid[0] = [17, -1, -1, -1, -1, -1, -1, -1, -1]  # gray tile with a lightning: +1 resource
    give_die(s, 0, GRAY, 3)
    res, deb = s.res[0], s.deb[0]
    play(s, "A", "use:0", "act:3")
    assert sorted(ids(s)) == ["done", "fix:a1", "fix:d2"]
    play(s, "fix:a1")
    assert s.dmg[0] == 1  # the damaging cube goes first: no penalty any more
    assert sorted(ids(s)) == ["put:0", "put:store"]
    play(s, "put:0")
    assert s.res[0] == res + 1 and s.gdeb[0][0] == 1
    play(s, "fix:d2")  # the lightning is taken: the debris goes to storage
    assert s.sdmg[GREEN] == 0 and s.deb[0] == deb + 1
    play(s, "fix:a1")
    assert s.dmg[0] == 0 and s.deb[0] == deb + 2
    assert s.phase == "turn"


def test_repair_need_not_clear_a_whole_action() -> None:
    # black-angel.ko.txt [4] 수리 알림: 같은 액션의 손상 큐브를 모두 제거할 필요는 없습니다
    s = blank()
    s.dmg[3] = 2
    s.grid[0] = [-1] * 9
    give_die(s, 0, GRAY, 3)
    play(s, "A", "use:0", "act:3", "fix:a4", "done")
    assert s.dmg[3] == 1


def test_destroy_stacked_ravagers_together_into_hand() -> None:
    # black-angel.ko.txt [4] 약탈자 격파: 같은 위치의 카드는 한꺼번에; 격파한 카드는 손패에
    s = blank()
    s.rav_on[1] = [105, 106]
    s.rav_on[3] = [115]
    give_die(s, 0, GREEN, 1)
    play(s, "A", "use:0", "act:5")
    assert ids(s) == ["kill:4", "done"]  # a stack of 2 needs 2
    play(s, "kill:4")
    assert s.hand_r[0] == [115] and s.rav_on[3] == []
    s2 = blank()
    s2.rav_on[1] = [105, 106]
    give_die(s2, 0, GREEN, 3)
    play(s2, "A", "use:0", "act:5", "kill:2")
    assert s2.hand_r[0] == [105, 106] and s2.rav_on[1] == []
    assert s2.dmg[1] == 0 and D.RAV_ACTION[105] == 1
