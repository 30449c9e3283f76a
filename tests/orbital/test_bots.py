"""1인 규칙 » 경쟁 버전: the bot algorithm's priorities and its targeting order."""

from __future__ import annotations

from referee.orbital import botplayer
from referee.orbital import station as geo
from referee.orbital.state import P_MAIN, OrbitalState
from tests.orbital.helpers import E, N, S, W, card, fresh, give, put


def bot_turn(st: OrbitalState, a: int) -> tuple[bool, list[str]]:
    st.cur = a
    events: list[str] = []
    return botplayer.take_turn(st, events), events


def test_target_module_order_left_of_core_inside_out_clockwise() -> None:
    # 봇 알고리즘 1: 코어 모듈의 왼쪽에서 시작해서 안쪽에서 바깥쪽으로 시계방향으로
    st = fresh(1, "competitive")
    s_ = put(st, 1, card("Hub", 0), 0, S)
    e_ = put(st, 1, card("Hub", 1), 0, E)
    n_ = put(st, 1, card("Corridor", 0), 0, N)
    w_ = put(st, 1, card("Junction", 0), 0, W)
    far = put(st, 1, card("Corridor", 1), w_, N)  # (-1,-1): ring 1 too, between W and N
    out = put(st, 1, card("Corridor", 2), far, N)  # (-1,-2): ring 2
    assert geo.target_order(st.mods[1]) == [w_, far, n_, e_, s_, out]


def test_leading_player_is_the_target_ties_go_left() -> None:
    # 이벤트 효과로 목표를 정할 때 앞서가는 플레이어, 동점이라면 다음 플레이어(왼쪽 플레이어)
    st = fresh(1, "competitive")
    for a in (0, 2):
        put(st, a, card("Casino", a), 0, N)
    st.vp = [3, 0, 3]
    assert botplayer.player_priority(st, 1) == [2, 0]
    assert botplayer.player_priority(st, 2) == [0, 1]
    st.vp = [5, 0, 3]
    assert botplayer.choose_target(st, 1, "attack_end") == (0, 1)


def test_bot_skips_damaged_modules_when_targeting() -> None:
    st = fresh(1, "competitive")
    w_ = put(st, 0, card("Boutique", 0), 0, W)
    n_ = put(st, 0, card("Boutique", 1), 0, N)
    st.mods[0][w_][geo.D] = 1
    st.vp = [9, 0, 0]
    assert botplayer.choose_target(st, 1, "attack_end") == (0, n_)


def test_bot_plays_a_revealed_event_against_the_leader() -> None:
    st = fresh(1, "competitive")
    st.vp = [4, 0, 1]
    tip = put(st, 0, card("Casino"), 0, W)
    put(st, 2, card("Casino", 1), 0, W)
    sab = card("Sabotage")
    give(st, 1, sab)
    passed, _ = bot_turn(st, 1)
    assert not passed and st.mods[0][tip][geo.D] == 1 and sab in st.discard and st.hands[1] == []


def test_bot_never_plays_reinforcements_or_economic_crisis_and_discards_for_two_mc() -> None:
    # 예외: 봇은 지원군 도착, 경제 위기를 사용할 수 없으며 ... 사용할 수 없다면 버려지며 2MC
    for name in ("Reinforcements Arrive", "Economic Crisis"):
        st = fresh(1, "competitive", mc=0)
        give(st, 1, card(name))
        bot_turn(st, 1)
        assert st.hands[1] == [] and st.mc[1] == 2 and st.crew[1] == 1 and st.mc[0] == 0


def test_bot_uses_crew_rotation_and_cold_war_only_with_an_effect() -> None:
    st = fresh(1, "competitive", mc=0)
    give(st, 1, card("Cold War"))
    bot_turn(st, 1)
    assert st.mc[1] == 2  # no purple module: discarded for 2 MC
    put(st, 1, card("Barracks"), 0, N)
    give(st, 1, card("Cold War", 1))
    bot_turn(st, 1)
    assert st.mc[1] == 4 and st.events_played[1] == 1


def test_high_risk_project_bot_uses_all_unused_crew() -> None:
    st = fresh(1, "competitive", mc=0)
    st.crew[1] = 3
    give(st, 1, card("High-Risk Project"))
    bot_turn(st, 1)
    assert st.crew[1] == 0 and st.mc[1] == 9


def test_quiet_year_against_a_bot_discards_the_top_of_its_stack() -> None:
    # 평온한 한 해 이벤트 카드가 봇을 목표로 할 경우, 해당 봇의 핸드 스택 맨 위에서 1장을 버린다
    st = fresh(1, "competitive")
    qy = card("Quiet Year")
    give(st, 0, qy)
    give(st, 1, card("Corridor"), card("Casino"))
    st.apply(f"event:{qy}")
    events: list[str] = []
    st.resolve_target(0, "quiet_year", 1, -1, events)
    assert st.hands[1] == [card("Corridor")] and card("Casino") in st.discard


def test_bot_builds_with_the_same_colour_discount_in_target_order() -> None:
    # 가능하면 할인받기 위해 같은 색의 모듈에 연결하며, 여러 개의 출구가 있을 경우엔 목표 모듈 순서
    st = fresh(1, "competitive", mc=11)
    hydro = put(st, 1, card("Hydroponics"), 0, S)  # green at (0,1)
    bio = card("Biodome")
    give(st, 1, bio)
    bot_turn(st, 1)
    new = st.mods[1][-1]
    assert new[0] == bio and new[geo.P] == hydro and st.mc[1] == 6
    casino = card("Casino")
    give(st, 1, casino)
    bot_turn(st, 1)  # no yellow module: the first free exit in target order (the core's west)
    new = st.mods[1][-1]
    assert new[0] == casino and (new[geo.X], new[geo.Y]) == (-1, 0) and st.mc[1] == 0


def test_bot_builds_through_command_hq_when_it_can() -> None:
    st = fresh(1, "competitive", mc=4)
    put(st, 1, card("Command HQ"), 0, N)
    give(st, 1, card("Casino"))
    bot_turn(st, 1)
    assert st.mods[1][-1][0] == card("Casino") and st.mc[1] == 0 and st.crew[1] == 0


def test_bot_discards_an_unbuildable_module_for_two_mc() -> None:
    st = fresh(1, "competitive", mc=3)
    give(st, 1, card("Casino"))
    bot_turn(st, 1)
    assert st.hands[1] == [] and st.mc[1] == 5 and len(st.mods[1]) == 1


def test_without_cards_the_bot_activates_in_target_order_skipping_build_and_repair_modules() -> None:
    # 봇 알고리즘 2; 지휘 본부/작업장/로봇 팔 are not activated
    st = fresh(1, "competitive", mc=0)
    st.crew[1] = 1
    put(st, 1, card("Workshop"), 0, W)
    put(st, 1, card("Robot Arm"), 0, N)
    casino = put(st, 1, card("Casino"), 0, E)
    st.discard.append(card("Corridor"))
    passed, _ = bot_turn(st, 1)
    assert not passed and st.mc[1] == 4 and st.mods[1][casino][geo.U] == 1


def test_bot_observatory_draws_one_card() -> None:
    st = fresh(1, "competitive")
    put(st, 1, card("Observatory"), 0, W)
    bot_turn(st, 1)
    assert len(st.hands[1]) == 1 and st.peek == []


def test_bot_repairs_first_in_target_order_with_a_workshop_then_passes() -> None:
    # 봇 알고리즘 3 and 4
    st = fresh(1, "competitive", mc=0)
    ws = put(st, 1, card("Workshop"), 0, S)
    west = put(st, 1, card("Corridor"), 0, W)
    north = put(st, 1, card("Corridor", 1), 0, N)
    st.mods[1][west][geo.D] = 1
    st.mods[1][north][geo.D] = 1
    passed, _ = bot_turn(st, 1)
    assert not passed and st.mods[1][west][geo.D] == 0 and st.mods[1][north][geo.D] == 1
    assert st.mods[1][ws][geo.U] == 1
    passed, _ = bot_turn(st, 1)  # no workshop, no money: pass
    assert passed
    st.mc[1] = 3
    passed, _ = bot_turn(st, 1)
    assert not passed and st.mods[1][north][geo.D] == 0 and st.mc[1] == 0


def test_bots_take_turns_inside_apply_and_the_year_ends_when_all_pass() -> None:
    st = OrbitalState.new(1, 3, "competitive")
    while st.phase != P_MAIN:
        st.apply(st.option_ids()[0])
    assert st.to_move() == 0 and st.market == []
    assert not any(i.startswith("buy:") for i in st.option_ids())  # 이 버전에서는 마켓이 사용되지 않습니다
    year = st.year
    log: list[str] = []
    for _ in range(200):
        if st.year != year or st.is_over():
            break
        log += st.apply("pass" if "pass" in st.option_ids() else st.option_ids()[0])
    assert st.year == year + 1
    # bots start each year with 5 cards: whatever they used is refilled at the draw step
    fills = [line for line in log if "fills its hand stack" in line]
    assert {line.split()[0] + line.split()[1] for line in fills} == {"BotA", "BotB"}


def test_bot_seats_in_a_multiplayer_game() -> None:
    # 원한다면 여러 명이 플레이할 때에도 봇 플레이어를 추가할 수 있습니다
    st = OrbitalState.new(3, 8, "bots-2")
    assert st.actors == 5 and [len(h) for h in st.hands] == [8, 8, 8, 5, 5]
    assert len(st.observation(0)["stations"]) == 5
