"""Database rows to protobuf messages: the one place that knows both shapes."""

from __future__ import annotations

import base64
from datetime import datetime

from arena._proto import arena_pb2 as pb
from arena.db import Bot, Match
from arena.db.accounts import QUALIFIED, QUALIFYING, REFUSED, Submission, User
from arena.db.models import SprtTest


def timestamp(value: datetime | None) -> str:
    """RFC 3339 in UTC ("" for none); the database keeps naive UTC datetimes."""
    if value is None:
        return ""
    return value.replace(microsecond=(value.microsecond // 1000) * 1000).isoformat(timespec="milliseconds") + "Z"


def user(u: User) -> pb.User:
    return pb.User(id=u.id, name=u.name, role=u.role)


def version_status(sub: Submission, playing_version_id: int | None, test: SprtTest | None = None) -> int:
    if sub.status == QUALIFYING:
        return pb.VERSION_STATUS_QUALIFYING
    if sub.status == REFUSED:
        return pb.VERSION_STATUS_REFUSED
    if sub.status == QUALIFIED and sub.bot_version_id is not None and sub.bot_version_id == playing_version_id:
        return pb.VERSION_STATUS_ACTIVE
    if test is not None and test.status == "running":
        return pb.VERSION_STATUS_TESTING
    if test is not None and not test.replaced:
        return pb.VERSION_STATUS_HELD
    return pb.VERSION_STATUS_RETIRED


def sprt_test(t: SprtTest) -> pb.SprtTest:
    """An SPRT's settings, progress and verdict."""
    return pb.SprtTest(
        id=t.id, candidate_number=t.candidate.number, baseline_number=t.baseline.number,
        status=t.status,
        settings=pb.SprtSettings(elo0=t.elo0, elo1=t.elo1, alpha=t.alpha, beta=t.beta,
                                 max_pairs=t.max_pairs, replace_always=t.replace == "always"),
        llr=t.llr, lower=t.lower, upper=t.upper, games=t.games, pairs=t.pairs, score=t.score,
        elo=t.elo, elo_error=t.elo_error, pentanomial=list(t.pentanomial or []),
        trinomial=list(t.trinomial or []), replaced=t.replaced, message=t.message or "",
        created_at=timestamp(t.created_at), finished_at=timestamp(t.finished_at),
    )


def version(sub: Submission, playing_version_id: int | None, logs: bool = False,
            test: SprtTest | None = None) -> pb.BotVersion:
    """A version as the API shows it; ``logs``: the caller may read its qualification log
    tail (its owner or an organiser); ``test``: its SPRT against its predecessor, if any."""
    msg = pb.BotVersion(
        bot_id=sub.bot_id,
        number=sub.number,
        status=version_status(sub, playing_version_id, test),
        kind=sub.kind,
        address=sub.source if sub.kind == "remote" else "",
        archive_sha256=sub.digest if sub.kind == "hosted" else "",
        created_at=timestamp(sub.created_at),
    )
    if sub.status == REFUSED:
        msg.refusal.CopyFrom(
            pb.Refusal(
                kind=sub.refusal_kind or "error",
                message=sub.refusal_message or "",
                log_tail=(sub.log_tail or "") if logs else "",
                match_id=sub.match_id or "",
            )
        )
    if test is not None:
        msg.sprt.CopyFrom(sprt_test(test))
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
        reason = s.forfeit or ""
        if not reason and s.seat in forfeits:
            reason = str(forfeits[s.seat].get("reason", ""))
        seats.append(
            pb.MatchSeat(
                seat=s.seat, bot_id=v.bot_id, bot=v.bot.name, version=v.number,
                score=s.score or 0.0, rank=s.rank or 0, forfeit_reason=reason,
            )
        )
    return pb.MatchSummary(
        id=m.id, game=m.game, variant=m.variant, status=m.status,
        tournament_id=m.tournament_id or 0, seats=seats,
        created_at=timestamp(m.created_at), finished_at=timestamp(m.finished_at),
    )


def with_forfeit_reasons(seats: list[pb.MatchSeat], forfeits: list | None) -> list[pb.MatchSeat]:
    """Fill a seat's forfeit reason from the match's forfeit list when the seat row has none."""
    for f in forfeits or []:
        if isinstance(f, dict) and 0 <= int(f.get("seat", -1)) < len(seats):
            seat = seats[int(f["seat"])]
            if not seat.forfeit_reason:
                seat.forfeit_reason = str(f.get("reason", ""))
    return seats


def page_token(created_at: datetime, match_id: str) -> str:
    raw = f"{created_at.isoformat()}|{match_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_page_token(token: str) -> tuple[datetime, str]:
    """Raises ValueError for a token this server did not make."""
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    when, _, match_id = raw.partition("|")
    if not match_id:
        raise ValueError("no match id")
    return datetime.fromisoformat(when), match_id
