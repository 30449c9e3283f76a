"""A site for issue #35's pages: the signed-in authors of :mod:`tests.web.signin_seed`, carol an
organiser, a refused upload of alice's whose qualification match has a record (its fault
message carries a marker only alice and organisers may read), and the planted soft-playing
pair of :mod:`tests.platform.test_collusion` among honest toy bots (1,344 real toy matches)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.db import session_scope
from arena.db.accounts import REFUSED, Submission
from arena.server.accounts import register_user, set_role
from referee.record import Forfeit
from tests.platform.test_collusion import _play_field
from tests.web.seed import play_record
from tests.web.signin_seed import Authors, seed_authors

#: In the refused upload's fault message: alice's and organisers' only.
REFUSAL_TEXT = "ALICE-REFUSAL-TEXT: answered 'rm -rf /' which is not an option"
REFUSAL_LOG = "ALICE-REFUSAL-STDERR: Traceback"
#: The qualification match of that upload.
QUALIFICATION_ID = "abcdef01" * 4


@dataclass
class Site:
    authors: Authors
    organiser_token: str


def seed(url: str) -> Site:
    authors = seed_authors(url)
    _user, token = register_user("carol", url)
    set_role("carol", "organiser", url)
    record = play_record(QUALIFICATION_ID, ["alice-greedy v2", "random-1"], 77)
    record.forfeits.append(Forfeit(seat=0, reason="illegal_option", message=REFUSAL_TEXT, decision=2,
                                   log_tail=REFUSAL_LOG))
    with session_scope(url) as s:
        s.add(Submission(
            bot_id=authors.bots["alice-greedy"], number=2, kind="hosted", source="/x", digest="q2",
            status=REFUSED, refusal_kind="illegal_option",
            refusal_message=f"an illegal answer (decision 2): {REFUSAL_TEXT}", log_tail=REFUSAL_LOG,
            match_id=QUALIFICATION_ID, record=record.to_dict(),
        ))
    _play_field(url, 24, 1)
    return Site(authors, token)
