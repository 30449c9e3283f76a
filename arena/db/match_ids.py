"""Finding a match by its id or by a prefix of it (what people copy from a page or a log).

Why not ``Match.id.startswith(prefix)``: that is ``LIKE 'prefix%'``, which SQLite compares
case-insensitively and so cannot answer from the primary key's index; on a database of a
million matches ``arena fork abc…`` scanned the whole table (23 s) to say there was no such
match. Ids are lowercase hex (``uuid4().hex``), so the ids starting with a prefix are the
first ones at or after it in the index's order, in SQLite's byte order and PostgreSQL's
collations alike: a range read of at most ``limit`` rows, filtered here.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.db import qualification_matches
from arena.db.models import Match

#: Characters of a match id (uuid4().hex); a prefix with any other matches nothing.
HEX = frozenset("0123456789abcdef")
#: Longest id (the column is String(32)): a longer "prefix" matches nothing either.
MAX_ID = 32


def ids_with_prefix(session: Session, prefix: str, limit: int = 6) -> list[str]:
    """The id ``prefix`` itself if a match has it, else up to ``limit`` ids starting with it.

    Qualification matches (:mod:`arena.db.qualification_matches`, kept in their submissions)
    count too: their ids are what ``arena submit`` prints."""
    if not prefix or len(prefix) > MAX_ID:
        return []
    if session.scalar(select(Match.id).where(Match.id == prefix)) is not None:
        return [prefix]
    if not set(prefix) <= HEX:
        return []
    qualification = qualification_matches.ids_with_prefix(session, prefix, limit)
    if qualification == [prefix]:
        return qualification
    after = session.scalars(select(Match.id).where(Match.id >= prefix).order_by(Match.id).limit(limit))
    return sorted({mid for mid in after if mid.startswith(prefix)} | set(qualification))[:limit]
