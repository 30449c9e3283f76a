"""Rules of the base game, each on a constructed state; comments cite the rulebook section
(star-scrappers-orbital.ko.txt)."""

from __future__ import annotations

import pytest

from referee.engine import IllegalAction
from referee.orbital import rules
from referee.orbital import station as geo
from referee.orbital.data import CARD_COUNT, COLOUR_INDEX, RULES
from referee.orbital.state import P_DISCARD, P_INCOME, P_KEEP, P_OVER, OrbitalState
from tests.orbital.helpers import E, N, S, W, card, fresh, give, ids, put


# --------------------------------------------------------------------------- 게임 준비
def test_setup_cores_market_crew_money_deal_eight_keep_five() -> None:
    # 게임 준비 1-6
    st = OrbitalState.new(3, 4)
    assert st.phase == P_KEEP and st.year == 1
    assert [len(s) for s in st.mods] == [1, 1, 1]  # a basic core module each
    assert st.core == [COLOUR_INDEX["red"]] * 3
    assert sorted(st.upgrades) == sorted(COLOUR_INDEX[c] for c in ("green", "blue", "yellow", "purple", "orange"))
    assert len(st.market) == 5 and st.mc == [16, 16, 16] and st.crew == [1, 1, 1]
    assert [len(h) for h in st.hands] == [8, 8, 8]
    assert len(st.deck) + 5 + 24 == CARD_COUNT
    seat = st.to_move()
    dealt = list(st.hands[seat])
    for _k in range(3):
        assert st.option_audience(f"return:{st.hands[seat][0]}") == (seat,)
        st.apply(f"return:{st.hands[seat][0]}")
    assert len(st.hands[seat]) == 5 and set(st.hands[seat]) <= set(dealt)
    assert st.to_move() != seat or st.phase != P_KEEP


def test_keep_phase_events_hide_the_cards() -> None:
    st = OrbitalState.new(2, 4)
    opening = st.opening_events()
    dealt = [line for line in opening if "dealt" in line]
    assert [getattr(x, "audience", None) for x in dealt] == [(0,), (1,)]


# --------------------------------------------------------------------------- 게임 라운드
def test_year_ends_only_when_every_player_passes_in_succession() -> None:
    # 게임 라운드 » 패스: a player who passed may act again; all in succession ends the year.
    st = fresh(3)
    st.apply("pass")  # P1
    give(st, 1, card("Corridor"))
    st.apply(next(i for i in ids(st) if i.startswith("build:")))  # P2 builds: the run restarts
    st.apply("pass")  # P3
    assert st.year == 1 and st.to_move() == 0
    assert any(i.startswith("build") or i == "pass" for i in ids(st))  # P1 acts again
    st.apply("pass")  # P1 (second in succession)
    assert st.year == 1
    st.apply("pass")  # P2: third pass in succession
    assert st.year == 2 or st.phase in (P_INCOME, P_DISCARD)


def test_build_costs_six_and_five_joined_to_the_same_colour() -> None:
    # 모듈 건설 (비용: 6MC): 같은 색 모듈끼리 연결했다면 1MC 할인
    st = fresh()
    corridor, bio = card("Corridor"), card("Hydroponics")
    give(st, 0, corridor, bio)
    assert f"build:{corridor}:0.{W}" in ids(st)
    assert rules.build_cost(st, 0, corridor, 0) == 5  # red on the red core
    assert rules.build_cost(st, 0, bio, 0) == 6
    st.apply(f"build:{bio}:0.{W}")
    assert st.mc[0] == 14 and st.mods[0][1][0] == bio


def test_new_module_goes_on_a_free_exit_without_overlap() -> None:
    # 모듈 건설: 새 모듈은 항상 비어있는 출구에; 겹치거나 덮을 수 없습니다; 출구가 없다면 건설 불가
    st = fresh()
    quarters = [card("Crew Quarters", k) for k in range(3)]  # no exits
    for d in (N, E, S):
        put(st, 0, card("Crew Quarters", 0) if d == N else card("Boutique", d - 1), 0, d)
    jn = put(st, 0, card("Junction"), 0, W)  # at (-1, 0), heading west: exits south and north
    assert sorted(geo.exits(st.mods[0][jn])) == [N, S]
    hub = put(st, 0, card("Hub"), jn, N)  # (-1,-1) heading north: exits W, N, E
    slots = geo.free_slots(st.mods[0])
    # (0,-1) is taken by the Crew Quarters: the hub's east exit is blocked (no overlap)
    assert (hub, E) not in slots and (hub, N) in slots and (jn, S) in slots
    give(st, 0, quarters[1])
    st.mods[0][jn][geo.D] = 1
    st.mods[0][hub][geo.D] = 1
    st._cache = None
    assert geo.free_slots(st.mods[0]) == []  # damaged modules take no new connections
    assert not any(i.startswith("build:") for i in ids(st))


def test_upgrade_core_once_for_four_mc_takes_colour_and_effect() -> None:
    # 코어 모듈 업그레이드 (비용: 4MC): 게임 중 한번; 빨강이 아닌 업그레이드 카드의 색
    st = fresh(mc=10)
    st.apply("upgrade:yellow")
    assert st.mc[0] == 6 and st.core[0] == COLOUR_INDEX["yellow"]
    assert COLOUR_INDEX["yellow"] not in st.upgrades
    assert rules.colour_counts(st, 0)[COLOUR_INDEX["yellow"]] == 1
    assert rules.colour_counts(st, 0)[COLOUR_INDEX["red"]] == 0
    assert "upgrade:yellow" not in ids(st)  # P2 cannot take the same card
    st.apply("pass")
    assert not any(i.startswith("upgrade:") for i in ids(st))  # P1 only once a game


def test_market_costs_by_distance_and_the_row_closes_up() -> None:
    # 카드 구입 (비용: 1~5MC)
    st = fresh(mc=20)
    row = list(st.market)
    st.apply("buy:4")
    assert st.mc[0] == 15 and st.hands[0] == [row[4]] and st.market == row[:4]
    st.apply("pass")  # P2
    st.apply("buy:0")  # P1 again: the card farthest from the deck is always 1 MC
    assert st.mc[0] == 14 and st.market == row[1:4]
    labels = [o.label for o in st.legal_options() if o.id.startswith("buy")]
    assert [lab.rsplit(" ", 2)[-2] for lab in labels] == ["1", "2", "3"]


def test_activate_uses_crew_from_the_core_once_a_year() -> None:
    # 모듈 작동하기: 승무원은 코어에서; 승무원과 모듈은 한 해에 한 번씩만
    st = fresh(mc=0)
    casino = put(st, 0, card("Casino"), 0, W)
    hotel = put(st, 0, card("Hotel"), 0, E)  # always on: no action
    assert f"act:{hotel}" not in ids(st)
    st.apply(f"act:{casino}")
    assert st.mc[0] == 4 and st.crew[0] == 0 and st.mods[0][casino][geo.W] == 1
    st.apply("pass")
    st.crew[0] = 5
    st._cache = None
    assert f"act:{casino}" not in ids(st)


def test_damaged_module_loses_ability_colour_population() -> None:
    # 게임의 주요 개념 » 손상
    st = fresh()
    hq = put(st, 0, card("Hydroponics"), 0, W)  # green, population 2
    casino = put(st, 0, card("Casino"), 0, E)
    assert geo.population(st.mods[0], 0) == 3
    st.mods[0][hq][geo.D] = 2  # several tokens on one module
    st.mods[0][casino][geo.D] = 1
    st._cache = None
    assert geo.population(st.mods[0], 0) == 1
    assert rules.colour_counts(st, 0)[COLOUR_INDEX["green"]] == 0
    assert f"act:{casino}" not in ids(st)
    st.apply(f"repair:{hq}")  # 모듈 수리하기 (비용: 3MC): one token
    assert st.mods[0][hq][geo.D] == 1 and st.mc[0] == 17


def test_core_is_never_damaged() -> None:
    st = fresh()
    events: list[str] = []
    rules.damage(st, 1, 0, events)
    assert st.mods[1][0][geo.D] == 0
    assert rules.end_targets(st, 1) == []


def test_event_only_when_its_effect_can_apply() -> None:
    # 이벤트 카드 사용하기: 효과를 적용할 수 없다면 사용할 수 없습니다
    st = fresh()
    er = card("Emergency Repairs")
    give(st, 0, er)
    assert f"event:{er}" not in ids(st)
    m = put(st, 0, card("Corridor"), 0, N)
    st.mods[0][m][geo.D] = 2
    st._cache = None
    st.apply(f"event:{er}")
    assert st.mods[0][m][geo.D] == 0 and er in st.discard


# --------------------------------------------------------------------------- 한 해의 끝
def _end_year(st: OrbitalState) -> None:
    while st.year == 1 and st.phase != P_OVER:
        opts = ids(st)
        st.apply("pass" if "pass" in opts else opts[0])


def test_majority_vp_ties_all_score_core_included_damaged_not() -> None:
    # 한 해의 끝 1. 승점 획득
    st = fresh(3)
    put(st, 0, card("Casino"), 0, N)
    put(st, 1, card("Casino", 1), 0, N)
    g = put(st, 2, card("Hydroponics"), 0, N)
    put(st, 2, card("Biodome"), 0, E)
    st.mods[2][g][geo.D] = 1
    _end_year(st)
    # red: all three cores tie (1 each) -> +1 each; yellow: P1 and P2 tie; green: P3's undamaged biodome
    assert st.vp == [2, 2, 2]


def test_last_year_majorities_score_two_and_the_game_ends() -> None:
    st = fresh(2)
    st.year = 5
    put(st, 0, card("Casino"), 0, N)
    st.apply("pass")
    st.apply("pass")
    assert st.phase == P_OVER and st.vp == [4, 2]
    assert st.result().ranks == (1, 2)


def test_year_end_market_crew_income_draw_repair_new_year() -> None:
    # 한 해의 끝 2-7
    st = fresh(2, mc=0)
    put(st, 0, card("Hydroponics"), 0, N)
    put(st, 0, card("Biodome"), 0, E)
    dmg = put(st, 0, card("Barracks"), 0, S)
    st.mods[0][dmg][geo.D] = 1
    old_market = list(st.market)
    st.apply("pass")
    st.apply("pass")
    assert st.phase == P_INCOME and st.to_move() == 0
    assert set(ids(st)) == {"income:red", "income:green"}
    assert st.crew[0] == 1 + 2 + 1  # core 1, hydroponics 2, biodome 1; damaged barracks 0
    assert not set(st.market) & set(old_market) and set(old_market) <= set(st.discard)
    st.apply("income:green")
    assert st.mc[0] == 9  # 7 + 2 green
    assert st.mc[1] == 8  # P2 had one choice: red core
    assert st.year == 2 and st.first == 1 and st.cur == 1
    assert [len(h) for h in st.hands] == [4, 4]
    assert st.mods[0][dmg][geo.D] == 0


def test_hand_limit_discard_is_a_private_decision() -> None:
    # 5. 카드 뽑기: 핸드 제한 5
    st = fresh(2)
    give(st, 0, *[card("Corridor", k) for k in range(4)])
    st.apply("pass")
    st.apply("pass")
    assert st.phase == P_DISCARD and st.to_move() == 0 and len(st.hands[0]) == 8
    for _ in range(3):
        option = ids(st)[0]
        assert st.option_audience(option) == (0,)
        events = st.apply(option)
        assert any(getattr(e, "audience", None) == (0,) for e in events)
    assert len(st.hands[0]) == 5 and st.year == 2


def test_data_center_raises_the_hand_limit_unless_damaged() -> None:
    st = fresh(2)
    dc = put(st, 0, card("Data Center"), 0, N)
    assert rules.hand_limit(st, 0) == 6
    st.mods[0][dc][geo.D] = 1
    assert rules.hand_limit(st, 0) == 5


def test_empty_deck_reshuffles_the_discard_pile() -> None:
    st = fresh(2)
    st.discard = st.deck[:-2]
    st.deck = st.deck[-2:]
    events: list[str] = []
    got = rules.draw(st, 0, 4, events)
    assert len(got) == 4 and "reshuffled" not in events and any("shuffled" in e for e in events)


def test_tie_breakers_population_then_mc() -> None:
    # 동점인 경우 손상되지 않은 모듈의 인구 아이콘, 여전히 동점이라면 메가크레딧
    st = fresh(3)
    st.year = 5
    st.mc = [3, 5, 5]
    put(st, 0, card("Hydroponics"), 0, N)  # pop 3 but green majority too
    put(st, 1, card("Hydroponics", 1), 0, N)
    st.vp = [0, 0, 0]
    for _ in range(3):
        st.apply("pass")
    r = st.result()
    assert st.vp[0] == st.vp[1]
    assert r.ranks == (2, 1, 3)


def test_illegal_option_is_refused() -> None:
    st = fresh()
    with pytest.raises(IllegalAction):
        st.apply("build:0:0.9")


def test_rules_numbers_follow_the_rulebook() -> None:
    assert (RULES["build_cost"], RULES["upgrade_cost"], RULES["repair_cost"], RULES["start_mc"]) == (6, 4, 3, 16)
    assert (RULES["income_base"], RULES["year_draw"], RULES["hand_limit"], RULES["years"]) == (7, 4, 5, 5)
