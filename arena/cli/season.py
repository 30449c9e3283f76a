"""``arena season …``: a competition per game over a period, run by the organiser on the server
machine (it reads and writes the database directly, like ``arena tournament``).

The steps (arena.competition.seasons): ``create`` opens a season; ``enter`` takes bots until the
submission deadline; ``freeze`` (also ``close-submissions``) fixes each entry's version at the
deadline (``--now`` closes early); ``run-final`` plays the final evaluation among the top K here
(or, with a broker, on the workers) and publishes the final standings when it is over;
``close`` publishes them when the final was played elsewhere; ``list``, ``show``,
``standings`` and ``export`` read.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from arena.cli import terminal
from arena.quoting import shorten

_STATUS_WORDS = {
    "open": "open for entries",
    "frozen": "submissions closed, versions frozen; final not started",
    "final": "final evaluation being played",
    "done": "final standings published",
}


def _fail(exc: Exception) -> click.ClickException:
    return click.ClickException(str(exc))


def _db_name() -> str:
    from arena.db.session import database_url, url_for_display

    return url_for_display(database_url())


def _season(s, season_id: int):  # noqa: ANN001, ANN202 - Session -> Season
    from arena.competition import seasons

    try:
        return seasons.get(s, season_id)
    except seasons.SeasonError:
        raise click.ClickException(f"no season {season_id} in {_db_name()} (arena season list shows them)") from None


@click.group("season")
def season_group() -> None:
    """Seasons: entries until a submission deadline, versions frozen, a final among the top K,
    final standings published (docs/tournaments-and-ratings.md, "Seasons")."""


@season_group.command("create")
@click.argument("game")
@click.argument("name")
@click.option("--deadline", required=True, metavar="WHEN",
              help="The submission deadline, UTC: +7d, +12h, +30m from now, or 2026-12-31 18:00.")
@click.option("--top", "top_k", type=click.IntRange(2, 1000), default=8, show_default=True,
              help="How many entries (the best by rating at the deadline) play the final.")
@click.option("--final", "final_format", type=click.Choice(["round-robin", "swiss"]), default="round-robin",
              show_default=True, help="The final's format.")
@click.option("--final-rounds", type=click.IntRange(1, 100), default=4, show_default=True,
              help="Full round-robin cycles (each seats every finalist in every seat about equally), or Swiss rounds.")
@click.option("--players", "-k", type=click.IntRange(2, 8), default=None,
              help="Seats at a table of the final (default: 2 if the game allows).")
@click.option("--variant", default=None, help="Game variant of the final (default: the game's default).")
@click.option("--seed", type=int, default=0, show_default=True, help="The final's schedule seed.")
@click.option("--description", default="", help="A sentence for the season's page.")
def create_command(game: str, name: str, deadline: str, top_k: int, final_format: str, final_rounds: int,
                   players: int | None, variant: str | None, seed: int, description: str) -> None:
    """Open a season of GAME called NAME."""
    import arena.workers.celery_app  # noqa: F401 - registers ARENA_EXTRA_GAMES engines, as arena tournament does
    from arena.competition import seasons
    from arena.db import session_scope
    from referee import registry

    if game not in registry.game_names():
        raise click.UsageError(f"unknown game {shorten(game)!r}; games: {', '.join(registry.game_names())}")
    try:
        when = seasons.parse_deadline(deadline)
        with session_scope() as s:
            season = seasons.create_season(
                s, game, name, when, players=players, variant=variant, top_k=top_k,
                final_format=final_format.replace("-", "_"), final_rounds=final_rounds, seed=seed,
                description=description)
            sid, deadline_at = season.id, season.deadline
    except seasons.SeasonError as exc:
        raise _fail(exc) from None
    click.echo(f"season {sid}: {terminal.safe(name)} ({game}), entries until {deadline_at:%Y-%m-%d %H:%M} UTC; "
               f"then a {final_format} final of the top {top_k}")


@season_group.command("list")
@click.option("--game", default=None, help="Only this game's seasons.")
def list_command(game: str | None) -> None:
    """Every season, newest first."""
    from arena.competition import seasons
    from arena.db import session_scope

    with session_scope() as s:
        rows = seasons.briefs(s, game)
    if not rows:
        click.echo("no seasons yet (arena season create GAME NAME --deadline +7d)")
        return
    head = f"{'id':>4}  {'season':<30} {'game':<12} {'status':<7} {'deadline (UTC)':<16} {'entries':>7}  winner"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.id:>4}  {r.name[:30]:<30} {r.game[:12]:<12} {r.status:<7} {r.deadline:%Y-%m-%d %H:%M} "
                     f"{r.entries:>7}  {r.winner or ''}".rstrip())
    terminal.echo("\n".join(lines))


@season_group.command("enter")
@click.argument("season_id", type=int)
@click.argument("bot", metavar="BOT")
def enter_command(season_id: int, bot: str) -> None:
    """Enter BOT (its number, OWNER/NAME, or NAME of a bot registered here) in the season."""
    from sqlalchemy import select

    from arena.competition import seasons
    from arena.db import Bot, session_scope

    with session_scope() as s:
        season = _season(s, season_id)
        if bot.isdigit():
            found = s.get(Bot, int(bot))
        else:
            owner, slash, name = bot.partition("/")
            if not slash:
                owner, name = "local", bot
            found = s.scalar(select(Bot).where(Bot.owner == owner, Bot.name == name, Bot.game == season.game))
        if found is None:
            raise click.ClickException(f"no {season.game} bot {shorten(bot)!r} (a number, OWNER/NAME or NAME)")
        try:
            seasons.enter(s, season, found)
        except seasons.SeasonError as exc:
            raise _fail(exc) from None
        click.echo(f"{terminal.safe(found.name)} entered in season {season.id} ({terminal.safe(season.name)}); "
                   f"{len(season.entries)} entr{'y' if len(season.entries) == 1 else 'ies'}")


def _freeze(season_id: int, now: bool) -> None:
    from arena.competition import seasons
    from arena.db import session_scope

    with session_scope() as s:
        season = _season(s, season_id)
        try:
            frozen = seasons.freeze(s, season, early=now)
        except seasons.SeasonError as exc:
            raise _fail(exc) from None
        missing = len(season.entries) - frozen
        finalists = seasons.finalists(season)
    click.echo(f"season {season_id}: submissions closed; {frozen} entr{'y' if frozen == 1 else 'ies'} frozen"
               + (f", {missing} without a version before the deadline" if missing else "")
               + f"; {len(finalists)} go to the final")


_FREEZE_HELP = ("Close submissions: fix each entry's version (the newest that plays, uploaded before the "
                "deadline) and its rating. Refused before the deadline unless --now.")


@season_group.command("freeze", help=_FREEZE_HELP)
@click.argument("season_id", type=int)
@click.option("--now", is_flag=True, help="Close before the deadline (the deadline becomes now).")
def freeze_command(season_id: int, now: bool) -> None:
    _freeze(season_id, now)


@season_group.command("close-submissions", help=_FREEZE_HELP + " (Same as freeze.)")
@click.argument("season_id", type=int)
@click.option("--now", is_flag=True, help="Close before the deadline (the deadline becomes now).")
def close_submissions_command(season_id: int, now: bool) -> None:
    _freeze(season_id, now)


@season_group.command("run-final")
@click.argument("season_id", type=int)
@click.option("--workers", "-w", type=click.IntRange(0, 64), default=None,
              help="Matches at once here (no broker), or worker processes to start (with ARENA_BROKER_URL).")
@click.option("--decision-ms", type=click.IntRange(1), default=None, help="Per-decision limit.")
@click.option("--bank-ms", type=click.IntRange(0), default=None, help="Time bank per seat.")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run bots without bubblewrap (trusted bots only).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run_final_command(season_id: int, workers: int | None, decision_ms: int | None, bank_ms: int | None,
                      unsafe_no_sandbox: bool, quiet: bool) -> None:
    """Play the final evaluation of the top K (started now, or continued) and publish the final
    standings when it is over."""
    from arena.cli.tournament import _sandbox_or_fail

    sandbox = _sandbox_or_fail(unsafe_no_sandbox)
    run_final(season_id, workers, decision_ms, bank_ms, sandbox, quiet)
    _print_standings(season_id)


def run_final(season_id: int, workers: int | None, decision_ms: int | None, bank_ms: int | None,
              sandbox: bool, quiet: bool = False) -> None:
    """Start (or continue) the final, play it to the end, publish the standings."""
    import arena.workers.celery_app  # noqa: F401 - registers ARENA_EXTRA_GAMES engines, as arena tournament does
    from arena.competition import seasons
    from arena.db import Tournament, session_scope

    with session_scope() as s:
        season = _season(s, season_id)
        if season.status == "done":
            raise click.ClickException(f"season {season_id} is over; its final standings are published")
        if season.status == "frozen":
            if (decision_ms is None) != (bank_ms is None):
                from arena.cli.tournament import _spec

                tc = _spec(season.game).time_control
                decision_ms = decision_ms or tc.decision_ms
                bank_ms = bank_ms if bank_ms is not None else tc.bank_ms
            try:
                final = seasons.start_final(s, season, decision_ms, bank_ms, sandbox)
            except seasons.SeasonError as exc:
                raise _fail(exc) from None
            if not quiet:
                click.echo(f"season {season_id}: final = tournament {final.id}, {len(final.entries)} finalists, "
                           f"{final.matches_total} matches ({season.final_format.replace('_', '-')}, "
                           f"{season.final_rounds} round(s))")
        elif season.status != "final":
            raise click.ClickException(f"season {season_id} is still open for entries: close its submissions "
                                       f"first (arena season freeze {season_id} [--now])")
        tid = season.final_tournament_id
        t = s.get(Tournament, tid)
        total, status = t.matches_total, t.status
    if status != "done":
        _play(tid, total, workers, quiet, resume=status != "scheduled")
    _close(season_id, quiet)


def _play(tid: int, total: int, workers: int | None, quiet: bool, resume: bool = False) -> None:
    """Play tournament ``tid`` to the end as ``arena tournament`` does (Redis workers, or a
    thread pool here), following its progress; ``resume``: it was started before (an
    interrupted run-final), so the matches without a result are sent again, as ``arena resume``
    does."""
    from arena.cli.tournament import _follow, _spawn_workers, _stop_workers
    from arena.workers import tasks
    from arena.workers.celery_app import has_broker

    procs = []
    if resume:
        if not has_broker():
            tasks.set_local_workers(workers or max(1, os.cpu_count() or 1))
        elif workers:
            procs = _spawn_workers(workers)
        tasks.sweep(tid)
    elif has_broker():
        if workers:
            procs = _spawn_workers(workers)
        try:
            tasks.schedule_tournament.delay(tid)
        except Exception as exc:  # noqa: BLE001 - kombu's connection errors vary by transport
            _stop_workers(procs)
            raise click.ClickException(f"cannot reach the broker ({' '.join(str(exc).split())}); the final "
                                       f"(tournament {tid}) is stored: run-final again later") from None
    else:
        tasks.set_local_workers(workers or max(1, os.cpu_count() or 1))
        tasks.schedule_tournament(tid)
    try:
        _follow(tid, total, quiet)
    except KeyboardInterrupt:
        if not has_broker():
            tasks.cancel_local()
        click.echo(f"\nfinal (tournament {tid}) interrupted; `arena season run-final` continues it")
        raise
    finally:
        _stop_workers(procs)


def _close(season_id: int, quiet: bool) -> None:
    from arena.competition import seasons
    from arena.db import session_scope

    with session_scope() as s:
        season = _season(s, season_id)
        try:
            rows = seasons.finish(s, season)
        except seasons.SeasonError as exc:
            raise _fail(exc) from None
    if not quiet:
        winners = ", ".join(r["bot"] for r in rows if r["place"] == 1)
        click.echo(f"season {season_id}: final standings published; winner: {terminal.safe(winners)}")


@season_group.command("close")
@click.argument("season_id", type=int)
def close_command(season_id: int) -> None:
    """Publish the final standings of a season whose final was played by the workers."""
    _close(season_id, False)


def _print_standings(season_id: int) -> None:
    from arena.competition import seasons
    from arena.db import session_scope

    with session_scope() as s:
        season = _season(s, season_id)
        rows = seasons.standings(s, season)
        title = (f"season {season.id}: {season.name} ({season.game}) — {_STATUS_WORDS[season.status]}; "
                 f"deadline {season.deadline:%Y-%m-%d %H:%M} UTC; top {season.top_k} to a "
                 f"{season.final_format.replace('_', '-')} final of {season.final_rounds} round(s)")
        published = season.status == "done"
    terminal.secho(title, bold=True)
    if not published:
        click.echo("(provisional: the final standings are published when the final is over)")
    if not rows:
        click.echo("no entries yet")
        return
    head = f"{'#':>4}  {'bot':<28} {'owner':<14} {'points':>7} {'games':>5} {'rating@freeze':>13}  decided by"
    lines = [head, "-" * len(head)]
    for r in rows:
        place = "-" if r["place"] is None else str(r["place"])
        rating = "" if r["rating_at_freeze"] is None else f"{r['rating_at_freeze']:.2f}"
        lines.append(f"{place:>4}  {(r['version'] or r['bot'])[:28]:<28} {r['owner'][:14]:<14} "
                     f"{r['score_shown'] or '':>7} {r['games']:>5} {rating:>13}  {r['decided_by']}".rstrip())
    terminal.echo("\n".join(lines))


@season_group.command("show")
@click.argument("season_id", type=int)
def show_command(season_id: int) -> None:
    """The season's facts and its standings (final, or provisional until the final is over)."""
    _print_standings(season_id)


@season_group.command("standings")
@click.argument("season_id", type=int)
def standings_command(season_id: int) -> None:
    """The season's standings (the same table as show)."""
    _print_standings(season_id)


@season_group.command("export")
@click.argument("season_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "both"]), default="both", show_default=True)
@click.option("--out", "out", default=".", show_default=True, metavar="DIR|-",
              help="Folder for the files (season-ID-standings.FORMAT), or - for standard output (one format).")
def export_command(season_id: int, fmt: str, out: str) -> None:
    """Write the season's standings as CSV and JSON (the files of the season page's links)."""
    from arena.competition import seasons
    from arena.db import session_scope

    formats = seasons.FORMATS if fmt == "both" else (fmt,)
    if out == "-" and len(formats) != 1:
        raise click.UsageError("--out - writes one file: choose one --format")
    with session_scope() as s:
        season = _season(s, season_id)
        texts = {f: seasons.render(season, seasons.standings(s, season), f) for f in formats}
    if out == "-":
        click.echo(texts[formats[0]], nl=False)
        return
    folder = Path(out)
    if not folder.is_dir():
        raise click.ClickException(f"{shorten(out, 80)} is not a folder")
    for f, text in texts.items():
        path = folder / f"season-{season_id}-standings.{f}"
        path.write_text(text, encoding="utf-8")
        click.echo(f"wrote {path}")


@season_group.command("demo", hidden=True)
@click.option("--game", required=True)
@click.option("--name", "names", multiple=True, required=True)
@click.option("--sandbox/--no-sandbox", default=True)
def demo_command(game: str, names: tuple[str, ...], sandbox: bool) -> None:
    """``arena demo``'s small finished season (the demo invokes this by name)."""
    demo_season(game, names, sandbox)


def demo_season(game: str, names: tuple[str, ...], sandbox: bool) -> int:
    """``arena demo``'s small finished season: the local bots ``names`` (already registered by
    the demo's tournaments) entered, submissions closed at once, a one-cycle round-robin final
    of the top four, standings published. Returns its id."""
    from datetime import timedelta

    from sqlalchemy import select

    from arena.competition import seasons
    from arena.db import Bot, session_scope, utcnow

    with session_scope() as s:
        season = seasons.create_season(
            s, game, "Demo season", utcnow() + timedelta(days=1), top_k=4, final_rounds=1,
            description="A small season made by arena demo: four bots, entries closed at once, a final of "
                        "one round-robin cycle (every finalist meets every other in both seats).")
        for name in names:
            bot = s.scalar(select(Bot).where(Bot.owner == "local", Bot.name == name, Bot.game == game))
            if bot is not None:
                seasons.enter(s, season, bot)
        seasons.freeze(s, season, early=True)
        sid = season.id
    click.secho(f"\n== a season of {game}: entries frozen, a final of the top 4 ==", bold=True)
    run_final(sid, None, None, None, sandbox, quiet=True)
    _print_standings(sid)
    return sid


def register(group: click.Group) -> None:
    group.add_command(season_group)
