"""A client built only from protos/arena.proto: run from a folder holding this script and the
modules grpc_tools generated; it imports grpc and those modules, never the project.

Environment: ARENA_ADDRESS, ARENA_ORGANISER_TOKEN, RANDOM_BOT_DIR, SLOW_BOT_DIR.
Prints one JSON object with what it saw; exits non-zero on the first surprise.
"""

import importlib.abc
import io
import json
import os
import sys
import threading
import time
import zipfile


class _NoProject(importlib.abc.MetaPathFinder):
    """Make any import of the project fail loudly: the contract must stand alone."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
        if name.split(".")[0] in ("arena", "referee", "tests", "sample_bots"):
            raise ImportError(f"the proto-only client must not import {name}")
        return None


sys.meta_path.insert(0, _NoProject())

import arena_pb2 as pb  # noqa: E402
import arena_pb2_grpc  # noqa: E402
import grpc  # noqa: E402


def zip_folder(folder: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and name.endswith(".py"):
                zf.write(path, f"bot/{name}")
    return buf.getvalue()


def main() -> None:
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    stub = arena_pb2_grpc.ArenaStub(channel)
    organiser = (("authorization", "Bearer " + os.environ["ARENA_ORGANISER_TOKEN"]),)
    out: dict = {}

    reg = stub.Register(pb.RegisterRequest(name="proto-author"))
    me = (("authorization", "Bearer " + reg.token),)
    out["user"] = stub.WhoAmI(pb.WhoAmIRequest(), metadata=me).name

    bot_ids = []
    for name, folder in (("proto-rnd", os.environ["RANDOM_BOT_DIR"]), ("proto-slow", os.environ["SLOW_BOT_DIR"])):
        if name == "proto-slow":  # another author's: a tournament takes one entry per author
            me = (("authorization", "Bearer " + stub.Register(pb.RegisterRequest(name="proto-author-2")).token),)
        reply = stub.SubmitBot(
            pb.SubmitBotRequest(name=name, game="toy", archive=zip_folder(folder), archive_name=f"{name}.zip", wait=True),
            metadata=me, timeout=120,
        )
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal
        bot_ids.append(reply.bot.bot.id)
    out["bot_ids"] = bot_ids

    t = stub.CreateTournament(
        pb.CreateTournamentRequest(name="proto-only cup", game="toy", players=2, rounds=1, bot_ids=bot_ids,
                                   decision_ms=1500, bank_ms=3000),
        metadata=organiser,
    )
    out["matches_total"] = t.matches_total

    page = stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.id, page_size=10))
    watched = page.matches[0].id
    events: list = []

    def follow() -> None:
        for ev in stub.WatchMatch(pb.WatchMatchRequest(match_id=watched), timeout=120):
            events.append((time.monotonic(), ev))

    watcher = threading.Thread(target=follow)
    watcher.start()

    deadline = time.monotonic() + 150
    while True:
        t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id))
        if t.status == "done" or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    out["tournament_status"] = t.status
    out["matches_done"] = t.matches_done
    watcher.join(60)

    live = [json.loads(ev.event_json) for _, ev in events if ev.kind == pb.MATCH_EVENT_KIND_LIVE]
    records = [ev for _, ev in events if ev.kind == pb.MATCH_EVENT_KIND_RECORD]
    out["live_types"] = sorted({e["type"] for e in live})
    out["live_decisions"] = sum(1 for e in live if e["type"] == "decision")
    out["records"] = len(records)
    out["record_matches"] = bool(records) and json.loads(records[-1].record_json)["match_id"] == watched
    out["record_decisions"] = len(json.loads(records[-1].record_json)["decisions"]) if records else -1
    out["live_span_s"] = (events[-1][0] - events[0][0]) if events else 0.0

    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(game="toy"))
    out["leaderboard"] = {row.bot_id: row.matches for row in board.rows}
    full = stub.GetMatch(pb.GetMatchRequest(match_id=watched))
    out["full_record_seats"] = len(json.loads(full.record_json)["seats"])
    out["project_imported"] = any(m.split(".")[0] in ("arena", "referee") for m in sys.modules)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
