"""Dial-in caps one client cannot multiply with accounts (issue 26): pending qualifications are
capped per client address across its accounts (ARENA_PENDING_QUALIFICATIONS_PER_CLIENT), beside
the per-account cap; a bot refused at qualification for its own fault qualifies again only after
ARENA_REQUALIFY_BACKOFF_S. Clients are told apart as WatchMatch and Register tell them
(x-forwarded-for from a trusted proxy here). Real server, real sockets, bare ConnectBot streams
and the SDK's dialling bot."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sqlalchemy import select

from arena.db import Submission, session_scope
from arena.sdk.connect import ConnectError, DialInBot
from arena.server.app import RunningServer
from arena.server.config import ServerConfig
from referee._proto import arena_pb2 as pb
from tests.api.conftest import make_config, new_account, server_on_fresh_database
from tests.api.test_dialin import Running, first_option, wait_for
from tests.api.test_dialin_caps import Raw, refused

PER_ACCOUNT = 2
PER_CLIENT = 3
BACKOFF_S = 4


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The API tests' server behind a trusted proxy (127.0.0.1), with small pending caps and a
    short requalification backoff."""
    tmp: Path = tmp_path_factory.mktemp("arena-client-caps")
    config = dataclasses.replace(
        make_config(tmp), trusted_proxies=("127.0.0.1",), dialin_pending_qualifications=PER_ACCOUNT,
        pending_qualifications_per_client=PER_CLIENT, requalify_backoff_s=BACKOFF_S, dialin_check_s=0.2)
    with server_on_fresh_database(tmp, config) as running:
        yield running


@pytest.fixture
def raws() -> Iterator[list[Raw]]:
    opened: list[Raw] = []
    yield opened
    for r in opened:
        r.close()


def _from(address: str) -> tuple[tuple[str, str], ...]:
    return (("x-forwarded-for", address),)


def _pending_clients() -> list[str | None]:
    with session_scope() as s:
        return list(s.scalars(select(Submission.client).where(Submission.status == "qualifying")))


def test_pending_qualifications_are_capped_per_client_whatever_the_account(server, stub, raws) -> None:  # noqa: ANN001
    """Two accounts from one address: together no more than PER_CLIENT pending qualifications
    (each account is still under its own cap); another address, even for the same account, is
    another client."""
    first, second, elsewhere = (new_account(stub, "origin") for _ in range(3))
    attacker = _from("198.51.100.20")
    for i in range(PER_ACCOUNT):
        raws.append(Raw(server.address, first.token, f"silent-a{i}", meta=attacker))
        assert raws[-1].first().welcome.qualifying
    raws.append(Raw(server.address, second.token, "silent-b0", meta=attacker))
    assert raws[-1].first().welcome.qualifying
    assert sorted(_pending_clients()) == ["addr:198.51.100.20"] * PER_CLIENT

    raws.append(Raw(server.address, second.token, "silent-b1", meta=attacker))
    err = refused(raws[-1])
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert (f"{PER_CLIENT} qualification(s) started from 198.51.100.20 are pending (limit {PER_CLIENT} per "
            "client, whatever the account)") in err.details()

    # Another address is another client: a third account, and the same second account, start theirs.
    raws.append(Raw(server.address, elsewhere.token, "silent-c0", meta=_from("198.51.100.21")))
    assert raws[-1].first().welcome.qualifying
    raws.append(Raw(server.address, second.token, "silent-b2", meta=_from("2001:db8:7::1")))
    assert raws[-1].first().welcome.qualifying

    # Once the silent bots' qualifications are decided (unreachable), the address may start more.
    for raw in raws[:PER_ACCOUNT + 1]:
        assert raw.ending().code() == grpc.StatusCode.FAILED_PRECONDITION
    wait_for(lambda: "addr:198.51.100.20" not in _pending_clients(), timeout=30, what="the qualifications")
    raws.append(Raw(server.address, first.token, "after-decided", meta=attacker))
    assert raws[-1].first().welcome.qualifying


def test_uploads_and_remote_bots_record_their_client(server, stub) -> None:  # noqa: ANN001
    """The pending count includes every kind of bot a client's calls started."""
    owner = new_account(stub, "remote")
    reply = stub.RegisterRemoteBot(pb.RegisterRemoteBotRequest(name="far-away", game="toy", address="127.0.0.1:9"),
                                   metadata=(*owner.meta, *_from("203.0.113.40")))
    with session_scope() as s:
        assert s.scalar(select(Submission.client).where(Submission.bot_id == reply.bot.bot.id)) == "addr:203.0.113.40"


def test_a_bot_refused_at_qualification_qualifies_again_only_after_the_backoff(server, stub, running, raws) -> None:  # noqa: ANN001
    """Reconnecting a broken bot at once is refused RESOURCE_EXHAUSTED saying how long to wait;
    the SDK waits (a cap, not an end) and the fixed bot qualifies once the backoff is over."""
    owner = new_account(stub, "backoff")

    def broken(observation: dict, options: list) -> str:  # noqa: ARG001
        raise RuntimeError("no idea")

    bot = Running(DialInBot(broken, server.address, owner.token, "flaky", "toy", backoff_s=0.05))
    running.append(bot)
    bot.thread.join(30)
    assert isinstance(bot.error, ConnectError) and "failed its qualification match (bot_error)" in str(bot.error)
    refused_at = time.monotonic()

    raws.append(Raw(server.address, owner.token, "flaky"))
    err = refused(raws[-1])
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = err.details()
    assert (f"bot 'flaky' for toy was refused at qualification (bot_error) and may qualify again {BACKOFF_S} s "
            "after a refusal: connect again in ") in details
    assert "GetVersionStatus(bot_id=" in details and "number=1) says why it was refused" in details

    fixed = DialInBot(first_option, server.address, owner.token, "flaky", "toy", backoff_s=0.2, max_backoff_s=0.5)
    running.append(Running(fixed))
    assert fixed.welcomed.wait(30)
    assert time.monotonic() - refused_at >= BACKOFF_S - 1.5  # not before the backoff (the refusal came earlier)
    assert fixed.welcome.qualifying
    bot_id = fixed.welcome.bot.bot.id
    wait_for(lambda: stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status
             == pb.VERSION_STATUS_ACTIVE, timeout=30, what="the fixed bot's qualification")


def test_the_client_caps_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_PENDING_QUALIFICATIONS_PER_CLIENT", raising=False)
    monkeypatch.delenv("ARENA_REQUALIFY_BACKOFF_S", raising=False)
    defaults = ServerConfig()
    assert (defaults.pending_qualifications_per_client, defaults.requalify_backoff_s) == (4, 120)
    monkeypatch.setenv("ARENA_PENDING_QUALIFICATIONS_PER_CLIENT", "7")
    monkeypatch.setenv("ARENA_REQUALIFY_BACKOFF_S", "30")
    config = ServerConfig()
    assert (config.pending_qualifications_per_client, config.requalify_backoff_s) == (7, 30)
    monkeypatch.setenv("ARENA_REQUALIFY_BACKOFF_S", "-1")
    with pytest.raises(ValueError, match="ARENA_REQUALIFY_BACKOFF_S='-1' is not a positive whole number"):
        ServerConfig()
