"""Database rows to protobuf messages: the one place that knows both shapes."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.timestamp_pb2 import Timestamp

from arena.db import Bot, Match
from arena.db.accounts import QUALIFIED, QUALIFYING, REFUSED, Submission, User
from arena.db.models import SprtTest
from arena.records.recording import read_voids
from arena.server.errors import invalid
from referee._proto import arena_pb2 as pb
from referee.faults import SERVER_ERROR, canonical, proto_number


def timestamp(value: datetime | None) -> str:
    """RFC 3339 in UTC ("" for none); the database keeps naive UTC datetimes."""
    if value is None:
        return ""
    return value.replace(microsecond=(value.microsecond // 1000) * 1000).isoformat(timespec="milliseconds") + "Z"


def time_of(value: datetime | None) -> Timestamp | None:
    """A ``google.protobuf.Timestamp`` (None for none); the database keeps naive UTC datetimes."""
    if value is None:
        return None
    stamp = Timestamp()
    stamp.FromDatetime(value.replace(tzinfo=UTC) if value.tzinfo is None else value)
    return stamp


def enum_of(enum: EnumTypeWrapper, prefix: str, name: str | None) -> int:
    """The enum value whose name is ``prefix`` + the string form in upper case (0 if none)."""
    try:
        return enum.Value(prefix + (name or "").upper())
    except ValueError:
        return 0


def offset_page(page_size: int, page_token: str, default: int, cap: int) -> tuple[int, int]:
    """(offset, size) of the page a list call asks for: ``page_token`` is the offset this
    server handed out as ``next_page_token`` (opaque to clients)."""
    size = min(page_size or default, cap)
    if not page_token:
        return 0, size
    try:
        kind, _, offset = base64.urlsafe_b64decode(page_token.encode()).decode().partition(":")
        # ASCII digits ("²".isdigit() is true) and short enough that offset + size stays a
        # 64-bit integer the database can bind: a forged token is refused, never an INTERNAL.
        if kind != "o" or not (offset.isascii() and offset.isdigit()) or len(offset) > 18:
            raise ValueError(page_token)
    except (ValueError, UnicodeDecodeError):
        raise invalid("page_token is not one this server handed out; start again without it") from None
    return int(offset), size


def next_offset_token(offset: int, size: int, fetched: int) -> str:
    """``next_page_token`` after a page fetched with ``size + 1`` rows ("" on the last page)."""
    if fetched <= size:
        return ""
    return base64.urlsafe_b64encode(f"o:{offset + size}".encode()).decode()


def user(u: User) -> pb.User:
    return pb.User(id=u.id, name=u.name, role=u.role, user_role=enum_of(pb.UserRole, "USER_ROLE_", u.role))


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
                                 max_pairs=t.max_pairs, replace_always=t.replace == "always",
                                 house=bool(t.house)),
        llr=t.llr, lower=t.lower, upper=t.upper, games=t.games, pairs=t.pairs, score=t.score,
        elo=t.elo, elo_error=t.elo_error, pentanomial=list(t.pentanomial or []),
        trinomial=list(t.trinomial or []), replaced=t.replaced, message=t.message or "",
        created_at=timestamp(t.created_at), finished_at=timestamp(t.finished_at),
        house_pairs=sum(t.house_pentanomial or []), house_pentanomial=list(t.house_pentanomial or []),
    )


def version(sub: Submission, playing_version_id: int | None, logs: bool = False,
            test: SprtTest | None = None) -> pb.BotVersion:
    """A version as the API shows it; ``logs``: the caller may read its refusal's text and its
    qualification log tail (its owner or an organiser; everyone else the refusal kind); ``test``: its SPRT against its predecessor, if any."""
    msg = pb.BotVersion(
        bot_id=sub.bot_id,
        number=sub.number,
        status=version_status(sub, playing_version_id, test),
        kind=sub.kind,
        address=sub.source if sub.kind == "remote" else "",
        archive_sha256=sub.digest if sub.kind == "hosted" else "",
        created_at=timestamp(sub.created_at),
        bot_kind=enum_of(pb.BotKind, "BOT_KIND_", sub.kind),
        create_time=time_of(sub.created_at),
    )
    if sub.status == REFUSED:
        msg.refusal.CopyFrom(
            pb.Refusal(
                kind=canonical(sub.refusal_kind) or SERVER_ERROR,
                fault=refusal_fault(sub.refusal_kind),
                # the failure text, as the stderr tail: its owner's and organisers' (arena.intake.refusals)
                message=(sub.refusal_message or "") if logs else "",
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
    voids = read_voids(m.voids)
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
                fault=proto_number(reason), voids=voids.get(s.seat, 0),
            )
        )
    return pb.MatchSummary(
        id=m.id, game=m.game, variant=m.variant, status=m.status,
        tournament_id=m.tournament_id or 0, seats=seats,
        created_at=timestamp(m.created_at), finished_at=timestamp(m.finished_at),
        match_status=enum_of(pb.MatchStatus, "MATCH_STATUS_", m.status),
        create_time=time_of(m.created_at), finish_time=time_of(m.finished_at),
    )


def with_forfeit_reasons(seats: list[pb.MatchSeat], forfeits: list | None,
                         voids: str | None = None) -> list[pb.MatchSeat]:
    """Fill a seat's forfeit reason from the match's forfeit list when the seat row has none;
    every reason in its current name (old records migrated) and as ``fault``; each seat's
    void tries from ``matches.voids``."""
    for seat_no, count in read_voids(voids).items():
        if seat_no < len(seats):
            seats[seat_no].voids = count
    for f in forfeits or []:
        if isinstance(f, dict) and 0 <= int(f.get("seat", -1)) < len(seats):
            seat = seats[int(f["seat"])]
            if not seat.forfeit_reason:
                seat.forfeit_reason = str(f.get("reason", ""))
    for seat in seats:
        seat.forfeit_reason = canonical(seat.forfeit_reason)
        seat.fault = proto_number(seat.forfeit_reason)
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


def refusal_fault(kind: str | None) -> int:
    """``Refusal.fault`` of a stored refusal kind (old names migrated): a seat fault's number,
    or SERVER_ERROR's."""
    name = canonical(kind) or SERVER_ERROR
    return pb.FAULT_REASON_SERVER_ERROR if name == SERVER_ERROR else proto_number(name)
