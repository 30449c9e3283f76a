"""``arena export dataset``: the archive's decisions as training data; ``arena export opt-out``.

One row per decision of each selected finished match, as the acting seat saw it (the rows of
:mod:`arena.envs.decisions`, rebuilt by replaying each record), with the seat's bot, its rating
before the match and the final result; as Parquet (pyarrow, one folder per game:
``game=NAME/part-NNNNN.parquet``, hive partitioning) or JSON Lines (``game=NAME/part-NNNNN.jsonl``).
The columns are documented in docs/datasets.md.

Why parts and a manifest: the export streams (at most one part's rows and one database page are
held) and a re-run continues where the last one stopped. A part is written under a temporary name,
renamed, and only then named in ``_manifest.jsonl`` with the ids of its matches; a re-run deletes
every part file the manifest does not name (a run killed between the rename and the manifest
line) and skips every match it does name, so nothing is written twice and nothing is lost.
``_export.json`` keeps the selection: a re-run into the same folder with another selection is
refused rather than mixed in.

Like ``arena collusion``, it reads the server's database directly: it is run on the server machine.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from arena.quoting import shorten

#: Rows a part holds before it is written (a part is closed at a match's end, so one match's
#: rows never span two parts). Held as Python lists until then (~10 KB a row with the vector):
#: this bounds the export's memory to about 50 MB beside one database page.
PART_ROWS = 5_000
FORMATS = ("parquet", "jsonl")
MANIFEST = "_manifest.jsonl"  # "_": pyarrow and pandas skip it when reading the folder
SETTINGS = "_export.json"
#: Bumped when a column changes meaning, so a re-run never appends rows of another layout.
LAYOUT = 1


class ExportError(click.ClickException):
    """A user mistake or a folder that cannot be continued: one line, exit code 1."""


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError('--format parquet needs pyarrow, which is not installed: pip install -e ".[datasets]" '
                          "(or pip install pyarrow), or use --format jsonl") from None
    return pa, pq


def _envs() -> Any:
    try:
        from arena.envs import decisions
    except ImportError as exc:  # arena.envs.MissingExtra (numpy) says which extra to install
        raise ExportError(f"the dataset rows are the environments' encodings: {exc}") from None
    return decisions


# --- the rows -------------------------------------------------------------------------------------


def _schema(pa: Any) -> Any:
    return pa.schema([
        ("match_id", pa.string()), ("variant", pa.string()), ("players", pa.int8()),
        ("tournament_id", pa.int64()), ("finished_at", pa.timestamp("us")),
        ("decision", pa.int32()), ("seat", pa.int8()), ("forced", pa.bool_()),
        ("bot", pa.string()), ("bot_version", pa.int32()), ("bot_version_id", pa.int64()),
        ("rating_mu", pa.float64()), ("rating_sigma", pa.float64()),
        ("observation", pa.string()),
        ("vector_index", pa.list_(pa.uint16())), ("vector_value", pa.list_(pa.float32())),
        ("option_ids", pa.list_(pa.string())), ("legal_actions", pa.list_(pa.int32())),
        ("action_space", pa.int32()),
        ("choice", pa.string()), ("choice_index", pa.int32()), ("action", pa.int32()),
        ("seat_rank", pa.int8()), ("seat_score", pa.float64()), ("seat_forfeit", pa.string()),
        ("ranks", pa.list_(pa.int8())), ("scores", pa.list_(pa.float64())),
    ])


COLUMNS = ("match_id", "variant", "players", "tournament_id", "finished_at", "decision", "seat", "forced",
           "bot", "bot_version", "bot_version_id", "rating_mu", "rating_sigma", "observation",
           "vector_index", "vector_value", "option_ids", "legal_actions", "action_space", "choice",
           "choice_index", "action", "seat_rank", "seat_score", "seat_forfeit", "ranks", "scores")


@dataclass
class _Part:
    """The rows of one game waiting to be written, column by column."""

    columns: dict[str, list[Any]]
    matches: list[str]

    @classmethod
    def empty(cls) -> _Part:
        return cls({name: [] for name in COLUMNS}, [])

    def __len__(self) -> int:
        return len(self.columns["match_id"])


def _match_rows(decisions: Any, match: Any, whole: bool, vector: bool, part: _Part) -> int:
    """Append the rows of ``match`` to ``part``; the number appended. A record the engine does
    not replay adds nothing (``DecisionReplayError`` goes up to the caller, which reports it)."""
    from arena.records import stored
    from referee.record import MatchRecord, RecordError

    try:
        record = MatchRecord.from_dict(stored.record_of(match.record, match.record_compact))
    except (RecordError, stored.RecordUnavailable) as exc:
        raise decisions.DecisionReplayError(str(exc)) from None
    by_seat = {s.seat: s for s in match.seats}
    result = record.result
    ranks = list(result.get("ranks") or [])
    scores = [float(x) for x in result.get("scores") or []]
    space = len(decisions.catalogue(record.game))
    rows = list(decisions.record_rows(record, whole, vector))  # whole match first: a refusal adds nothing
    c = part.columns
    for n, seat, forced, row in rows:
        info = by_seat.get(seat)
        c["match_id"].append(match.id)
        c["variant"].append(match.variant)
        c["players"].append(match.players)
        c["tournament_id"].append(match.tournament_id)
        c["finished_at"].append(match.finished_at)
        c["decision"].append(n)
        c["seat"].append(seat)
        c["forced"].append(forced)
        c["bot"].append(info.bot if info else None)
        c["bot_version"].append(info.version if info else None)
        c["bot_version_id"].append(info.version_id if info else None)
        c["rating_mu"].append(info.mu if info else None)
        c["rating_sigma"].append(info.sigma if info else None)
        c["observation"].append(row.observation_json.decode())
        c["vector_index"].append(row.vector_index if vector else None)
        c["vector_value"].append(row.vector_value if vector else None)
        c["option_ids"].append(row.option_ids)
        c["legal_actions"].append(row.legal_actions)
        c["action_space"].append(space)
        c["choice"].append(row.choice)
        c["choice_index"].append(row.choice_index)
        c["action"].append(row.action)
        c["seat_rank"].append(ranks[seat] if seat < len(ranks) else None)
        c["seat_score"].append(scores[seat] if seat < len(scores) else None)
        c["seat_forfeit"].append(info.forfeit if info else None)
        c["ranks"].append(ranks)
        c["scores"].append(scores)
    part.matches.append(match.id)
    return len(rows)


# --- the folder -----------------------------------------------------------------------------------


class Folder:
    """The output folder: its settings, its manifest, and the parts it names."""

    def __init__(self, root: Path, fmt: str, settings: dict[str, Any]) -> None:
        self.root = root
        self.fmt = fmt
        self.done: set[str] = set()
        self.next_part: dict[str, int] = {}
        self.rows = 0
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExportError(f"--out {shorten(str(root))}: cannot create it ({exc.strerror})") from None
        stored = root / SETTINGS
        if not stored.exists() and any(p.name != "_lock" for p in root.iterdir()):
            raise ExportError(f"--out {shorten(str(root))} is not empty and holds no export: "
                              "give an empty or a new folder")
        # Locked before the settings are read or written: two exports started at once into one
        # new folder cannot both take it.
        self._lock = open(root / "_lock", "a")  # noqa: SIM115 - held for the folder's life
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise ExportError(f"{shorten(str(root))}: another export is writing this folder now") from None
        if stored.exists():
            try:
                before = json.loads(stored.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                self.close()
                raise ExportError(f"{stored}: unreadable ({exc}); export into an empty folder") from None
            if before != settings:
                self.close()
                raise ExportError(f"{shorten(str(root))} holds an export with another selection or format "
                                  f"({shorten(json.dumps(before), 200)}); export into another folder, or "
                                  f"repeat that command to continue it")
        else:
            _write_atomic(stored, json.dumps(settings, indent=1).encode())
        named = self._read_manifest()
        for path in root.glob("game=*/*"):
            if path.is_file() and path.relative_to(root).as_posix() not in named:
                path.unlink()  # a part written after the last manifest line: its matches are redone

    def close(self) -> None:
        """Let another export write the folder."""
        self._lock.close()

    def _read_manifest(self) -> set[str]:
        named: set[str] = set()
        path = self.root / MANIFEST
        if not path.exists():
            return named
        data = path.read_bytes()
        offset = 0
        for line in data.splitlines(keepends=True):
            try:
                entry = json.loads(line)
                part, game, number = entry["part"], entry["game"], int(entry["number"])
                matches, rows = list(entry["matches"]), int(entry["rows"])
            except (ValueError, KeyError, TypeError):
                break  # a last line cut short by a kill: everything before it stands
            if not line.endswith(b"\n"):
                break
            named.add(part)
            self.done.update(matches)
            self.rows += rows
            self.next_part[game] = max(self.next_part.get(game, 0), number + 1)
            offset += len(line)
        if offset < len(data):
            with open(path, "r+b") as f:
                f.truncate(offset)
        return named

    def write(self, game: str, part: _Part, pa: Any, pq: Any) -> None:
        number = self.next_part.get(game, 0)
        rel = f"game={game}/part-{number:05d}.{self.fmt}"
        path = self.root / rel
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        if self.fmt == "parquet":
            table = _table(pa, part)
            # no dictionary pages: smaller and a third faster on these columns (measured, docs/datasets.md)
            pq.write_table(table, tmp, compression="zstd", use_dictionary=False)
        else:
            _write_jsonl(tmp, game, part)
        os.replace(tmp, path)
        entry = {"part": rel, "game": game, "number": number, "rows": len(part), "matches": part.matches}
        with open(self.root / MANIFEST, "ab") as f:
            f.write(json.dumps(entry).encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())
        self.next_part[game] = number + 1
        self.done.update(part.matches)
        self.rows += len(part)


def _table(pa: Any, part: _Part) -> Any:
    """The part as an Arrow table; the vector columns from their numpy arrays in one copy each
    (offsets and a concatenation) rather than element by element from Python lists."""
    import numpy as np

    schema = _schema(pa)
    plain = {k: v for k, v in part.columns.items() if not k.startswith("vector_")}
    arrays = []
    for f in schema:
        if not f.name.startswith("vector_"):
            arrays.append(pa.array(plain[f.name], type=f.type))
            continue
        values = part.columns[f.name]
        if not values or values[0] is None:
            arrays.append(pa.nulls(len(values), f.type))
            continue
        offsets = np.zeros(len(values) + 1, np.int32)
        np.cumsum([len(v) for v in values], out=offsets[1:])
        flat = np.concatenate(values).astype(f.type.value_type.to_pandas_dtype(), copy=False)
        arrays.append(pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat)))
    return pa.Table.from_arrays(arrays, schema=schema)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _write_jsonl(path: Path, game: str, part: _Part) -> None:
    import orjson

    cols = part.columns
    names = list(cols)
    with open(path, "wb") as f:
        for values in zip(*(cols[n] for n in names), strict=True):
            row = dict(zip(names, values, strict=True))
            row["game"] = game
            row["observation"] = orjson.Fragment(row["observation"])
            if row["vector_index"] is not None:
                row["vector_index"] = row["vector_index"].tolist()
                row["vector_value"] = row["vector_value"].tolist()
            f.write(orjson.dumps(row, option=orjson.OPT_NAIVE_UTC) + b"\n")


# --- the command ----------------------------------------------------------------------------------


class _Progress:
    """One line on stderr, rewritten in place on a terminal, every few seconds elsewhere."""

    def __init__(self, total: int, skipped: int) -> None:
        self.total, self.skipped = total, skipped
        self.tty = sys.stderr.isatty()
        self.every = 0.5 if self.tty else 10.0
        self.started = self.last = time.monotonic()
        self.cpu = time.process_time()

    def show(self, matches: int, rows: int, failed: int, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < self.every:
            return
        self.last = now
        cpu = max(time.process_time() - self.cpu, 1e-9)
        line = (f"{self.skipped + matches}/{self.total} matches, {rows} decisions, "
                f"{rows / cpu:,.0f} decisions per CPU second" + (f", {failed} not replayable" if failed else ""))
        if self.tty:
            click.echo("\r" + line, err=True, nl=final)
        else:
            click.echo(line, err=True)


def _parse_date(value: str | None, option: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value).replace(tzinfo=None)
    except ValueError:
        raise click.UsageError(f"{option} {shorten(value)!r}: give a date as YYYY-MM-DD (or YYYY-MM-DDTHH:MM)") from None


@click.group("export")
def export_group() -> None:
    """Take the archive out: decisions as training data (docs/datasets.md)."""


@export_group.command("dataset")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write (a re-run with the same selection continues it).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet", show_default=True)
@click.option("--game", "games", multiple=True, help="Only this game (repeatable) [default: every game].")
@click.option("--players", type=click.IntRange(1, 8), default=None, help="Only matches of this many players.")
@click.option("--variant", default=None, help="Only matches of this variant.")
@click.option("--bot", "bots", multiple=True, help="Only matches in which a bot of this name sat (repeatable).")
@click.option("--min-rating", type=float, default=None,
              help="Only matches in which every seat's rating (TrueSkill mu before the match) is at least this.")
@click.option("--max-rating", type=float, default=None, help="… and at most this.")
@click.option("--since", default=None, help="Only matches finished on or after this date (UTC, YYYY-MM-DD).")
@click.option("--until", default=None, help="Only matches finished before this date (UTC).")
@click.option("--tournament", "tournaments", type=click.IntRange(1), multiple=True,
              help="Only matches of this tournament id (repeatable).")
@click.option("--whole-observation", is_flag=True,
              help="Store each seat's whole observation (as sent to the bot) rather than its sufficient "
                   "keys; the vector then encodes every leaf, as the environments' whole=True. Several times slower.")
@click.option("--no-vector", is_flag=True,
              help="Leave the vector columns empty (null): about twice as fast; the vector is "
                   "arena.envs.encoding.encode of the observation column, computable at load time.")
@click.option("--limit", type=click.IntRange(1), default=None, help="Stop after this many matches (this run).")
def dataset_command(out: Path, fmt: str, games: tuple[str, ...], players: int | None, variant: str | None,
                    bots: tuple[str, ...], min_rating: float | None, max_rating: float | None,
                    since: str | None, until: str | None, tournaments: tuple[int, ...],
                    whole_observation: bool, no_vector: bool, limit: int | None) -> None:
    """Write every decision of the selected finished matches as training rows: the acting seat's
    observation (JSON and the environments' vector), the legal options and their action numbers,
    the choice, the seat's rating before the match and the final result. Matches of bots whose
    authors opted out are left out. Columns: docs/datasets.md."""
    from referee import registry

    for g in games:
        if g not in registry.game_names():
            raise click.UsageError(f"--game {shorten(g)!r}: unknown; games: {', '.join(registry.game_names())}")
    pa, pq = _pyarrow() if fmt == "parquet" else (None, None)
    decisions = _envs()
    from arena.records import dataset

    filters = dataset.Filters(tuple(sorted(set(games))), players, variant, tuple(sorted(set(bots))), min_rating,
                              max_rating, _parse_date(since, "--since"), _parse_date(until, "--until"),
                              tuple(sorted(set(tournaments))))
    settings = {"layout": LAYOUT, "format": fmt, "whole_observation": whole_observation,
                "vector": not no_vector, "filters": filters.as_dict()}
    folder = Folder(out, fmt, settings)
    try:
        written, failed = export(folder, filters, decisions, whole_observation, not no_vector, limit, pa, pq)
    finally:
        folder.close()
    click.echo(f"{out}: {written} matches written this run, {len(folder.done)} in all, "
               f"{folder.rows} decisions" + (f"; {failed} matches left out: their records do not replay "
                                              "with this engine" if failed else ""))


def export(folder: Folder, filters: Any, decisions: Any, whole: bool, vector: bool, limit: int | None,
           pa: Any, pq: Any, part_rows: int | None = None) -> tuple[int, int]:
    """Stream the selected matches not yet in ``folder`` into it; (matches written, not replayable)."""
    from arena.db import session_scope
    from arena.records import dataset

    parts: dict[str, _Part] = {}
    part_rows = part_rows or PART_ROWS
    written = failed = rows = 0
    with session_scope() as session:
        progress = _Progress(dataset.count(session, filters), len(folder.done))
        for match in _todo(dataset.matches(session, filters), folder.done):
            part = parts.setdefault(match.game, _Part.empty())
            try:
                rows += _match_rows(decisions, match, whole, vector, part)
            except decisions.DecisionReplayError as exc:
                failed += 1
                click.echo(f"\nmatch {match.id}: left out, {shorten(str(exc), 200)}", err=True)
                continue
            written += 1
            if len(part) >= part_rows:
                folder.write(match.game, parts.pop(match.game), pa, pq)
            progress.show(written, rows, failed)
            if limit is not None and written >= limit:
                break
    for game, part in parts.items():
        if part.matches:
            folder.write(game, part, pa, pq)
    progress.show(written, rows, failed, final=True)
    return written, failed


def _todo(selected: Iterable[Any], done: set[str]) -> Iterable[Any]:
    return (m for m in selected if m.id not in done)


@export_group.command("opt-out")
@click.argument("account")
@click.option("--undo", is_flag=True, help="Opt back in: the account's matches go into datasets again.")
def opt_out_command(account: str, undo: bool) -> None:
    """Keep every match a bot of ACCOUNT sat in out of `arena export dataset` (run on the server
    machine; the author's choice, recorded on their account)."""
    from arena.db import session_scope
    from arena.records import dataset

    with session_scope() as session:
        if not dataset.set_opt_out(session, account, not undo):
            raise ExportError(f"no account named {shorten(account)!r}")
    click.echo(f"{account}: " + ("opted in again" if undo else "opted out of the datasets"))


def register(group: click.Group) -> None:
    group.add_command(export_group)
