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
