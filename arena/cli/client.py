"""``arena register|submit|bots|leaderboard|watch``: a bot author's commands against a server.

Every command takes ``--server host:port`` (default ``$ARENA_SERVER`` or localhost:50051) and
reads the API token from ``$ARENA_TOKEN`` or ``~/.config/tabletop-arena/token`` (written by
``arena register``). Server refusals are printed as one line with the gRPC status, never as a
traceback.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import grpc

from arena.cli import terminal
from arena.quoting import shorten
from arena.sdk.client import (
    DEFAULT_SERVER,
    SERVER_ENV,
    ArenaClient,
    load_token,
    save_token,
    token_file,
    unreachable_hint,
)
from referee._proto import arena_pb2
from referee.tls import CA_ENV, TLS_ENV, TlsError

_STATUS_NAMES = {v: k for k, v in arena_pb2.VersionStatus.items()}


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta[f"arena.{param.name}"] = value
    return value


def _server_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--server`` plus the TLS options; ``_client`` reads the TLS ones from the context."""
    fn = click.option(
        "--tls-ca",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar=CA_ENV,
        default=None,
        expose_value=False,
        callback=_remember,
        help=f"CA certificate (PEM) that signs the server's certificate; implies --tls [${CA_ENV}].",
    )(fn)
    fn = click.option(
        "--tls",
        is_flag=True,
        envvar=TLS_ENV,
        expose_value=False,
        callback=_remember,
        help=f"Connect with TLS, trusting the system's CAs (or --tls-ca) [${TLS_ENV}=1].",
    )(fn)
    return click.option(
        "--server",
        default=lambda: os.environ.get(SERVER_ENV, DEFAULT_SERVER),
        show_default=DEFAULT_SERVER,
        help="Arena server as host:port.",
    )(fn)


def _client(server: str, token: str | None = None) -> ArenaClient:
    """A client of ``server`` with the command's TLS options."""
    meta = click.get_current_context().meta
    return ArenaClient(server, token, tls=bool(meta.get("arena.tls")), ca=meta.get("arena.tls_ca"))


def _grpc_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a gRPC failure into one clear line and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            details = exc.details() if hasattr(exc, "details") else str(exc)
            if code == grpc.StatusCode.UNAVAILABLE:
                server = kwargs.get("server", "")
                meta = click.get_current_context().meta
                tls = bool(meta.get("arena.tls") or meta.get("arena.tls_ca"))
                hint = unreachable_hint(details or "", tls)
                raise click.ClickException(
                    f"cannot reach the arena server at {shorten(server)}: {shorten(details, 400)}{hint}") from None
            name = code.name if code is not None else "ERROR"
            raise click.ClickException(f"{name}: {details}") from None
        except (FileNotFoundError, OSError, TlsError) as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper


def _need_token() -> str:
    token = load_token()
    if not token:
        raise click.ClickException(
            f"no API token: run `arena register NAME` first, or set ARENA_TOKEN (looked in {token_file()})"
        )
    return token


def version_status_name(status: int) -> str:
    return _STATUS_NAMES.get(status, "UNKNOWN").removeprefix("VERSION_STATUS_").lower()


def sprt_line(t: arena_pb2.SprtTest) -> str:
    """One line of an SPRT: versions, verdict, LLR against its bounds, games, score, Elo ± error."""
    verdict = t.status + (", replaced" if t.replaced else ", not replaced" if t.finished_at else "")
    return (
        f"SPRT v{t.candidate_number} vs v{t.baseline_number}: {verdict}; "
        f"LLR {t.llr:.2f} in [{t.lower:.2f}, {t.upper:.2f}] "
        f"(elo0 {t.settings.elo0:g}, elo1 {t.settings.elo1:g}, alpha {t.settings.alpha:g}, beta {t.settings.beta:g}); "
        f"{t.games} games ({t.pairs} pairs), score {t.score:.3f}, Elo {t.elo:+.1f} ± {t.elo_error:.1f}"
        + (f"; through the house bots: {t.house_pairs} of the pairs" if t.settings.house else "")
        + (f"; {t.message}" if t.message else "")
    )


def _echo_version(v: arena_pb2.BotVersion) -> None:
    click.echo(f"  version {v.number}: {version_status_name(v.status)}")
    if v.HasField("sprt"):
        click.echo(f"  {sprt_line(v.sprt)}")
    if v.status == arena_pb2.VERSION_STATUS_REFUSED:
        terminal.secho(f"  refused ({v.refusal.kind}): {v.refusal.message}", fg="red")
        if v.refusal.log_tail:
            click.echo("  --- last lines of the bot's stderr ---")
            for line in v.refusal.log_tail.splitlines():
                terminal.echo(f"  | {line}")


@click.command("register")
@click.argument("name")
@_server_option
@click.option("--no-save", is_flag=True, help="Print the token but do not write the token file.")
@_grpc_errors
def register_command(name: str, server: str, no_save: bool) -> None:
    """Create a user NAME and save its API token (shown only once)."""
    with _client(server) as client:
        reply = client.register(name)
    click.echo(f"registered user {reply.user.name!r} (id {reply.user.id}, role {reply.user.role})")
    click.echo(f"API token (shown only now): {reply.token}")
    if not no_save:
        path = save_token(reply.token)
        click.echo(f"saved to {path}")


@click.command("submit")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--game", required=True, help="Game the bot plays, e.g. solenia.")
@click.option("--name", required=True, help="Bot name; a new name creates a bot, a known one adds a version.")
@click.option("--no-wait", is_flag=True, help="Return at once instead of waiting for qualification.")
@click.option("--elo0", type=float, default=None, help="SPRT: Elo of the null hypothesis (server default 0).")
@click.option("--elo1", type=float, default=None, help="SPRT: Elo the new version should gain (server default 50).")
@click.option("--alpha", type=float, default=None, help="SPRT: false-accept probability (default 0.05).")
@click.option("--beta", type=float, default=None, help="SPRT: false-reject probability (default 0.05).")
@click.option("--max-pairs", type=int, default=None, help="SPRT: pairs of games at most (default 200).")
@click.option("--replace-always", is_flag=True,
              help="Replace the previous version whatever the SPRT says (its verdict is still shown).")
@click.option("--sprt-house", is_flag=True,
              help="SPRT: also compare the two versions through the house bots (random, greedy, search).")
@click.option("--interval", type=click.FloatRange(0.1), default=2.0, show_default=True,
              help="Seconds between SPRT progress lines while waiting.")
@_server_option
@_grpc_errors
def submit_command(path: Path, game: str, name: str, no_wait: bool, server: str, elo0: float | None,
                   elo1: float | None, alpha: float | None, beta: float | None, max_pairs: int | None,
                   replace_always: bool, sprt_house: bool, interval: float) -> None:
    """Upload a bot (a folder with bot.py, or a .tar.gz/.zip of one) as a new version.

    Prints the qualification match id; a new version of a bot that already plays must then
    pass an SPRT against that version before it replaces it: its progress is printed until
    the verdict (unless --no-wait). Ctrl-C stops following, not the test (`arena sprt`)."""
    given = {k: v for k, v in dict(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_pairs=max_pairs).items()
             if v is not None}
    custom = given or replace_always or sprt_house
    sprt = arena_pb2.SprtSettings(**given, replace_always=replace_always, house=sprt_house) if custom else None
    with _client(server, _need_token()) as client:
        reply = client.submit(path, game=game, name=name, wait=not no_wait, sprt=sprt)
    bot, version = reply.bot.bot, reply.version
    click.echo(f"bot {bot.name!r} (id {bot.id}, {bot.game}): version {version.number} uploaded")
    qualification = version.refusal.match_id if version.status == arena_pb2.VERSION_STATUS_REFUSED else ""
    if not qualification and not no_wait and version.status != arena_pb2.VERSION_STATUS_QUALIFYING:
        with _client(server, _need_token()) as client:
            detail = client.version_status(bot.id, version.number)
        if detail.qualification_record_json:
            qualification = json.loads(detail.qualification_record_json).get("match_id", "")
    if qualification:
        click.echo(f"  qualification match {qualification}")
    _echo_version(version)
    if version.status == arena_pb2.VERSION_STATUS_QUALIFYING:
        click.echo("  qualification is running; check later with `arena bots`")
    if version.status == arena_pb2.VERSION_STATUS_TESTING:
        if no_wait:
            click.echo(f"  its SPRT against the playing version is running; follow it with "
                       f"`arena sprt {bot.id} --follow`")
        else:
            _follow_sprt(server, bot.id, version.number, interval)
    if version.status == arena_pb2.VERSION_STATUS_REFUSED:
        raise SystemExit(1)


def sprt_progress(t: arena_pb2.SprtTest) -> str:
    """One progress line of a running SPRT: games, score, LLR against its bounds, Elo ± error."""
    house = f", {t.house_pairs} through house bots" if t.settings.house else ""
    return (f"  SPRT: {t.games} games ({t.pairs} pairs{house}), score {t.score:.3f}, "
            f"LLR {t.llr:+.2f} in [{t.lower:.2f}, {t.upper:.2f}], Elo {t.elo:+.1f} ± {t.elo_error:.1f}")


def sprt_verdict(t: arena_pb2.SprtTest) -> str:
    """The verdict in words, and whether the new version replaced its predecessor."""
    v, old = t.candidate_number, t.baseline_number
    outcome = (f"version {v} replaced version {old}" if t.replaced
               else f"version {old} keeps playing; version {v} is held")
    return f"  SPRT {t.status}: {outcome}" + (f" ({t.message})" if t.message else "")


def _follow_sprt(server: str, bot_id: int, number: int, interval: float) -> None:
    """Poll the version's SPRT and print a line whenever it moves, then the verdict. Ctrl-C
    stops following only: the test runs on the server."""
    import time

    last = ""
    try:
        while True:
            with _client(server) as client:
                detail = client.bot(bot_id)
            test = next((t for t in detail.sprt_tests if t.candidate_number == number), None)
            if test is None:
                click.echo(f"  no SPRT found for version {number}; see `arena sprt {bot_id}`")
                return
            line = sprt_progress(test)
            if line != last:
                terminal.echo(line)
                last = line
            if test.status != "running":
                terminal.echo(sprt_verdict(test))
                return
            time.sleep(interval)
    except KeyboardInterrupt:
        click.echo(f"\n  stopped following; the SPRT goes on on the server: "
                   f"`arena sprt {bot_id} --follow` follows it again")
        raise SystemExit(130) from None


@click.command("bots")
@click.option("--game", default="", help="Only bots of this game.")
@click.option("--all", "all_bots", is_flag=True, help="Every user's bots, not only yours.")
@_server_option
@_grpc_errors
def bots_command(game: str, all_bots: bool, server: str) -> None:
    """List your bots (or everyone's with --all) and the state of their newest version."""
    token = None if all_bots else _need_token()
    with _client(server, token) as client:
        bots = client.bots(game=game, mine=not all_bots)
        if not bots:
            click.echo("no bots")
            return
        for bot in bots:
            state = "active" if bot.active else "inactive"
            terminal.secho(
                f"{bot.id:>5}  {bot.name:<24} {bot.game:<12} owner {bot.owner:<16} {state}, "
                f"playing version {bot.active_version or '-'} of {bot.versions}",
                bold=True,
            )
            detail = client.bot(bot.id)
            if detail.versions:
                _echo_version(detail.versions[0])


@click.command("leaderboard")
@click.argument("game")
@click.option("--limit", default=50, show_default=True, help="Rows to show.")
@_server_option
@_grpc_errors
def leaderboard_command(game: str, limit: int, server: str) -> None:
    """Show GAME's leaderboard (sorted by mu - 3*sigma)."""
    with _client(server) as client:
        board = client.leaderboard(game, limit)
    if not board.rows:
        click.echo(f"no rated bots for {game} yet")
        return
    click.echo(f"{'#':>3}  {'bot':<28} {'owner':<16} {'mu':>7} {'sigma':>6} {'mu-3s':>7} {'games':>6}")
    for row in board.rows:
        terminal.echo(
            f"{row.rank:>3}  {row.bot:<28} {row.owner:<16} {row.mu:>7.2f} {row.sigma:>6.2f} "
            f"{row.conservative:>7.2f} {row.matches:>6}" + _anchor_flag(row.house, row.sigma)
        )


def _anchor_flag(house: bool, sigma: float) -> str:
    """A house bot's or automaton's mark: an anchor of the scale, fixed once calibrated
    (arena.evaluation.ratings.is_anchored; its sigma never changes after that, so the row tells)."""
    from arena.evaluation import ratings

    if not house:
        return ""
    return "  anchor (fixed)" if sigma <= ratings.CALIBRATED_SIGMA else "  anchor (calibrating)"


@click.command("watch")
@click.argument("match_id")
@click.option("--json", "as_json", is_flag=True, help="Print each event as one JSON line.")
@_server_option
@_grpc_errors
def watch_command(match_id: str, as_json: bool, server: str) -> None:
    """Follow a match live; for a finished match, print its decisions and result.

    MATCH_ID may be any unique prefix of the id (the website shows the first 8 characters).
    Decisions are numbered as on the website's replay (from 1); while the match runs only
    public information is shown."""
    printer = _Printer()
    with _client(server) as client:
        for event in client.watch(match_id):
            if event.kind == arena_pb2.MATCH_EVENT_KIND_LIVE:
                data = json.loads(event.event_json)
                if as_json:
                    click.echo(json.dumps(data))
                else:
                    printer.live(data)
            elif event.kind == arena_pb2.MATCH_EVENT_KIND_RECORD:
                record = json.loads(event.record_json) if event.record_json else {}
                if as_json:
                    click.echo(json.dumps({"record": record}))
                else:
                    if not printer.names:  # finished before we came: tell it from the record
                        printer.from_record(record)
                    _echo_result(record)


class _Printer:
    """Prints live events with bot names, option labels and comments."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def seat(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return f"{self.names[seat]} (seat {seat})"
        return f"seat {seat}"

    def live(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
        if kind == "start":
            self.names = [s.get("name", f"seat {i}") for i, s in enumerate(data.get("seats", []))]
            terminal.secho(f"match {data.get('match_id')}: {data.get('game')} ({data.get('variant')}) — "
                           f"{', '.join(self.names)}", bold=True)
            for line in data.get("opening_events") or []:
                terminal.echo(f"       {line}")
        elif kind == "decision":
            # A choice that names hidden information is streamed without its id or label.
            private = bool(data.get("private_choice"))
            choice = "(a hidden choice)" if private else data.get("label") or data.get("option", "")
            self.decision(data.get("n"), data.get("seat"), choice,
                          "" if private else data.get("comment") or "",
                          bool(data.get("forced")), data.get("events") or [])
        elif kind == "forfeit":
            terminal.secho(f"{self.seat(data.get('seat'))} forfeits ({data.get('reason')}): "
                           f"{data.get('message')}", fg="red")

    def decision(self, n: Any, seat: Any, choice: str, comment: str, forced: bool,
                 events: list[str]) -> None:
        number = n + 1 if isinstance(n, int) else "?"  # the website's replay counts from 1
        forced_note = "  (played for a forfeited seat)" if forced else ""
        terminal.echo(f"[{number:>4}] {self.seat(seat)}: {choice}{forced_note}")
        if comment:
            terminal.echo(f"         “{comment}”")
        for line in events:
            terminal.echo(f"         {line}")

    def from_record(self, record: dict[str, Any]) -> None:
        """A finished match: every decision with its label (the engine, when installed here,
        names the options; otherwise their ids are shown)."""
        self.names = [s.get("name", f"seat {i}") if isinstance(s, dict) else str(s)
                      for i, s in enumerate(record.get("seats", []))]
        if not self.names:
            return
        terminal.secho(f"match {record.get('match_id')}: {record.get('game')} ({record.get('variant')}) — "
                       f"{', '.join(self.names)}", bold=True)
        for line in record.get("opening_events") or []:
            terminal.echo(f"       {line}")
        labels = _record_labels(record)
        for i, d in enumerate(record.get("decisions") or []):
            choice = labels[i] if i < len(labels) and labels[i] else d.get("option", "")
            self.decision(d.get("n", i), d.get("seat"), choice, d.get("comment") or "",
                          bool(d.get("forced")), d.get("events") or [])


def _record_labels(record: dict[str, Any]) -> list[str | None]:
    """Each decision's option label, by replaying the record with the engine (best effort)."""
    labels: list[str | None] = []
    try:
        from referee import registry

        state = registry.new_game(record["game"], int(record["players"]), int(record["seed"]),
                                  record.get("variant"))
        for d in record.get("decisions") or []:
            labels.append(next((o.label for o in state.legal_options() if o.id == d["option"]), None))
            state.apply(d["option"])
    except Exception:  # noqa: BLE001 - an unknown game or an old record: the ids will do
        pass
    return labels


def _echo_result(record: dict[str, Any]) -> None:
    result = record.get("result") or {}
    names = [s.get("name", f"seat {i}") if isinstance(s, dict) else str(s) for i, s in enumerate(record.get("seats", []))]
    click.secho("match over", bold=True)
    for i, (score, rank) in enumerate(zip(result.get("scores", []), result.get("ranks", []), strict=False)):
        name = names[i] if i < len(names) else f"seat {i}"
        terminal.echo(f"  {rank}. {name}: {score:g}")
    for forfeit in record.get("forfeits") or []:
        terminal.secho(f"  forfeit: {forfeit}", fg="red")


@click.command("sprt")
@click.argument("bot_id", type=int)
@click.option("--follow", is_flag=True, help="Print the running test's progress until it ends.")
@click.option("--interval", default=5.0, show_default=True, help="Seconds between updates with --follow.")
@_server_option
@_grpc_errors
def sprt_command(bot_id: int, follow: bool, interval: float, server: str) -> None:
    """Show the SPRT history of bot BOT_ID: each new version against the one it would replace."""
    import time

    with _client(server) as client:
        detail = client.bot(bot_id)
        if not detail.sprt_tests:
            click.echo(f"bot {detail.bot.name!r} has played no SPRT yet (its first version needs none)")
            return
        for test in detail.sprt_tests:
            terminal.echo(sprt_line(test))
        last = ""
        while follow and detail.sprt_tests[0].status == "running":
            time.sleep(interval)
            detail = client.bot(bot_id)
            line = sprt_line(detail.sprt_tests[0])
            if line != last:
                terminal.echo(line)
                last = line


def register(group: click.Group) -> None:
    for command in (register_command, submit_command, bots_command, leaderboard_command, watch_command, sprt_command):
        group.add_command(command)
