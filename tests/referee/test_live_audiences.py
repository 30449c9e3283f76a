"""What the match runner streams live versus what it records: a live spectator gets public lines
only and no id for a hidden choice, the record keeps every line with its audience, and the live
board is the engine's public view. engine.py's audiences (``seen_by``, ``option_audience``)."""

from __future__ import annotations

import json

import pytest

from referee import registry
from referee.engine import visible_to
from referee.match import MatchConfig, SeatSpec, run_match
from referee.record import MatchRecord
from referee.replay import ReplayMismatch, replay
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap

pytestmark = needs_bwrap


def test_black_angel_live_stream_hides_what_the_record_keeps() -> None:
    events: list[dict] = []
    views: list[dict] = []
    # A fixed match id: the random bot seeds its choices with it, so this match is the same every
    # run (with a fresh uuid about one match in 40 had no hidden choice and failed the last check).
    config = MatchConfig(game="black_angel", seed=23, variant="base", match_id="live-audiences",
                         seats=[SeatSpec("random", str(RANDOM_BOT)), SeatSpec("raises", str(HOSTILE / "raises_in_act"))])
    record = run_match(config, on_event=events.append, on_view=views.append)
    live = [e for e in events if e["type"] == "decision"]
    assert len(live) == len(record.decisions)
    private = 0
    for event, decision in zip(live, record.decisions, strict=True):
        assert len(decision.event_audiences) == len(decision.events)
        if decision.option_audience is not None:
            private += 1
            assert decision.option_audience == [decision.seat]
            assert event["option"] is None and event["private_choice"] and event["comment"] == ""
        else:
            assert event["option"] == decision.option and not event["private_choice"]
        # Live: exactly the public lines, in order; the record has all of them.
        assert event["events"] == [str(line) for line in decision.events if visible_to(line, None)]
        for line, audience in zip(decision.events, decision.event_audiences, strict=True):
            assert (audience is None) == visible_to(line, None)
    assert private > 0 and any(a is not None for d in record.decisions for a in d.event_audiences)
    json.dumps(events)

    # A bot's stderr tail is in the record (for its owner), never in the live stream.
    (forfeit,) = record.forfeits
    assert forfeit.seat == 1 and "Traceback" in forfeit.log_tail
    assert "Traceback" not in json.dumps(events)
    assert events[-1]["type"] == "end" and "log_tail" not in events[-1]["forfeits"][0]

    # The live board: the engine's public view at the start and at the end, no hands.
    final = registry.new_game("black_angel", 2, 23, "base")
    for d in record.decisions:
        final.apply(d.option)
    assert views[0] == registry.new_game("black_angel", 2, 23, "base").public_view()
    assert views[-1] == final.public_view()
    assert all("hand" not in seat for view in views for seat in view["seats"])

    # After the end everything is public: the record (with its audiences) round-trips and replays.
    again = MatchRecord.from_json(record.to_json())
    assert again.decisions[0].event_audiences == record.decisions[0].event_audiences
    replay(again)


def test_replay_checks_the_recorded_audiences() -> None:
    config = MatchConfig(game="black_angel", seed=31, variant="base", match_id="replay-audiences",
                         seats=[SeatSpec(f"r{i}", str(RANDOM_BOT)) for i in range(2)])
    data = run_match(config).to_dict()
    replay(MatchRecord.from_dict(data))
    hidden = next(d for d in data["decisions"] if d["option_audience"] is not None)
    hidden["option_audience"] = None  # a record that claims a hidden choice was public
    with pytest.raises(ReplayMismatch, match="audiences differ"):
        replay(MatchRecord.from_dict(data))


_CHATTY_BOT = '''
import random

from arena.sdk import serve_bot

rng = random.Random()


def start(match):
    rng.seed(f"{match['match_id']}:{match['seat']}")


def act(observation, legal_options):
    choice = rng.choice(legal_options).id
    return choice, f"partner, I hold {choice}"


if __name__ == "__main__":
    serve_bot(act, start=start)
'''


def _chatty_match(tmp_path, live_comments: bool) -> tuple[MatchRecord, list[dict]]:  # noqa: ANN001
    bot = tmp_path / "chatty"
    bot.mkdir(exist_ok=True)
    (bot / "bot.py").write_text(_CHATTY_BOT, encoding="utf-8")
    events: list[dict] = []
    config = MatchConfig(game="black_angel", seed=23, variant="base", match_id=f"chatty-{live_comments}",
                         seats=[SeatSpec(f"chatty{i}", str(bot)) for i in range(2)], live_comments=live_comments)
    return run_match(config, on_event=events.append), events


def test_live_decisions_carry_no_comment_and_no_time_the_record_keeps_both(tmp_path) -> None:  # noqa: ANN001
    """Issue 26 item 5: a live decision is seen by every watcher at once, an entrant's own
    processes included, so its comment and its times would be a channel between colluding seats."""
    record, events = _chatty_match(tmp_path, live_comments=False)
    live = [e for e in events if e["type"] == "decision"]
    assert len(live) == len(record.decisions) > 10
    for event in live:
        assert event["comment"] == ""
        assert "wall_ms" not in event and "cpu_ms" not in event
    assert "partner, I hold" not in json.dumps(events)
    # The record keeps them, published with it at the end.
    played = [d for d in record.decisions if not d.forced]
    assert played and all(d.comment == f"partner, I hold {d.option}" for d in played)
    assert all(d.wall_ms > 0 for d in played)


def test_a_tournament_that_allows_live_comments_gets_public_ones_still_no_times(tmp_path) -> None:  # noqa: ANN001
    record, events = _chatty_match(tmp_path, live_comments=True)
    live = [e for e in events if e["type"] == "decision"]
    public = [(e, d) for e, d in zip(live, record.decisions, strict=True) if d.option_audience is None and not d.forced]
    hidden = [e for e, d in zip(live, record.decisions, strict=True) if d.option_audience is not None]
    assert public and hidden
    assert all(e["comment"] == d.comment for e, d in public)
    assert all(e["comment"] == "" for e in hidden)  # a hidden choice's comment may name it
    assert all("wall_ms" not in e and "cpu_ms" not in e for e in live)
