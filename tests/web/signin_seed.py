"""Two authors, alice and bob, with real accounts (tokens made by the platform's own
``register_user``), bots, uploads, an SPRT and real toy matches whose faults carry crash logs.

Each bot's stderr tail holds a marker (``ALICE-SECRET-…``, ``BOB-SECRET-…``) the tests look for:
it must show on its owner's pages and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.db import BotVersion, session_scope
from arena.db.accounts import QUALIFIED, REFUSED, Submission
from arena.db.models import SprtTest
from arena.records.recording import create_match, record_result
from arena.server.accounts import register_user
from referee.record import Forfeit
from tests.web.seed import add_bot, play_record

ALICE_LOG = "Traceback (most recent call last):\n  File bot.py\nALICE-SECRET-KEY=hunter2"
BOB_LOG = "BOB-SECRET-TOKEN=correct-horse"
ALICE_QUAL_LOG = "ALICE-QUALIFICATION-LOG: ImportError: no module named numpy"


@dataclass
class Authors:
    tokens: dict[str, str] = field(default_factory=dict)
    bots: dict[str, int] = field(default_factory=dict)
    #: alice's bot (seat 0) against bob's (seat 1): both faulted, each with a log
    both_faulted: str = ""
    #: alice's bot against alice's other bot: bob's bot did not play it
    alice_only: str = ""


def seed_authors(url: str) -> Authors:
    out = Authors()
    for name in ("alice", "bob"):
        _user, token = register_user(name, url)
        out.tokens[name] = token
    with session_scope(url) as s:
        a1 = add_bot(s, "alice-search", owner="alice")
        a2 = add_bot(s, "alice-greedy", owner="alice")
        b1 = add_bot(s, "bob-random", owner="bob")
        out.bots = {"alice-search": a1.bot_id, "alice-greedy": a2.bot_id, "bob-random": b1.bot_id}
        # alice-search: v1 qualified, v2 held by a running SPRT, v3 refused at qualification
        v2 = BotVersion(
            bot_id=a1.bot_id,
            number=2,
            kind="hosted",
            source="/x",
            digest="2",
            initial_mu=a1.initial_mu,
            initial_sigma=a1.initial_sigma,
            held=True,
        )
        s.add(v2)
        s.flush()
        s.add_all(
            [
                Submission(
                    bot_id=a1.bot_id,
                    number=1,
                    kind="hosted",
                    source="/x",
                    digest="d1",
                    status=QUALIFIED,
                    bot_version_id=a1.id,
                ),
                Submission(
                    bot_id=a1.bot_id,
                    number=2,
                    kind="hosted",
                    source="/x",
                    digest="d2",
                    status=QUALIFIED,
                    bot_version_id=v2.id,
                ),
                Submission(
                    bot_id=a1.bot_id,
                    number=3,
                    kind="hosted",
                    source="/x",
                    digest="d3",
                    status=REFUSED,
                    refusal_kind="crash",
                    refusal_message="the bot process exited with code 1 before StartMatch",
                    log_tail=ALICE_QUAL_LOG,
                    match_id="feedbeef" * 4,
                ),
                SprtTest(
                    bot_id=a1.bot_id,
                    candidate_version_id=v2.id,
                    baseline_version_id=a1.id,
                    game="toy",
                    variant="base",
                    elo0=0,
                    elo1=50,
                    alpha=0.05,
                    beta=0.05,
                    max_pairs=200,
                    lower=-2.94,
                    upper=2.94,
                    llr=1.25,
                    games=40,
                    pairs=20,
                    score=0.6,
                    elo=70.4,
                    elo_error=55.0,
                    pentanomial=[1, 3, 8, 5, 3],
                    status="running",
                    message="ALICE-SPRT-NOTE: 20 of 200 pairs played",
                ),
            ]
        )
        vids = {"alice-search": a1.id, "alice-greedy": a2.id, "bob-random": b1.id}
    out.both_faulted = _match(
        url, [vids["alice-search"], vids["bob-random"]], 301, {0: ALICE_LOG, 1: BOB_LOG}
    )
    out.alice_only = _match(url, [vids["alice-greedy"], vids["alice-search"]], 302, {})
    return out


def _match(url: str, vids: list[int], seed: int, logs: dict[int, str]) -> str:
    with session_scope(url) as s:
        match_id = create_match(s, "toy", "base", vids, seed=seed, kind="ladder", sandbox=False).id
    record = play_record(match_id, [f"v{v}" for v in vids], seed)
    for seat, log in logs.items():
        record.forfeits.append(
            Forfeit(
                seat=seat, reason="crash", message=f"seat {seat} crashed", decision=3, log_tail=log
            )
        )
    with session_scope(url) as s:
        record_result(s, match_id, record.to_dict())
    return match_id
