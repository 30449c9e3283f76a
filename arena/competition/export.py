"""A tournament as files: standings, pairings and results, each as CSV or JSON.

One function reads the tournament once (:func:`tables`) and the writers turn its three tables
into text, so ``arena tournament export`` and the website's download links give the same bytes
for the same state. Figures are the exact ones: points and tie-break sums as fractions
(``"7/3"``) beside the digits every page shows (:func:`arena.competition.swiss.points_text`), so
a spreadsheet can sort them and nothing is rounded twice.

* **standings** — a Swiss: place, bot, owner, score, Buchholz, Sonneborn-Berger, direct
  encounter, rating, games, byes, and the tie-break that decided the place; a round-robin:
  the page's order (wins, then average rank, then average score) with those figures.
* **pairings** — one row per table of every paired round (round, table, match, status, the bots
  in seat order) and one per bye: published as soon as a round is paired, before it is played.
* **results** — one row per seat of every finished or failed table: rank, the engine's score,
  the Swiss points it earned (exact), and the forfeit, if any.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.competition import swiss
from arena.competition import tournaments as arena_tournaments
from arena.db.models import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Tournament,
    TournamentEntry,
    TournamentRound,
)

#: What can be exported, and in which formats.
TABLES = ("standings", "pairings", "results")
FORMATS = ("csv", "json")


class ExportError(ValueError):
    """An export that cannot be written (an unknown table or format); the message says why."""


@dataclass(frozen=True)
class Export:
    """The three tables of one tournament, as rows of plain values (column order = key order)."""

    tournament: dict[str, Any]
    standings: list[dict[str, Any]]
    pairings: list[dict[str, Any]]
    results: list[dict[str, Any]]


def tables(session: Session, tournament: Tournament) -> Export:
    """Read ``tournament``'s standings, pairings and results (the state at this moment)."""
    who: dict[int, tuple[str, str]] = {
        vid: (f"{name} v{number}", owner) for vid, name, number, owner in session.execute(
            select(BotVersion.id, Bot.name, BotVersion.number, Bot.owner)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .join(TournamentEntry, TournamentEntry.bot_version_id == BotVersion.id)
            .where(TournamentEntry.tournament_id == tournament.id))
    }
    matches: dict[str, dict[str, Any]] = {}
    for mid, rnd, table, status, _seat, vid, rank, score, forfeit in session.execute(
        select(Match.id, Match.round, Match.table, Match.status, MatchSeat.seat, MatchSeat.bot_version_id,
               MatchSeat.rank, MatchSeat.score, MatchSeat.forfeit)
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .where(Match.tournament_id == tournament.id)
        .order_by(Match.round, Match.table, Match.id, MatchSeat.seat)
    ):
        entry = matches.setdefault(mid, {"round": rnd + 1, "table": table + 1, "match": mid, "status": status,
                                         "seats": []})
        entry["seats"].append((vid, rank, score, forfeit))
    pairings: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for m in matches.values():
        row = {k: m[k] for k in ("round", "table", "match", "status")}
        row.update({f"seat_{i + 1}": who.get(vid, (str(vid), ""))[0] for i, (vid, *_rest) in enumerate(m["seats"])})
        pairings.append(row)
        if m["status"] not in ("done", "failed"):
            continue
        ranks = [r for _v, r, _s, _f in m["seats"]]
        points = swiss.table_points(ranks) if m["status"] == "done" and None not in ranks else \
            [None] * len(ranks)
        for i, (vid, rank, score, forfeit) in enumerate(m["seats"]):
            results.append({
                "round": m["round"], "table": m["table"], "match": m["match"], "status": m["status"],
                "seat": i + 1, "bot": who.get(vid, (str(vid), ""))[0], "rank": rank, "score": score,
                "points": None if points[i] is None else swiss.fraction_text(points[i]),
                "points_shown": None if points[i] is None else swiss.points_text(points[i]),
                "forfeit": forfeit or "",
            })
    if tournament.format == "swiss":
        for rnd, byes in session.execute(select(TournamentRound.round, TournamentRound.byes)
                                         .where(TournamentRound.tournament_id == tournament.id)
                                         .order_by(TournamentRound.round)):
            for vid in byes or []:
                pairings.append({"round": rnd + 1, "table": "bye", "match": "", "status": "bye",
                                 "seat_1": who.get(vid, (str(vid), ""))[0]})
        pairings.sort(key=lambda r: (r["round"], r["table"] == "bye", r["table"] if r["table"] != "bye" else 0))
        standings = _swiss_standings(session, tournament, who)
    else:
        standings = _round_robin_standings(tournament, who, matches.values())
    head = {"id": tournament.id, "name": tournament.name, "game": tournament.game, "variant": tournament.variant,
            "players": tournament.players, "rounds": tournament.rounds, "format": tournament.format,
            "status": tournament.status}
    return Export(head, standings, pairings, results)


def _swiss_standings(session: Session, tournament: Tournament, who: dict[int, tuple[str, str]]) -> list[dict]:
    out = []
    for r in arena_tournaments.swiss_standings(session, tournament):
        text, exact = swiss.points_text, swiss.fraction_text
        out.append({
            "place": r.place, "bot": r.label, "owner": who.get(r.version_id, ("", ""))[1],
            "score": exact(r.score), "score_shown": text(r.score),
            "buchholz": exact(r.buchholz), "buchholz_shown": text(r.buchholz),
            "sonneborn_berger": exact(r.sonneborn_berger), "sonneborn_berger_shown": text(r.sonneborn_berger),
            "direct_encounter": exact(r.direct), "rating": round(r.rating, 6), "games": r.games, "byes": r.byes,
            "decided_by": r.decided_by,
        })
    return out


def _round_robin_standings(tournament: Tournament, who: dict[int, tuple[str, str]],
                           matches: Any) -> list[dict]:
    """The round-robin page's standings: wins, then average rank, then average score."""
    stats: dict[int, list] = {e.bot_version_id: [0, 0, 0, 0.0, 0, 0] for e in tournament.entries}
    for m in matches:
        if m["status"] != "done":
            continue
        for vid, rank, score, forfeit in m["seats"]:
            s = stats.setdefault(vid, [0, 0, 0, 0.0, 0, 0])
            s[0] += 1
            s[1] += rank == 1
            s[2] += rank or 0
            s[3] += score or 0.0
            s[4] += score is not None
            s[5] += forfeit is not None
    rows = []
    for vid, (n, wins, rank_sum, score_sum, scored, forfeits) in stats.items():
        avg_rank = rank_sum / n if n else None
        avg_score = score_sum / scored if scored else None
        rows.append((vid, n, wins, avg_rank, avg_score, forfeits))
    rows.sort(key=lambda x: (-x[2], x[3] if x[3] is not None else 99, -(x[4] or 0), who.get(x[0], ("",))[0]))
    return [{"place": i + 1, "bot": who.get(vid, (str(vid), ""))[0], "owner": who.get(vid, ("", ""))[1],
             "played": n, "wins": wins, "average_rank": None if r is None else round(r, 4),
             "average_score": None if s is None else round(s, 4), "forfeits": ff}
            for i, (vid, n, wins, r, s, ff) in enumerate(rows)]


def render(export: Export, table: str, fmt: str) -> str:
    """``table`` of ``export`` as ``fmt`` text (CSV with a header row, or JSON with the
    tournament's facts); :class:`ExportError` for anything else."""
    if table not in TABLES:
        raise ExportError(f"no table {table!r} to export; choose one of {', '.join(TABLES)}")
    if fmt not in FORMATS:
        raise ExportError(f"no format {fmt!r}; choose one of {', '.join(FORMATS)}")
    rows: list[dict[str, Any]] = getattr(export, table)
    if fmt == "json":
        return json.dumps({"tournament": export.tournament, table: rows}, indent=1, ensure_ascii=False) + "\n"
    return csv_text(rows)


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV, every column any row has (rows may differ in width), each cell safe to open
    in a spreadsheet (:func:`_cell`): the one way the standings downloads are written."""
    columns: list[str] = []
    for row in rows:  # pairings rows differ in width (k seats, a bye's one)
        columns.extend(c for c in row if c not in columns)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n", restval="")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: Any) -> Any:
    """A CSV cell: text that opens as a formula in a spreadsheet (a bot or owner name starting
    with = + - @) gets a leading apostrophe, so an export opened there cannot run anything."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
