"""Fork an archived match: rebuild the state before decision N and play on with another bot.

The engines are deterministic from seed + option ids, so the state before decision N is the
first N recorded ids re-applied (``MatchConfig.prefix``). The fork is a full match record of its
own — decisions 0..N-1 copied from the original, the rest played by the bots — that replays like
any other, and says where it comes from (``MatchRecord.origin``).

Who plays the other seats: the bot that played it in the original when that bot is on this
machine (a record written by ``arena play`` keeps each seat's folder; a match in the database
names a stored bot version), otherwise the bot given with ``--others``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from arena.quoting import shorten
from arena.records import stored
from referee import registry
from referee.bot_client import BotSource
from referee.engine import ConfigError, IllegalAction, TimeControl
from referee.match import MatchConfig, SeatSpec
from referee.record import MatchRecord, RecordError


class ForkError(ValueError):
    """The fork cannot be made as asked (a user mistake): the message says why and what to do."""


@dataclass(frozen=True)
class Original:
    """An archived match and, per seat, the bot source that played it if it is on this machine."""

    record: MatchRecord
    sources: list[str | None]


def _usable(source: str | None) -> str | None:
    """``source`` when it can be launched from here: a folder with bot.py, or host:port."""
    if not source:
        return None
    try:
        parsed = BotSource.parse(source)
    except ValueError:
        return None
    if parsed.kind == "hosted" and not (Path(source) / "bot.py").is_file():
        return None
    return source


def load_record_file(path: Path) -> Original:
    try:
        record = MatchRecord.from_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ForkError(f"{path}: cannot read it ({exc})") from None
    except RecordError as exc:
        raise ForkError(f"{path}: {exc}") from None
    return Original(record, [_usable(s.get("source")) for s in record.seats])


def load_record_url(url: str) -> Original:
    """A match record from the website: a match page or API address, or the record's own."""
    base = url.rstrip("/")
    if not base.endswith("/record"):
        match_id = base.rsplit("/", 1)[-1]
        root = base.split("/matches/")[0].removesuffix("/api")
        base = f"{root}/api/matches/{match_id}/record"
    try:
        with urllib.request.urlopen(base, timeout=30) as response:  # noqa: S310 - the user's URL
            data = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise ForkError(f"{base}: the site answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ForkError(f"{base}: cannot fetch the record ({exc})") from None
    try:
        record = MatchRecord.from_dict(data)
    except RecordError as exc:
        raise ForkError(f"{base}: {exc}") from None
    return Original(record, [None] * record.players)


def load_record_db(match_id: str, url: str | None = None) -> Original:
    """A finished match of the local database by id or unique id prefix, with the stored folder
    of each seat's bot version."""
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from arena.db import database_url

    try:
        return _from_db(match_id, url)
    except (SQLAlchemyError, CommandError, RuntimeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ForkError(f"{match_id!r} is no record file, and the database "
                        f"{database_url(url)} cannot be read: {first}") from None


def _from_db(match_id: str, url: str | None) -> Original:
    from sqlalchemy import select

    from arena.db import session_scope
    from arena.db.match_ids import ids_with_prefix
    from arena.db.models import Match

    with session_scope(url) as session:
        ids = ids_with_prefix(session, match_id)
        found = session.scalars(select(Match).where(Match.id.in_(ids)).order_by(Match.id)).all() if ids else []
        if not found:
            raise ForkError(f"no match {match_id!r}: give a record file, a match page URL, "
                            f"or the id (or a unique prefix) of a match in the database")
        if len(found) > 1:
            shown = ", ".join(m.id for m in found[:5])
            raise ForkError(f"the id prefix {match_id!r} is ambiguous: it matches {shown}"
                            + (" …" if len(found) > 5 else ""))
        match = found[0]
        try:
            record = stored.match_record(match)
        except (RecordError, stored.RecordUnavailable) as exc:
            raise ForkError(f"match {match.id}: {exc}") from None
        if record is None:
            raise ForkError(f"match {match.id} has no record (status {match.status})")
        by_seat = {s.seat: s.version for s in match.seats}
        sources = [_usable(by_seat[i].source) if i in by_seat else None for i in range(record.players)]
    return Original(record, sources)


def load_record_api(match_id: str, server: str) -> Original:
    """A finished match from an arena server (``GetMatch``; a unique id prefix will do)."""
    import grpc

    from arena.sdk.client import ArenaClient, load_token, unreachable_hint

    try:
        with ArenaClient(server, load_token()) as client:
            tls = client.tls
            reply = client.match(match_id)
    except grpc.RpcError as exc:
        code = exc.code() if hasattr(exc, "code") else None
        details = (exc.details() if hasattr(exc, "details") else str(exc)) or ""
        if code == grpc.StatusCode.UNAVAILABLE:
            raise ForkError(f"cannot reach the arena server at {shorten(server)}: "
                            f"{shorten(details, 400)}{unreachable_hint(details, tls)}") from None
        name = code.name if code is not None else "ERROR"
        raise ForkError(f"the arena server at {shorten(server)} answered {name}: {shorten(details, 400)}") from None
    if not reply.record_json:
        raise ForkError(f"match {reply.summary.id} has no record yet (status {reply.summary.status})")
    try:
        record = MatchRecord.from_json(reply.record_json)
    except RecordError as exc:
        raise ForkError(f"match {reply.summary.id}: {exc}") from None
    return Original(record, [None] * record.players)


def load(what: str, db_url: str | None = None, server: str | None = None) -> Original:
    """The original match: a record file, a website URL, or a match id (prefix) on an arena
    server (``server``) or in the database."""
    if what.startswith(("http://", "https://")):
        return load_record_url(what)
    path = Path(what)
    if path.is_file():
        return load_record_file(path)
    if path.suffix == ".json" or "/" in what:
        raise ForkError(f"{what}: no such record file")
    if server is not None:
        return load_record_api(what, server)
    return load_record_db(what, db_url)


def _check_prefix(record: MatchRecord, at: int) -> None:
    """The first ``at`` decisions must re-apply with this engine exactly as recorded, or the
    fork would not start from the position the author saw."""
    try:
        state = registry.new_game(record.game, record.players, record.seed, record.variant)
    except (ConfigError, ImportError) as exc:
        raise ForkError(f"the record's game cannot be set up here: {exc}") from None
    for d in record.decisions[:at]:
        if state.to_move() != d.seat:
            raise ForkError(f"the record does not replay with this engine: decision {d.n} is "
                            f"seat {d.seat}'s in the record, seat {state.to_move()}'s here")
        try:
            events = state.apply(d.option)
        except IllegalAction as exc:
            raise ForkError(f"the record does not replay with this engine: decision {d.n} "
                            f"({d.option!r}) is illegal here: {exc}") from None
        if events != d.events:
            raise ForkError(f"the record does not replay with this engine: decision {d.n} tells "
                            f"{d.events!r} in the record, {events!r} here")


def plan(
    original: Original,
    at: int,
    seat: int,
    bot: str,
    others: str | None,
    *,
    sandbox: bool = True,
    time_control: TimeControl | None = None,
) -> MatchConfig:
    """The fork's match: checked against the record before anything is launched."""
    record = original.record
    if not 0 <= seat < record.players:
        raise ForkError(f"--seat {seat}: the match has seats 0..{record.players - 1}")
    if not 0 <= at < len(record.decisions):
        raise ForkError(f"--at {at}: the match has decisions 0..{len(record.decisions) - 1}")
    _check_prefix(record, at)
    carried = [f for f in record.forfeits if f.decision < at]
    gone = next((f for f in carried if f.seat == seat), None)
    if gone is not None:
        raise ForkError(f"seat {seat} forfeited at decision {gone.decision} ({gone.reason}); "
                        f"fork at or before decision {gone.decision}")
    sources: list[str] = []
    missing: list[int] = []
    for i in range(record.players):
        if i == seat:
            sources.append(bot)
        elif original.sources[i] is not None:
            sources.append(original.sources[i])  # type: ignore[arg-type]
        elif others is not None:
            sources.append(others)
        else:
            sources.append("")
            missing.append(i)
    if missing:
        names = ", ".join(f"{i} ({record.seats[i]['name']})" for i in missing)
        raise ForkError(f"the bots of seats {names} are not on this machine: "
                        f"give --others PATH_OR_NAME to play them")
    names = []
    for i, info in enumerate(record.seats):
        name = info["name"] if sources[i] == original.sources[i] else Path(sources[i]).name or sources[i]
        base, k = name, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return MatchConfig(
        game=record.game,
        seats=[SeatSpec(n, s) for n, s in zip(names, sources, strict=True)],
        seed=record.seed,
        variant=record.variant,
        match_id=uuid.uuid4().hex,
        time_control=time_control or TimeControl(**record.time_control),
        sandbox=sandbox,
        prefix=record.decisions[:at],
        carried_forfeits=carried,
        origin={"match_id": record.match_id, "decision": at, "seat": seat, "bot": names[seat]},
        record_sources=True,
    )


def command_for(match_id: str, step: int, seat: int) -> str:
    """The ``arena fork`` command that tries another bot from step ``step`` of a match."""
    return f"arena fork {match_id} --at {step} --seat {seat} --bot YOUR_BOT_DIR"
