"""The example learned bot (sample_bots/learned_solenia, docs/environments.md "From training to
the ladder") goes the way of every bot: packed, uploaded over a real socket, qualified by the
platform's match against the random bot, active."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip(
    "numpy", reason='the learned bot needs the envs extra: pip install -e ".[envs]"'
)

from arena.sdk.client import pack_folder  # noqa: E402
from referee._proto import arena_pb2 as pb  # noqa: E402
from tests.api.conftest import new_account  # noqa: E402

LEARNED = Path(__file__).resolve().parents[2] / "sample_bots" / "learned_solenia"


def test_the_learned_bot_is_submitted_and_qualifies(server, stub) -> None:  # noqa: ANN001
    user = new_account(stub)
    request = pb.SubmitBotRequest(
        name=f"learned-{user.name}", game="solenia", archive=pack_folder(LEARNED), wait=True
    )
    reply = stub.SubmitBot(request, metadata=user.meta, timeout=120)
    version = reply.version
    assert version.status == pb.VERSION_STATUS_ACTIVE, (
        version.refusal.kind,
        version.refusal.message,
        version.refusal.log_tail,
    )
    assert reply.bot.bot.active
