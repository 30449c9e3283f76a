"""Compact records in a real database (issue 40 item 2): the readers — GetMatch, the web's
API and replay, forks, rating rebuilds — get the same JSON from either form, the conversion
streams, verifies, keeps what does not verify and resumes, and a record the current engine
cannot replay is refused with the reason."""

from __future__ import annotations

import json
from collections.abc import Iterator

import orjson
import pytest
from click.testing import CliRunner
from sqlalchemy import insert, select

from arena.cli import cli
from arena.db import Match, dispose_all, session_scope
from arena.records import compact, convert, fork, stored
from arena.server import results
from tests.platform.conftest import pg_url  # noqa: F401 - the fixture, for the postgres runs
from tests.records import golden_records
from web.app import create_app


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:  # noqa: ANN001
    url = (f"sqlite:///{tmp_path / 'arena.sqlite3'}" if request.param == "sqlite"
           else request.getfixturevalue("pg_url"))
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    dispose_all()
    stored.CACHE.clear()
    yield url
    dispose_all()


def _insert(url: str, record, *, as_json: bool, damage: bool = False) -> str:  # noqa: ANN001
    data = json.loads(compact.stored_json(record))
    if damage:  # a record whose events the engine does not reproduce: it must stay JSON
        data["decisions"][2]["events"] = ["something else happened"]
    values = dict(id=record.match_id, game=record.game, variant=record.variant, players=record.players,
                  seed=record.seed, status="done", result=data["result"], forfeits=data["forfeits"])
    if as_json:
        values["record"] = data
    else:
        values.update(record_compact=compact.encode(record), engine_version=compact.engine_version(record.game))
    with session_scope(url) as s:
        s.execute(insert(Match).values(**values))
    return record.match_id


def _records(url: str) -> dict[str, tuple]:
    with session_scope(url) as s:
        return {r.id: (r.record is not None, r.record_compact is not None, r.engine_version)
                for r in s.execute(select(Match.id, Match.record, Match.record_compact, Match.engine_version))}


def test_readers_get_the_same_json_from_either_form(url: str) -> None:
    record = golden_records.make("solenia", 2)
    twin = golden_records.make("solenia", 2)
    twin.match_id = "b" * 32
    record.match_id = "a" * 32
    _insert(url, record, as_json=True)
    _insert(url, twin, as_json=False)
    with session_scope(url) as s:
        as_json = results.get_match(s, "a" * 32)[1].record_json
        as_compact = results.get_match(s, "b" * 32)[1].record_json
    assert as_compact == as_json.replace("a" * 32, "b" * 32)  # GetMatch: the same JSON text
    client = create_app(url).test_client()
    a = client.get(f"/api/matches/{'a' * 32}/record").get_json()
    b = client.get(f"/api/matches/{'b' * 32}/record").get_json()
    assert b == {**a, "match_id": "b" * 32}
    assert client.get(f"/api/matches/{'b' * 32}/replay/3").get_json() == {
        **client.get(f"/api/matches/{'a' * 32}/replay/3").get_json()}
    assert "record_refused" not in client.get(f"/api/matches/{'b' * 32}").get_json()
    # the API's match sends no record: its seats, totals and forfeits come from the compact
    # header, the same as from the JSON, and nothing is regenerated for it
    stored.CACHE.clear()
    summary = client.get(f"/api/matches/{'b' * 32}").get_json()
    assert stored.CACHE.misses == 0
    own = ("id", "record_url", "replay_url", "created_at")  # the row's, not the record's
    assert summary == {**client.get(f"/api/matches/{'a' * 32}").get_json(), **{k: summary[k] for k in own}}
    with session_scope(url) as s:
        row = s.get(Match, "b" * 32)
        assert stored.record_summary(row) == {k: stored.record_data(row)[k] for k in stored.SUMMARY_KEYS}
    assert client.get(f"/matches/{'b' * 32}?step=4").status_code == 200
    # forks read the stored record through the same function
    assert fork.load_record_db("b" * 32, url).record.to_dict() == {**record.to_dict(), "match_id": "b" * 32}
    hits = stored.CACHE.hits
    client.get(f"/api/matches/{'b' * 32}/record")
    assert stored.CACHE.hits == hits + 1  # regenerated once, then read from the cache


def test_a_record_the_engine_would_replay_differently_is_refused(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    record = golden_records.make("orbital", 2)
    _insert(url, record, as_json=False)
    monkeypatch.setitem(compact.ENGINE_VERSIONS, "orbital", 99)
    client = create_app(url).test_client()
    answer = client.get(f"/api/matches/{record.match_id}/record")
    assert answer.status_code == 409 and "this platform runs orbital/99" in answer.get_json()["message"]
    assert client.get(f"/api/matches/{record.match_id}/replay/2").status_code == 409
    assert "orbital/99" in client.get(f"/api/matches/{record.match_id}").get_json()["record_refused"]
    page = client.get(f"/matches/{record.match_id}").data.decode()
    assert "was played by engine orbital/1" in page
    with session_scope(url) as s, pytest.raises(results.ApiError, match="orbital/1"):
        results.get_match(s, record.match_id)


def test_the_conversion_verifies_keeps_resumes_and_goes_back(url: str) -> None:
    ids = []
    for k, (game, players) in enumerate(golden_records.CASES[:4]):
        record = golden_records.make(game, players)
        record.match_id = f"{k:032x}"
        ids.append(_insert(url, record, as_json=True, damage=k == 1))
    before = {mid: orjson.dumps(stored.record_data(m))
              for mid, m in ((m.id, m) for m in _rows(url))}
    runner = CliRunner()
    first = runner.invoke(cli, ["records", "compact", "--limit", "2"])
    assert first.exit_code == 0, first.output
    assert "2/2 records: 1 compact, 1 kept as JSON" in first.output and f"kept as JSON: {ids[1]}" in first.output
    rest = runner.invoke(cli, ["records", "compact"])  # carries on where the first run stopped
    assert rest.exit_code == 0 and "2/2 records: 2 compact, 0 kept" in rest.output, rest.output
    assert _records(url) == {ids[0]: (False, True, "black_angel/1"), ids[1]: (True, False, "json"),
                             ids[2]: (False, True, "solenia/1"), ids[3]: (False, True, "solenia/1")}
    stored.CACHE.clear()
    after = {m.id: orjson.dumps(stored.record_data(m)) for m in _rows(url)}
    assert after == before  # every record reads as it did, byte for byte
    back = runner.invoke(cli, ["records", "expand"])
    assert back.exit_code == 0 and "3 records stored as JSON again" in back.output, back.output
    assert all(has_json and not has_compact for has_json, has_compact, _ in _records(url).values())
    assert {m.id: orjson.dumps(stored.record_data(m)) for m in _rows(url)} == before


def _rows(url: str) -> list:
    with session_scope(url) as s:
        rows = s.scalars(select(Match)).all()
        s.expunge_all()
        return rows


def test_recording_stores_the_compact_form(url: str) -> None:
    """What a worker stores (arena.records.stored.for_storage): compact, naming its engine; a
    record that does not replay is stored as JSON, as before."""
    record = golden_records.make("black_angel", 2)
    small, engine = stored.for_storage(record)
    assert engine == "black_angel/1" and compact.stored_json(compact.regenerate(small)) == compact.stored_json(record)
    record._choices = None  # read back from JSON: replayed and checked
    record.decisions[0].events = ["not what happened"]
    assert stored.for_storage(record) == (None, None)
    assert convert.convert_one(json.loads(compact.stored_json(record)))[0] is None


def test_a_worker_records_the_compact_form_and_rates_a_late_forfeit_from_it(url: str, tmp_path) -> None:  # noqa: ANN001
    """recording.record_result_on with the compact form (what a worker writes, on the driver's
    cursor): no JSON stored, the engine named; a seat that forfeited after the first decision
    has its decisions read from the regenerated record to decide whether it played."""
    from arena.db import Rating
    from arena.evaluation import ratings
    from arena.intake import bots
    from arena.records import recording
    from referee.record import Forfeit

    record = golden_records.make("solenia", 2)
    ids = []
    with session_scope(url) as s:
        for i in range(2):
            folder = tmp_path / f"bot{i}"
            folder.mkdir()
            (folder / "bot.py").write_text(f"# bot {i}\n")
            ids.append(bots.register_version(s, "solenia", str(folder), name=f"bot{i}").id)
    with session_scope(url) as s:
        record.match_id = recording.create_match(s, "solenia", record.variant, ids, seed=record.seed).id
    record.forfeits = [Forfeit(1, "timeout", "answered after 1200 ms", 6)]
    small, engine = stored.for_storage(record)
    data = {"result": record.result, "forfeits": [vars(f) for f in record.forfeits]}
    with session_scope(url) as s:
        assert recording.record_result(s, record.match_id, data, game="solenia", record_compact=small,
                                       engine_version=engine) is True
    with session_scope(url) as s:
        m = s.get(Match, record.match_id)
        assert m.record is None and bytes(m.record_compact) == small and m.engine_version == "solenia/1"
        assert stored.record_data(m) == json.loads(compact.stored_json(record))
        assert m.rating_seq == 1 and s.get(Rating, (ids[1], "solenia")).games_played == 1  # it played
        # a rebuild from the history reads the compact record the same way (arena ratings rebuild)
        assert ratings.compare_with_stored(s, "solenia", stored.record_data) == []
        with pytest.raises(ValueError, match="stored compactly: pass read_record"):
            ratings.rebuild(s, "solenia")
