"""Dial-in over TLS: the bot's ``ConnectBot`` stream and the referee's relay stream both go to
a TLS-only Arena server, checked against the test CA (``tls://`` relay address)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import pytest

from arena.db.session import DATABASE_ENV
from arena.sdk.client import ArenaClient
from arena.sdk.connect import DialInBot
from arena.server.app import RunningServer, start_server
from arena.workers.live import BROKER_ENV
from referee import dialin_client
from referee._proto import arena_pb2 as pb
from referee._proto import bot_pb2
from referee.bot_client import BotClient
from referee.tls import BOT_CA_ENV
from tests.api.certs import Certs, make_certs, needs_openssl
from tests.api.conftest import make_config
from tests.api.test_dialin import Running, first_option, wait_for

pytestmark = needs_openssl


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory, certs: Certs) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("tls-dialin")
    saved = {k: os.environ.get(k) for k in (DATABASE_ENV, BROKER_ENV, BOT_CA_ENV)}
    os.environ[DATABASE_ENV] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    os.environ.pop(BROKER_ENV, None)
    os.environ[BOT_CA_ENV] = str(certs.ca)  # the referee checks the relay's certificate with it
    running = start_server(dataclasses.replace(make_config(tmp), tls_cert=certs.cert, tls_key=certs.key),
                           "127.0.0.1:0")
    try:
        yield running
    finally:
        running.stop(grace=0)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_a_bot_dials_in_and_is_relayed_over_tls(tls_server: RunningServer, certs: Certs) -> None:
    assert dialin_client.relay_address() == f"tls://localhost:{tls_server.port}"
    with ArenaClient(f"localhost:{tls_server.port}", ca=certs.ca) as client:
        owner, token = "tls-dialler", client.register("tls-dialler").token
    bot = DialInBot(first_option, f"localhost:{tls_server.port}", token, "tls-dial", "toy",
                    ca=certs.ca, backoff_s=0.05)
    runner = Running(bot)
    try:
        assert bot.welcomed.wait(20), runner.error
        client = BotClient(dialin_client.source(owner, "toy", "tls-dial"), None)
        try:
            start = bot_pb2.MatchStart(protocol_version=1, match_id="tls", game="toy", seat=0, players=2)
            client.start_match(start, 10.0)
            request = bot_pb2.ActRequest(match_id="tls", seat=0, observation_json="{}",
                                         options=[bot_pb2.Option(id="a"), bot_pb2.Option(id="b")])
            assert client.act(request.SerializeToString(), 5.0).option_id == "a"
        finally:
            client.close()
        # Let its qualification end while this server runs: one left playing in this process
        # would record its verdict in whatever database the next test module points
        # ARENA_DATABASE_URL at (same submission id, another bot).
        with ArenaClient(f"localhost:{tls_server.port}", ca=certs.ca) as arena:
            wait_for(lambda: arena.version_status(bot.welcome.bot.bot.id).status != pb.VERSION_STATUS_QUALIFYING,
                     what="the qualification")
    finally:
        runner.stop()
