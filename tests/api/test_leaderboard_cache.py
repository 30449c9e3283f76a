"""GetLeaderboard answers from a per-game cache, and the cache never shows a stale board: a
result recorded by another process (a worker writing straight to the database), a new version
and a deactivation are all visible on the very next call."""

from __future__ import annotations

from pathlib import Path

from arena.db import session_scope
from arena.intake import bots
from arena.records import recording
from arena.server import results
from referee._proto import arena_pb2 as pb
from tests.api.conftest import new_account

ROOT = Path(__file__).resolve().parents[2]


def _bot_folder(tmp_path: Path, name: str, text: str) -> str:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(text)
    return str(folder)


def _board(stub) -> dict[int, pb.LeaderboardRow]:  # noqa: ANN001
    return {r.bot_id: r for r in stub.GetLeaderboard(pb.GetLeaderboardRequest(game="toy", limit=50)).rows}


def test_leaderboard_is_cached_and_follows_every_change(server, stub, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    owner = new_account(stub, "board")
    rival = new_account(stub, "rival")  # one author, one seat: two authors' bots play rated
    with session_scope() as s:
        a = bots.register_version(s, "toy", _bot_folder(tmp_path, "a", "# a\n"), name="cache-a", owner=owner.name)
        b = bots.register_version(s, "toy", _bot_folder(tmp_path, "b", "# b\n"), name="cache-b", owner=rival.name)
        bot_a, bot_b, version_a, version_b = a.bot_id, b.bot_id, a.id, b.id
    built = []
    real = results.leaderboard
    monkeypatch.setattr(results, "leaderboard", lambda *args: built.append(args[1:]) or real(*args))

    first = _board(stub)
    assert first[bot_a].matches == first[bot_b].matches == 0
    assert _board(stub) == first
    assert len(built) == 1  # the second call was answered from the cache

    # A worker (another process: straight to the database) records a match a wins.
    with session_scope() as s:
        mid = recording.create_match(s, "toy", "base", [version_a, version_b], seed=1).id
    with session_scope() as s:
        assert recording.record_result(s, mid, {"result": {"scores": [2, 1], "ranks": [1, 2]}})
    after = _board(stub)
    assert after[bot_a].matches == after[bot_b].matches == 1
    assert after[bot_a].mu > first[bot_a].mu and after[bot_b].mu < first[bot_b].mu
    assert len(built) == 2

    # A new version of b (registered elsewhere) shows at once, under its new number.
    with session_scope() as s:
        bots.register_version(s, "toy", _bot_folder(tmp_path, "b", "# b, better\n"), name="cache-b", owner=rival.name)
    assert _board(stub)[bot_b].bot == "cache-b v2"

    # Deactivating through the API drops the bot from the very next answer.
    stub.DeactivateBot(pb.DeactivateBotRequest(bot_id=bot_a), metadata=owner.meta)
    assert bot_a not in _board(stub) and bot_b in _board(stub)
