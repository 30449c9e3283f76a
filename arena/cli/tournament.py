"""``arena tournament``, ``worker``, ``beat``, ``ladder``, ``ratings rebuild`` and ``demo``.

With ``ARENA_BROKER_URL`` set, matches go to Redis and are played by ``arena worker``
processes (``--workers W`` on ``arena tournament`` starts W of them for its duration); without
it, the same tasks run in a thread pool inside the command (``--workers W`` matches at once).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import click

from arena.cli import events as event_cli
from arena.cli import terminal
from arena.quoting import shorten
from referee import registry
from referee.engine import ConfigError

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


# --- shared helpers ---------------------------------------------------------------------------


def _spec(game: str):  # noqa: ANN202
    import arena.workers.celery_app  # noqa: F401 - registers ARENA_EXTRA_GAMES engines

    try:
        return registry.get_spec(game)
    except ImportError as exc:
        raise click.ClickException(f"the {game} engine cannot be loaded: {exc}") from None


def _sandbox_or_fail(unsafe: bool) -> bool:
    if unsafe:
        click.secho("warning: bots run WITHOUT a sandbox (--unsafe-no-sandbox)", fg="yellow", err=True)
        return False
    if shutil.which("bwrap") is None:
        raise click.ClickException(
            "bubblewrap (bwrap) is not installed, so bots cannot be sandboxed; install it "
            "(apt install bubblewrap) or, for bots you trust, pass --unsafe-no-sandbox"
        )
    return True


def _parse_bots(specs: tuple[str, ...], game: str) -> list[tuple[str, str]]:
    """``--bot PATH`` or ``--bot NAME=PATH``, where PATH may also be a built-in bot's name
    (random, greedy, ismcts, learned, as for ``arena play``); the same bot twice becomes two named bots."""
    from arena.intake.house_bots import NAMES, UnknownBuiltin, resolve

    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for spec in specs:
        if spec.startswith("@"):  # a bot already in the database, by its owner: @OWNER/NAME
            owner, slash, bot_name = spec[1:].partition("/")
            if not (slash and owner and bot_name):
                raise click.UsageError(f"--bot {shorten(spec)}: a bot of the database is @OWNER/NAME")
            out.append((spec, ""))
            continue
        name, sep, source = spec.partition("=")
        if not sep:
            source = spec
            path = Path(source)
            name = path.resolve().name if path.is_dir() else source
        try:
            source = resolve(source, game)
        except UnknownBuiltin as exc:
            raise click.UsageError(f"--bot {shorten(source)}: {exc}") from None
        if source and Path(source).is_dir() is False and ":" not in source:
            raise click.UsageError(
                f"--bot {shorten(source)}: not a folder with bot.py, a host:port address, nor a "
                f"built-in bot ({', '.join(NAMES)})"
            )
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}-{seen[name]}"
        out.append((name, source))
    return out


def _register(game: str, bots: list[tuple[str, str]]) -> list[int]:
    from sqlalchemy import select

    from arena.db import Bot, session_scope
    from arena.intake.bots import register_version

    ids = []
    with session_scope() as s:
        for name, source in bots:
            if name.startswith("@"):  # @OWNER/NAME: that bot's playing version, as uploaded
                owner, _, bot_name = name[1:].partition("/")
                bot = s.scalar(select(Bot).where(Bot.owner == owner, Bot.name == bot_name, Bot.game == game))
                version = bot.playing_version if bot is not None else None
                if version is None or not bot.active:
                    raise click.ClickException(
                        f"--bot {shorten(name)}: no active bot {shorten(bot_name)!r} of {shorten(owner)!r} "
                        f"with a qualified version plays {game}")
                ids.append(version.id)
                continue
            ids.append(register_version(s, game, source, name=name).id)
    return ids


def _print_leaderboard(game: str, version_ids: list[int] | None = None) -> None:
    from arena.competition.tournaments import format_leaderboard, leaderboard
    from arena.db import session_scope

    with session_scope() as s:
        rows = leaderboard(s, game, version_ids)
    click.secho(f"\nLeaderboard — {game} (sorted by mu − 3·sigma)", bold=True)
    terminal.echo(format_leaderboard(rows))


def _spawn_workers(n: int) -> list[subprocess.Popen]:
    cmd = [sys.executable, "-m", "arena", "worker", "--loglevel", "warning"]
    return [
        subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL) for _ in range(n)
    ]


def _stop_workers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _workers_alive() -> bool:
    from arena.workers.celery_app import app

    try:
        return bool(app.control.ping(timeout=2.0))
    except Exception:  # noqa: BLE001 - broker down: the progress loop reports that
        return False


def run_tournament(
    game: str,
    bots: list[tuple[str, str]],
    players: int | None,
    rounds: int,
    workers: int | None,
    variant: str | None,
    seed: int,
    decision_ms: int | None,
    bank_ms: int | None,
    sandbox: bool,
    name: str = "",
    quiet: bool = False,
    live_comments: bool = False,
    format: str = "round_robin",  # noqa: A002 - the option's word
    entries_per_author: int = 1,
) -> int:
    """Register the bots, create and run the tournament, return its id (the CLI's main job)."""
    from arena.competition import tournaments
    from arena.competition.round_robin import ScheduleError
    from arena.db import Tournament, session_scope
    from arena.workers import tasks
    from arena.workers.celery_app import has_broker

    spec = _spec(game)
    if players is None:
        counts = [c for c in spec.player_counts if c >= 2]
        if not counts:
            raise click.ClickException(f"{game} has no multi-player configuration")
        players = 2 if 2 in counts else counts[0]
    if (decision_ms is None) != (bank_ms is None):
        tc = spec.time_control
        decision_ms = decision_ms or tc.decision_ms
        bank_ms = bank_ms if bank_ms is not None else tc.bank_ms
    version_ids = _register(game, bots)
    try:
        with session_scope() as s:
            t = tournaments.create_tournament(
                s, game, version_ids, players, rounds, variant, seed,
                decision_ms, bank_ms, sandbox, name, live_comments=live_comments, format=format,
                entries_per_author=entries_per_author,
            )
            tid, total = t.id, t.matches_total
            promise = _promise(s, t, len(version_ids))
    except ScheduleError as exc:
        raise click.ClickException(str(exc)) from None
    if not quiet:
        kind = "Swiss" if format == "swiss" else "round-robin"
        click.echo(
            f"tournament {tid}: {game} ({t.variant}) {kind}, {len(version_ids)} bots, "
            f"{players} seats, {rounds} round(s), {total} matches"
        )
        click.echo(f"schedule: {promise}")
    procs: list[subprocess.Popen] = []
    if has_broker():
        if workers:
            procs = _spawn_workers(workers)
        elif not _workers_alive():
            click.secho(
                "warning: no `arena worker` answered; matches wait in Redis until one starts",
                fg="yellow", err=True,
            )
        try:
            tasks.schedule_tournament.delay(tid)
        except Exception as exc:  # noqa: BLE001 - kombu's connection errors vary by transport
            _stop_workers(procs)
            raise click.ClickException(
                f"cannot reach the broker ({' '.join(str(exc).split())}); tournament {tid} is "
                "stored and its matches "
                "will be sent by `arena beat` once Redis is back"
            ) from None
    else:
        tasks.set_local_workers(workers or max(1, os.cpu_count() or 1))
        tasks.schedule_tournament(tid)
    try:
        _follow(tid, total, quiet)
    except KeyboardInterrupt:
        if has_broker():
            click.echo(f"\nstopped following tournament {tid}; the workers go on playing it")
        else:
            tasks.cancel_local()
            click.echo(f"\ntournament {tid} interrupted; `arena resume {tid}` plays the rest")
        raise
    finally:
        _stop_workers(procs)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        failed = sum(1 for m in t.matches if m.status == "failed")
        forfeits = sum(len(m.forfeits or []) for m in t.matches)
    if not quiet:
        click.echo(f"tournament {tid} finished: {total - failed} played, {failed} failed, "
                   f"{forfeits} forfeit(s)")
        if format == "swiss":
            _print_swiss_standings(tid)
        _print_leaderboard(game, version_ids)
    return tid


def _promise(session, tournament, n: int) -> str:  # noqa: ANN001 - Session, Tournament
    """What the schedule guarantees, said before the tournament starts: for a round-robin the
    check of the built schedule (arena.competition.round_robin.guarantees), for a Swiss what its pairing keeps."""
    from sqlalchemy import select

    from arena.competition import round_robin as schedule
    from arena.competition import tournaments
    from arena.db import Match, MatchSeat

    if tournament.format == "swiss":
        return tournaments.swiss_promise(n, tournament.players, tournament.rounds)
    index = {e.bot_version_id: e.position for e in tournament.entries}
    seated: dict[str, list[int]] = {}
    for mid, seat, vid in session.execute(  # one query: a 64-bot duel schedule has 4,032 tables
        select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.bot_version_id)
        .join(Match, Match.id == MatchSeat.match_id).where(Match.tournament_id == tournament.id)
    ):
        seated.setdefault(mid, [0] * tournament.players)[seat] = index[vid]
    tables = [schedule.Table(0, i, tuple(seats)) for i, seats in enumerate(seated.values())]
    return schedule.guarantees(tables, n, tournament.players).summary()


def _print_swiss_standings(tid: int) -> None:
    from arena.competition.tournaments import format_swiss_standings, swiss_standings
    from arena.db import Tournament, session_scope

    with session_scope() as s:
        rows = swiss_standings(s, s.get(Tournament, tid))
    click.secho("\nSwiss standings (score, then Buchholz, Sonneborn-Berger, direct encounter, mu − 3·sigma)", bold=True)
    terminal.echo(format_swiss_standings(rows))


def _follow(tid: int, total: int, quiet: bool) -> None:
    """Progress bar (done/total, ETA) until the tournament is done; re-sends lost matches."""
    from arena.db import Tournament, session_scope
    from arena.workers import tasks

    last_sweep = time.monotonic()
    sweep_every = float(os.environ.get("ARENA_SWEEP_EVERY", "15"))
    with click.progressbar(
        length=total, label="matches", show_eta=True, show_pos=True, file=None if not quiet else open(os.devnull, "w")  # noqa: SIM115
    ) as bar:
        shown = 0
        while True:
            try:
                with session_scope() as s:
                    t = s.get(Tournament, tid)
                    done, status = t.matches_done, t.status
            except Exception:  # noqa: BLE001 - database briefly unavailable: try again
                time.sleep(1)
                continue
            if done > shown:
                bar.update(done - shown)
                shown = done
            if status == "done":
                return
            if time.monotonic() - last_sweep > sweep_every:
                last_sweep = time.monotonic()
                try:
                    tasks.sweep(tid, wait=0)  # another sweep running covers this one
                except Exception as exc:  # noqa: BLE001 - broker down; the next sweep retries
                    click.echo(f"\n(could not re-send matches yet: {exc})", err=True)
            time.sleep(0.3)


# --- commands ---------------------------------------------------------------------------------


@click.command("tournament")
@click.argument("game")
@click.option("--bot", "bot_specs", multiple=True, required=True, metavar="[NAME=]PATH|@OWNER/NAME",
              help="A bot folder (with bot.py), host:port, or a built-in bot: random, greedy, "
                   "ismcts; repeat for every entrant.")
@click.option("--players", "-k", type=click.IntRange(2, 8), default=None,
              help="Seats per table (default: 2 where the game allows it).")
@click.option("--rounds", "-r", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Rounds; with 2 seats one round-robin round is a double round-robin.")
@click.option("--format", "format_", type=click.Choice(["round-robin", "swiss"]), default="round-robin",
              show_default=True,
              help="round-robin: every pair meets; swiss: each round pairs bots of similar standing "
                   "(large fields: a few rounds of N/k tables).")
@click.option("--workers", "-w", type=click.IntRange(0, 64), default=None,
              help="Matches at once (no broker) or worker processes to start (with Redis).")
@click.option("--variant", default=None, help="Game variant (default: the game's default).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the seating schedule; match seeds are always secret random.")
@click.option("--decision-ms", type=click.IntRange(1), default=None, help="Per-decision limit.")
@click.option("--bank-ms", type=click.IntRange(0), default=None, help="Time bank per seat.")
@click.option("--name", default="", help="A name for the tournament.")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run bots without bubblewrap (trusted bots only).")
@click.option("--live-comments", is_flag=True,
              help="Show bots' comments to watchers while matches run (default: with the record at the end).")
@click.option("--entries-per-author", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Entries one author (a bot's owner) may have; two of one author never play a rated "
                   "game together. Bots given here by path are the operator's own: exempt.")
def tournament_command(game, bot_specs, players, rounds, format_, workers, variant, seed, decision_ms,
                       bank_ms, name, unsafe_no_sandbox, live_comments,
                       entries_per_author) -> None:  # noqa: ANN001
    """Run a round-robin or Swiss tournament of the given bots at GAME and print the results."""
    sandbox = _sandbox_or_fail(unsafe_no_sandbox)
    run_tournament(game, _parse_bots(bot_specs, game), players, rounds, workers, variant, seed,
                   decision_ms, bank_ms, sandbox, name, live_comments=live_comments,
                   format=format_.replace("-", "_"), entries_per_author=entries_per_author)


@click.command("resume")
@click.argument("tournament_id", type=int)
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=None,
              help="Matches at once (no broker; default: one per core).")
def resume_command(tournament_id: int, workers: int | None) -> None:
    """Finish an interrupted tournament: play every match not yet played, then the leaderboard.

    Nothing is lost when a tournament's process dies: the schedule and every result are in the
    database, so resuming re-sends exactly the matches without a result (a match left half
    played is played again once its lease runs out).
    """
    from arena.competition import tournaments
    from arena.db import Tournament, session_scope
    from arena.workers import tasks
    from arena.workers.celery_app import has_broker

    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        if t is None:
            raise click.ClickException(f"there is no tournament {tournament_id}")
        game, total, status = t.game, t.matches_total, t.status
        if status == "paused":
            raise click.ClickException(f"event {tournament_id} is paused: `arena tournament resume "
                                       f"{tournament_id}` resumes it")
        if status == "open":
            raise click.ClickException(f"event {tournament_id} is open for entries: `arena tournament start "
                                       f"{tournament_id}` starts it")
        version_ids = sorted({seat.bot_version_id for m in t.matches for seat in m.seats})
        if status == "scheduled":
            tournaments.start(s, t)
    if status != "done":
        if not has_broker():
            tasks.set_local_workers(workers or max(1, os.cpu_count() or 1))
        elif not _workers_alive():
            click.secho("warning: no `arena worker` answered; matches wait in Redis until one starts",
                        fg="yellow", err=True)
        sent = tasks.sweep(tournament_id)
        click.echo(f"tournament {tournament_id}: {sent} match(es) sent again")
        try:
            _follow(tournament_id, total, quiet=False)
        except KeyboardInterrupt:
            if not has_broker():
                tasks.cancel_local()
            click.echo(f"\ninterrupted again; `arena resume {tournament_id}` plays the rest")
            raise
    else:
        click.echo(f"tournament {tournament_id} had already finished")
    _print_leaderboard(game, version_ids)


def _say(line: str) -> None:
    """A service's line on stderr, before Celery has set up its logging."""
    click.echo(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {line}", err=True)


@click.command("worker")
@click.option("--concurrency", "-c", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Matches played at once by this worker (1 = solo pool, in-process).")
@click.option("--loglevel", default="info", show_default=True)
@click.option("--beat", is_flag=True, help="Also run the beat scheduler (only ONE process may).")
def worker_command(concurrency: int, loglevel: str, beat: bool) -> None:
    """Start a Celery worker that plays matches from Redis (needs ARENA_BROKER_URL)."""
    from arena.db.session import wait_for_db
    from arena.workers.celery_app import BROKER_ENV, app, control_queue_name, has_broker, queue_name

    if not has_broker():
        raise click.ClickException(
            f"arena worker needs {BROKER_ENV} (e.g. redis://localhost:6379/0); without a broker "
            "`arena tournament` plays the matches itself"
        )
    wait_for_db(report=_say)  # started before PostgreSQL: wait for it, do not exit
    # The control queue first: Redis is polled in this order, so sweeps never wait behind matches.
    queues = f"{control_queue_name()},{queue_name()}"
    argv = ["worker", f"--concurrency={concurrency}", "--loglevel", loglevel, "-Q", queues,
            "-n", os.environ.get("ARENA_WORKER_NAME") or f"arena-{os.getpid()}@%h",
            "--without-gossip", "--without-mingle"]
    argv.append("--pool=solo" if concurrency == 1 else "--pool=prefork")
    if beat:
        argv.append("--beat")
    # Not app.worker_main(): it drops Celery's exit code, so a worker stopped by an
    # unrecoverable (e.g. broker) error would exit 0 and a supervisor would not restart it.
    code = app.start(argv)
    if code:
        sys.exit(code)


@click.command("beat")
@click.option("--loglevel", default="info", show_default=True)
@click.option("--schedule-file", default=None, help="Where beat keeps its state.")
def beat_command(loglevel: str, schedule_file: str | None) -> None:
    """Run Celery beat: ladder ticks and the sweeper (exactly one per deployment)."""
    from arena.db.session import wait_for_db
    from arena.workers.celery_app import BROKER_ENV, app, has_broker

    if not has_broker():
        raise click.ClickException(f"arena beat needs {BROKER_ENV}")
    wait_for_db(report=_say)
    argv = ["beat", "--loglevel", loglevel]
    if schedule_file:
        Path(schedule_file).parent.mkdir(parents=True, exist_ok=True)
        argv += ["--schedule", schedule_file]
    app.start(argv)


class LadderGroup(click.Group):
    """``arena ladder GAME`` shows GAME's ladder in the database (what someone typing it wants
    to see; it used to start an in-process ladder that ran until Ctrl+C); its sub-commands
    act: ``run`` plays the ladder here, ``start``, ``stop`` and ``status`` act on a server's
    ladder over the API (:mod:`arena.cli.author`)."""

    def __init__(self, show: click.Command, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.show = show

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            extra = [a for a in args[1:] if a.startswith("-") and a.split("=", 1)[0] not in SHOW_OPTIONS]
            if extra:
                raise click.UsageError(
                    f"`arena ladder {shorten(args[0], 40)}` shows the ladder; to run it here with "
                    f"{shorten(extra[0].split('=', 1)[0], 40)}: arena ladder run {shorten(args[0], 40)} …",
                    ctx)
            ctx.meta["arena.ladder_show"] = list(args)
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):  # type: ignore[override]  # noqa: ANN201
        show_args = ctx.meta.pop("arena.ladder_show", None)
        if show_args is not None:
            with self.show.make_context("ladder", show_args, parent=ctx.parent) as sub:
                return self.show.invoke(sub)
        return super().invoke(ctx)


#: Options of ``arena ladder GAME`` (the status); any other sends the user to ``ladder run``.
SHOW_OPTIONS = ("--disable", "--help", "-h", "--top")


@click.command("ladder")
@click.argument("game")
@click.option("--top", type=click.IntRange(0, 1000), default=10, show_default=True,
              help="Leaderboard rows to show.")
@click.option("--disable", is_flag=True, help="Stop the ladder of GAME (queued matches finish).")
def ladder_show_command(game: str, top: int, disable: bool) -> None:
    """Show the ladder of GAME in this machine's database: state, matches, leaderboard."""
    from sqlalchemy import func, select

    from arena.competition.tournaments import format_leaderboard, leaderboard
    from arena.db import Ladder, Match, session_scope

    _spec(game)
    with session_scope() as s:
        row = s.get(Ladder, game)
        if disable:
            if row is not None:
                row.enabled = False
            click.echo(f"ladder of {game} disabled" if row is not None else f"{game} has no ladder here")
            return
        counts = dict(s.execute(
            select(Match.status, func.count()).where(Match.game == game, Match.kind == "ladder")
            .group_by(Match.status)).all())
        rows = leaderboard(s, game)
    how = f"run it here: arena ladder run {game} --bot PATH_OR_NAME …"
    if row is None:
        click.echo(f"{game} has no ladder in {_database()}; {how}")
        return
    state = "enabled" if row.enabled else "disabled"
    click.echo(f"ladder of {game} ({row.variant}): {state}, queue {row.queue_target}; "
               f"database {_database()}")
    click.echo(f"  matches: {counts.get('pending', 0)} pending, {counts.get('running', 0)} running, "
               f"{counts.get('done', 0)} done, {counts.get('failed', 0)} failed")
    if top and rows:
        terminal.echo(format_leaderboard(rows[:top]))
        if len(rows) > top:
            click.echo(f"  … {len(rows) - top} more (--top N)")
    click.echo(f"{how}; with ARENA_BROKER_URL set, `arena beat` and `arena worker` keep it going")


def _database() -> str:
    from arena.db.session import database_url, url_for_display

    return url_for_display(database_url())


@click.command("run")
@click.argument("game")
@click.option("--bot", "bot_specs", multiple=True, metavar="[NAME=]PATH",
              help="Register (a new version of) a bot first: a folder, host:port, or random, "
                   "greedy, ismcts; repeat.")
@click.option("--queue", type=click.IntRange(1, 1000), default=4, show_default=True,
              help="Matches kept queued.")
@click.option("--matches", type=click.IntRange(0), default=0, show_default=True,
              help="Stop after this many ladder matches (0: run until Ctrl+C).")
@click.option("--variant", default=None)
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=None,
              help="Matches at once when there is no broker.")
@click.option("--decision-ms", type=click.IntRange(1), default=None)
@click.option("--bank-ms", type=click.IntRange(0), default=None)
@click.option("--house/--no-house", default=None,
              help="Seat the house bots (random, greedy, search) as reference points, or take them off "
                   "(default: as they are).")
@click.option("--unsafe-no-sandbox", is_flag=True)
def ladder_run_command(game, bot_specs, queue, matches, variant, workers, decision_ms, bank_ms,
                       house, unsafe_no_sandbox) -> None:  # noqa: ANN001
    """Run the ladder of GAME here: keep matches queued, choosing the most informative tables,
    until --matches are played or Ctrl+C (`arena ladder GAME` shows it)."""
    from sqlalchemy import func, select

    from arena.competition import ladder
    from arena.db import Ladder, Match, session_scope
    from arena.workers import tasks
    from arena.workers.celery_app import has_broker

    _spec(game)
    sandbox = _sandbox_or_fail(unsafe_no_sandbox)
    if bot_specs:
        _register(game, _parse_bots(bot_specs, game))
    with session_scope() as s:
        ladder.ensure_ladder(s, game, variant, queue, decision_ms, bank_ms, sandbox, house=house)

    def played() -> int:
        with session_scope() as s:
            return s.scalar(select(func.count()).select_from(Match).where(
                Match.game == game, Match.kind == "ladder", Match.status.in_(("done", "failed"))))

    if not has_broker():
        tasks.set_local_workers(workers or max(1, os.cpu_count() or 1))
    start = played()
    click.echo(f"ladder of {game} running (queue {queue}); Ctrl+C stops this process")
    shown = -1
    last_sweep = time.monotonic()
    sweep_every = float(os.environ.get("ARENA_SWEEP_EVERY", "15"))
    try:
        while True:
            try:
                tasks.ladder_tick(game)
                if time.monotonic() - last_sweep > sweep_every or shown < 0:
                    last_sweep = time.monotonic()
                    tasks.sweep(game=game, kind="ladder", wait=0)  # also resumes an interrupted queue
            except Exception as exc:  # noqa: BLE001 - broker down: matches wait in the database
                click.echo(f"(cannot reach the broker yet: {' '.join(str(exc).split())})", err=True)
            n = played() - start
            if n != shown:
                click.echo(f"ladder matches played: {n}")
                shown = n
            if matches and n >= matches:
                break
            time.sleep(1.0)
    except KeyboardInterrupt:
        if not has_broker():
            tasks.cancel_local()  # queued matches stay pending for the next `arena ladder run`
    if matches and not has_broker():
        with session_scope() as s:
            s.get(Ladder, game).enabled = False  # the queue left behind is played by no one
        tasks.wait_local()
    _print_leaderboard(game)


@click.group("ratings")
def ratings_group() -> None:
    """TrueSkill ratings."""


@ratings_group.command("rebuild")
@click.argument("game")
@click.option("--write", is_flag=True, help="Overwrite the stored ratings with the rebuilt ones.")
def ratings_rebuild(game: str, write: bool) -> None:
    """Recompute every GAME rating from the match history and compare with the stored ones."""
    from arena.db import session_scope
    from arena.evaluation import ratings
    from arena.records.recording import _lock_game
    from arena.records.stored import record_data

    _spec(game)
    with session_scope() as s:
        _lock_game(s, game)  # no result is recorded while we read (and maybe write)
        rebuilt = ratings.rebuild(s, game, record_data)
        problems = ratings.compare_with_stored(s, game, record_data)
        if problems and write:
            changed = ratings.write_rebuilt(s, game, record_data)
            click.echo(f"rewrote {changed} rating(s) from the history")
            return
    if problems:
        for line in problems:
            terminal.echo(line)
        raise click.ClickException(f"{len(problems)} rating(s) differ from the rebuild "
                                   "(run with --write to replace them)")
    click.echo(f"{game}: {len(rebuilt)} rating(s) rebuilt from the history; all identical "
               "to the stored ones")


@click.command("demo")
@click.option("--no-web", is_flag=True, help="Do not serve the website afterwards.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--rounds", type=click.IntRange(1, 20), default=2, show_default=True)
def demo_command(no_web: bool, port: int, host: str, rounds: int) -> None:
    """Register the sample bots, play a round-robin of every game, print the leaderboards."""
    os.environ.pop("ARENA_BROKER_URL", None)  # embedded defaults: in-process, no Redis
    from arena.db import database_url
    from arena.db.session import check_database

    sandbox = shutil.which("bwrap") is not None
    if not sandbox:
        click.secho("warning: bubblewrap not found; running the shipped sample bots (trusted "
                    "code) without a sandbox", fg="yellow", err=True)
    check_database()  # a setting that cannot work is the only line, before any header
    click.echo(f"database: {database_url()}")
    played = []
    for game in registry.game_names():
        if game == "toy":
            continue
        try:
            spec = registry.get_spec(game)
        except ImportError as exc:
            click.echo(f"{game}: engine not available ({exc}); skipped")
            continue
        counts = [c for c in spec.player_counts if c >= 2]
        if not counts:
            continue
        bots = _demo_bots(game, 4)
        # A duel round-robin, then a free-for-all at the largest table of up to 4 seats.
        tables = sorted({min(counts), max(c for c in counts if c <= 4)})
        for players in tables:
            click.secho(f"\n== {spec.title}: {len(bots)} bots, {players} seats ==", bold=True)
            try:
                run_tournament(game, bots, players, rounds, None, None, 0, None, None, sandbox,
                               name=f"demo {game} {players}p")
            except ConfigError as exc:
                click.echo(f"{game}: {exc}; skipped")
        played.append(game)
    if not played:
        raise click.ClickException("no game engine could be loaded")
    # A small finished season (arena/cli/season.py, found by name: it uses this module's helpers).
    ctx = click.get_current_context()
    season = ctx.find_root().command.get_command(ctx, "season")
    if isinstance(season, click.Group) and (demo := season.get_command(ctx, "demo")) is not None:
        ctx.invoke(demo, game=played[0], names=tuple(n for n, _s in _demo_bots(played[0], 4)), sandbox=sandbox)
    if no_web:
        return
    # The website is the web layer's ``arena web`` command (the platform does not import web/).
    ctx = click.get_current_context()
    web = ctx.find_root().command.get_command(ctx, "web")
    if web is None:
        raise click.ClickException("the website is not part of this build; run with --no-web")
    click.echo("")
    ctx.invoke(web, port=port, host=host, database_url=None, debug=False)


def _demo_bots(game: str, count: int) -> list[tuple[str, str]]:
    """The game's greedy bot if shipped, and random bots to make ``count`` entrants."""
    random_bot = str(SAMPLE_BOTS / "random_bot")
    bots = []
    greedy = SAMPLE_BOTS / f"{game}_greedy"
    if (greedy / "bot.py").is_file():
        bots.append((f"{game}_greedy", str(greedy)))
    n = 1
    while len(bots) < count:
        bots.append(("random_bot" if n == 1 else f"random_bot-{n}", random_bot))
        n += 1
    return bots


@click.command("export")
@click.argument("tournament_id", type=int)
@click.option("--table", "table", type=click.Choice(["all", "standings", "pairings", "results"]), default="all",
              show_default=True, help="What to write.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "both"]), default="both", show_default=True)
@click.option("--out", "out", default=".", show_default=True, metavar="DIR|-",
              help="Folder for the files (tournament-ID-TABLE.FORMAT), or - for standard output "
                   "(one table, one format).")
def export_command(tournament_id: int, table: str, fmt: str, out: str) -> None:
    """Write a tournament's standings, pairings and results as CSV and JSON (the same files as
    the download links on its web page)."""
    from arena.competition import export
    from arena.db import Tournament, session_scope

    tables = export.TABLES if table == "all" else (table,)
    formats = export.FORMATS if fmt == "both" else (fmt,)
    if out == "-" and len(tables) * len(formats) != 1:
        raise click.UsageError("--out - writes one file: choose one --table and one --format")
    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        if t is None:
            raise click.ClickException(f"no tournament {tournament_id} in {_database()}")
        data = export.tables(s, t)
    if out == "-":
        click.echo(export.render(data, tables[0], formats[0]), nl=False)
        return
    folder = Path(out)
    if not folder.is_dir():
        raise click.ClickException(f"{shorten(out, 80)} is not a folder")
    for name in tables:
        for f in formats:
            path = folder / f"tournament-{tournament_id}-{name}.{f}"
            path.write_text(export.render(data, name, f), encoding="utf-8")
            click.echo(f"wrote {path}")


class TournamentGroup(click.Group):
    """``arena tournament GAME --bot …`` runs a tournament (the command it always was);
    ``arena tournament export ID`` writes one out. A first word that is no sub-command is a game."""

    def __init__(self, run: click.Command, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.run = run

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            ctx.meta["arena.tournament_run"] = list(args)
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):  # type: ignore[override]  # noqa: ANN201
        run_args = ctx.meta.pop("arena.tournament_run", None)
        if run_args is not None:
            with self.run.make_context("tournament", run_args, parent=ctx.parent) as sub:
                return self.run.invoke(sub)
        return super().invoke(ctx)


def register(group: click.Group) -> None:
    for command in (resume_command, worker_command, beat_command, ratings_group, demo_command):
        group.add_command(command)
    tournament = TournamentGroup(
        tournament_command, name="tournament",
        help="Tournaments: run one here, or export one.\n\n\b\n"
             "arena tournament GAME --bot … [--format swiss]   run a tournament (arena tournament GAME --help)\n"
             "arena tournament export ID [--format csv|json]   write its standings, pairings and results\n"
             "arena tournament create GAME [--format swiss] …    open an event for entries, then:\n"
             "  enter ID BOT… | entries ID open|close | start ID | withdraw ID BOT --reason …\n"
             "  pause ID | resume ID | deadline ID SECONDS | correct ID MATCH 2,1 --reason …\n"
             "  audit ID | show ID                             (arena tournament COMMAND --help)",
    )
    tournament.add_command(export_command)
    for command in event_cli.COMMANDS:
        tournament.add_command(command)
    group.add_command(tournament)
    ladder = LadderGroup(
        ladder_show_command, name="ladder",
        help="The ladder: continuous matchmaking and ratings.\n\n\b\n"
             "arena ladder GAME                     show GAME's ladder in this machine's database\n"
             "arena ladder run GAME --bot …         run it here (see arena ladder run --help)",
    )
    ladder.add_command(ladder_run_command)
    group.add_command(ladder)
