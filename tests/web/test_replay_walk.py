"""The fused walk (issue 40 item 3): a compact record's regeneration gathers what the replay
viewer needs (each decision's words, the checkpoints) in its own walk of the engine, so a cold
match page walks the engine once. What the viewer shows must be what two walks gave."""

from __future__ import annotations

import orjson
import pytest

from arena.records import compact
from referee import registry
from tests.records import golden_records
from web.replay import CHECKPOINT_EVERY, Replay, ReplayCache, Walk


@pytest.mark.parametrize(("game", "players"), golden_records.CASES)
def test_the_fused_walk_gives_the_two_walks_step_views(game: str, players: int) -> None:
    record = golden_records.make(game, players)
    small = compact.encode(record)
    walk = Walk()
    data = orjson.loads(compact.regenerated_json(compact.regenerate(small, walk)))
    assert walk.done and len(walk.labels) == len(record.decisions)
    assert sorted(walk.checkpoints) == list(range(0, len(record.decisions) + 1, CHECKPOINT_EVERY))
    # the regeneration with a visitor is the same record, byte for byte
    assert orjson.loads(compact.stored_json(compact.regenerate(small))) == data
    fused, alone = Replay(data, walk), Replay(data)
    assert fused.labels() == alone.labels()
    assert any(label for label in fused.labels())
    for i in range(fused.last + 1):
        assert fused.step(i).to_json() == alone.step(i).to_json(), i
    # and the walk's checkpoints are not changed by stepping (each step works on a copy)
    assert fused.step(3).to_json() == alone.step(3).to_json()


def test_a_walk_the_regeneration_did_not_fill_is_not_used() -> None:
    record = golden_records.make("solenia", 2)
    data = orjson.loads(compact.stored_json(record))
    walk = Walk()  # e.g. the record came from a cache: no regeneration, no walk
    replay = Replay(data, walk)
    assert replay.labels() == Replay(data).labels()


def test_a_cold_match_page_walks_the_engine_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    from sqlalchemy import insert

    from arena.db import Match, dispose_all, session_scope
    from arena.records import stored
    from web.app import create_app

    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    dispose_all()
    stored.CACHE.clear()
    record = golden_records.make("black_angel", 2)
    with session_scope(url) as s:
        s.execute(insert(Match).values(
            id=record.match_id, game=record.game, variant=record.variant, players=record.players,
            seed=record.seed, status="done", result=record.result, forfeits=[],
            record_compact=compact.encode(record), engine_version=compact.engine_version(record.game)))
    games = []
    real = registry.new_game
    monkeypatch.setattr(registry, "new_game", lambda *a, **k: games.append(a) or real(*a, **k))
    client = create_app(url).test_client()
    page = client.get(f"/matches/{record.match_id}?step=end")
    assert page.status_code == 200
    assert len(games) == 1  # the regeneration's walk; the viewer took its words and checkpoints
    assert isinstance(client.application.extensions["arena_replays"], ReplayCache)
    assert client.get(f"/matches/{record.match_id}/steps/5").status_code == 200
    assert client.get(f"/api/matches/{record.match_id}/replay/7").status_code == 200
    assert len(games) == 1
    dispose_all()
