"""Advanced rules (black-angel.ko.txt [6] 상급자 규칙): boost sides, '1x' effects, draw 2 keep 1."""

from __future__ import annotations

from referee.black_angel import data as D
from tests.black_angel.helpers import blank, give_die, ids, play

ORANGE, GRAY, GREEN = 0, 1, 2


def test_new_tiles_enter_the_grid_boost_side_up() -> None:
    # black-angel.ko.txt [6] 상급자 기술 타일: 기술 발견으로 얻을 때도 부스트 면이 보이게 투입
    s = blank(2, "advanced")
    s.display = [-1, -1, 1, -1, -1, -1]
    s.grid[0] = [-1] * 9
    give_die(s, 0, ORANGE, 1)
    play(s, "A", "use:0", "act:1", "take:d2", "arrow:row1-left")
    assert s.grid[0][0] == 1 and s.boost[0][0] == 1


def test_card_play_activates_standard_sides_or_flipped_boosts() -> None:
    # black-angel.ko.txt [6] 상급자 중요사항: 일반 면만 활성화; 부스트 면을 뒤집어 활성화 가능 (1x 포기)
    s = blank(2, "advanced")
    give_die(s, 0, GREEN, 1)
    s.grid[0] = [0, 3, -1, -1, -1, -1, -1, -1, -1]  # orange: +2 VP (standard), +3 VP (boost side up)
    s.boost[0] = [0, 1, 0, 0, 0, 0, 0, 0, 0]
    s.hand_m[0] = [1]
    vp = s.vp[0]
    play(s, "A", "card:m1", "slot:R1")
    assert sorted(ids(s)) == ["flip:1", "tile:0"]
    play(s, "tile:0")
    assert ids(s) == ["flip:1", "done"]
    play(s, "done")
    assert s.vp[0] == vp + 2 and s.boost[0][1] == 1
    s2 = blank(2, "advanced")
    give_die(s2, 0, GREEN, 1)
    s2.grid[0] = [0, 3, -1, -1, -1, -1, -1, -1, -1]
    s2.boost[0] = [0, 1, 0, 0, 0, 0, 0, 0, 0]
    s2.hand_m[0] = [1]
    play(s2, "A", "card:m1", "slot:R1", "flip:1")  # the last standard tile follows by itself
    assert s2.vp[0] == vp + 5 and s2.boost[0][1] == 0


def test_one_x_boost_adds_one_and_flips_the_tile() -> None:
    # black-angel.ko.txt [6] '1x'효과: 한 번만 액션의 효율을 높이고, 사용한 타일은 일반 면
    s = blank(2, "advanced")
    assert D.TILE[0]["boost"] == "plus1:discover"
    s.grid[0] = [0, -1, -1, -1, -1, -1, -1, -1, -1]
    s.boost[0][0] = 1
    s.display = [16, -1, -1, -1, -1, -1]
    give_die(s, 0, ORANGE, 1)
    play(s, "A", "use:0", "act:1")
    assert ids(s) == ["noboost", "boost:0"]
    play(s, "boost:0")
    assert s.boost[0][0] == 0 and s.ctx["val"] == 2
    assert "take:d0" in ids(s)


def test_draw_two_keep_one() -> None:
    # black-angel.ko.txt [6] 상급자 A3: 같은 색상 카드 2장을 뽑아 1장을 가지고 나머지는 버림
    s = blank(2, "advanced")
    give_die(s, 0, GREEN, 1)
    a, b = s.m_deck[GREEN][-1], s.m_deck[GREEN][-2]
    play(s, "A", "use:0", "act:5")
    assert sorted(ids(s)) == sorted([f"keep:{a}", f"keep:{b}"])
    play(s, f"keep:{b}")
    assert s.hand_m[0] == [b] and s.m_disc[GREEN] == [a]
    assert s.seat == 1


def test_recolour_still_draws_the_dies_own_colour() -> None:
    # black-angel.ko.txt [6] 상급자 A3 알림: 1x로 색상을 변경해도 원래 주사위 색상의 카드를 뽑음
    s = blank(2, "advanced")
    assert D.TILE[12]["boost"] == "recolour"
    s.grid[0] = [12, -1, -1, -1, -1, -1, -1, -1, -1]
    s.boost[0][0] = 1
    s.dmg[1] = 1
    give_die(s, 0, ORANGE, 1)
    top_orange = s.m_deck[ORANGE][-2:]
    play(s, "A", "use:0")
    assert "rc1act:3" in ids(s)
    play(s, "rc1act:3", "fix:a2")
    assert s.dmg[1] == 0 and s.boost[0][0] == 0
    if s.phase == "debris":
        play(s, "put:store")
    assert sorted(s.hand_m[0][-2:]) == sorted(top_orange)


def test_base_game_ignores_boost_sides() -> None:
    # black-angel.ko.txt [3] 5 알림: 기술 타일 뒷면의 정보는 무시 (상급자 규칙에서만 사용)
    s = blank(2, "base")
    s.display = [-1, -1, 1, -1, -1, -1]
    s.grid[0] = [-1] * 9
    give_die(s, 0, ORANGE, 1)
    play(s, "A", "use:0", "act:1", "take:d2", "arrow:row1-left")
    assert s.boost[0][0] == 0


def test_boost_flip_that_would_lose_the_star_dies_recolour_is_not_offered() -> None:
    # black-angel.ko.txt [4] 시퀀스 A 2 (A2 is mandatory) with [6] 상급자 중요사항 (flipping a
    # boost tile to activate it gives up its '1x' effect): found by random play, solo-advanced
    # seed 250. The only die is a reserved orange star whose sole use is a '1x' recolour on the
    # boost side of tile 31; flipping that tile to standard would leave A2 impossible.
    from referee.black_angel.state import BlackAngelState

    s = BlackAngelState.new(1, 250, "solo-advanced")
    for oid in ["B", "reserve:0", "A", "card:m36", "slot:C1", "use:1", "act:5", "kill:4", "flip:0",
                "keep:55", "A", "card:r", "slot:R2", "buy:1:0", "act:1", "take:a2",
                "arrow:col1-bottom", "take:d3", "arrow:row1-left", "keep:6", "A", "card:r", "slot:R1"]:
        s.apply(oid)
    assert s.phase == "a_tiles" and s.grid[0][0] == 31 and s.boost[0][0] == 1
    assert ids(s) == ["tile:1"]  # the flip of cell 0 is withheld
    play(s, "tile:1")
    assert ids(s), "A2 must still have a die to use"
