"""The generic conformance kit on every Orbital configuration (issue 10: 200 games with --full).

1-5 players, the base game, both solo variants and every count of bot players added to a game.
"""

from __future__ import annotations

import json

import pytest

from referee.conformance import check_configuration, configurations
from referee.orbital.observed import state_from_observation
from referee.orbital.state import OrbitalState
from referee.rng import Rng


@pytest.mark.parametrize(("players", "variant"), configurations(OrbitalState))
def test_conformance(players: int, variant: str, full_run: bool) -> None:
    games = 200 if full_run else 2
    stats = check_configuration(OrbitalState, players, variant, games, deep_games=5 if full_run else 1)
    assert stats.games == games
    assert stats.checks.get("determinise-changed", 0) > 0
    assert stats.checks["observations-validated"] == stats.decisions  # every decision, strictly


def test_every_configuration_is_listed() -> None:
    # star-scrappers-orbital.ko.txt 1~5인; 1인 규칙 경쟁 버전 / 평화 버전; "원한다면 여러 명이 플레이할
    # 때에도 봇 플레이어를 추가할 수 있습니다" (bot players fill seats up to five stations).
    configs = set(configurations(OrbitalState))
    assert {(p, "standard") for p in (2, 3, 4, 5)} <= configs
    assert {(1, "competitive"), (1, "peaceful")} <= configs
    assert {(2, "bots-3"), (3, "bots-2"), (4, "bots-1")} <= configs
    assert all(p + (int(v[5:]) if v.startswith("bots-") else 0) <= 5 for p, v in configs)


def _canon(x: object) -> str:
    return json.dumps(x, sort_keys=True)


@pytest.mark.parametrize(("players", "variant"), [(1, "competitive"), (1, "peaceful"), (3, "standard"), (2, "bots-2")])
def test_state_from_observation_reproduces_the_observation(players: int, variant: str) -> None:
    """The search helper: a playable state sampled from one seat's view, seeing exactly that view."""
    for seed in range(3):
        st = OrbitalState.new(players, seed, variant)
        pick = Rng(seed + 99)
        step = 0
        while not st.is_over():
            seat = st.to_move()
            assert seat is not None
            if step % 5 == 0:
                obs = st.observation(seat)
                rebuilt = state_from_observation(obs, seed=step)
                assert _canon(rebuilt.observation(seat)) == _canon(obs)
                assert rebuilt.option_ids() == st.option_ids()
                # and it plays on
                rebuilt.apply(rebuilt.option_ids()[0])
            ids = st.option_ids()
            st.apply(ids[pick.below(len(ids))])
            step += 1


def test_observation_never_shows_the_deck_or_a_bot_stack() -> None:
    st = OrbitalState.new(1, 5, "competitive")
    while st.phase == 0:
        st.apply(st.option_ids()[0])
    obs = st.observation(0)
    text = _canon(obs)
    assert "deck" not in {k for k in obs if k != "deck_size"}
    assert obs["seat"] == 0
    assert obs["hand_sizes"][1] == len(st.hands[1]) and obs["hand_sizes"][2] == len(st.hands[2])
    assert "hands" not in obs
    for bot in (1, 2):
        for card in st.hands[bot]:
            if card not in st.hands[0] and card not in st.market:
                assert f'"id": {card},' not in text


def test_fast_target_check_agrees_with_the_target_list() -> None:
    from referee.orbital import rules

    effects = ("attack_end", "attack_any", "sabotage", "hull_breach", "meteor_storm", "quiet_year")
    for seed in range(4):
        st = OrbitalState.new(4, seed, "standard")
        pick = Rng(seed)
        while not st.is_over():
            for a in range(st.actors):
                for e in effects:
                    for bot in (False, True):
                        assert rules.has_target(st, a, e, bot) == bool(rules.effect_targets(st, a, e, bot)), (e, bot)
            ids = st.option_ids()
            st.apply(ids[pick.below(len(ids))])
