"""``arena tournament create|enter|entries|start|withdraw|pause|resume|deadline|correct|audit|show``:
the operator runs an event's lifecycle on the server machine (it writes the database directly,
as ``arena organiser`` does, and acts as ``operator`` in the audit log). The same steps, with
the same rules, as the gRPC API and the website's organiser pages (arena.play.events); the rules
themselves are written in arena/competition/lifecycle.py.

Without a broker, ``start`` and ``resume`` play the event's matches in this process until it
ends (Ctrl+C stops; ``arena resume ID`` plays the rest); with one, they hand them to the workers.
"""

from __future__ import annotations

import json
import os

import click

from arena.cli import terminal

REASON = click.option("--reason", default="", help="Why (written to the event's audit log).")


def _fail(exc: Exception) -> click.ClickException:
    return click.ClickException(str(exc))


def _bot_id(tournament_id: int, text: str, entered: bool) -> int:
    """A bot named on the command line: an id, OWNER/NAME or NAME (of the event's game)."""
    from arena.competition import lifecycle
    from arena.db import BotVersion, Tournament, session_scope

    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        if t is None:
            raise click.ClickException(f"there is no event {tournament_id}")
        try:
            if entered:
                return s.get(BotVersion, lifecycle.version_of(s, t, text)).bot_id
            return lifecycle.find_bot(s, text, t.game).id
        except lifecycle.LifecycleError as exc:
            raise _fail(exc) from None


def _play_here(tournament_id: int) -> None:
    """Without a broker nobody else plays the event: follow it here until it ends."""
    from arena.db import Tournament, session_scope
    from arena.workers import tasks
    from arena.workers.celery_app import has_broker

    if has_broker():
        click.echo("sent to the workers")
        return
    tasks.set_local_workers(max(1, os.cpu_count() or 1))
    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        total, status = t.matches_total, t.status
    if status not in ("running", "scheduled"):
        return
    click.echo("no broker: playing the event here (Ctrl+C stops; `arena resume ID` plays the rest)")
    try:
        _wait(tournament_id, total)
    except KeyboardInterrupt:
        tasks.cancel_local()
        raise


def _wait(tournament_id: int, total: int, sweep_every: float = 15.0) -> None:
    """Until the event ends or is paused: its progress, and a sweep now and then (a lost match
    sent again, a stalled Swiss paired, the round deadline applied)."""
    import time

    from arena.db import Tournament, session_scope
    from arena.workers import tasks

    last, shown = time.monotonic(), -1
    while True:
        with session_scope() as s:
            t = s.get(Tournament, tournament_id)
            done, total, status = t.matches_done, t.matches_total, t.status
        if done != shown:
            click.echo(f"{done}/{total} matches")
            shown = done
        if status not in ("running", "scheduled"):
            click.echo(f"event {tournament_id} is {status}")
            return
        if time.monotonic() - last > sweep_every:
            last = time.monotonic()
            tasks.sweep(tournament_id, wait=0)  # also applies the round deadlines
        time.sleep(0.3)


def _run(step):  # noqa: ANN001, ANN202 - a lifecycle call; its refusal as the CLI says it
    from arena.competition.lifecycle import LifecycleError

    try:
        return step()
    except LifecycleError as exc:
        raise _fail(exc) from None


@click.command("create")
@click.argument("game")
@click.option("--players", "-k", type=click.IntRange(2, 8), default=2, show_default=True, help="Seats per table.")
@click.option("--rounds", "-r", type=click.IntRange(1, 100), default=3, show_default=True)
@click.option("--format", "format_", type=click.Choice(["swiss", "round-robin"]), default="swiss", show_default=True)
@click.option("--variant", default=None, help="Game variant (default: the game's default).")
@click.option("--name", default="", help="A name for the event.")
@click.option("--decision-ms", type=click.IntRange(1), default=None, help="Per-decision limit.")
@click.option("--bank-ms", type=click.IntRange(0), default=None, help="Time bank per seat.")
@click.option("--deadline", type=click.IntRange(1), default=None,
              help="Round deadline in seconds: a match not finished that long after it was sent is sent "
                   "again once, then scored as a double forfeit, unrated.")
@click.option("--live-comments", is_flag=True, help="Show bots' comments to watchers while matches run.")
@click.option("--entries-per-author", type=click.IntRange(1, 1000), default=1, show_default=True)
def create_command(game, players, rounds, format_, variant, name, decision_ms, bank_ms, deadline, live_comments,
                   entries_per_author) -> None:  # noqa: ANN001
    """Open an event of GAME for entries (`enter`, then `start`)."""
    from arena.play import events

    tid, _ = _run(lambda: events.create(
        None, events.OPERATOR, game=game, players=players, rounds=rounds, variant=variant,
        format=format_.replace("-", "_"), decision_ms=decision_ms, bank_ms=bank_ms, live_comments=live_comments,
        open_entries=True, round_deadline_s=deadline, name=name, entries_per_author=entries_per_author))
    click.echo(f"event {tid} is open for entries: arena tournament enter {tid} BOT …; then arena tournament start {tid}")


@click.command("enter")
@click.argument("tournament_id", type=int)
@click.argument("bots", nargs=-1, required=True)
def enter_command(tournament_id: int, bots: tuple[str, ...]) -> None:
    """Enter BOTS (ids, OWNER/NAME or NAME) while entries are open; late into a running Swiss,
    a bot joins from the next round with 0 points for the rounds it missed."""
    from arena.play import events

    for text in bots:
        bot_id = _bot_id(tournament_id, text, entered=False)
        _run(lambda b=bot_id: events.enter(None, tournament_id, b, events.OPERATOR))
        click.echo(f"entered {text}")


@click.command("entries")
@click.argument("tournament_id", type=int)
@click.argument("state", type=click.Choice(["open", "close"]))
@REASON
def entries_command(tournament_id: int, state: str, reason: str) -> None:
    """Open or close entries (opening a running Swiss admits late entries)."""
    from arena.play import events

    _run(lambda: events.set_entries(None, tournament_id, state == "open", events.OPERATOR, reason))
    click.echo(f"event {tournament_id}: entries {'open' if state == 'open' else 'closed'}")


@click.command("start")
@click.argument("tournament_id", type=int)
def start_command(tournament_id: int) -> None:
    """Close entries and start the event."""
    from arena.play import events

    notice = _run(lambda: events.start(None, tournament_id, events.OPERATOR))
    click.echo(f"event {tournament_id} started" + (f" ({notice})" if notice else ""))
    _play_here(tournament_id)


@click.command("withdraw")
@click.argument("tournament_id", type=int)
@click.argument("bot")
@click.option("--reason", required=True, help="Why (required; written to the audit log).")
def withdraw_command(tournament_id: int, bot: str, reason: str) -> None:
    """Withdraw BOT: never paired again; its games played stand, its matches not yet started are
    recorded as its forfeit (unrated)."""
    from arena.play import events

    bot_id = _bot_id(tournament_id, bot, entered=True)
    forfeited = _run(lambda: events.withdraw(None, tournament_id, bot_id, events.OPERATOR, reason))
    click.echo(f"withdrew {bot}" + (f"; {forfeited} match(es) not yet played recorded as its forfeit"
                                    if forfeited else ""))


@click.command("pause")
@click.argument("tournament_id", type=int)
@REASON
def pause_command(tournament_id: int, reason: str) -> None:
    """Hold every match not yet started (matches being played finish)."""
    from arena.play import events

    held = _run(lambda: events.pause(None, tournament_id, events.OPERATOR, reason))
    click.echo(f"event {tournament_id} paused; {held} match(es) held")


@click.command("resume")
@click.argument("tournament_id", type=int)
@REASON
def resume_command(tournament_id: int, reason: str) -> None:
    """Resume a paused event."""
    from arena.play import events

    sent = _run(lambda: events.resume(None, tournament_id, events.OPERATOR, reason))
    click.echo(f"event {tournament_id} resumed; {sent} match(es) released")
    _play_here(tournament_id)


@click.command("deadline")
@click.argument("tournament_id", type=int)
@click.argument("seconds", type=click.IntRange(0))
def deadline_command(tournament_id: int, seconds: int) -> None:
    """Set the round deadline in SECONDS (0: none)."""
    from arena.play import events

    _run(lambda: events.set_deadline(None, tournament_id, seconds or None, events.OPERATOR))
    click.echo(f"event {tournament_id}: " + (f"round deadline {seconds} s" if seconds else "no round deadline"))


@click.command("correct")
@click.argument("tournament_id", type=int)
@click.argument("match_id")
@click.argument("ranks")
@click.option("--reason", required=True, help="Why (required; written to the audit log).")
def correct_command(tournament_id: int, match_id: str, ranks: str, reason: str) -> None:
    """Replace MATCH_ID's result with RANKS, one per seat in seat order ("2,1": seat 2 won)."""
    from arena.play import events

    try:
        values = [int(x) for x in ranks.replace(" ", "").split(",") if x]
    except ValueError:
        raise click.BadParameter("ranks are whole numbers separated by commas, e.g. 2,1", param_hint="RANKS") from None
    rebuilt = _run(lambda: events.correct(None, tournament_id, match_id, values, events.OPERATOR, reason))
    click.echo(f"match {match_id}: ranks {values}" + ("; ratings rebuilt from the history" if rebuilt else ""))


@click.command("audit")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
def audit_command(tournament_id: int, as_json: bool) -> None:
    """The event's audit log: who did what, when and why."""
    from arena.competition import lifecycle
    from arena.db import Tournament, session_scope

    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        if t is None:
            raise click.ClickException(f"there is no event {tournament_id}")
        rows = lifecycle.audit_log(s, t)
        for a in rows:
            if as_json:
                click.echo(json.dumps({"at": a.at.isoformat(), "actor": a.actor, "action": a.action,
                                       "match_id": a.match_id, "reason": a.reason, "detail": a.detail}))
            else:
                terminal.echo(f"{a.at:%Y-%m-%d %H:%M:%S}  {a.actor:<12} {a.action:<16} "
                              f"{(a.match_id or '')[:12]:<12} {a.reason}")


@click.command("show")
@click.argument("tournament_id", type=int)
def show_command(tournament_id: int) -> None:
    """The event's state and entries."""
    from arena.competition import lifecycle
    from arena.db import Tournament, session_scope

    with session_scope() as s:
        t = s.get(Tournament, tournament_id)
        if t is None:
            raise click.ClickException(f"there is no event {tournament_id}")
        click.echo(f"event {t.id} {t.name!r}: {t.game}, {t.format.replace('_', '-')}, {t.rounds} round(s), "
                   f"{t.players} seats; {lifecycle.describe(t)}; {t.matches_done}/{t.matches_total} matches")
        for e in t.entries:
            state = (f"withdrawn by {e.withdrawn_by}: {e.withdrawn_reason}" if e.withdrawn_at
                     else f"from round {e.joined_round + 1}")
            terminal.echo(f"  {e.version.label:<28} {e.version.bot.owner:<16} {state}")


COMMANDS = (create_command, enter_command, entries_command, start_command, withdraw_command, pause_command,
            resume_command, deadline_command, correct_command, audit_command, show_command)
