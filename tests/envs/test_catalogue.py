"""The action catalogues: fixed, derived from the schemas' option-id grammar, and complete."""

from __future__ import annotations

import random
import re

import pytest

from arena.envs.catalogue import GAMES, UnknownOption, catalogue, schema_patterns
from arena.envs.core import configurations
from referee import registry
from referee.engine import ConfigError


@pytest.mark.parametrize("game", GAMES)
def test_every_id_matches_a_schema_pattern_and_every_pattern_has_ids(game: str) -> None:
    cat = catalogue(game)
    patterns = [re.compile(p) for p in schema_patterns(game)]
    hits = {p.pattern: 0 for p in patterns}
    for oid in cat.ids:
        matching = [p for p in patterns if p.match(oid)]
        assert matching, oid
        hits[matching[0].pattern] += 1
    assert all(hits.values()), [p for p, n in hits.items() if not n]
    assert len(set(cat.ids)) == len(cat.ids)
    assert all(cat.index[oid] == i for i, oid in enumerate(cat.ids))


@pytest.mark.parametrize("game", GAMES)
def test_random_games_of_every_configuration_only_offer_catalogued_ids(game: str, full_run: bool) -> None:
    cat = catalogue(game)
    for players, variant in configurations(game):
        for seed in range(20 if full_run else 2):
            state = registry.new_game(game, players, seed, variant)
            rng = random.Random(seed)
            while not state.is_over():
                ids = state.option_ids()
                cat.mask(ids)  # raises UnknownOption for an id outside the catalogue
                state.apply(rng.choice(ids))


def test_unknown_ids_and_games_are_clear_errors() -> None:
    with pytest.raises(UnknownOption, match="not in its action catalogue"):
        catalogue("solenia").action_of("fly:" + "x" * 500)
    with pytest.raises(ConfigError, match="no environment for game"):
        catalogue("chess")


def test_a_missing_toolkit_is_one_clear_message() -> None:
    from arena.envs import MissingExtra, require

    with pytest.raises(MissingExtra, match=r'pip install -e "\.\[envs\]"'):
        require("arena_no_such_toolkit", "no-such-toolkit")


# --- every id an engine's own generator can produce (not only those random games happen to reach)


def _pay_id(p: tuple[int, ...]) -> str:
    return "pay:" + "-".join(map(str, p))


def test_every_solenia_payment_the_generator_can_produce_is_catalogued() -> None:
    # Rulebook, 개인 보드 겨울면 효과 (levels 2-A, 3-A: leave one wheat/wood/stone unpaid) and
    # Q&A 2 (a level-1 technology pays stone as water and back, any number of times; its twin
    # wood and wheat): every waiver set the engine's board rule yields over all boards, each
    # swap mode, every tile cost, every holding. A payment never uses more of a resource than
    # the tile's total cost, so holdings above sum(cost) add no payment: this is exhaustive.
    from itertools import product

    from referee.solenia import data as s
    from referee.solenia.payment import payments
    from referee.solenia.personal_board import winter_waivers

    cat = catalogue("solenia")
    slots = len(s.WINTER_SLOT_NAMES)
    waiver_sets = {()} | {
        winter_waivers([[0 if fill >> (row * slots + i) & 1 else -1 for i in range(slots)] for row in (0, 1)])
        for fill in range(1 << (2 * slots))
    }
    modes = [(False, False), (True, False), (False, True)]
    offered: set[str] = set()
    for cost in set(s.TILE_COST):
        for holding in product(range(sum(cost) + 1), repeat=len(cost)):
            for waivers, (wood_wheat, stone_water) in product(waiver_sets, modes):
                offered.update(map(_pay_id, payments(cost, list(holding), waivers, wood_wheat, stone_water)))
    assert "pay:0-0-1-4" in offered  # the id PettingZoo's api_test met in solenia-1-winter-tech
    missing = sorted(offered - set(cat.index))
    assert not missing, missing


def test_solenia_pay_options_of_real_states_are_catalogued() -> None:
    # The same property through the engine's own decision (P_PAY offers _tile_payments) on real
    # states of every variant: random boards, technology, tile and holdings (hypothesis).
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from referee.solenia import data as s
    from referee.solenia.state import P_PAY

    cat = catalogue("solenia")
    variants = sorted({v for _, v in configurations("solenia")})
    slots = len(s.WINTER_SLOT_NAMES)

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(
        variant=st.sampled_from(variants),
        fill=st.integers(0, (1 << (2 * slots)) - 1),
        tech=st.sampled_from((-1, *s.TECH_LEVEL1)),
        tile=st.integers(0, len(s.TILE_COST) - 1),
        holding=st.lists(st.integers(0, 9), min_size=4, max_size=4),
    )
    def check(variant: str, fill: int, tech: int, tile: int, holding: list[int]) -> None:
        state = registry.new_game("solenia", 1, 0, variant)
        state.rows[0] = [[0 if fill >> (row * slots + i) & 1 else -1 for i in range(slots)] for row in (0, 1)]
        state.tech1[0] = tech
        state.res[0] = holding
        state.cur, state.phase, state.pend_tile, state._cache = 0, P_PAY, tile, None
        cat.mask(state.option_ids())  # raises UnknownOption for an id outside the catalogue

    check()


def test_appended_ids_keep_the_trained_numbering() -> None:
    # The learned bot was trained on the first catalogue: its stored output count is where the
    # appended ids begin, and everything it knew keeps its number (loading grows the network).
    np = pytest.importorskip("numpy")
    from pathlib import Path

    from arena.envs.mlp import MaskedMLP

    weights = Path(__file__).resolve().parents[2] / "sample_bots" / "learned_solenia" / "weights.npz"
    with np.load(weights) as f:
        trained = f["w2"].shape[1]
    cat = catalogue("solenia")
    appended = cat.ids[trained:]
    assert appended and all(oid.startswith("pay:") for oid in appended)
    assert all(max(map(int, oid[4:].split("-"))) > 3 for oid in appended)  # beyond the old 0-3 block
    assert all(max(map(int, oid[4:].split("-"))) <= 3 for oid in cat.ids[:trained] if oid.startswith("pay:"))
    net = MaskedMLP.load(weights)
    assert net.w2.shape[1] == len(cat)
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.normal(size=net.w1.shape[0]).astype(np.float32) * 3
        mask = np.zeros(len(cat), np.int8)
        old, new = rng.choice(trained, 3, replace=False), rng.choice(np.arange(trained, len(cat)), 2, replace=False)
        mask[old] = 1
        mask[new] = 1
        assert net(x, mask) in set(old.tolist())  # a trained action legal: the new ones never win
        only_new = np.zeros(len(cat), np.int8)
        only_new[new] = 1
        assert net(x, only_new) in set(new.tolist())  # only appended ones legal: one of them


@pytest.mark.parametrize("game", ["black_angel", "orbital"])
def test_longer_random_games_only_offer_catalogued_ids(game: str) -> None:
    # Cheap extra coverage for the games without a derived payment set: more seeds, 2 players.
    cat = catalogue(game)
    for seed in range(100, 104):
        state = registry.new_game(game, 2, seed, None)
        rng = random.Random(seed)
        while not state.is_over():
            ids = state.option_ids()
            cat.mask(ids)
            state.apply(rng.choice(ids))
