"""Converting stored records between JSON and the compact form (issue 40 item 2).

:func:`compact_records` converts every finished match still stored as JSON: streaming (a page of
rows at a time, in id order, each page committed), resumable (a converted row is no longer
selected, so a run stopped anywhere carries on where it stopped), with progress, and verifying
each record — its compact form must regenerate the stored JSON byte for byte — keeping the JSON
of any record that does not (marked ``engine_version = 'json'`` so later runs skip it until
``retry_kept``). :func:`expand_records` is the way back (before a downgrade past 0022).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import and_, func, null, or_, select, update
from sqlalchemy.orm import Session

from arena.db.models import Match
from arena.records import compact, stored

#: ``matches.engine_version`` of a record whose compact form did not verify: its JSON is kept.
KEPT = "json"
PAGE = 200


@dataclass
class Progress:
    """What a conversion has done so far (also what it reports as it goes)."""

    total: int = 0
    done: int = 0
    converted: int = 0
    kept: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    #: ``(match id, why)`` of the records kept as JSON (the first 100).
    reasons: list[tuple[str, str]] = field(default_factory=list)

    def line(self) -> str:
        ratio = f", {self.bytes_before / self.bytes_after:.1f}x smaller" if self.bytes_after else ""
        return (f"{self.done}/{self.total} records: {self.converted} compact, {self.kept} kept as JSON"
                f"{ratio}")


def convert_one(data: Any) -> tuple[bytes | None, str]:
    """The verified compact form of one stored record (``(bytes, "")``), or ``(None, why)``."""
    try:
        original = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
        small = compact.encode_data(data)
        again = compact.stored_json(compact.regenerate(small))
    except (compact.NotCompactable, compact.RecordNotReplayable, TypeError, KeyError, ValueError) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    if again != original:
        return None, "the regenerated JSON differs from the stored one"
    return small, ""


def _pending(retry_kept: bool) -> Any:
    kept = Match.engine_version.is_(None) if not retry_kept else or_(
        Match.engine_version.is_(None), Match.engine_version == KEPT)
    return and_(Match.status == "done", Match.record.is_not(None), Match.record_compact.is_(None), kept)


def compact_records(session: Session, *, limit: int | None = None, retry_kept: bool = False,
                    report: Callable[[Progress], None] | None = None, page: int = PAGE) -> Progress:
    """Convert the finished matches stored as JSON to the compact form, ``page`` at a time
    (each page committed: stopping loses at most one page's work). ``limit``: at most that many
    records this run. ``report`` is called after every page."""
    progress = Progress(total=int(session.scalar(select(func.count()).select_from(Match)
                                                 .where(_pending(retry_kept))) or 0))
    if limit is not None:
        progress.total = min(progress.total, limit)
    after = ""
    while progress.done < progress.total:
        want = min(page, progress.total - progress.done)
        rows = session.execute(select(Match.id, Match.record).where(_pending(retry_kept), Match.id > after)
                               .order_by(Match.id).limit(want)).all()
        if not rows:
            break
        for mid, data in rows:
            small, why = convert_one(data)
            progress.done += 1
            size = len(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))
            if small is None:
                progress.kept += 1
                if len(progress.reasons) < 100:
                    progress.reasons.append((mid, why))
                session.execute(update(Match).where(Match.id == mid).values(engine_version=KEPT))
                continue
            progress.converted += 1
            progress.bytes_before += size
            progress.bytes_after += len(small)
            header = compact.header(small)
            session.execute(update(Match).where(Match.id == mid).values(
                record=null(), record_compact=small, engine_version=header["engine"]))
        session.commit()
        after = rows[-1][0]
        if report is not None:
            report(progress)
    session.commit()
    return progress


def expand_records(session: Session, *, report: Callable[[Progress], None] | None = None,
                   page: int = PAGE) -> Progress:
    """Store every compact record as JSON again (regenerated and verified; the compact form is
    dropped): what a downgrade past migration 0022 needs first. A record the current engine
    cannot regenerate stays compact and is counted as kept."""
    pending = and_(Match.record.is_(None), Match.record_compact.is_not(None))
    progress = Progress(total=int(session.scalar(select(func.count()).select_from(Match).where(pending)) or 0))
    after = ""
    while True:
        rows = session.execute(select(Match.id, Match.record_compact).where(pending, Match.id > after)
                               .order_by(Match.id).limit(page)).all()
        if not rows:
            break
        for mid, small in rows:
            progress.done += 1
            try:
                data = stored.record_of(None, small)
            except stored.RecordUnavailable as exc:
                progress.kept += 1
                progress.reasons.append((mid, str(exc)))
                continue
            progress.converted += 1
            session.execute(update(Match).where(Match.id == mid).values(
                record=data, record_compact=null(), engine_version=null()))
        session.commit()
        after = rows[-1][0]
        if report is not None:
            report(progress)
    return progress
