"""The JSON API under /api/, through the Flask test client."""

from __future__ import annotations

from sqlalchemy import insert

from arena.db import Match, session_scope
from tests.web.seed import XSS_NAME


def test_index_lists_every_endpoint(client) -> None:
    data = client.get("/api/").get_json()
    assert {
        "games",
        "leaderboard",
        "bot",
        "matches",
        "match",
        "match_record",
        "replay",
        "replay_step",
        "tournaments",
        "tournament",
        "ladders",
    } <= set(data["endpoints"])


def test_games(client) -> None:
    names = [g["name"] for g in client.get("/api/games").get_json()["games"]]
    assert {"toy", "black_angel", "solenia"} <= set(names)


def test_leaderboard(client) -> None:
    data = client.get("/api/games/toy/leaderboard").get_json()
    rows = data["rows"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert [r["conservative"] for r in rows] == sorted(
        (r["conservative"] for r in rows), reverse=True
    )
    for r in rows:
        assert abs(r["conservative"] - (r["mu"] - 3 * r["sigma"])) < 1e-9
        assert r["matches"] == 3
        assert 0 <= r["win_share"] <= 1
        assert r["provisional"] is True
    assert XSS_NAME in [r["bot_name"] for r in rows]  # JSON carries the raw name
    r = client.get("/api/games/chess/leaderboard")
    assert r.status_code == 404 and r.get_json()["status"] == 404


def test_bot(client, seeded) -> None:
    data = client.get(f"/api/bots/{seeded.bot_ids['alpha']}").get_json()
    assert data["name"] == "alpha" and data["game"] == "toy"
    assert len(data["history"]) == 3
    assert sum(s["matches"] for s in data["by_seat"]) == 3
    assert sum(o["matches"] for o in data["by_opponent"]) == 3
    assert data["versions"][0]["number"] == 1
    assert client.get("/api/bots/4242").status_code == 404


def test_matches_paging_and_filters(client, seeded) -> None:
    data = client.get("/api/matches?limit=5").get_json()
    assert len(data["matches"]) == 5 and data["newer"] is None and data["older"]
    rest = client.get(data["older"]).get_json()
    assert len(rest["matches"]) == 3 and rest["older"] is None and rest["newer"]
    ids = [m["id"] for m in data["matches"] + rest["matches"]]
    assert len(set(ids)) == 8
    forfeits = client.get("/api/matches?outcome=forfeit").get_json()["matches"]
    assert [m["id"] for m in forfeits] == [seeded.forfeit_match]
    seat = next(s for s in forfeits[0]["seats"] if s["forfeit"])
    assert seat["forfeit"] == "timeout"
    bad = client.get("/api/matches?outcome=win")
    assert bad.status_code == 400 and "choose a bot" in bad.get_json()["message"]
    assert client.get("/api/matches?bot=x").status_code == 400


def test_match_record_and_replay(client, site) -> None:
    url, seeded = site
    match_id = seeded.match_ids[2]
    data = client.get(f"/api/matches/{match_id}").get_json()
    assert data["id"] == match_id and data["status"] == "done"
    assert [s["seat"] for s in data["seats"]] == [0, 1]
    record = client.get(data["record_url"]).get_json()
    with session_scope(url) as s:
        assert record == s.get(Match, match_id).record
    replay = client.get(data["replay_url"]).get_json()
    n = len(record["decisions"])
    assert replay["steps"] == n + 1
    assert [d["option_id"] for d in replay["decisions"]] == [
        d["option"] for d in record["decisions"]
    ]
    first = client.get(f"/api/matches/{match_id}/replay/0").get_json()
    assert first["decision"] is None and first["view"]["round"] == 0
    last = client.get(f"/api/matches/{match_id}/replay/{n}").get_json()
    assert last["to_move"] is None
    assert last["result"]["scores"] == record["result"]["scores"]
    assert last["view"]["scores"] == [int(x) for x in record["result"]["scores"]]
    middle = client.get(f"/api/matches/{match_id}/replay/3").get_json()
    assert middle["decision"]["option_id"] == record["decisions"][2]["option"]
    assert middle["events"] == record["decisions"][2]["events"]
    assert client.get(f"/api/matches/{match_id}/replay/{n + 1}").status_code == 404
    assert client.get("/api/matches/nope").status_code == 404


def test_pending_match_has_no_replay(client, site) -> None:
    url, seeded = site
    with session_scope(url) as s:
        pending = s.query(Match).filter(Match.status == "pending").first().id
    assert client.get(f"/api/matches/{pending}").status_code == 200
    assert client.get(f"/api/matches/{pending}/replay").status_code == 404
    assert client.get(f"/api/matches/{pending}/record").status_code == 404
    assert "No replay" in client.get(f"/matches/{pending}").data.decode()


def test_tournaments_and_ladders(client, seeded) -> None:
    data = client.get("/api/tournaments").get_json()
    t = data["tournaments"][0]
    assert t["name"] == "Toy Cup" and t["progress"]["done"] == 6 and t["progress"]["total"] == 8
    one = client.get(f"/api/tournaments/{seeded.tournament_id}").get_json()
    assert len(one["standings"]) == 4 and len(one["schedule"]) == 8
    assert sum(s["played"] for s in one["standings"]) == 12
    assert client.get("/api/tournaments/999").status_code == 404
    ladders = client.get("/api/ladders").get_json()["ladders"]
    assert ladders == [
        {"game": "toy", "variant": "base", "enabled": True, "running": 0, "queued": 0}
    ]


def test_replay_flags_a_record_the_engine_no_longer_reproduces(client, site) -> None:
    url, seeded = site
    with session_scope(url) as s:
        m = s.get(Match, seeded.match_ids[3])
        record = dict(m.record)
    record["decisions"] = [dict(d) for d in record["decisions"]]
    record["decisions"][0]["events"] = ["something else happened"]
    with session_scope(url) as s:
        s.execute(
            insert(Match).values(
                id="d" * 32,
                game="toy",
                variant="base",
                players=2,
                seed=record["seed"],
                status="done",
                record=record,
            )
        )
    assert client.get(f"/api/matches/{'d' * 32}/replay/1").get_json()["diverged"] is True
    assert client.get(f"/api/matches/{'d' * 32}/replay/2").get_json()["diverged"] is False
    html = client.get(f"/matches/{'d' * 32}/steps/1").data.decode()
    assert "differ from the recorded ones" in html
    assert (
        "differ from the recorded"
        not in client.get(f"/matches/{seeded.match_ids[3]}/steps/1").data.decode()
    )
