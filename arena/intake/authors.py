"""One author, one seat at a rated table.

An *author* is a bot's owner (``bots.owner``: the account name for every bot uploaded through
the API or the website). Two bots of one author at one rated table could hand rating points
from one to the other — a version that loses on purpose to its stablemate, or two names that
kingmake for each other at a multi-seat table — so the platform never lets that happen:

* **the ladder** never seats two bots of one author at a table (:func:`arena.competition.ladder.plan_table`
  skips them when it picks opponents);
* **a tournament** admits at most ``entries_per_author`` entries of one author (default
  :data:`DEFAULT_ENTRIES_PER_AUTHOR`, the organiser's setting, :func:`check_entries`); where an
  organiser allows more, a Swiss avoids pairing them (as if they had met), and any table that
  still seats two of them — every round-robin meeting of them — is played and counted for the
  tournament but **unrated**;
* **every match** is created unrated when two of its seats share an author
  (:func:`arena.records.recording.create_match` asks :func:`shares_author`), whatever made it: the
  last line of defence behind the rules above. A challenge between one account's bots is
  refused before it gets there (:mod:`arena.play.challenges`).

**Older versions retire** when a new one goes live (it qualifies with no version test, or its
SPRT accepts, :mod:`arena.intake.sprt_runner`): the ladder seats only each bot's playing version
(:func:`arena.competition.ladder.load_candidates`), and a ladder match still *pending* with an older version
(queued before the new one went live) is retired by the next tick (:func:`retire_superseded`:
marked failed, "retired", never played); one already running finishes. A tournament plays the
versions it was created with (its entries are versions, fixed when it was made).

Exempt: the platform's own owners (:data:`EXEMPT_OWNERS`) — the house bots and solo automata
(``house``, the rating scale's anchors) and the bots an operator enters from the command line
(``local``, ``arena tournament --bot PATH``, ``arena ladder run``): they are no entrant's, and
no account can take either name (:func:`arena.server.accounts.check_user_name`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from arena.db.models import Bot, BotVersion, Match, MatchSeat, utcnow

#: Owners the author rule does not apply to: the house bots and automata, and the operator's
#: command-line bots. Both names are reserved: no account can be registered under them.
EXEMPT_OWNERS = frozenset({"house", "local"})
#: A tournament's entries per author unless its organiser says otherwise.
DEFAULT_ENTRIES_PER_AUTHOR = 1


class AuthorRuleError(ValueError):
    """A tournament entering more bots of one author than it allows (a user mistake: its
    message says which author, which bots and the limit)."""


def author_of(owner: str | None) -> str | None:
    """The author an owner counts as, or None for an exempt owner (each of its bots stands
    alone)."""
    if owner is None or owner in EXEMPT_OWNERS:
        return None
    return owner


def repeated_authors(owners: Iterable[str | None]) -> set[str]:
    """The authors named more than once in ``owners`` (exempt owners never count)."""
    counts = Counter(a for a in map(author_of, owners) if a is not None)
    return {a for a, n in counts.items() if n > 1}


def owners_of(session: Session, version_ids: Sequence[int]) -> dict[int, str]:
    """The owner of each bot version, by version id (one query)."""
    if not version_ids:
        return {}
    return dict(session.execute(
        select(BotVersion.id, Bot.owner).join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_(list(set(version_ids))))
    ).all())


def shares_author(session: Session, version_ids: Sequence[int]) -> bool:
    """True when two of these versions have one (non-exempt) author: a table that must not be
    rated."""
    if len(version_ids) < 2:
        return False
    owners = owners_of(session, version_ids)
    return bool(repeated_authors(owners.get(v) for v in version_ids))


def check_entries(session: Session, version_ids: Sequence[int], limit: int) -> None:
    """Refuse a tournament field with more than ``limit`` entries of one author, naming them."""
    if limit < 1:
        raise AuthorRuleError("entries per author must be at least 1")
    owners = owners_of(session, version_ids)
    by_author: dict[str, list[int]] = {}
    for vid in version_ids:
        author = author_of(owners.get(vid))
        if author is not None:
            by_author.setdefault(author, []).append(vid)
    over = {a: vids for a, vids in by_author.items() if len(vids) > limit}
    if not over:
        return
    labels = dict(((vid, f"{name} v{number}") for vid, name, number in session.execute(
        select(BotVersion.id, Bot.name, BotVersion.number).join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_([v for vids in over.values() for v in vids]))
    )))
    parts = [f"{author!r} has {len(vids)} ({', '.join(labels.get(v, str(v)) for v in vids)})"
             for author, vids in sorted(over.items())]
    raise AuthorRuleError(
        f"this tournament allows {limit} entr{'y' if limit == 1 else 'ies'} per author, and "
        + "; ".join(parts) + ": enter fewer of their bots, or raise the limit (entries per author)")


def keep_per_author(session: Session, version_ids: Sequence[int], limit: int,
                    order: dict[int, float]) -> tuple[list[int], list[int]]:
    """Of a field of every active bot (a tournament that names none), each author's ``limit``
    best by ``order`` (higher first, e.g. the conservative rating) in the field's order, and the
    versions left out."""
    owners = owners_of(session, version_ids)
    ranked = sorted(version_ids, key=lambda v: (-order.get(v, float("-inf")), v))
    taken: Counter[str] = Counter()
    keep: set[int] = set()
    for vid in ranked:
        author = author_of(owners.get(vid))
        if author is None or taken[author] < limit:
            keep.add(vid)
            if author is not None:
                taken[author] += 1
    return [v for v in version_ids if v in keep], [v for v in version_ids if v not in keep]


#: The error a ladder match retired with a superseded version is marked failed with.
RETIRED = "retired: a newer version of {bot!r} went live before this ladder match started"


def superseded(session: Session, version_ids: Sequence[int]) -> dict[int, str]:
    """Of these versions, those that are no longer their bot's playing version (a newer version
    not held back by an SPRT exists), with their bot's name."""
    if not version_ids:
        return {}
    mine = session.execute(
        select(BotVersion.id, BotVersion.bot_id, BotVersion.number, Bot.name)
        .join(Bot, Bot.id == BotVersion.bot_id).where(BotVersion.id.in_(list(set(version_ids))))
    ).all()
    newest = dict(session.execute(
        select(BotVersion.bot_id, func.max(BotVersion.number))
        .where(BotVersion.bot_id.in_({bot for _, bot, _, _ in mine}), BotVersion.held.is_(False))
        .group_by(BotVersion.bot_id)
    ).all())
    return {vid: name for vid, bot, number, name in mine if newest.get(bot, number) > number}


def retire_superseded(session: Session, matches: Sequence[Match]) -> set[str]:
    """Mark failed every still-pending ladder match of ``matches`` that seats a superseded
    version (a conditional UPDATE: one a worker claimed meanwhile plays on). The retired ids."""
    pending = [m for m in matches if m.kind == "ladder" and m.status == "pending"]
    seats = session.execute(
        select(MatchSeat.match_id, MatchSeat.bot_version_id)
        .where(MatchSeat.match_id.in_([m.id for m in pending]))
    ).all() if pending else []
    old = superseded(session, [vid for _, vid in seats])
    retired: set[str] = set()
    for match_id, vid in seats:
        if vid in old and match_id not in retired:
            done = session.execute(
                update(Match).where(Match.id == match_id, Match.status == "pending")
                .values(status="failed", error=RETIRED.format(bot=old[vid]), finished_at=utcnow(), lease_until=None)
                .execution_options(synchronize_session=False)
            ).rowcount
            if done:
                retired.add(match_id)
    return retired
