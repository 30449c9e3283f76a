"""Challenges (issue 27 item 5): an author's bot challenges another author's active bot to a
match played now. Real servers on real sockets, real gRPC, the embedded SQLite default without
a broker (the server plays the match in its own pool); the bot pages are the real Flask app over
the same database."""

from __future__ import annotations

import dataclasses
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from arena.cli import cli
from arena.db import Challenge, Match, User, session_scope
from arena.db.session import DATABASE_ENV
from arena.intake.bots import register_version
from arena.play.challenges import ChallengeLimits
from arena.sdk.client import pack_folder
from arena.server.app import RunningServer
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from tests.api.archives import tar_bot
from tests.api.conftest import Account, make_config, new_account, server_on_fresh_database
from tests.api.processes import ROOT

SLOW_BOT = Path(__file__).parent / "bots" / "slow_bot"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot"


def _submit(
    stub: arena_pb2_grpc.ArenaStub, account: Account, name: str, folder: Path | None = None
) -> int:
    archive = pack_folder(folder) if folder else tar_bot()
    reply = stub.SubmitBot(
        pb.SubmitBotRequest(name=name, game="toy", archive=archive, wait=True),
        metadata=account.meta,
        timeout=90,
    )
    assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
    return reply.bot.bot.id


def _challenge(
    stub: arena_pb2_grpc.ArenaStub, account: Account, mine: int, theirs: int, rated: bool = False
) -> pb.Challenge:
    return stub.ChallengeBot(
        pb.ChallengeBotRequest(bot_id=mine, opponent_bot_id=theirs, rated=rated),
        metadata=account.meta,
        timeout=30,
    )


def _refusal(
    stub: arena_pb2_grpc.ArenaStub, account: Account | None, mine: int, theirs: int
) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        stub.ChallengeBot(
            pb.ChallengeBotRequest(bot_id=mine, opponent_bot_id=theirs),
            metadata=account.meta if account else (),
            timeout=30,
        )
    message = info.value.details()
    assert message and "\n" not in message and "Traceback" not in message and len(message) < 300, (
        message
    )
    return info.value


def _finished(
    stub: arena_pb2_grpc.ArenaStub, match_id: str, timeout: float = 90
) -> pb.MatchSummary:
    deadline = time.monotonic() + timeout
    while True:
        summary = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).summary
        if summary.status in ("done", "failed"):
            return summary
        assert time.monotonic() < deadline, f"match {match_id} still {summary.status}"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def site(server: RunningServer) -> Iterator:  # noqa: ARG001 - the server made the database
    from web.app import create_app

    app = create_app(os.environ[DATABASE_ENV])
    yield app.test_client()


def _challenge_rows(html: str) -> str:
    """The bot page's Challenges table (empty when the page has none)."""
    found = re.search(r'<table id="challenge-table">.*?</table>', html, re.S)
    return found.group(0) if found else ""


def test_a_challenge_plays_now_and_its_result_shows_on_both_bots_pages(server, stub, site) -> None:  # noqa: ANN001
    alice, bob = new_account(stub, "alice"), new_account(stub, "bob")
    a = _submit(stub, alice, "alice-first")
    b = _submit(stub, bob, "bob-random", RANDOM_BOT)
    made = _challenge(stub, alice, a, b)
    assert (made.bot_id, made.opponent_bot_id, made.challenger, made.rated) == (
        a,
        b,
        alice.name,
        False,
    )
    assert made.match_status in (
        pb.MATCH_STATUS_PENDING,
        pb.MATCH_STATUS_RUNNING,
        pb.MATCH_STATUS_DONE,
    )
    assert made.remaining_this_hour == ChallengeLimits().per_hour - 1
    summary = _finished(stub, made.match_id)
    assert summary.status == "done" and {s.bot_id for s in summary.seats} == {a, b}
    assert sorted(s.rank for s in summary.seats) in ([1, 1], [1, 2])
    # Unrated: recorded and ranked, no rating moved.
    for bot_id in (a, b):
        assert not stub.GetRatingHistory(pb.GetRatingHistoryRequest(bot_id=bot_id)).points
    with session_scope() as s:
        match = s.get(Match, made.match_id)
        assert (match.kind, match.rated, match.rating_seq) == ("challenge", False, None)
    pages = {bot_id: site.get(f"/bots/{bot_id}").get_data(as_text=True) for bot_id in (a, b)}
    assert "challenged <a" in _challenge_rows(pages[a]) and "challenged by <a" in _challenge_rows(
        pages[b]
    )
    for page in pages.values():
        rows = _challenge_rows(page)
        assert made.match_id[:8] in rows and "unrated" in rows
        assert re.search(r"<td>(won|lost|drew)</td>", rows), rows
    # Rated on request: both ratings move, once each.
    rated = _challenge(stub, alice, a, b, rated=True)
    assert rated.rated and _finished(stub, rated.match_id).status == "done"
    for bot_id in (a, b):
        points = stub.GetRatingHistory(pb.GetRatingHistoryRequest(bot_id=bot_id)).points
        assert [p.match_id for p in points] == [rated.match_id]
        rows = _challenge_rows(site.get(f"/bots/{bot_id}").get_data(as_text=True))
        assert rated.match_id[:8] in rows and ">rated<" in rows
    listed = site.get(f"/api/bots/{b}").get_json()["challenges"]
    assert [(c["match_id"], c["challenged"], c["rated"], c["opponent_id"]) for c in listed] == [
        (rated.match_id, True, True, a),
        (made.match_id, True, False, a),
    ]
    assert all(c["outcome"] in ("won", "lost", "drew") for c in listed)


def test_refusals_are_one_line_each(server, stub) -> None:  # noqa: ANN001
    carol, dave = new_account(stub, "carol"), new_account(stub, "dave")
    c1, c2 = _submit(stub, carol, "carol-one"), _submit(stub, carol, "carol-two")
    d = _submit(stub, dave, "dave-one")
    with session_scope() as s:  # a bot of another game, as the platform stores one
        other_game = register_version(
            s, "solenia", str(RANDOM_BOT), name="dave-solenia", owner=dave.name
        ).bot_id
    cases = [
        (None, c1, d, grpc.StatusCode.UNAUTHENTICATED, "API token"),
        (carol, c1, 999_999, grpc.StatusCode.NOT_FOUND, "no bot with id 999999"),
        (carol, 0, d, grpc.StatusCode.INVALID_ARGUMENT, "positive bot id"),
        (carol, d, c1, grpc.StatusCode.PERMISSION_DENIED, "belongs to another user"),
        (carol, c1, c1, grpc.StatusCode.INVALID_ARGUMENT, "cannot challenge itself"),
        (carol, c1, c2, grpc.StatusCode.INVALID_ARGUMENT, "is yours too"),
        (
            carol,
            c1,
            other_game,
            grpc.StatusCode.INVALID_ARGUMENT,
            "a challenge is a match of one game",
        ),
    ]
    for account, mine, theirs, code, words in cases:
        refused = _refusal(stub, account, mine, theirs)
        assert refused.code() == code and words in refused.details(), (
            mine,
            theirs,
            refused.details(),
        )
    stub.DeactivateBot(pb.DeactivateBotRequest(bot_id=d), metadata=dave.meta)
    refused = _refusal(stub, carol, c1, d)
    assert (
        refused.code() == grpc.StatusCode.FAILED_PRECONDITION
        and "is not active" in refused.details()
    )
    with session_scope() as s:
        made = (
            s.query(Challenge)
            .filter(Challenge.opponent_bot_id.in_((c1, c2, d, other_game)))
            .count()
        )
        assert made == 0  # nothing was made


def test_the_command_line_challenges_by_name_and_says_no_in_one_line(
    server,
    stub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
) -> None:
    erin, frank = new_account(stub, "erin"), new_account(stub, "frank")
    e = _submit(stub, erin, "erin-cli")
    f = _submit(stub, frank, "frank-cli")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("ARENA_TOKEN", erin.token)
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["challenge", "erin-cli", f"{frank.name}/frank-cli", "--wait", "--server", server.address],
    )
    assert result.exit_code == 0, result.output
    assert f"bot {e} (erin-cli) against bot {f}, unrated; match " in result.output
    assert re.search(r"^  [12]\. frank-cli v1: ", result.output, re.M), result.output
    result = runner.invoke(
        cli, ["challenge", str(e), "frank-cli", "--rated", "--server", server.address]
    )
    assert (
        result.exit_code == 0
        and ", rated; match " in result.output
        and "arena watch" in result.output
    )
    for args, code, words in (
        (["erin-cli", "erin-cli"], 1, "INVALID_ARGUMENT: bot "),
        (["erin-cli", "nobody-here"], 2, "OTHER_BOT nobody-here: no bot of that name in toy"),
        (["not-mine", "frank-cli"], 2, "MY_BOT not-mine: no bot of that name among your bots"),
        (["999999", "frank-cli"], 1, "NOT_FOUND: no bot with id 999999"),
    ):
        result = runner.invoke(cli, ["challenge", *args, "--server", server.address])
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == code and len(lines) == 1 and words in lines[0], result.output
    _finished(stub, stub.ListMatches(pb.ListMatchesRequest(bot_id=f)).matches[0].id)


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[tuple[RunningServer, arena_pb2_grpc.ArenaStub]]:
    """A server of its own whose caps the test sets through ``request.param``-free helpers."""
    servers: list = []

    def start(limits: ChallengeLimits) -> tuple[RunningServer, arena_pb2_grpc.ArenaStub]:
        config = dataclasses.replace(make_config(tmp_path), challenges=limits)
        context = server_on_fresh_database(tmp_path, config)
        running = context.__enter__()
        channel = grpc.insecure_channel(running.address)
        servers.append((context, channel))
        return running, arena_pb2_grpc.ArenaStub(channel)

    yield start
    for context, channel in servers:
        channel.close()
        context.__exit__(None, None, None)


def _retry_after(error: grpc.RpcError) -> int:
    status = rpc_status.from_call(error)
    for detail in status.details:
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return info.retry_delay.seconds
    raise AssertionError("no RetryInfo")


def test_the_hourly_cap_is_per_account_whatever_its_bots_or_clients(capped) -> None:  # noqa: ANN001
    running, stub = capped(ChallengeLimits(per_hour=3, pending=100, pending_per_bot=100))
    gina, hal, ivy, jon = (new_account(stub, n) for n in ("gina", "hal", "ivy", "jon"))
    g1, g2 = _submit(stub, gina, "gina-one"), _submit(stub, gina, "gina-two")
    h, i = _submit(stub, hal, "hal-one"), _submit(stub, ivy, "ivy-one")
    j = _submit(stub, jon, "jon-one")
    # Three challenges from two of gina's bots over three channels (three clients as gRPC sees them).
    channels = [
        grpc.insecure_channel(running.address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(3)
    ]
    try:
        stubs = [arena_pb2_grpc.ArenaStub(c) for c in channels]
        made = [
            _challenge(stubs[0], gina, g1, h),
            _challenge(stubs[1], gina, g2, i),
            _challenge(stubs[2], gina, g2, h),
        ]
        assert [m.remaining_this_hour for m in made] == [2, 1, 0]
        for other, (mine, theirs) in zip(stubs, ((g1, i), (g2, h), (g1, h)), strict=True):
            refused = _refusal(other, gina, mine, theirs)
            assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "limit 3 per account per hour, over all your bots" in refused.details()
            assert 3000 < _retry_after(refused) <= 3600
    finally:
        for c in channels:
            c.close()
    assert _challenge(stub, hal, h, g1).remaining_this_hour == 2  # another account has its own
    # Eight calls of one account at once: exactly three pass.
    results: list[object] = []

    def call() -> None:
        try:
            results.append(_challenge(stub, jon, j, h))
        except grpc.RpcError as exc:
            results.append(exc.code())

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(r, pb.Challenge) for r in results) == 3, results
    assert results.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 5
    for m in made:
        assert _finished(stub, m.match_id).status == "done"


def test_challenges_pending_at_once_are_capped_per_account_and_per_bot(capped) -> None:  # noqa: ANN001
    _, stub = capped(ChallengeLimits(per_hour=100, pending=1, pending_per_bot=2))
    kim, lee, max_, ned = (new_account(stub, n) for n in ("kim", "lee", "max", "ned"))
    slow = _submit(stub, kim, "kim-slow", SLOW_BOT)  # a match against it lasts seconds
    mine = {acct.name: _submit(stub, acct, f"{acct.name}-bot") for acct in (lee, max_, ned)}
    first = _challenge(stub, lee, mine[lee.name], slow)
    refused = _refusal(stub, lee, mine[lee.name], slow)
    assert (
        refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        and "not finished yet (limit 1 at once)" in refused.details()
    )
    _challenge(stub, max_, mine[max_.name], slow)
    refused = _refusal(stub, ned, mine[ned.name], slow)
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "already has 2 challenges waiting (limit 2 at once)" in refused.details()
    assert _finished(stub, first.match_id).status == "done"
    again = _challenge(stub, lee, mine[lee.name], slow)  # one finished: room again
    assert _finished(stub, again.match_id).status == "done"


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


def test_a_signed_in_author_challenges_from_the_website(server, stub, site) -> None:  # noqa: ANN001
    """The button's route with sign-in (web.account): the form's CSRF token, the signed-in
    author's bot; refusals as one-line pages; the match is stored and the server's ticker plays
    it (the website plays no matches)."""
    from web.app import create_app

    client = create_app(os.environ[DATABASE_ENV]).test_client()  # a browser of its own
    sam, tia = new_account(stub, "sam"), new_account(stub, "tia")
    s1, s2 = _submit(stub, sam, "sam-web"), _submit(stub, sam, "sam-web-two")
    t = _submit(stub, tia, "tia-web")
    anonymous = client.post(f"/bots/{t}/challenge", data={"bot": str(s1)})
    assert anonymous.status_code in (400, 401)  # no session: no CSRF token, no user
    signin = client.get("/signin")
    answer = client.post(
        "/signin", data={"token": sam.token, "csrf_token": _csrf(signin.get_data(as_text=True))}
    )
    assert answer.status_code == 303, answer.get_data(as_text=True)
    page = client.get(f"/bots/{t}").get_data(as_text=True)
    token = _csrf(page)
    # the form offers the signed-in author's active bots of the game, and only on others' bots
    form = re.search(r'<form[^>]*data-testid="challenge-form".*?</form>', page, re.S)
    assert form and f'value="{s1}"' in form.group(0) and f'value="{s2}"' in form.group(0)
    assert 'data-testid="challenge-form"' not in client.get(f"/bots/{s1}").get_data(as_text=True)
    refused = client.post(f"/bots/{s2}/challenge", data={"bot": str(s1), "csrf_token": token})
    assert refused.status_code == 400 and b"is yours too" in refused.data
    assert (
        client.post(f"/bots/{t}/challenge", data={"bot": str(s1)}).status_code == 400
    )  # no CSRF token
    made = client.post(
        f"/bots/{t}/challenge", data={"bot": str(s1), "rated": "1", "csrf_token": token}
    )
    assert made.status_code == 303, made.get_data(as_text=True)
    match_id = made.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    with session_scope() as s:
        row = s.query(Challenge).filter(Challenge.match_id == match_id).one()
        assert (row.challenger_bot_id, row.opponent_bot_id, row.rated) == (s1, t, True)
    assert _finished(stub, match_id, timeout=60).status == "done"  # arena serve's ticker played it
    assert match_id[:8] in _challenge_rows(site.get(f"/bots/{t}").get_data(as_text=True))


def test_a_challenge_stored_by_another_process_is_played_by_the_servers_ticker(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The website plays no matches: without a broker it only stores the challenge
    (``plays_matches=False``), and ``arena serve``'s ticker sweeps it up and plays it."""
    from arena.play import challenges
    from arena.server import app as server_app

    monkeypatch.setattr(server_app, "LADDER_TICK_S", 0.5)  # the ticker's period (ARENA_LADDER_TICK)
    with server_on_fresh_database(tmp_path, make_config(tmp_path)) as running:
        channel = grpc.insecure_channel(running.address)
        try:
            stub = arena_pb2_grpc.ArenaStub(channel)
            quinn, rosa = new_account(stub, "quinn"), new_account(stub, "rosa")
            q, r = _submit(stub, quinn, "quinn-bot"), _submit(stub, rosa, "rosa-bot")
            with session_scope() as s:
                quinn_id = s.query(User.id).filter(User.name == quinn.name).scalar()
            made = challenges.challenge(quinn_id, q, r, plays_matches=False)
            assert made.match_status == "pending"
            assert _finished(stub, made.match_id, timeout=30).status == "done"
        finally:
            channel.close()


@pytest.mark.browser
def test_the_challenge_button_in_a_browser(server, stub, tmp_path: Path) -> None:  # noqa: ANN001
    """A signed-in author picks a bot and clicks Challenge on another author's bot page (real
    Chromium, the site over real HTTP): the match page opens, the server plays the match, and
    both bots' pages list it; signed out, the page offers only a sign-in link."""
    from werkzeug.serving import make_server

    from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS
    from web.app import create_app

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium")
    from playwright.sync_api import sync_playwright

    uma, vic = new_account(stub, "uma"), new_account(stub, "vic")
    mine, theirs = _submit(stub, uma, "uma-bot"), _submit(stub, vic, "vic-bot")
    http = make_server("127.0.0.1", 0, create_app(os.environ[DATABASE_ENV]), threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{http.server_port}"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                for width in (1280, 390):
                    context = browser.new_context(viewport={"width": width, "height": 900})
                    page = context.new_page()
                    page.goto(f"{base}/bots/{theirs}")
                    assert page.get_by_role("link", name="Sign in").first.is_visible()
                    assert page.locator('[data-testid="challenge-form"]').count() == 0
                    page.goto(f"{base}/signin?next=/bots/{theirs}")
                    page.fill('input[name="token"]', uma.token)
                    page.locator('form:has(input[name="token"]) button[type="submit"]').click()
                    page.wait_for_url(f"**/bots/{theirs}")
                    form = page.locator('[data-testid="challenge-form"]')
                    form.locator("select").select_option(str(mine))
                    button = form.get_by_role("button", name="Challenge vic-bot")
                    assert button.is_visible()
                    assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
                    page.screenshot(path=str(tmp_path / f"challenge-{width}.png"), full_page=True)
                    button.click()
                    page.wait_for_url("**/matches/*")
                    match_id = page.url.rstrip("/").rsplit("/", 1)[-1]
                    assert _finished(stub, match_id, timeout=60).status == "done"
                    for bot in (mine, theirs):
                        page.goto(f"{base}/bots/{bot}")
                        assert match_id[:8] in page.locator("#challenge-table").inner_text()
                    context.close()
            finally:
                browser.close()
    finally:
        http.shutdown()
