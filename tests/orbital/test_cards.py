"""Each named event and module (the rulebook names them; their effects are designed data)."""

from __future__ import annotations

from referee.orbital import rules
from referee.orbital import station as geo
from referee.orbital.state import P_COUNT, P_MAIN, P_OBS, P_PICK, P_TARGET, P_VIA
from tests.orbital.helpers import E, N, S, W, card, fresh, give, ids, put


def test_meteor_storm_damages_the_undamaged_end_modules_of_a_station() -> None:
    # 게임의 주요 개념 » 말단 모듈: exposed to <유성 폭풍>
    st = fresh(3)
    ms = card("Meteor Storm")
    give(st, 0, ms)
    corridor = put(st, 1, card("Corridor"), 0, N)
    tip = put(st, 1, card("Casino"), corridor, N)
    side = put(st, 1, card("Boutique"), 0, E)
    st.apply(f"event:{ms}")
    assert st.phase == P_TARGET and set(ids(st)) == {"tgt:1"}  # P3 has no end module but the core
    st.apply("tgt:1")
    dmg = [m[geo.D] for m in st.mods[1]]
    assert dmg[tip] == 1 and dmg[side] == 1 and dmg[corridor] == 0 and dmg[0] == 0


def test_quiet_year_makes_a_player_discard_at_random() -> None:
    st = fresh(2)
    qy = card("Quiet Year")
    give(st, 0, qy)
    assert f"event:{qy}" not in ids(st)  # P2 has no cards: cannot apply
    give(st, 1, card("Corridor"), card("Casino"))
    st.apply(f"event:{qy}")
    events = st.apply("tgt:1")
    assert len(st.hands[1]) == 1 and any(getattr(e, "audience", None) == (1,) for e in events)


def test_insider_contact_takes_a_market_card_free() -> None:
    st = fresh(2, mc=0)
    ic = card("Insider Contact")
    give(st, 0, ic)
    third = st.market[2]
    st.apply(f"event:{ic}")
    assert st.phase == P_PICK
    st.apply("pick:2")
    assert third in st.hands[0] and st.mc[0] == 0 and len(st.market) == 4


def test_insider_contact_in_solo_competitive_draws_two() -> None:
    # 1인 규칙: 내부자 연락처 이벤트 카드는 마켓에서 1장을 가져오는 대신 카드 더미에서 2장
    st = fresh(1, "competitive")
    ic = card("Insider Contact")
    give(st, 0, ic)
    assert st.market == []
    st.apply(f"event:{ic}")
    assert len(st.hands[0]) == 2


def test_reinforcements_arrive_adds_crew() -> None:
    st = fresh(2)
    ra = card("Reinforcements Arrive")
    give(st, 0, ra)
    st.apply(f"event:{ra}")
    assert st.crew[0] == 3


def test_economic_crisis_costs_every_other_player() -> None:
    st = fresh(3)
    st.mc = [5, 2, 9]
    ec = card("Economic Crisis")
    give(st, 0, ec)
    st.apply(f"event:{ec}")
    assert st.mc == [5, 0, 6]


def test_crew_rotation_returns_used_crew() -> None:
    st = fresh(2)
    casino = put(st, 0, card("Casino"), 0, N)
    cr = card("Crew Rotation")
    give(st, 0, cr)
    assert f"event:{cr}" not in ids(st)  # no used crew: no effect
    st.apply(f"act:{casino}")
    st.apply("pass")
    st.apply(f"event:{cr}")
    assert st.crew[0] == 1 and st.mods[0][casino][geo.W] == 0 and st.mods[0][casino][geo.U] == 1


def test_cold_war_pays_per_purple_module() -> None:
    st = fresh(2, mc=0)
    cw = card("Cold War")
    give(st, 0, cw)
    assert f"event:{cw}" not in ids(st)
    put(st, 0, card("Barracks"), 0, N)
    put(st, 0, card("Barracks", 1), 0, S)
    st._cache = None
    st.apply(f"event:{cw}")
    assert st.mc[0] == 4


def test_high_risk_project_spends_crew_for_mc_and_damages_own_end_module() -> None:
    st = fresh(2, mc=0)
    hr = card("High-Risk Project")
    give(st, 0, hr)
    st.crew[0] = 3
    end = put(st, 0, card("Casino"), 0, W)
    st.apply(f"event:{hr}")
    assert st.phase == P_COUNT and ids(st) == ["crew:1", "crew:2", "crew:3"]
    st.apply("crew:2")
    assert st.crew[0] == 1 and st.mc[0] == 6 and st.mods[0][end][geo.D] == 1


def test_hull_breach_removes_a_damaged_end_module() -> None:
    # 게임의 주요 개념 » 제거: the module is discarded, its tokens go back
    st = fresh(2)
    hb = card("Hull Breach")
    give(st, 0, hb)
    c = card("Corridor")
    i = put(st, 1, c, 0, N)
    assert f"event:{hb}" not in ids(st)
    st.mods[1][i][geo.D] = 1
    st._cache = None
    st.apply(f"event:{hb}")
    st.apply(f"tgt:1:{i}")
    assert len(st.mods[1]) == 1 and c in st.discard


def test_command_hq_builds_two_mc_cheaper() -> None:
    st = fresh(2, mc=4)
    hq = put(st, 0, card("Command HQ"), 0, N)
    bio = card("Hydroponics")
    give(st, 0, bio)
    assert not any(i.startswith("build:") for i in ids(st))  # 6 MC: too dear
    st.apply(f"act:{hq}")
    assert st.phase == P_VIA
    st.apply(f"build:{bio}:0.{W}")
    assert st.mc[0] == 0 and st.mods[0][-1][0] == bio and st.crew[0] == 0


def test_military_command_builds_purple_three_cheaper() -> None:
    st = fresh(2, mc=3)
    mil = put(st, 0, card("Military Command"), 0, N)
    barracks = card("Barracks")
    give(st, 0, barracks)
    st.apply(f"act:{mil}")
    st.apply(f"build:{barracks}:0.{W}")
    assert st.mc[0] == 0


def test_workshop_repairs_for_crew() -> None:
    st = fresh(2, mc=0)
    ws = put(st, 0, card("Workshop"), 0, N)
    other = put(st, 0, card("Casino"), 0, E)
    st.mods[0][other][geo.D] = 2
    st._cache = None
    st.apply(f"act:{ws}")
    st.apply(f"tgt:0:{other}")
    assert st.mods[0][other][geo.D] == 1 and st.mc[0] == 0


def test_observatory_draws_three_keeps_one_privately() -> None:
    st = fresh(2)
    obs = put(st, 0, card("Observatory"), 0, N)
    st.apply(f"act:{obs}")
    assert st.phase == P_OBS and len(st.peek) == 3
    assert st.observation(0)["peek"] and not st.observation(1)["peek"]
    keep = st.peek[1]
    assert st.option_audience(f"keep:{keep}") == (0,)
    st.apply(f"keep:{keep}")
    assert st.hands[0] == [keep] and st.peek == [] and st.phase == P_MAIN


def test_airlock_makes_repairs_cheaper() -> None:
    st = fresh(2)
    put(st, 0, card("Airlock"), 0, N)
    assert rules.repair_cost(st, 0) == 2


def test_robot_arm_takes_the_top_discard() -> None:
    st = fresh(2)
    arm = put(st, 0, card("Robot Arm"), 0, N)
    st.discard.append(card("Casino"))
    st._cache = None
    st.apply(f"act:{arm}")
    assert st.hands[0] == [card("Casino")]


def test_weapon_platform_damages_an_end_module_of_another_station() -> None:
    st = fresh(2)
    wp = put(st, 0, card("Weapon Platform"), 0, N)
    inner = put(st, 1, card("Corridor"), 0, S)
    tip = put(st, 1, card("Casino"), inner, S)
    st.apply(f"act:{wp}")
    assert ids(st) == [f"tgt:1:{tip}"]
    st.apply(f"tgt:1:{tip}")
    assert st.mods[1][tip][geo.D] == 1 and st.mc[0] == 19


def test_shield_generator_stops_the_first_damage_of_a_year() -> None:
    st = fresh(2)
    put(st, 1, card("Shield Generator"), 0, S)
    tip = put(st, 1, card("Casino"), 0, N)
    events: list[str] = []
    rules.damage(st, 1, tip, events)
    assert st.mods[1][tip][geo.D] == 0
    rules.damage(st, 1, tip, events)
    assert st.mods[1][tip][geo.D] == 1
