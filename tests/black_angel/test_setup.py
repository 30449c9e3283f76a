"""Setup rules (black-angel.ko.txt [3] 게임 준비, [6] 2인 게임 / 1인 게임 setup)."""

from __future__ import annotations

import pytest

from referee.black_angel import data as D
from referee.black_angel import space as S
from referee.black_angel.state import BlackAngelState
from referee.engine import ConfigError


@pytest.mark.parametrize("players,variant,dice", [(4, "base", 6), (3, "base", 5), (2, "base", 4), (1, "solo", 4)])
def test_dice_per_colour(players: int, variant: str, dice: int) -> None:
    # black-angel.ko.txt [3] 2 알림: 3인 5개, 2인 4개; [6] 1인 게임: 4개씩
    s = BlackAngelState.new(players, 3, variant)
    for c in range(3):
        held = sum(1 for comp in s.comp for code in comp if code >> 3 == c)
        assert s.supply[c] + held == dice


@pytest.mark.parametrize("players,variant,strips", [(4, "base", 7), (3, "base", 7), (2, "base", 5), (1, "solo", 5)])
def test_space_board(players: int, variant: str, strips: int) -> None:
    # black-angel.ko.txt [3] 3: 7 strips (2인 5), Spes token on the farthest, the Black Angel on
    # the middle hex of the centre strip
    s = BlackAngelState.new(players, 5, variant)
    assert len(s.strips) == strips
    assert s.spes_token == s.strips[-1]
    assert S.ba_hex(s) == s.strips[strips // 2] * 5 + 2


def test_technology_display_and_advanced() -> None:
    # black-angel.ko.txt [3] 5-6: one tile of each colour on the first three spaces; 4 advanced up
    s = BlackAngelState.new(3, 11, "base")
    assert sorted(D.TILE_COLOUR[t] for t in s.display[:3]) == [0, 1, 2]
    assert s.display[3:] == [-1, -1, -1]
    assert len(s.a_disp) == 4 and all(t >= 200 for t in s.a_disp)
    assert len(s.a_deck) == 12
    assert [len(st) for st in s.t_stack] == [15, 15, 15]


@pytest.mark.parametrize("players,removed", [(4, 0), (3, 6), (2, 12)])
def test_ravager_deck_and_opening_damage(players: int, removed: int) -> None:
    # black-angel.ko.txt [3] 8 알림: remove 6 (3p) / 12 (2p); two Ravagers open with their damage
    s = BlackAngelState.new(players, 9, "base")
    assert len(s.rav_deck) == 30 - removed - 2 - players
    assert sum(len(r) for r in s.rav_on) == 2
    for k in range(6):
        assert s.dmg[k] == len(s.rav_on[k])  # a stacked second card puts the second cube


def test_player_setup() -> None:
    # black-angel.ko.txt [3] 9-15: 5 VP, robots 5/1 per workstation/8, 3 starting tiles,
    # 1 mission per colour + 1 Ravager, 1 resource, 1 debris, 1 ship, then the aids
    s = BlackAngelState.new(4, 2, "base")
    for p in range(4):
        assert s.vp[p] == 5
        assert (s.rbreak[p], s.work[p], s.rsup[p]) == (5, [1, 1, 1], 8)
        assert sorted(t for t in s.grid[p] if t >= 0) == list(D.START_TILES[p])
        assert sorted(D.MISSION_COLOUR[m] for m in s.hand_m[p]) == [0, 1, 2]
        assert len(s.hand_r[p]) == 1
        assert len(s.comp[p]) == 3 and sorted(c >> 3 for c in s.comp[p]) == [0, 1, 2]
        assert s.shp[p] == 1
    assert (s.res[0], s.deb[0]) == (1, 1)  # the first player gets no advantage
    assert (s.res[1], s.deb[1]) == (1, 2)
    assert (s.res[2], s.deb[2]) == (2, 1)
    assert (s.res[3], s.deb[3]) == (2, 2)


def test_free_reserved_die_for_third_and_fourth() -> None:
    # black-angel.ko.txt [3] 보안 주사위: 3rd and 4th may reserve one die for free at setup
    s = BlackAngelState.new(4, 2, "base")
    assert s.phase == "setup_reserve" and s.seat == 2
    s.apply("reserve:0")
    assert s.comp[2][0] & 4
    assert s.seat == 3
    s.apply("none")
    assert s.phase == "turn" and s.seat == 0
    assert not any(c & 4 for c in s.comp[3])
    assert BlackAngelState.new(2, 2, "base").phase == "turn"


def test_two_player_neutral_setup() -> None:
    # black-angel.ko.txt [6] 2인 게임: a neutral robot on each workstation, its dice rolled
    s = BlackAngelState.new(2, 4, "base")
    assert s.nwork == [1, 1, 1]
    assert sorted(c >> 3 for c in s.comp[2]) == [0, 1, 2]


def test_solo_setup() -> None:
    # black-angel.ko.txt [6] 1인 게임: 4 dice, 5 strips, 12 Ravagers out, Hal at 5 VP, 3 dice
    s = BlackAngelState.new(1, 4, "solo")
    # "할의 디스크 하나를 승점 트랙의 5점 칸에 놓고": no player aid for Hal
    assert s.hal_vp == 5 and len(s.comp[1]) == 3 and len(s.hal_deck) == 12
    assert len(s.rav_deck) == 30 - 12 - 2 - 1
    assert BlackAngelState.new(1, 4, "solo-d15").hal_vp == 15
    assert BlackAngelState.new(1, 4, "solo-d0").hal_vp == 0


def test_bad_configurations_are_refused() -> None:
    with pytest.raises(ConfigError):
        BlackAngelState.new(5, 1, "base")
    with pytest.raises(ConfigError):
        BlackAngelState.new(2, 1, "solo")
    with pytest.raises(ConfigError):
        BlackAngelState.new(3, 1, "no-such")


def test_data_files_mark_every_entry() -> None:
    import json

    for path in sorted((D._DIR).glob("*.json")):
        data = json.loads(path.read_text())
        for key, val in data.items():
            if isinstance(val, list):
                for entry in val:
                    if isinstance(entry, dict):
                        assert entry.get("source") in ("rulebook", "designed"), (path.name, key, entry)
    assert len(D.MISSION) == 60 and len(D.RAVAGER) == 30 and len(D.ADV) == 16
    assert sum(1 for t in D.TILE if t < 100) == 48 and sum(1 for t in D.TILE if t >= 100) == 12
    assert len(D.STRIPS) == 7 and len(D.HAL_CARDS) == 12
    for c in range(3):
        assert len(D.MISSIONS_BY_COLOUR[c]) == 20 and len(D.TECH_BY_COLOUR[c]) == 16
