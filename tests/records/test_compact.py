"""The compact stored form (issue 40 items 1-2): it regenerates today's JSON byte for byte, the
golden records of every game still replay as they were played, and a record the engine would
replay differently is refused with a clear message, never shown as a different game."""

from __future__ import annotations

import hashlib
import json

import pytest

from arena.records import compact
from arena.records.compact import NotCompactable, RecordNotReplayable
from referee.record import Forfeit, MatchRecord
from tests.records import golden_records


@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_the_compact_form_regenerates_the_json_byte_for_byte(game: str) -> None:
    record = golden_records.make(game, 3)
    record.decisions[4].event_audiences = None  # a decision recorded before audiences existed
    record.forfeits = [Forfeit(1, "timeout", "answered after 1200 ms", 5, "log ✓")]
    record.origin = {"match_id": "f" * 32, "at": 3, "seat": 0, "bot": "x"}
    data = compact.encode(record)
    assert compact.stored_json(compact.regenerate(data)) == compact.stored_json(record)
    assert len(data) * 20 < len(compact.stored_json(record))
    assert compact.header(data)["engine"] == compact.engine_version(game)
    # the cache's faster serialiser writes the same bytes, non-ASCII comments and logs included
    record.decisions[2].comment = "plan ✓ «B»"
    assert compact.regenerated_json(compact.regenerate(compact.encode(record))) == compact.stored_json(record)


@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_the_faster_serialiser_writes_stored_json_at_every_player_count(game: str) -> None:
    """``regenerated_json`` (what a cache miss serialises) against ``stored_json`` (the JSON the
    database stored), on random play at every player count and the golden records."""
    from benchmarks.random_records import played_record
    from referee import registry

    records = [golden_records.make(g, p) for g, p in golden_records.CASES if g == game]
    for k, (players, variant) in enumerate(registry.get_spec(game).configurations):
        records.append(played_record(game, 50 + k, players=players, variant=variant))
    for record in records:
        regenerated = compact.regenerate(compact.encode(record))
        assert compact.regenerated_json(regenerated) == compact.stored_json(record)


def test_times_come_back_exactly_at_any_resolution() -> None:
    record = golden_records.make("solenia", 2)
    record.decisions[3].wall_ms += 1e-9  # not at a decimal resolution: float64, still exact
    data = compact.encode(record)
    assert compact.stored_json(compact.regenerate(data)) == compact.stored_json(record)
    record.decisions[3].wall_ms = round(record.decisions[3].wall_ms, 3)
    assert len(compact.encode(record)) < len(data)  # whole microseconds take the short form


def test_a_record_read_back_is_replayed_and_checked() -> None:
    """A record read back from its JSON has no runner's indexes: encoding replays the engine,
    and regenerates it byte for byte — or refuses when the engine does not replay it."""
    record = golden_records.make("orbital", 2)
    again = MatchRecord.from_json(record.to_json())
    assert again._choices is None
    assert compact.encode(again) == compact.encode(record)
    assert compact.stored_json(compact.regenerate(compact.encode(again))) == compact.stored_json(record)


def test_a_record_the_engine_does_not_replay_is_not_compacted() -> None:
    record = golden_records.make("black_angel", 2)
    record._choices = None  # as read back from JSON
    record.decisions[5].events = ["something else happened"]
    with pytest.raises(NotCompactable, match="decision 5"):
        compact.encode(record)
    record = golden_records.make("black_angel", 2)
    record._choices = None
    record.decisions.pop()  # ends before the game does
    with pytest.raises(NotCompactable, match="ends before"):
        compact.encode(record)


def test_another_engine_version_is_refused_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    data = compact.encode(golden_records.make("orbital", 2))
    monkeypatch.setitem(compact.ENGINE_VERSIONS, "orbital", 2)
    with pytest.raises(RecordNotReplayable, match=r"played by engine orbital/1; this platform runs orbital/2"):
        compact.regenerate(data)


def test_an_engine_that_replays_differently_is_caught_by_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's version unchanged but its events changed: the stored digest refuses it."""
    from referee import registry

    data = compact.encode(golden_records.make("solenia", 2))
    real = registry.new_game

    def changed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        state = real(*args, **kwargs)
        apply = state.apply
        state.apply = lambda option: [*apply(option), "a line this engine adds"]
        return state

    monkeypatch.setattr(registry, "new_game", changed)
    with pytest.raises(RecordNotReplayable, match="replays differently"):
        compact.regenerate(data)


def test_damaged_or_foreign_bytes_are_refused() -> None:
    data = compact.encode(golden_records.make("solenia", 2))
    with pytest.raises(RecordNotReplayable, match="not a compact match record"):
        compact.regenerate(b"{" + data[1:])
    with pytest.raises(RecordNotReplayable, match="damaged"):
        compact.regenerate(data[:-8])


@pytest.mark.parametrize("case", [f"{g}-{p}" for g, p in golden_records.CASES])
def test_golden_records_replay_as_they_were_played(case: str) -> None:
    """A change to an engine that would replay a stored record differently fails here: keep the
    old rules replayable, or bump that game's ``compact.ENGINE_VERSIONS`` (the platform then
    refuses the older records' replays with a message) and rewrite the golden records
    (``python -m tests.records.golden_records``)."""
    index = json.loads((golden_records.HERE / "index.json").read_text())[case]
    data = (golden_records.HERE / f"{case}.bin").read_bytes()
    assert compact.header(data)["engine"] == index["engine"]
    text = compact.stored_json(compact.regenerate(data))
    assert hashlib.sha256(text).hexdigest() == index["json_sha256"]
