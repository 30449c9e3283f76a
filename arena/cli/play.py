"""``arena play`` (one match between bots, with a result table) and ``arena replay FILE``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from arena.cli import terminal
from referee.bot_client import REASONS
from referee.engine import ConfigError, TimeControl
from referee.record import MatchRecord, RecordError
from referee.rng import match_seed


def _seat_names(sources: list[str]) -> list[str]:
    """Readable, unique seat names: a bot folder's name or the remote address."""
    names: list[str] = []
    for src in sources:
        path = Path(src)
        base = path.resolve().name if path.is_dir() else src
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


class _Progress:
    """One status line that rewrites itself on a terminal; forfeits are always printed."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.count = 0

    def __call__(self, event: dict) -> None:
        kind = event["type"]
        if kind == "decision":
            self.count += 1
            if self.tty and self.count % 10 == 0:
                click.echo(f"\r  decision {self.count} …", nl=False, err=True)
        elif kind == "forfeit":
            self._clear()
            terminal.echo(
                f"  seat {event['seat']} forfeits at decision {event['decision']}: "
                f"{event['reason']} — {event['message']}",
                err=True,
            )
        elif kind == "end":
            self._clear()

    def _clear(self) -> None:
        if self.tty:
            click.echo("\r" + " " * 40 + "\r", nl=False, err=True)


def check_out(out: str | None) -> None:
    """Refuse an output file that cannot be written before anything is played."""
    if out is None:
        return
    path = Path(out)
    if path.is_dir():
        raise click.UsageError(f"--out {out}: is a folder; give a file name")
    folder = path.resolve().parent
    if not folder.is_dir():
        raise click.UsageError(f"--out {out}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise click.UsageError(f"--out {out}: cannot write there")


def check_bots(flag: str, sources: list[str]) -> None:
    """Refuse a bot that is neither a folder with bot.py nor host:port before anything starts."""
    from referee.bot_client import BotSource

    for source in sources:
        try:
            BotSource.parse(source)
        except ValueError as exc:
            raise click.UsageError(f"{flag} {source}: {exc} (built-in bots: random, greedy, ismcts, learned)") from None


def _result_table(record: MatchRecord) -> str:
    rows = [("seat", "bot", "score", "rank", "decisions", "time used", "bank left", "note")]
    for seat, info in enumerate(record.seats):
        totals = record.totals[seat] if seat < len(record.totals) else None
        forfeit = record.forfeit_of(seat)
        rows.append(
            (
                str(seat),
                info["name"],
                f"{record.result['scores'][seat]:g}",
                str(record.result["ranks"][seat]),
                str(totals.decisions if totals else 0),
                f"{(totals.time_used_ms if totals else 0) / 1000:.2f} s",
                f"{(totals.bank_left_ms if totals else 0) / 1000:.2f} s",
                f"forfeit: {forfeit.reason}" if forfeit else "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    outcome = (record.result.get("details") or {}).get("outcome")
    if outcome:  # a solo game: the seat against the automaton ("beat Hal" / "lost to Hal")
        lines.append(f"{record.seats[0]['name']} {outcome}")
    return "\n".join(lines)


@click.command("play")
@click.argument("game")
@click.option("--bot", "bots", multiple=True, required=True, metavar="PATH_OR_HOST:PORT",
              help="a bot folder with bot.py (hosted, sandboxed), host:port (remote), or a built-in bot: "
                   "random, greedy, ismcts, learned (Solenia); repeat per seat")
@click.option("--players", type=int, default=None,
              help="player count (default: the number of --bot; one --bot is repeated N times)")
@click.option("--variant", default=None, help="game variant (default: the game's default)")
@click.option("--seed", type=int, default=None, help="match seed (default: random, printed)")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="write the match record (JSON) here")
@click.option("--decision-ms", type=int, default=None, help="time per decision (default: the game's)")
@click.option("--bank-ms", type=int, default=None, help="overage bank per seat (default: the game's)")
@click.option("--unsafe-no-sandbox", is_flag=True, default=False,
              help="run hosted bots WITHOUT bubblewrap isolation (only for your own code)")
@click.option("--allow-forfeit", is_flag=True, default=False,
              help="exit 0 even when a seat forfeits (by default a forfeit exits with status 1)")
def play_command(
    game: str,
    bots: tuple[str, ...],
    players: int | None,
    variant: str | None,
    seed: int | None,
    out: str | None,
    decision_ms: int | None,
    bank_ms: int | None,
    unsafe_no_sandbox: bool,
    allow_forfeit: bool,
) -> None:
    """Play one match of GAME between bots and print the result table.

    Exits with status 1 when a seat forfeited (unless --allow-forfeit), 2 on a usage error."""
    from arena.intake.house_bots import UnknownBuiltin, resolve
    from referee import registry
    from referee.match import MatchConfig, SeatSpec, run_match

    try:
        sources = [resolve(b, game) for b in bots]
    except UnknownBuiltin as exc:
        raise click.UsageError(str(exc)) from None
    if players is None:
        players = len(sources)
    elif len(sources) == 1 and players > 1:
        sources = sources * players
    elif len(sources) != players:
        raise click.UsageError(
            f"--players {players} but {len(sources)} --bot given: give one --bot per seat, "
            f"or a single --bot to repeat"
        )
    if players < 1:
        raise click.UsageError("--players must be at least 1")
    check_bots("--bot", sources)
    check_out(out)
    try:
        spec = registry.get_spec(game)
        spec.check(players, variant)  # before the match header: nothing is announced then refused
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    except ImportError as exc:
        raise click.ClickException(f"the {game} engine cannot be loaded: {exc}") from None
    time_control = None
    if decision_ms is not None or bank_ms is not None:
        time_control = TimeControl(
            decision_ms=decision_ms if decision_ms is not None else spec.time_control.decision_ms,
            bank_ms=bank_ms if bank_ms is not None else spec.time_control.bank_ms,
        )
    if seed is None:
        seed = match_seed()
    names = _seat_names(sources)
    config = MatchConfig(
        game=game,
        seats=[SeatSpec(n, s) for n, s in zip(names, sources, strict=True)],
        seed=seed,
        variant=variant,
        time_control=time_control,
        sandbox=not unsafe_no_sandbox,
        record_sources=True,
    )
    if unsafe_no_sandbox:
        click.echo("warning: hosted bots run WITHOUT a sandbox (--unsafe-no-sandbox)", err=True)
    # The seed is printed after the match: with it and the live ids anyone could rebuild the
    # hidden hands of a running match.
    click.echo(f"{spec.title}: {players} players, match {config.match_id}", err=True)
    try:
        record = run_match(config, on_event=_Progress())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"seed {seed}", err=True)
    terminal.echo(_result_table(record))
    for f in record.forfeits:
        why = REASONS.get(f.reason, f.reason)
        terminal.echo(f"seat {f.seat} forfeited at decision {f.decision}: {why} ({f.message})")
        if f.log_tail.strip():
            tail = "\n    ".join(f.log_tail.strip().splitlines()[-8:])
            terminal.echo(f"    last output:\n    {tail}")
    if out:
        Path(out).write_text(record.to_json(indent=1) + "\n", encoding="utf-8")
        click.echo(f"record written to {out}", err=True)
    if record.forfeits and not allow_forfeit:
        sys.exit(1)


@click.command("replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def replay_command(file: str) -> None:
    """Re-apply a match record with the engine; fail (exit 1) if anything differs."""
    from referee.replay import ReplayMismatch, replay

    try:
        record = MatchRecord.from_json(Path(file).read_text(encoding="utf-8"))
    except (RecordError, OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{file}: {exc}") from None
    try:
        _, summary = replay(record)
    except ReplayMismatch as exc:
        click.echo(f"REPLAY FAILED for {os.path.basename(file)} (match {record.match_id}):", err=True)
        for line in exc.differences:
            click.echo(f"  {line}", err=True)
        sys.exit(1)
    click.echo(
        f"replay OK: {record.game} ({record.variant}), {summary.decisions} decisions, "
        f"scores {summary.result['scores']}, ranks {summary.result['ranks']}"
        + (f"; {summary.result['details']['outcome']}" if summary.result["details"].get("outcome") else "")
    )


def register(group: click.Group) -> None:
    group.add_command(play_command)
    group.add_command(replay_command)
