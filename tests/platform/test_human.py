"""A person's seat (arena.play.human) without a browser: a seat left alone forfeits on its own clock
while the bot keeps the game's, the match is stored done and never rated, the caps hold, and
nobody without the seat's secret reads the seat's observation (web/play.py answers 403)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.db import HumanSeat, Match, Rating, RatingHistory, dispose_all, session_scope
from arena.db.models import Bot, BotVersion
from arena.db.session import DATABASE_ENV
from arena.intake import bots
from arena.play import human
from arena.records.stored import record_data
from referee import sandbox
from web.app import create_app

RANDOM_FOLDER = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot"


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv(DATABASE_ENV, db)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path))
    monkeypatch.setenv("ARENA_SANDBOX", "0")  # the sample bots; the browser test uses bubblewrap
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    dispose_all()
    yield db
    dispose_all()


def _wait_done(url: str, match_id: str, limit_s: float = 60.0) -> Match:
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        with session_scope(url) as s:
            match = s.get(Match, match_id)
            if match.status in ("done", "failed"):
                s.expunge(match)
                return match
        time.sleep(0.2)
    raise AssertionError(f"match {match_id} did not end in {limit_s} s")


def test_a_seat_left_alone_forfeits_on_its_own_clock_and_nothing_is_rated(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(human.DECISION_ENV, "1.5")
    started = human.start_game(url, "solenia", 2, None, 1, ["house-greedy"], "client-a")
    view = None
    for _ in range(100):  # the seat's first decision arrives with its observation and options
        with session_scope(url) as s:
            view = human.seat_view(s, started.match_id, started.secret)
        if view.decision is not None:
            break
        time.sleep(0.1)
    assert view is not None and view.decision is not None and view.options and view.observation
    assert view.observation["seat"] == 1 and "hand" in view.observation
    assert 0 < view.deadline - time.time() <= 1.6
    match = _wait_done(url, started.match_id)
    assert (match.status, match.kind, match.rating_seq) == ("done", "human", None)
    # Stored compactly like a worker's match, and regenerated whole, the person's seat included.
    assert match.record is None and match.record_compact and match.engine_version
    record = record_data(match)
    forfeit = record["forfeits"][0]
    assert (forfeit["seat"], forfeit["reason"]) == (1, "timeout")
    # The bot kept the game's clock; only the person's seat had its own.
    assert record["time_control"] == {"decision_ms": 1000, "bank_ms": 20000}
    assert record["seats"][1] == {
        "name": "a person",
        "kind": "human",
        "time_control": {"decision_ms": 1500, "bank_ms": 0},
    }
    with session_scope(url) as s:
        seats = s.scalars(select(Match).where(Match.id == started.match_id)).one().seats
        assert [seat.forfeit for seat in seats] == [None, "timeout"]
        assert all(seat.mu_before is None and seat.mu_after is None for seat in seats)
        assert s.scalar(select(func.count()).select_from(RatingHistory)) == 0
        assert all(r.games_played == 0 for r in s.scalars(select(Rating)))
        row = s.scalar(select(HumanSeat).where(HumanSeat.match_id == started.match_id))
        assert row.status == "done" and row.observation is None  # the record is public now
        # The pseudo-bot of the person's seat is never on a ladder or in a tournament.
        population = bots.latest_versions(s, "solenia", active_only=False)
        assert population and all(v.kind != human.HUMAN_KIND for v in population)


def test_caps_per_client_and_in_all(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(human.DECISION_ENV, "1")
    monkeypatch.setenv(human.PER_CLIENT_ENV, "1")
    monkeypatch.setenv(human.MAX_ENV, "2")
    first = human.start_game(url, "solenia", 2, None, 0, ["house-random"], "client-a")
    with pytest.raises(human.HumanGamesFull, match="per player"):
        human.start_game(url, "solenia", 2, None, 0, ["house-random"], "client-a")
    second = human.start_game(url, "solenia", 2, None, 0, ["house-random"], "client-b")
    with pytest.raises(human.HumanGamesFull, match="at once"):
        human.start_game(url, "solenia", 2, None, 0, ["house-random"], "client-c")
    for started in (first, second):
        _wait_done(url, started.match_id)
    # Ended games no longer count.
    third = human.start_game(url, "solenia", 2, None, 0, ["house-random"], "client-a")
    _wait_done(url, third.match_id)


def test_mistakes_are_one_line_errors(url: str) -> None:
    cases = [
        (("nogame", 2, None, 0, ["house-random"]), "unknown game"),
        (("solenia", 9, None, 0, []), "not 9"),
        (("solenia", 2, None, 5, ["house-random"]), "seat must be"),
        (("solenia", 3, None, 0, ["house-random", "house-random"]), "different bot"),
        (("solenia", 2, None, 0, ["v999"]), "not an active bot"),
    ]
    for args, words in cases:
        with pytest.raises(human.HumanGameError, match=words):
            human.start_game(url, *args, "client-a")


def test_only_the_seat_secret_reads_the_seat(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(human.DECISION_ENV, "3")
    started = human.start_game(url, "black_angel", 2, None, 0, ["house-random"], "client-a")
    with session_scope(url) as s:
        assert human.seat_view(s, started.match_id, None) is None
        assert human.seat_view(s, started.match_id, "x" * 43) is None
    with pytest.raises(human.HumanGameError, match="does not hold a seat"):
        human.choose(url, started.match_id, "x" * 43, 0, "anything")
    app = create_app(url)
    owner, stranger = app.test_client(), app.test_client()
    owner.set_cookie(
        f"arena_seat_{started.match_id}", started.secret, path=f"/play/{started.match_id}"
    )
    for _ in range(100):
        page = owner.get(f"/play/{started.match_id}")
        if b'id="your-turn"' in page.data:
            break
        time.sleep(0.1)
    assert page.status_code == 200 and b'id="your-turn"' in page.data
    for path in ("", "/state"):
        denied = stranger.get(f"/play/{started.match_id}{path}")
        assert denied.status_code == 403
        assert b"your-turn" not in denied.data and b"observation" not in denied.data
    refused = stranger.post(f"/play/{started.match_id}/choose", data={"decision": "0"})
    assert refused.status_code in (400, 403)  # 400: refused by a CSRF check where one runs
    _wait_done(url, started.match_id)
    with session_scope(url) as s:
        assert (
            s.scalar(select(Bot).join(BotVersion).where(BotVersion.kind == "human")).active is False
        )


def test_a_solo_game_against_the_engines_automaton(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Players 1: no bot at the table, the engine plays Hal; stored unrated, ranked against Hal."""
    monkeypatch.setenv(human.DECISION_ENV, "0.5")
    started = human.start_game(url, "black_angel", 1, "solo", 0, [], "client-a")
    match = _wait_done(url, started.match_id, 120.0)
    assert (match.status, match.kind, match.rating_seq, match.automaton_version_id) == (
        "done",
        "human",
        None,
        None,
    )
    assert match.result["details"]["automaton"] == "Hal"
    with session_scope(url) as s:
        (seat,) = s.get(Match, started.match_id).seats
        assert seat.rank == 2 and seat.forfeit == "timeout"  # forfeited: behind Hal
        assert s.scalar(select(func.count()).select_from(Rating)) == 0


def test_a_game_whose_process_died_is_marked_failed(url: str) -> None:
    """A game lives in the process playing it; when that process stops renewing it, the next
    start (or sweep) marks it failed with a reason the seat's page shows."""
    from arena.records import recording

    with session_scope(url) as s:
        vid = human.human_version(s, "solenia")
        match = recording.create_match(s, "solenia", "summer", [vid], 1, kind="human")
        match.status = "running"
        s.add(
            HumanSeat(
                match_id=match.id,
                seat=0,
                secret_hash=human.hash_secret("s"),
                client="c",
                status="playing",
                prompt="",
                alive_until=time.time() - 1,
            )
        )
        match_id = match.id
    assert human.sweep_dead(url) == 1
    with session_scope(url) as s:
        view = human.seat_view(s, match_id, "s")
        assert (view.status, view.match_status) == ("failed", "failed")
        assert "stopped" in view.error
    assert human.sweep_dead(url) == 0


def _first_decision(url: str, started: human.Started) -> human.SeatView:
    for _ in range(200):
        with session_scope(url) as s:
            view = human.seat_view(s, started.match_id, started.secret)
        if view.decision is not None:
            return view
        time.sleep(0.1)
    raise AssertionError("no decision came to the person's seat")


def test_resigning_forfeits_at_once_and_no_bot_counts_the_game(url: str) -> None:
    """Resign: the seat forfeits now (not after its 10-minute clock), the fallback plays it out,
    the record is public; the game counts in no bot's tables, and the person's seat is no bot."""
    started = human.start_game(url, "solenia", 2, None, 1, ["house-greedy"], "client-a")
    _first_decision(url, started)
    with pytest.raises(human.HumanGameError, match="does not hold a seat"):
        human.resign(url, started.match_id, "x" * 43)
    begun = time.monotonic()
    human.resign(url, started.match_id, started.secret)
    human.resign(url, started.match_id, started.secret)  # a second click changes nothing
    match = _wait_done(url, started.match_id, 60.0)
    assert time.monotonic() - begun < 30  # the default clock is 600 s a decision
    assert (match.status, match.kind, match.rating_seq) == ("done", "human", None)
    (forfeit,) = record_data(match)["forfeits"]
    assert (forfeit["seat"], forfeit["reason"]) == (1, "bot_error")
    assert forfeit["message"].endswith(human.RESIGNED)
    with session_scope(url) as s:
        view = human.seat_view(s, started.match_id, started.secret)
        assert view.status == "done" and view.forfeit["reason"] == "bot_error"
        assert [seat.forfeit for seat in s.get(Match, started.match_id).seats] == [
            None,
            "bot_error",
        ]
        greedy = s.scalar(select(Bot.id).where(Bot.name == "house-greedy"))
        person = s.scalar(select(Bot.id).join(BotVersion).where(BotVersion.kind == "human"))
    with pytest.raises(human.HumanGameError, match="over already"):
        human.resign(url, started.match_id, started.secret)
    # The bot's page lists the game (marked human) but counts it in no table.
    client = create_app(url).test_client()
    page = client.get(f"/bots/{greedy}")
    assert page.status_code == 200 and started.match_id[:8].encode() in page.data
    assert b"No finished matches." in page.data and b"No opponents met yet." in page.data
    data = client.get(f"/api/bots/{greedy}").get_json()
    assert data["by_seat"] == [] and data["by_opponent"] == [] and data["human"] is False
    # The person's seat is no bot: its page says what it is, without versions or tables.
    page = client.get(f"/bots/{person}")
    assert page.status_code == 200 and b"a person playing in the browser" in page.data
    assert b"Results by opponent" not in page.data and b"Rating history" not in page.data
    data = client.get(f"/api/bots/{person}").get_json()
    assert data["human"] is True and data["versions"] == [] and data["by_opponent"] == []
    listing = client.get("/matches?bot=human")
    assert b"the seat of a person" in listing.data


def test_resigning_while_the_bots_move_forfeits_at_the_next_decision(url: str) -> None:
    """A resign that comes before the seat's first decision: the seat forfeits when asked."""
    started = human.start_game(url, "orbital", 2, None, 1, ["house-random"], "client-a")
    human.resign(url, started.match_id, started.secret)
    match = _wait_done(url, started.match_id, 60.0)
    record = record_data(match)
    assert record["forfeits"][0]["reason"] == "bot_error"
    assert record["forfeits"][0]["message"].endswith(human.RESIGNED)


def test_a_process_that_stops_serving_resigns_its_games_and_their_bots_go(url: str) -> None:
    """``resign_games_played_here``: every game waiting for its person here ends (resigned,
    stored), and its bots' processes with it, instead of holding them for the 600 s clock."""
    before = set(sandbox.socket_dirs_of(os.getpid()))
    games = [human.start_game(url, "solenia", 2, None, 1, ["house-random"], f"client-{c}")
             for c in "ab"]
    for started in games:
        _first_decision(url, started)
    assert set(sandbox.socket_dirs_of(os.getpid())) - before  # the bots run, unsandboxed here
    assert human.resign_games_played_here(wait_s=60.0) == []
    for started in games:
        with session_scope(url) as s:
            match = s.get(Match, started.match_id)
            assert match.status == "done" and [seat.forfeit for seat in match.seats] == [None, "bot_error"]
        assert not human.played_here(started.match_id)
    assert set(sandbox.socket_dirs_of(os.getpid())) - before == set()
    assert human.resign_games_played_here() == []  # nothing left: nothing to wait for


def test_waiting_clicks_hold_at_most_two_threads(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain form post waits for the bots only as the first of its seat and one of the
    process's CHOICE_WAITERS: however many posts arrive, the others return at once."""
    import threading

    from arena.records import recording
    from web import play

    monkeypatch.setattr(play, "CHOICE_WAIT_S", 1.5)
    ids = []
    with session_scope(url) as s:
        vid = human.human_version(s, "solenia")
        for n in range(4):  # a seat whose bots "move" for ever: a click would wait it out
            match = recording.create_match(s, "solenia", "summer", [vid], n, kind="human")
            match.status = "running"
            s.add(
                HumanSeat(
                    match_id=match.id,
                    seat=0,
                    secret_hash=human.hash_secret("s"),
                    client="c",
                    status="playing",
                    prompt="",
                    alive_until=time.time() + 60,
                )
            )
            ids.append(match.id)
    app = create_app(url)
    waited: list[float] = []
    lock = threading.Lock()

    def click(match_id: str) -> None:
        with app.test_request_context(
            f"/play/{match_id}/choose", headers={"Cookie": f"arena_seat_{match_id}=s"}
        ):
            begun = time.monotonic()
            play._wait_for_bots(match_id)
            with lock:
                waited.append(time.monotonic() - begun)

    # 3 clicks on one seat and one on each of 3 others: 2 wait, 4 return at once.
    threads = [threading.Thread(target=click, args=(m,)) for m in [ids[0]] * 3 + ids[1:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(waited) == 6
    assert sum(w > 1.0 for w in waited) == 2, waited
    assert sum(w < 0.5 for w in waited) == 4, waited
    # The slots are free again afterwards.
    begun = time.monotonic()
    click(ids[3])
    assert time.monotonic() - begun > 1.0


def test_opponents_are_each_active_bots_playing_version_in_a_fixed_number_of_queries(
    url: str,
) -> None:
    """The /play form's list: the newest version not held back (a held newer one is skipped),
    no inactive bot, no house-owned bot, no bot whose playing version is an automaton — the
    same list :func:`arena.intake.bots.latest_versions` gives — in the same few queries whatever the
    number of bots (it once took a query a bot)."""
    from sqlalchemy import event

    from arena.db import get_engine
    from arena.intake import house

    game = "solenia"
    with session_scope(url) as s:

        def bot(i: int, owner: str = "alice", active: bool = True) -> Bot:
            b = Bot(name=f"b{i}", owner=owner, game=game, active=active)
            s.add(b)
            s.flush()
            return b

        def version(b: Bot, number: int, kind: str = "hosted", held: bool = False) -> None:
            s.add(
                BotVersion(
                    bot_id=b.id,
                    number=number,
                    kind=kind,
                    source=f"/x/{b.id}/{number}",
                    digest=f"{b.id}-{number}",
                    held=held,
                    initial_mu=25.0,
                    initial_sigma=25 / 3,
                )
            )

        for i in range(30):
            version(bot(i), 1)
        plain, held, inactive, housed, auto = (
            bot(100),
            bot(101),
            bot(102, active=False),
            bot(103, owner=house.HOUSE_OWNER),
            bot(104),
        )
        version(plain, 1)
        version(plain, 2)
        version(held, 1)
        version(held, 2, held=True)
        version(inactive, 1)
        version(housed, 1)
        version(auto, 1, kind=house.AUTOMATON_KIND)
        s.flush()
        statements: list[str] = []
        listen = lambda *a: statements.append(a[2])  # noqa: E731
        event.listen(get_engine(url), "before_cursor_execute", listen)
        try:
            found = human.opponents(s, game)
        finally:
            event.remove(get_engine(url), "before_cursor_execute", listen)
        expected = [
            f"v{v.id}"
            for v in bots.latest_versions(s, game)
            if v.kind != human.HUMAN_KIND and v.bot.owner != house.HOUSE_OWNER
        ]
        labels = {o.key: o.label for o in found}
        plain_v2 = s.scalar(
            select(BotVersion.id).where(BotVersion.bot_id == plain.id, BotVersion.number == 2)
        )
        held_v1 = s.scalar(
            select(BotVersion.id).where(BotVersion.bot_id == held.id, BotVersion.number == 1)
        )
    assert [o.key for o in found if not o.house] == expected and len(expected) == 32
    assert (
        labels[f"v{plain_v2}"] == "b100 v2 (alice)" and labels[f"v{held_v1}"] == "b101 v1 (alice)"
    )
    assert len(statements) <= 2


def test_the_form_lists_the_best_rated_bots_and_any_bot_from_its_page(url: str, monkeypatch) -> None:  # noqa: ANN001
    """At thousands of bots the form lists the house bots and the best-rated LISTED; "Play this
    bot" on any bot's page (``/play?game=G&bot=ID``) puts that bot first and chooses it."""
    from arena.intake.bots import register_version

    monkeypatch.setattr(human, "LISTED", 2)
    with session_scope(url) as s:
        ids = []
        for i, mu in enumerate((20.0, 30.0, 25.0, 10.0)):
            version = register_version(s, "solenia", str(RANDOM_FOLDER), name=f"ranked{i}", owner="ann")
            s.flush()
            rating = s.get(Rating, (version.id, "solenia"))
            rating.mu, rating.sigma = mu, 1.0
            ids.append(version.bot_id)
    client = create_app(url).test_client()
    page = client.get("/play?game=solenia").get_data(as_text=True)
    listed = re.findall(r'<option value="v\d+"[^>]*>(ranked\d)', page)
    assert listed == ["ranked1", "ranked2"] * listed.count("ranked1")  # the two best, best first
    assert "the 2 best-rated of" in page
    page = client.get(f"/play?game=solenia&bot={ids[3]}").get_data(as_text=True)
    chosen = re.search(r'<select id="p-opp1"[^>]*>.*?</select>', page, re.S).group(0)
    assert re.search(r'<option value="v\d+" selected>ranked3', chosen), chosen
    bot_page = client.get(f"/bots/{ids[3]}").get_data(as_text=True)
    assert f"/play?game=solenia&amp;bot={ids[3]}" in bot_page
