"""Observation and spectator schemas (issue 13 item 1): valid, described, honest, current pages.

The conformance runs of every engine (tests/<game>/test_conformance.py) validate every
observation and spectator view they produce and every option id through
:mod:`referee.conformance`; these tests check the schemas themselves (every field described)
and that a wrong observation, spectator view or id is refused.
"""

from __future__ import annotations

import copy

import pytest
from jsonschema import Draft202012Validator

from referee import observation_schema as osch
from referee.conformance import (
    ConformanceError,
    check_observation_schema,
    check_option_grammar,
    check_spectator_schema,
)
from referee.registry import get_game

GAMES = ["black_angel", "solenia", "orbital"]


def _state(game: str):
    cls = get_game(game)
    players, variant = cls.spec.configurations[0]
    state = cls.new(players, 3, variant)
    for _ in range(4):
        state.apply(state.option_ids()[0])
    return state


@pytest.mark.parametrize("game", GAMES)
def test_schema_is_valid_draft_2020_12_and_versioned(game: str) -> None:
    schema = osch.load_schema(game)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert osch.schema_version(game) >= 1
    assert schema["additionalProperties"] is False
    assert "seat" in schema["required"]  # one convention across games: a top-level seat


def _undescribed(node: object, path: str) -> list[str]:
    """Every property (at any depth, in $defs, array items and anyOf alternatives) without a
    non-empty description."""
    out: list[str] = []
    if isinstance(node, list):
        for i, x in enumerate(node):
            out += _undescribed(x, f"{path}/{i}")
    elif isinstance(node, dict):
        for key in ("properties", "patternProperties"):
            for name, child in node.get(key, {}).items():
                desc = child.get("description") if isinstance(child, dict) else None
                if not (isinstance(desc, str) and desc.strip()):
                    out.append(f"{path}/{key}/{name}")
        for key, child in node.items():
            if key not in ("enum", "required", "x-option-ids"):
                out += _undescribed(child, f"{path}/{key}")
    return out


@pytest.mark.parametrize("kind", osch.KINDS)
@pytest.mark.parametrize("game", GAMES)
def test_every_field_is_described(game: str, kind: str) -> None:
    schema = osch.load_schema(game, kind)
    assert _undescribed(schema, "") == []
    for name, shape in schema.get("$defs", {}).items():
        assert shape.get("description"), f"$defs/{name} has no description"


def test_the_description_check_can_fail() -> None:
    assert _undescribed({"properties": {"a": {"type": "object", "description": "x",
                                              "properties": {"b": {"type": "integer"}}}}}, "") \
        == ["/properties/a/properties/b"]
    assert _undescribed({"$defs": {"d": {"properties": {"c": {"description": " "}}}}}, "") \
        == ["/$defs/d/properties/c"]


@pytest.mark.parametrize("game", GAMES)
def test_spectator_schema_shares_the_observation_shapes(game: str) -> None:
    # The generated page links spectator fields to the observation's shapes: they must be the same.
    spec = osch.load_schema(game, "spectator")
    Draft202012Validator.check_schema(spec)
    assert spec["x-schema-version"] == osch.schema_version(game)
    assert spec.get("$defs") == osch.load_schema(game).get("$defs")
    assert spec["additionalProperties"] is False


@pytest.mark.parametrize("game", GAMES)
def test_spectator_and_live_views_validate_and_wrong_ones_fail(game: str) -> None:
    state = _state(game)
    for view in (state.spectator_view(), state.public_view()):
        osch.validate_spectator_view(game, view)
    check_spectator_schema(state, 4)
    view = state.spectator_view()
    for bad in ({**view, "no_such_field": 1}, {**view, "players": "two"},
                {k: v for k, v in view.items() if k != "game"}, []):
        with pytest.raises(osch.SchemaError, match="spectator view"):
            osch.validate_spectator_view(game, bad)


def test_wrong_spectator_view_fails_the_conformance_kit(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _state("orbital")
    real = type(state).public_view
    monkeypatch.setattr(type(state), "public_view", lambda self: {**real(self), "year": "one"})
    with pytest.raises(ConformanceError, match=r"public_view\(\).*year"):
        check_spectator_schema(state, 4)


def test_shared_shapes_are_enforced_where_they_are_used() -> None:
    # A card in the hand is checked against $defs/card (the validator inlines the references).
    state = _state("orbital")
    obs = state.observation(0)
    assert obs["hand"]
    bad = copy.deepcopy(obs)
    bad["hand"][0]["kind"] = "spell"
    with pytest.raises(osch.SchemaError, match="hand/0/kind"):
        osch.validate_observation("orbital", bad)


@pytest.mark.parametrize("game", GAMES)
def test_real_observation_validates_and_wrong_ones_fail(game: str) -> None:
    state = _state(game)
    obs = state.observation(state.to_move())
    osch.validate_observation(game, obs)
    check_observation_schema(state, 4)
    missing = copy.deepcopy(obs)
    del missing["seat"]
    extra = copy.deepcopy(obs)
    extra["no_such_field"] = 1
    wrong_type = copy.deepcopy(obs)
    wrong_type["players"] = "two"
    for bad in (missing, extra, wrong_type, [], "x"):
        with pytest.raises(osch.SchemaError):
            osch.validate_observation(game, bad)


def test_wrong_observation_fails_the_conformance_kit(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _state("solenia")
    real = type(state).observation
    monkeypatch.setattr(type(state), "observation",
                        lambda self, seat: {**real(self, seat), "hand": "three cards"})
    with pytest.raises(ConformanceError, match="hand"):
        check_observation_schema(state, 4)


@pytest.mark.parametrize("game", GAMES)
def test_option_ids_follow_the_grammar(game: str) -> None:
    state = _state(game)
    ids = state.option_ids()
    check_option_grammar(state, 4, ids)
    with pytest.raises(ConformanceError, match="matches no documented form"):
        check_option_grammar(state, 4, ids + ["warp:drive"])


def test_orbital_discard_pile_is_typed() -> None:
    # The discard pile shows face-up cards as cards and face-down ones as null; anything else fails.
    state = _state("orbital")
    obs = state.observation(0)
    osch.validate_observation("orbital", {**obs, "discard": [None]})
    with pytest.raises(Exception, match="discard"):
        osch.validate_observation("orbital", {**obs, "discard": ["Cold War"]})


@pytest.mark.parametrize("game", GAMES)
def test_reference_pages_are_up_to_date(game: str) -> None:
    page = osch.page_path(game)
    assert page.is_file(), "run: python -m referee.observation_schema docs"
    assert page.read_text(encoding="utf-8") == osch.render_page(game), (
        "docs/observations is stale; run: python -m referee.observation_schema docs")
    text = page.read_text(encoding="utf-8")
    assert "`seat`" in text
    assert "## Spectator view" in text and "## Shapes" in text


def test_cli_usage_error_is_clear(capsys: pytest.CaptureFixture[str]) -> None:
    assert osch.main(["nope"]) == 2
    assert "usage" in capsys.readouterr().err


def test_match_start_carries_schema_version() -> None:
    from referee._proto import bot_pb2

    start = bot_pb2.MatchStart(observation_schema_version=osch.schema_version("solenia"))
    assert start.observation_schema_version == 1
    assert osch.schema_version("toy") == 0
