"""The vector encoder: documented features, a pure function of the observation, fed the engines'
compact observation (which must equal the observation's sufficient keys)."""

from __future__ import annotations

import random
import zlib

import pytest

np = pytest.importorskip(
    "numpy", reason='the envs extra is not installed: pip install -e ".[envs]"'
)

from arena.envs import core, encoding  # noqa: E402
from arena.envs.encoding import LIMIT, SIZE, SUFFICIENT, VALUE_STEP, encode  # noqa: E402
from referee import registry  # noqa: E402

GAMES = ("black_angel", "solenia", "orbital")


def _reference(observation: dict, keys: tuple[str, ...] | None) -> np.ndarray:
    """The module docstring's definition, leaf by leaf, with no caches and no numpy tricks."""
    vec = np.zeros(SIZE)

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}/{i}")
        elif type(node) in (int, float):
            vec[zlib.crc32(path.encode()) % SIZE] += node
            vec[(zlib.crc32((path + "=").encode()) + int(node) * VALUE_STEP) % 2**32 % SIZE] += 1
        else:
            vec[zlib.crc32(f"{path}={node}".encode()) % SIZE] += 1

    walk({k: observation[k] for k in keys} if keys else observation, "")
    return np.clip(vec, -LIMIT, LIMIT).astype(np.float32)


def _states(game: str, share: float, seed: int = 0) -> list:
    """About ``share`` of the positions of one random game of every configuration."""
    out = []
    r = random.Random(seed)
    for players, variant in core.configurations(game):
        st = registry.new_game(game, players, r.randrange(1000), variant)
        while not st.is_over():
            if r.random() < share:
                out.append(st.clone())
            st.apply(r.choice(st.option_ids()))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_compact_observation_is_the_observations_sufficient_part(game: str) -> None:
    checked = 0
    for st in _states(game, 0.1):
        for seat in range(st.players):
            full = st.observation(seat)
            compact = core.compact_observation(st, seat)
            assert list(compact) == list(SUFFICIENT[game])
            assert compact == {k: full[k] for k in SUFFICIENT[game]}
            assert np.array_equal(encode(compact), encode(full))
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("game", GAMES)
def test_the_vector_is_the_documented_one_with_or_without_caches(game: str) -> None:
    states = _states(game, 0.05, seed=3)
    for st in states:
        seat = st.to_move() if st.to_move() is not None else 0
        obs = st.observation(seat)
        warm = encode(obs)
        assert np.array_equal(warm, _reference(obs, SUFFICIENT[game]))
        assert np.array_equal(encode(obs, whole=True), _reference(obs, None))
        assert not np.array_equal(encode(obs, whole=True), warm)  # the readable part adds features
    # the caches only save work: emptied, they give the same vectors
    obs = states[-1].observation(0)
    before = encode(obs)
    encoding._SUBTREES.clear()
    encoding._PATHS = encoding._Paths()
    assert np.array_equal(encode(obs), before)


def test_the_reference_can_tell_a_wrong_vector() -> None:
    obs = {"game": "x", "a": [1, 2], "b": {"c": "d", "e": 2.5, "f": True}}
    assert np.array_equal(encode(obs), _reference(obs, None))
    assert not np.array_equal(encode({**obs, "a": [2, 1]}), _reference(obs, None))


def test_a_raw_dict_whose_lists_change_depth_and_type_encodes_as_the_definition() -> None:
    # A large root dict goes through a cached plan that groups its lists by the depth of ints
    # they held last time; every change below must send a key the right way again.
    base = {f"n{i}": i for i in range(6)} | {"s": "x", "b": True, "z": None, "f": 2.5}
    shapes = [
        {"a": [1, 2, 3], "t": [[1], [2, 3]], "c": [[[1, 2]], []], "e": []},
        {
            "a": [4, 5, 6],
            "t": [[7], [8, 9]],
            "c": [[[3, 4]], [[5]]],
            "e": [[1, 2]],
        },  # e: flat -> table
        {"a": [[1]], "t": [1, 2], "c": [1], "e": [[[3]]]},  # every group's check fails
        {"a": [1.5, 2], "t": [[True]], "c": ["x", {"k": 1}], "e": []},  # floats, bools, mixed
        {"a": [], "t": [], "c": [], "e": [9]},
        {"a": [1, 2, 3], "t": [[1], [2, 3]], "c": [[[1, 2]], []], "e": []},  # back to the first
    ]
    for key in ("raw", "other"):
        for shape in shapes + shapes[::-1]:
            obs = {
                "game": "x",
                "seat": 0,
                key: {**base, **shape},
                "hand": [{"id": i} for i in range(5)],
            }
            assert np.array_equal(encode(obs), _reference(obs, None)), shape
