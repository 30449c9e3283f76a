"""Database rows to protobuf messages: the one place that knows both shapes."""

from __future__ import annotations

from datetime import datetime

from arena._proto import arena_pb2 as pb
from arena.db import Bot, Match
from arena.db.accounts import QUALIFIED, QUALIFYING, REFUSED, Submission, User
from referee.faults import SERVER_ERROR, canonical, proto_number


def timestamp(value: datetime | None) -> str:
    """RFC 3339 in UTC ("" for none); the database keeps naive UTC datetimes."""
    if value is None:
        return ""
    return value.replace(microsecond=(value.microsecond // 1000) * 1000).isoformat(timespec="milliseconds") + "Z"


def user(u: User) -> pb.User:
    return pb.User(id=u.id, name=u.name, role=u.role)


def version_status(sub: Submission, playing_version_id: int | None) -> int:
    if sub.status == QUALIFYING:
        return pb.VERSION_STATUS_QUALIFYING
    if sub.status == REFUSED:
        return pb.VERSION_STATUS_REFUSED
    if sub.status == QUALIFIED and sub.bot_version_id is not None and sub.bot_version_id == playing_version_id:
        return pb.VERSION_STATUS_ACTIVE
    return pb.VERSION_STATUS_RETIRED


def version(sub: Submission, playing_version_id: int | None, logs: bool = False) -> pb.BotVersion:
    """A version as the API shows it; ``logs``: the caller may read its qualification log
    tail (its owner or an organiser)."""
    msg = pb.BotVersion(
        bot_id=sub.bot_id,
        number=sub.number,
        status=version_status(sub, playing_version_id),
        kind=sub.kind,
        address=sub.source if sub.kind == "remote" else "",
        archive_sha256=sub.digest if sub.kind == "hosted" else "",
        created_at=timestamp(sub.created_at),
    )
    if sub.status == REFUSED:
        msg.refusal.CopyFrom(
            pb.Refusal(
                kind=canonical(sub.refusal_kind) or SERVER_ERROR,
                fault=refusal_fault(sub.refusal_kind),
                message=sub.refusal_message or "",
                log_tail=(sub.log_tail or "") if logs else "",
                match_id=sub.match_id or "",
            )
        )
    return msg


def bot(b: Bot, playing_number: int, versions: int) -> pb.Bot:
    return pb.Bot(
        id=b.id, name=b.name, game=b.game, owner=b.owner, active=b.active,
        active_version=playing_number, versions=versions,
    )


def match_summary(m: Match) -> pb.MatchSummary:
    forfeits = {f.get("seat"): f for f in (m.forfeits or []) if isinstance(f, dict)}
    seats = []
    for s in m.seats:
        v = s.version
        reason = canonical(s.forfeit)
        if not reason and s.seat in forfeits:
            reason = canonical(str(forfeits[s.seat].get("reason", "")))
        seats.append(
            pb.MatchSeat(
                seat=s.seat, bot_id=v.bot_id, bot=v.bot.name, version=v.number,
                score=s.score or 0.0, rank=s.rank or 0, forfeit_reason=reason,
                fault=proto_number(reason),
            )
        )
    return pb.MatchSummary(
        id=m.id, game=m.game, variant=m.variant, status=m.status,
        tournament_id=m.tournament_id or 0, seats=seats,
        created_at=timestamp(m.created_at), finished_at=timestamp(m.finished_at),
    )


def with_forfeit_reasons(seats: list[pb.MatchSeat], forfeits: list | None) -> list[pb.MatchSeat]:
    """Fill a seat's forfeit reason from the match's forfeit list when the seat row has none;
    every reason in its current name (old records migrated) and as ``fault``."""
    for f in forfeits or []:
        if isinstance(f, dict) and 0 <= int(f.get("seat", -1)) < len(seats):
            seat = seats[int(f["seat"])]
            if not seat.forfeit_reason:
                seat.forfeit_reason = str(f.get("reason", ""))
    for seat in seats:
        seat.forfeit_reason = canonical(seat.forfeit_reason)
        seat.fault = proto_number(seat.forfeit_reason)
    return seats


def refusal_fault(kind: str | None) -> int:
    """``Refusal.fault`` of a stored refusal kind (old names migrated): a seat fault's number,
    or SERVER_ERROR's."""
    name = canonical(kind) or SERVER_ERROR
    return pb.FAULT_REASON_SERVER_ERROR if name == SERVER_ERROR else proto_number(name)
