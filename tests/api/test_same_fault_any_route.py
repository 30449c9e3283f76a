"""Issue 29 item 5: one bot error reads the same whichever route the bot used.

The same bug (``{}["no-such-key"]`` in ``act``, on the bot's third decision) in a bot that is
hosted (a sandboxed process), remote (its own gRPC server on a TCP port) and dialled in (its
stream to the Arena server, reached through the relay): the forfeit has one reason, one
status and one text, and the bot's MatchEnd says the reason once.

Real parts: the sandbox (bubblewrap), the SDK's servers, the in-process Arena server on a
socket, the referee's match runner.
"""

from __future__ import annotations

import threading
from typing import Any

from arena.sdk import make_server
from arena.sdk.connect import DialInBot
from referee import dialin_client
from referee._proto import arena_pb2 as pb
from referee.match import MatchConfig, SeatSpec, run_match
from referee.record import MatchRecord
from tests.api.conftest import FAST_TC, new_account
from tests.api.processes import ROOT
from tests.api.test_dialin import Running, wait_for
from tests.referee.helpers import needs_bwrap

HOSTED_BUG = ROOT / "tests" / "referee" / "hostile_bots" / "raises_in_act"
RANDOM_BOT = "sample_bots/random_bot"
EXPECTED = "UNKNOWN: KeyError: 'no-such-key'"


class Buggy:
    """The hosted bug as a function: raises KeyError on the third decision once armed (a
    dial-in bot must pass its qualification match first)."""

    def __init__(self) -> None:
        self.armed = False
        self.calls = 0
        self.ends: list[dict[str, Any]] = []
        self.ended = threading.Event()

    def act(self, observation: dict, options: list) -> str:  # noqa: ARG002
        if self.armed:
            self.calls += 1
            if self.calls == 3:
                return {}["no-such-key"]
        return options[0].id

    def end(self, info: dict[str, Any]) -> None:
        if self.armed:
            self.ends.append(info)
            self.ended.set()


def _play(source: str, sandbox: bool) -> MatchRecord:
    return run_match(MatchConfig(game="toy", seats=[SeatSpec("buggy", source), SeatSpec("rnd", RANDOM_BOT)],
                                 seed=1, time_control=FAST_TC, sandbox=sandbox))


def _the_forfeit(record: MatchRecord) -> tuple[str, str]:
    assert [f.seat for f in record.forfeits] == [0], record.forfeits
    return record.forfeits[0].reason, record.forfeits[0].message


def _hosted() -> tuple[str, str]:
    return _the_forfeit(_play(str(HOSTED_BUG), sandbox=True))


def _remote() -> tuple[tuple[str, str], Buggy]:
    bot = Buggy()
    server, port = make_server(bot.act, "127.0.0.1:0", end=bot.end, name="buggy")
    server.start()
    try:
        bot.armed = True
        fault = _the_forfeit(_play(f"127.0.0.1:{port}", sandbox=False))
        assert bot.ended.wait(10)
        return fault, bot
    finally:
        server.stop(0)


def _dialled_in(server, stub, running: list[Running]) -> tuple[tuple[str, str], Buggy]:  # noqa: ANN001
    bot = Buggy()
    owner = new_account(stub, "samefault")
    dialler = DialInBot(bot.act, server.address, owner.token, "buggy", "toy", end=bot.end, backoff_s=0.05)
    running.append(Running(dialler))
    assert dialler.welcomed.wait(20), running[-1].error
    bot_id = dialler.welcome.bot.bot.id
    wait_for(lambda: stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status
             == pb.VERSION_STATUS_ACTIVE, what="the qualification")
    bot.armed = True
    fault = _the_forfeit(_play(dialin_client.source(owner.name, "toy", "buggy"), sandbox=False))
    assert bot.ended.wait(10)
    return fault, bot


@needs_bwrap
def test_one_bot_error_reads_the_same_hosted_remote_and_dialled_in(server, stub, running) -> None:  # noqa: ANN001
    hosted = _hosted()
    remote, remote_bot = _remote()
    dialled, dialled_bot = _dialled_in(server, stub, running)
    assert hosted == remote == dialled == ("bot_error", EXPECTED)
    for bot in (remote_bot, dialled_bot):
        (end,) = bot.ends
        assert end["fault"] == "bot_error"
        # "<reason>: <message>" (bot.proto), the reason said once.
        assert end["forfeit_reason"] == f"bot_error: {EXPECTED}"
        assert end["forfeit_reason"].count("bot_error") == 1


def test_grpc_boilerplate_is_dropped_and_the_reason_is_not_repeated() -> None:
    from referee.protocol import bot_error_message

    assert bot_error_message("UNKNOWN", "Exception calling application: 'k'") == "UNKNOWN: 'k'"
    assert bot_error_message("INTERNAL", "x" * 1000) == "INTERNAL: " + "x" * 300
