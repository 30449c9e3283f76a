"""Solitaire against Hal (black-angel.ko.txt [6] 1인 게임)."""

from __future__ import annotations

from referee.black_angel import board as B
from referee.black_angel import hal as H
from tests.black_angel.helpers import at, blank, give_die, play

ORANGE, GRAY, GREEN = 0, 1, 2
HAL = 1  # Hal's compartment index in a 1-player game


def solo(variant: str = "solo"):  # type: ignore[no-untyped-def]
    s = blank(1, variant)
    s.strips = [0, 1, 2, 3, 4]
    s.side = [0] * 7
    s.spes_token = 4
    s.cards, s.ships = {}, []
    s.hal_vp = 5
    return s


def _player_a(s):  # type: ignore[no-untyped-def]
    """You: sequence A with a green 1 on 'destroy' (no Ravagers: nothing happens)."""
    give_die(s, 0, GREEN, 1)
    play(s, "A", f"use:{len(s.comp[0]) - 1}", "act:5")
    if s.phase == "a_endflip":  # keep your other dice as they are
        play(s, "done")


def test_top_half_after_your_sequence_a() -> None:
    # black-angel.ko.txt [6] 1인 게임: 직전 턴에 시퀀스 A -> 카드 상단부 먼저
    s = solo()
    s.hal_deck = [0]  # top: orange discovery (advanced first); bottom: gray repair clockwise
    give_die(s, HAL, ORANGE, 2)
    give_die(s, HAL, GRAY, 1)
    s.a_disp = [200, 201, 202, 203]
    s.a_deck = [209]
    s.dmg[2] = 1
    _player_a(s)
    assert s.hal_vp == 5 + 2  # an advanced tile is worth 2 to Hal
    assert s.a_disp == [201, 202, 203, 209]  # the others slide, the row is refilled
    assert s.dmg[2] == 1 and s.comp[HAL] == [B.die(GRAY, 1)]


def test_bottom_half_after_your_sequence_b_and_repair_order() -> None:
    # black-angel.ko.txt [6] 1인 게임: 시퀀스 B -> 하단부; 수리: 시계방향 (1 -> 6); 주사위는 액션이 깨끗할 때만
    s = solo()
    s.hal_deck = [0]
    give_die(s, HAL, ORANGE, 2)
    give_die(s, HAL, GRAY, 3)
    s.dmg = [0, 0, 0, 1, 0, 1]
    s.sdmg[GREEN] = 1
    s.res[0] = 0
    s.work[0] = [0, 0, 0]  # you roll nothing, so the damaged die stays in the supply
    play(s, "B")
    assert s.dmg == [0] * 6 and s.sdmg[GREEN] == 0
    assert s.hal_vp == 5 + 3  # three debris
    assert s.comp[HAL] == [B.die(ORANGE, 2)]


def test_other_half_when_the_colour_is_missing_then_three_vp() -> None:
    # black-angel.ko.txt [6] 1인 게임: 표시된 색상의 주사위가 없다면 반대쪽; 그것도 없으면 나머지 색 주사위를 되돌리고 3점
    s = solo()
    s.hal_deck = [0]
    give_die(s, HAL, GREEN, 3)
    _player_a(s)
    assert s.hal_vp == 5 + 3 and s.comp[HAL] == []
    s2 = solo()
    s2.hal_deck = [0]
    give_die(s2, HAL, GRAY, 1)
    s2.dmg[0] = 1
    _player_a(s2)
    assert s2.dmg[0] == 0 and s2.hal_vp == 6


def test_hal_takes_the_highest_die_his_own_first_and_buys_yours() -> None:
    # black-angel.ko.txt [6] 주사위 선택: 가장 높은 눈; 같으면 할 자신의 것; 당신 것이면 구매 (당신은 자원 1)
    s = solo()
    s.hal_deck = [4]  # top: gray repair counter-clockwise; bottom: orange command
    give_die(s, HAL, GRAY, 1)
    give_die(s, 0, GRAY, 3)
    give_die(s, 0, GRAY, 3, secure=True)
    s.dmg = [1, 1, 0, 0, 0, 1]
    res = s.res[0]
    _player_a(s)
    assert s.dmg == [0, 0, 0, 0, 0, 0]  # counter-clockwise, 3 cubes
    assert s.res[0] == res + 1
    assert s.comp[HAL] == [B.die(GRAY, 1)] and s.comp[0] == [B.die(GRAY, 3, 1)]


def test_buying_hals_die_gives_him_one_vp() -> None:
    # black-angel.ko.txt [6] 명확화: 할의 주사위를 구매하면 자원 1개 -> 할은 버리고 승점 1점
    s = solo()
    give_die(s, HAL, ORANGE, 3)
    give_die(s, 0, GREEN, 0)
    s.res[0] = 1
    s.hand_m[0] = []
    s.hal_deck = [0]
    play(s, "A", "buy:1:0")
    assert s.hal_vp == 6 and s.res[0] == 0


def test_hal_destroys_as_many_ravagers_as_possible() -> None:
    # black-angel.ko.txt [6] 약탈자 격파: 가능한 많이; 총수를 줄이는 액션은 뛰어넘음
    s = solo()
    s.rav_on[0] = [101]
    s.rav_on[1] = [105, 106]
    assert H._hal_destroy(s, 2, "clockwise")
    assert s.rav_on[0] == [101] and s.rav_on[1] == []
    assert s.hal_vp == 5 + 2


def test_hal_damaged_action_and_star_score_three() -> None:
    # black-angel.ko.txt [6] 할의 액션: 손상된 액션 -> 눈 1 감소 (README: 10은 1의 오타); 0이면 3점
    s = solo()
    s.hal_deck = [1]  # top: gray command; bottom: green destroy clockwise
    give_die(s, HAL, GREEN, 1)
    s.dmg[4] = 2
    s.rav_on[4] = [120, 121]
    s.res[0] = 0
    play(s, "B")
    assert s.hal_vp == 5 + 3 and s.rav_on[4] == [120, 121]


def test_hal_places_neutral_on_first_strip_comet_bonus() -> None:
    # black-angel.ko.txt [6] 우주선 지휘: 중립 -> 첫 번째 우주 타일; 두 칸이면 혜성 칸 + 3점; 보상은 승점으로
    s = solo()
    s.m_deck[ORANGE].append(1)  # an orange neutral mission, reward 1 resource + 2 VP
    s.rav_deck = [129, 128, 127]
    H._hal_command(s, ORANGE)
    hk = at(s, 0, 4)
    assert s.cards[hk] == [1, -1]
    assert s.hal_vp == 5 + 3 + 1 + 2


def test_hal_places_active_on_fifth_strip() -> None:
    # black-angel.ko.txt [6] 우주선 지휘: 활성 -> 다섯 번째 우주 타일부터 거꾸로
    s = solo()
    s.m_deck[ORANGE].append(0)  # an orange active mission, reward 4 VP
    H._hal_command(s, ORANGE)
    assert s.cards[at(s, 4, 3)] == [0, -1]
    assert s.hal_vp == 5 + 4


def test_hal_without_dice_rerolls_and_advances() -> None:
    # black-angel.ko.txt [6] 할의 객실에 주사위가 없다: 다시 굴리고 블랙 엔젤 전진
    s = solo()
    _player_a(s)
    assert len(s.comp[HAL]) == 3 and s.advances == 1


def test_hal_card_ejected_scores_three() -> None:
    # black-angel.ko.txt [6] 1인 게임: 할의 카드가 배출되면 즉시 3점; 버린 카드 더미로
    s = solo()
    s.cards[at(s, 0, 0)] = [0, -1]
    s.res[0] = 0
    play(s, "B")
    assert s.m_disc[ORANGE] == [0]


def test_hal_owner_activation_converts_to_vp() -> None:
    # black-angel.ko.txt [6] 명확화: 할의 활성 미션을 활성화하면 할은 항상 효과를 적용받음
    s = solo()
    hk = at(s, 1, 0)
    s.cards[hk] = [22, -1]  # gray active: +1 resource per activation
    s.ships = [[0, hk]]
    give_die(s, 0, GRAY, 2)
    give_die(s, HAL, ORANGE, 0)
    s.hal_deck = [0]
    res = s.res[0]
    play(s, "A", "use:0", f"mis:{hk}")
    assert s.res[0] == res + 2
    assert s.hal_vp >= 5 + 1


def test_difficulty_levels() -> None:
    # black-angel.ko.txt [6] 1인 게임 게임 준비: "할의 디스크 하나를 승점 트랙의 5점 칸에 놓고";
    # 게임 종료: 쉬움 0점, 보통 5점, 어려움 10점, 매우 어려움 15점 — and Hal takes no player aid
    from referee.black_angel.state import BlackAngelState

    for variants, vp in ((("solo-d0", "solo-advanced-d0"), 0), (("solo", "solo-advanced"), 5),
                         (("solo-d10", "solo-advanced-d10"), 10), (("solo-d15", "solo-advanced-d15"), 15)):
        for v in variants:
            for seed in range(3):
                assert BlackAngelState.new(1, seed, v).hal_vp == vp, (v, seed)


def _finished(you: int, hal: int):  # type: ignore[no-untyped-def]
    from referee.black_angel.state import BlackAngelState

    s = BlackAngelState.new(1, 1, "solo")
    s.over, s.spes_reached = True, False
    s.vp[0], s.hal_vp = you, hal
    s.grid[0] = [-1] * 9  # no advanced tiles: the score is the track
    s.ej_over[0], s.ej_adv[0] = [], [-1, -1, -1]
    return s.result()


def test_solo_result_ranks_you_against_hal() -> None:
    # black-angel.ko.txt [6] 1인 게임 게임 종료: "할보다 승점이 높으면 게임에서 승리합니다"
    won = _finished(30, 20)
    assert won.ranks == (1,) and won.details["beat_hal"] is True
    assert won.details["automaton"] == "Hal" and won.details["automaton_rank"] == 2
    assert won.details["outcome"] == "beat Hal, 30 to 20"
    lost = _finished(3, 60)
    assert lost.ranks == (2,) and lost.details["beat_hal"] is False  # a loss is not rank 1
    assert lost.details["automaton_rank"] == 1 and lost.details["outcome"] == "lost to Hal, 3 to 60"
    tie = _finished(25, 25)  # "higher than Hal" wins: a tie is a loss
    assert tie.ranks == (2,) and tie.details["outcome"].startswith("lost to Hal")


def test_solo_loss_keeps_rank_two_after_the_match_runner() -> None:
    # the recorded ranks (forfeits last) and the ratings' effective ranks keep the automaton
    from arena.evaluation.ratings import effective_ranks
    from referee.record import final_ranks

    assert final_ranks([2], set(), 1) == [2] and final_ranks([1], set(), 2) == [1]
    assert final_ranks([1], {0}, 2) == [2]  # a forfeited seat ranks behind Hal
    assert effective_ranks([2], [], 1) == [2] and effective_ranks([1], [], 2) == [1]
    assert effective_ranks([1], [0], 2) == [2]


def test_hal_gain_lines_say_what_he_gained() -> None:
    # black-angel.ko.txt [6] 1인 게임: everything Hal receives becomes VP at once (his card backs)
    s = solo()
    s.a_disp = [200, -1, -1, -1]
    s.display = [-1, -1, 5, -1, -1, 7]
    log: list[str] = []
    s.log = log
    assert H._hal_discover(s, 3, "advanced")
    assert any(line.startswith("Hal takes advanced tile 200") and "+2 VP" in line for line in log)
    assert any(line.startswith("Hal takes") and "technology tile 7" in line and "+1 VP" in line for line in log)
    s.dmg = [1, 0, 0, 0, 0, 1]
    assert H._hal_repair(s, 2, "clockwise")
    assert "Hal repairs 2 damage cube(s) into debris: +2 VP" in log
    s.rav_on[1] = [100]
    assert H._hal_destroy(s, 1, "clockwise")
    assert "Hal destroys 1 Ravager(s): +1 VP" in log
    B.apply_effect(s, -1, {"vp": 2, "resource": 1})
    assert log[-1].startswith("Hal converts what he gains (2 VP, +1 resource) into 3 VP")


def test_hal_comet_bonus_is_logged() -> None:
    # black-angel.ko.txt [6] 할의 우주선 지휘: 두 칸이 해당하면 혜성이 있는 칸에 놓고 승점 3점
    s = solo()
    s.m_deck[ORANGE] = [1]  # a neutral orange mission: first strip, two orange hexes, one a comet
    s.log = []
    H._hal_command(s, ORANGE)
    assert any("comet" in line and "+3 VP" in line for line in s.log)


def test_hal_ignores_ravager_effects() -> None:
    # black-angel.ko.txt [6] 할의 액션 처리: 약탈자 카드에 영향을 받아도 할은 아무것도 잃지 않음
    s = solo()
    s.hal_deck = [0]
    give_die(s, HAL, ORANGE, 1)
    s.rav_on[0] = [100, 101, 102]
    s.display = [-1, -1, 5, -1, -1, -1]
    vp = s.hal_vp
    _player_a(s)
    assert s.hal_vp == vp + 1 and s.display == [-1] * 6 and len(s.rav_on[0]) == 3
