"""End of game and scoring (black-angel.ko.txt [5] 게임 종료)."""

from __future__ import annotations

from referee.black_angel import scoring
from tests.black_angel.helpers import blank, give_die, ids, play


def test_round_is_finished_then_one_more_round() -> None:
    # black-angel.ko.txt [5]: 진행 중인 라운드를 마친 후에 마지막 라운드를 한 번 더
    s = blank(3)
    s.res = [0, 0, 0]
    play(s, "B")  # seat 0
    s.trigger_end()
    r = s.round
    adv = s.advances
    play(s, "B", "B")  # seats 1, 2 finish the round: no advance any more
    assert s.round == r + 1 and not s.over
    assert s.advances == adv  # 알림: 블랙 엔젤은 더 이상 전진하지 않습니다
    for _ in range(3):
        assert not s.over
        opts = ids(s)
        play(s, "pass" if "pass" in opts else "B")
    assert s.over and s.to_move() is None and s.legal_options() == []


def test_final_turn_may_be_skipped_when_b_is_forced() -> None:
    # black-angel.ko.txt [5] 중요사항: 최종 턴에 시퀀스 B를 수행해야 한다면 걸러도 됩니다
    s = blank(2)
    s.res = [0, 0]
    s.trigger_end()
    s.round = s.last_round
    assert ids(s) == ["B", "pass"]
    give_die(s, 0, 0, 1)
    assert ids(s) == ["A", "B"]


def test_advanced_tile_caps_and_distinct_components() -> None:
    # black-angel.ko.txt [5]: 배출 안 된 타일 4점, 3칸의 타일 4점 + 카드마다 2점; 알림: 구성품은 타일마다 달라야
    s = blank(2)
    s.grid[0] = [203, 211, -1, -1, -1, -1, -1, -1, -1]  # two "debris" tiles: cap 4 each
    s.deb[0] = 6
    s.gdeb[0] = [0] * 9
    assert scoring.advanced_vp(s, 0) == 6  # not 8: each debris counts once
    s.deb[0] = 10
    assert scoring.advanced_vp(s, 0) == 8
    s.grid[0] = [-1] * 9
    s.ej_adv[0] = [-1, 204, -1]  # "resources", beside the gray ejected missions
    s.ej_cards[0][1] = [20, 21, 22]
    s.res[0] = 12
    assert scoring.advanced_vp(s, 0) == 10
    s.ej_over[0] = [212]  # beyond the three spaces: cap 4, shares the resources
    assert scoring.advanced_vp(s, 0) == 12


def test_conversion_only_when_spes_was_reached() -> None:
    # black-angel.ko.txt [5]: 희망 행성 도달 시 로봇+자원+우주선 2:1 (나머지 버림); 아니면 없음
    s = blank(2)
    s.rbreak[0], s.res[0], s.shp[0] = 4, 2, 1
    s.spes_reached = False
    assert scoring.conversion_vp(s, 0) == 0
    s.spes_reached = True
    assert scoring.conversion_vp(s, 0) == 3


def test_ties_are_shared() -> None:
    # black-angel.ko.txt [5]: 동률 시, 공동 승리합니다
    s = blank(3)
    for p in range(3):
        s.grid[p] = [-1] * 9
    s.spes_reached = False
    s.vp = [9, 12, 12]
    s.over = True
    res = s.result()
    assert res.scores == (9.0, 12.0, 12.0) and res.ranks == (3, 1, 1)


def test_debris_on_tiles_returns_at_the_end() -> None:
    # black-angel.ko.txt [5] 알림: 게임 종료 시 기술 타일 위 잔해 큐브는 보관소로
    s = blank(2)
    s.res = [0, 0]
    s.gdeb[1] = [1, 1, 0, 0, 0, 0, 0, 0, 0]
    deb = s.deb[1]
    s.trigger_end()
    s.round = s.last_round
    play(s, "pass", "pass")
    assert s.over and s.deb[1] == deb + 2 and s.gdeb[1] == [0] * 9
