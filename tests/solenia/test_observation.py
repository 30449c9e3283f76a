"""What a seat may see (issue 3 Observation) and rebuilding a state from it."""

from __future__ import annotations

import json
import random

import pytest

from referee.solenia.data import card_text
from referee.solenia.observed import state_from_observation
from referee.solenia.state import SoleniaState


def test_a_seat_sees_its_hand_and_only_counts_of_the_others() -> None:
    st = SoleniaState.new(3, 8)
    obs = st.observation(1)
    assert [c["id"] for c in obs["hand"]] == st.hand[1]
    text = json.dumps(obs)
    assert "decks" not in obs and "hands" not in obs and "tile_decks" not in obs
    assert [p["hand_count"] for p in obs["players_info"]] == [3, 3, 3]
    assert [p["deck_count"] for p in obs["players_info"]] == [13, 13, 13]
    assert '"seed"' not in text


def test_spectator_view_draws_the_board() -> None:
    st = SoleniaState.new(2, 8)
    view = st.spectator_view()
    assert len(view["boards"]) == 5 and all(len(b["cells"]) == 7 for b in view["boards"])
    cell = view["boards"][2]["cells"][3]
    assert set(cell) >= {"pos", "col", "row", "type", "owner", "card"}
    assert view["ship"] == {"pos": 17, "col": 2, "row": 3}
    assert len(view["decks"][0]) == 13 and len(view["tile_decks"]["day"]) == 21
    assert "score_now" in view["players_info"][0]


@pytest.mark.parametrize("variant", ["summer", "winter", "winter-tech"])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_state_rebuilt_from_an_observation_offers_the_same_options(players: int, variant: str) -> None:
    st = SoleniaState.new(players, 3, variant)
    rnd = random.Random(3)
    while not st.is_over():
        seat = st.to_move()
        obs = json.loads(json.dumps(st.observation(seat)))
        rebuilt = state_from_observation(obs, seed=5)
        assert rebuilt.option_ids() == st.option_ids()
        assert rebuilt.observation(seat) == obs
        st.apply(rnd.choice(st.option_ids()))


def _mid_game(players: int, variant: str, seed: int, steps: int) -> SoleniaState:
    st = SoleniaState.new(players, seed, variant)
    rnd = random.Random(seed)
    for _ in range(steps):
        st.apply(rnd.choice(st.option_ids()))
    return st


@pytest.mark.parametrize(("players", "variant"), [(1, "winter-tech"), (3, "summer"), (4, "winter")])
def test_observation_does_not_depend_on_hidden_orders_or_other_hands(players: int, variant: str) -> None:
    # issue 3 Observation: never a deck's order, an unrevealed tile or another hand — only counts
    st = _mid_game(players, variant, 12, 25)
    seat = 0
    before = json.dumps(st.observation(seat), sort_keys=True)
    other = st.clone()
    other._cache = None
    for s in range(players):
        if s != seat:  # swap another player's hand with the top of its deck
            pool = other.hand[s] + other.deck[s]
            pool.reverse()
            n = len(other.hand[s])
            other.hand[s], other.deck[s] = pool[:n], pool[n:]
    other.deck[seat].reverse()
    for k in (0, 1):
        other.tile_deck[k].reverse()
    other.vp_deck.reverse()
    assert json.dumps(other.observation(seat), sort_keys=True) == before
    assert st.hand[seat] == [c["id"] for c in st.observation(seat)["hand"]]


def test_spectator_view_shows_every_hidden_part() -> None:
    # issue 3 Observation: a spectator view for replays shows everything
    st = _mid_game(1, "summer", 4, 9)
    view = st.spectator_view()
    assert view["hands"][0] == [card_text(c) for c in st.hand[0]]
    assert view["decks"][0] == [card_text(c) for c in st.deck[0]]
    assert [t["id"] for t in view["tile_decks"]["day"]] == st.tile_deck[0]
    assert [t["id"] for t in view["tile_decks"]["night"]] == st.tile_deck[1]
    assert view["virtual_player"]["deck"] == [card_text(c) for c in st.vp_deck]
    assert [t["id"] for t in view["virtual_player"]["tiles"]] == st.vp_tiles
