"""``arena bench …``: the project's benchmarks, each printing figures measured in one run.

Benchmarks live in :mod:`benchmarks` and return plain dicts; this module only chooses one and
prints its result, so the same numbers can be produced from tests or scripts. It belongs to the
benchmarks, a layer above the platform: the CLI attaches it by name (``arena.cli``'s
``COMMAND_MODULES``, as it does ``web.command``), and a build without the benchmarks has no
``arena bench``.
"""

from __future__ import annotations

import importlib
import json

import click


def _print(result: dict) -> None:
    width = max(len(k) for k in result) if result else 0
    for key, value in result.items():
        if isinstance(value, dict | list):
            value = json.dumps(value)
        click.echo(f"{key:<{width}}  {value}")


def _run(module: str, **kwargs: object) -> None:
    try:
        mod = importlib.import_module(f"benchmarks.{module}")
    except ModuleNotFoundError as exc:
        raise click.ClickException(f"benchmark {module} is not available: {exc}") from None
    _print(mod.bench(**kwargs))


@click.group("bench")
def bench_group() -> None:
    """Measure the platform (figures from one run; compare ratios, not absolute times)."""


@bench_group.command("engine")
@click.argument("game")
@click.option("--seconds", default=5.0, show_default=True, help="how long to play random games")
@click.option("--players", type=int, default=None, help="one player count (default: every configuration)")
@click.option("--variant", default=None, help="one variant (with --players)")
def bench_engine(game: str, seconds: float, players: int | None, variant: str | None) -> None:
    """Random-playout decisions/s, games/s, clone and determinise cost for GAME on one core.

    Per CPU second of the process, beside a reference engine measured in the same run.
    """
    from benchmarks.bench_engine import bench, bench_all

    if players is None and variant is None:
        result = bench_all(game, seconds=seconds)
        rows = result.pop("rows")
        result.pop("slowest")
        _print(result)
        click.echo(f"\n{'players':>7} {'variant':<22} {'dec/CPU s':>11} {'games/s':>8} "
                   f"{'dec/game':>8} {'clone us':>8} {'determinise us':>14}")
        for r in rows:
            click.echo(f"{r['players']:>7} {r['variant']:<22} {r['decisions_per_s']:>11} "
                       f"{r['games_per_s']:>8} {r['mean_decisions_per_game']:>8} "
                       f"{r['clone_us']:>8} {r['determinise_us']:>14}")
        return
    _print(bench(game, seconds=seconds, players=players, variant=variant))


@bench_group.command("learned")
@click.option("--game", default="solenia", show_default=True, type=click.Choice(["solenia", "black_angel"]))
@click.option("--seeds", default=200, show_default=True, type=click.IntRange(1), help="games, seeds 0..N-1")
@click.option("--referee-games", default=0, show_default=True, type=click.IntRange(0),
              help="also play this many real referee matches (bot processes over gRPC)")
@click.option("--weights", default=None, help="another weights file (default: the sample bot's)")
def bench_learned(game: str, seeds: int, referee_games: int, weights: str | None) -> None:
    """The example learned bot (sample_bots/learned_GAME) against the random bot.

    Two players, seats alternating, one game per seed: its win share with a 95% interval, beside
    a uniformly random policy on the same seeds. Needs the envs extra (numpy).
    """
    try:
        from benchmarks.bench_learned import bench
    except ImportError as exc:
        raise click.ClickException(str(exc).splitlines()[0]) from None
    try:
        _print(bench(game, seeds, referee_games, weights))
    except (FileNotFoundError, ValueError) as exc:  # no weights, or weights of another encoding
        raise click.ClickException(str(exc)) from None


@bench_group.command("referee")
@click.option("--decisions", default=2000, show_default=True)
def bench_referee(decisions: int) -> None:
    """Referee overhead per decision vs a bare gRPC call; sandboxed bot start-up time."""
    from referee.sandbox import bwrap_path

    if bwrap_path() is None:  # the bare call and the start-up are measured on sandboxed bots
        raise click.ClickException(
            "bubblewrap (bwrap) is not installed: the referee benchmark measures sandboxed bots "
            "(apt-get install bubblewrap). The dial-in lines alone: python -m benchmarks.bench_dialin")
    _run("bench_referee", decisions=decisions)


@bench_group.command("starve")
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(1),
              help="matches per opponent, alternating")
@click.option("--decision-ms", default=400, show_default=True, type=click.IntRange(100),
              help="the decision time (the ISMCTS bot searches for half of it, less 40 ms)")
@click.option("--mode", "modes", multiple=True, type=click.Choice(["root", "unprivileged"]),
              help="referee mode (default: both; unprivileged needs root to make its user, "
                   "or is this process's own mode when it is not root)")
def bench_starve(rounds: int, decision_ms: int, modes: tuple[str, ...]) -> None:
    """ISMCTS iterations per decision against a calm bot vs against one that spins all the time."""
    from referee.sandbox import bwrap_path

    if bwrap_path() is None:
        raise click.ClickException("bubblewrap (bwrap) is not installed: this benchmark plays "
                                   "sandboxed bots (apt-get install bubblewrap)")
    from benchmarks.as_user import AsUserError
    from benchmarks.bench_starve import bench

    try:
        _print(bench(rounds=rounds, decision_ms=decision_ms, modes=modes or ("root", "unprivileged")))
    except (AsUserError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None


@bench_group.command("tournament")
def bench_tournament() -> None:
    """Matches per minute on one and two workers, rating updates/s, scheduler time."""
    _run("bench_tournament")


@bench_group.command("swiss-pairing")
@click.option("--seeds", default=3, show_default=True, help="tournaments per field size")
def bench_swiss_pairing(seeds: int) -> None:
    """Two-seat Swiss: cross-group pairs against the optimum (N = 37, 97, 200; 8 rounds), CPU a round,
    and whether issue 39's goals hold (under 1 s a round at 300 bots; within 10 % of the optimum)."""
    _run("bench_swiss_pairing", seeds=seeds)


@bench_group.command("schedule")
@click.option("--seeds", default=5, show_default=True, help="seeds per shape")
def bench_schedule(seeds: int) -> None:
    """Scheduler CPU time (16 bots, 4 seats) and pair balance over every shape up to 16 bots."""
    _run("bench_schedule", seeds=seeds)


def _database_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not (value[:1].isalpha() and value.replace("_", "").isalnum()):
        raise click.BadParameter("letters, digits and _, starting with a letter")
    return value


_KEEP_HELP = ("a PostgreSQL database the run keeps: the first run loads the website dataset "
              "into it, later runs measure it again in minutes")


_RECORDS_HELP = ("how the matches' records are stored: toy (the toy game, JSON), or real games' "
                 "records (Black Angel, Solenia) as json or compact (issue 40); PostgreSQL only for "
                 "json and compact")
_RECORDS = click.Choice(["toy", "json", "compact"])


@bench_group.command("api")
@click.option("--keep", metavar="NAME", default=None, callback=_database_name, help=_KEEP_HELP)
@click.option("--records", type=_RECORDS, default="toy", show_default=True,
              help=_RECORDS_HELP + "; with --keep, GetMatch is measured too")
def bench_api(keep: str | None, records: str) -> None:
    """GetLeaderboard and ListMatches (with --keep, GetMatch) throughput and latency vs a bare gRPC call."""
    if records != "toy" and keep is None:
        raise click.BadParameter("json and compact records are measured on a kept database (--keep NAME)",
                                 param_hint="--records")
    _run("bench_api", keep=keep, records=records)


@bench_group.command("streams")
@click.option("--streams", default=200, show_default=True, help="anonymous WatchMatch streams held open")
def bench_streams(streams: int) -> None:
    """Unary p50/p99 while many WatchMatch streams are open; one event's fan-out to all."""
    _run("bench_streams", streams=streams)


@bench_group.command("web")
@click.option("--matches", default=1_000_000, show_default=True, type=click.IntRange(1))
@click.option("--bots", default=10_000, show_default=True, type=click.IntRange(8))
@click.option("--samples", default=200, show_default=True, type=click.IntRange(1), help="requests per page")
@click.option("--database", type=click.Choice(["postgres", "sqlite"]), default="postgres", show_default=True,
              help="postgres: a throw-away database, over waitress; sqlite: a reusable file, in-process")
@click.option("--keep", metavar="NAME", default=None, callback=_database_name, help=_KEEP_HELP)
@click.option("--records", type=_RECORDS, default="toy", show_default=True, help=_RECORDS_HELP)
def bench_web(matches: int, bots: int, samples: int, database: str, keep: str | None, records: str) -> None:
    """Every page's p50/p95 (and its /api/ twin) vs a trivial Flask route, at scale."""
    if records != "toy" and database == "sqlite":
        raise click.BadParameter("json and compact records need PostgreSQL", param_hint="--records")
    _run("bench_web", matches=matches, bots=bots, samples=samples, database=database, keep=keep,
         records=records)


@bench_group.command("balance")
@click.argument("game", type=click.Choice(["black_angel"]))
@click.option("--games", default=200, show_default=True, help="greedy self-play games per configuration")
@click.option("--advanced", is_flag=True, default=False, help="the advanced-rules variants instead")
def bench_balance(game: str, games: int, advanced: bool) -> None:
    """How greedy self-play games of GAME end: by Spes or the Ravager deck, rounds, missions."""
    from benchmarks.balance_black_angel import bench, markdown

    click.echo(markdown(bench(games, advanced=advanced)["rows"]))


@bench_group.command("search")
@click.option("--game", "games", multiple=True, help="a game (repeatable; default: Black Angel, Orbital and Solenia)")
@click.option("--seeds", default=100, show_default=True, help="games against the greedy bot (0: speed only)")
@click.option("--ms", type=float, default=None,
              help="search time per decision (default: the bot's share of the game's decision time)")
@click.option("--iterations", type=int, default=None, help="a fixed number of iterations per decision instead")
@click.option("--cpu", is_flag=True,
              help="count the search time in CPU seconds of the benchmark's process: the budget of a "
                   "dedicated core, so a loaded machine does not weaken the bot")
def bench_search(games: tuple[str, ...], seeds: int, ms: float | None, iterations: int | None, cpu: bool) -> None:
    """ISMCTS iterations per CPU second per game, and its win share against the greedy bots."""
    from benchmarks.bench_search import GREEDY

    games = games or tuple(GREEDY)
    unknown = [g for g in games if g not in GREEDY]
    if unknown:
        raise click.ClickException(f"no greedy bot to play against for {', '.join(unknown)}; "
                                   f"choose from {', '.join(GREEDY)}")
    if seeds < 0 or (ms is not None and ms <= 0) or (iterations is not None and iterations <= 0):
        raise click.ClickException("--seeds must be 0 or more, --ms and --iterations above 0")
    _run("bench_search", games=games, seeds=seeds, ms=ms, iterations=iterations, cpu=cpu,
         progress=lambda line: click.echo(line, err=True))


@bench_group.command("ladder")
@click.option("--bots", "n_bots", default=10_000, show_default=True, type=click.IntRange(2),
              help="active bots in the ladder's game")
@click.option("--ticks", default=5, show_default=True, type=click.IntRange(1), help="ticks measured")
@click.option("--queue", default=20, show_default=True, type=click.IntRange(1),
              help="matches each tick queues (the ladder's queue target)")
@click.option("--database", default=None, metavar="URL",
              help="an empty database to fill (default: a throw-away SQLite file)")
def bench_ladder(n_bots: int, ticks: int, queue: int, database: str | None) -> None:
    """Matchmaking cost per tick and per match chosen, and memory, with N active bots.

    The real path (arena.competition.ladder.tick on a database holding N rated bots), per pairing rule.
    """
    _run("bench_ladder", bots=n_bots, ticks=ticks, queue=queue, database=database,
         progress=lambda line: click.echo(line, err=True))


@bench_group.command("ladder-quality")
@click.option("--bots", "sizes", multiple=True, type=click.IntRange(10), default=(100, 1000),
              show_default=True, help="field size (repeatable)")
@click.option("--seeds", default=3, show_default=True, type=click.IntRange(1), help="runs per rule and size")
@click.option("--queue", default=8, show_default=True, type=click.IntRange(1), help="matches queued per tick")
@click.option("--max-per-bot", default=150, show_default=True, type=click.IntRange(1),
              help="give up after this many matches per bot")
@click.option("--target", default=0.9, show_default=True, type=click.FloatRange(0, 1, max_open=True),
              help="Kendall tau to reach")
@click.option("--rule", "rules", multiple=True, help="one rule (repeatable; default: all)")
def bench_ladder_quality(sizes: tuple[int, ...], seeds: int, queue: int, max_per_bot: int, target: float,
                         rules: tuple[str, ...]) -> None:
    """Matches per bot each pairing rule needs to rank synthetic bots (Kendall tau vs true strength)."""
    from benchmarks.bench_ladder_quality import RULES, bench

    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise click.ClickException(f"unknown rule(s) {', '.join(unknown)}; choose from {', '.join(RULES)}")
    result = bench(bots=sizes, seeds=seeds, queue=queue, max_per_bot=max_per_bot, target=target,
                   rules=rules or tuple(RULES), progress=lambda line: click.echo(line, err=True))
    rows = result.pop("rows")
    _print(result)
    click.echo(f"\n{'bots':>5} {'rule':<16} {'matches/bot':>11} {'final tau':>9}  runs")
    for r in rows:
        needed = "never" if r["matches_per_bot"] is None else r["matches_per_bot"]
        click.echo(f"{r['bots']:>5} {r['rule']:<16} {needed!s:>11} {r['final_tau']:>9}  {r['runs']}")


@bench_group.command("shortcuts-grpc")
@click.option("--decisions", default=1200, show_default=True, help="decisions (and dial-in calls) per setting")
@click.option("--rounds", default=4, show_default=True, type=click.IntRange(2), help="alternating rounds")
def bench_shortcuts_grpc(decisions: int, rounds: int) -> None:
    """The gRPC shortcuts' figures with all shortcuts on and all off, in one run (docs/shortcuts.md).

    Referee overhead (sandboxed bots, left out without bubblewrap), a bare call to a remote bot
    and a dial-in call, each per setting, and each shortcut's gain.
    """
    import arena.sdk.bot_server  # noqa: F401 - registers cygrpc_server
    import referee.direct_stream  # noqa: F401 - registers cygrpc_stream
    from referee.sandbox import bwrap_path

    _run("bench_shortcuts", decisions=decisions, rounds=rounds, sandboxed=bwrap_path() is not None)


@bench_group.command("envs")
@click.option("--game", "games", multiple=True, type=click.Choice(["black_angel", "solenia", "orbital"]),
              help="a game (repeatable; default: all three)")
@click.option("--seconds", default=3.0, show_default=True, type=click.FloatRange(0.1),
              help="CPU seconds of random games per loop")
@click.option("--toolkit", "toolkits", multiple=True, type=click.Choice(["pettingzoo", "gymnasium", "openspiel"]),
              help="a wrapper (repeatable; default: all three)")
@click.option("--vector/--no-vector", default=True, show_default=True,
              help="also AsyncVectorEnv (2 worker processes) and the batched vector env (2 worker "
                   "processes of --batch sub-envs) against one env, wall-clock steps/s")
@click.option("--batch", default=8, show_default=True, type=click.IntRange(1),
              help="sub-envs per worker process of the batched vector env")
@click.option("--opponents", default="random", show_default=True, type=click.Choice(["random", "greedy"]),
              help="who plays the other seat in the vector envs' sub-envs (greedy: the environments' "
                   "default, a costlier step)")
def bench_envs(games: tuple[str, ...], seconds: float, toolkits: tuple[str, ...], vector: bool,
               batch: int, opponents: str) -> None:
    """Toolkit wrappers' steps per CPU second beside the bare engine's decisions, same run.

    Random 2-player games; the ratios to read are pettingzoo / engine and gymnasium+masks /
    engine (vector observations), and pettingzoo-mask / engine; then AsyncVectorEnv with two
    workers / one env and the batched vector env (2 workers x --batch sub-envs) / one env (wall
    clock: other load on the machine lowers it; CPU µs per step beside). Needs the envs extra.
    """
    try:
        from benchmarks.bench_envs import GAMES, bench
    except ImportError as exc:
        raise click.ClickException(str(exc).splitlines()[0]) from None
    try:
        result = bench(games or GAMES, seconds, toolkits or ("pettingzoo", "gymnasium", "openspiel"),
                       progress=lambda line: click.echo(line, err=True), vector=vector,
                       per_worker=batch, opponents=opponents)
    except ImportError as exc:  # arena.envs.MissingExtra: one line naming the extra
        raise click.ClickException(str(exc).splitlines()[0]) from None
    for game, row in result.items():
        click.echo(f"\n{game}")
        _print({k: v for k, v in row.items() if k != "game"})


@bench_group.command("ismcts-vs-openspiel")
@click.option("--game", "games", multiple=True, type=click.Choice(["black_angel", "solenia", "orbital"]),
              help="a game (repeatable; default: all three)")
@click.option("--games", "count", default=50, show_default=True, type=click.IntRange(1), help="games per game")
@click.option("--cpu-ms", default=50.0, show_default=True, type=click.FloatRange(1),
              help="CPU milliseconds of this process per decision, each bot")
@click.option("--first-seed", default=0, show_default=True, type=click.IntRange(0, 65535))
def bench_ismcts_vs_openspiel(games: tuple[str, ...], count: int, cpu_ms: float, first_seed: int) -> None:
    """sample_bots/ismcts against OpenSpiel's MCTS over determinised states, 2 players, equal CPU.

    Seats alternate; prints our win share (a tie counts half) with its Wilson 95% interval.
    Needs the envs extra (open_spiel).
    """
    try:
        from benchmarks.bench_ismcts_openspiel import bench
    except ImportError as exc:
        raise click.ClickException(str(exc).splitlines()[0]) from None
    result = bench(games or ("black_angel", "solenia", "orbital"), count, cpu_ms / 1000.0, first_seed,
                   progress=lambda line: click.echo(line, err=True))
    _print(result)


@bench_group.command("dataset")
@click.option("--game", default="solenia", show_default=True)
@click.option("--matches", type=click.IntRange(1), default=100, show_default=True,
              help="finished matches of random play put in a fresh database first (not timed)")
@click.option("--players", type=click.IntRange(1, 5), default=2, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["parquet", "jsonl"]), default="parquet", show_default=True)
@click.option("--whole-observation", is_flag=True)
@click.option("--no-vector", is_flag=True)
def bench_dataset(game: str, matches: int, players: int, fmt: str, whole_observation: bool, no_vector: bool) -> None:
    """Decisions per CPU second of `arena export dataset` on one core (docs/datasets.md)."""
    _run("bench_dataset", game=game, matches=matches, players=players, fmt=fmt, whole=whole_observation,
         vector=not no_vector)


@bench_group.command("records")
@click.option("--game", "games", multiple=True, help="one game (repeatable) [default: every game]")
@click.option("--matches", type=click.IntRange(1), default=30, show_default=True,
              help="matches of random legal play per game")
@click.option("--players", type=click.IntRange(1, 5), default=2, show_default=True)
@click.option("--storage", is_flag=True,
              help="also load the matches into two SQLite databases (JSON, compact): sizes, load times, "
                   "cost per million matches")
@click.option("--price-gb-month", type=click.FloatRange(0, min_open=True), default=0.10, show_default=True,
              help="storage price assumed for the cost per million matches (USD per GB-month)")
@click.option("--postgres", is_flag=True,
              help="also load them into a throw-away PostgreSQL database (ARENA_BENCH_PG; TOAST-compressed JSON)")
def bench_records(games: tuple[str, ...], matches: int, players: int, storage: bool,
                  price_gb_month: float, postgres: bool) -> None:
    """Bytes of a match record as today's JSON (raw, gzipped) beside its compact stored form,
    the encode, regenerate and cached-read times beside the engine's time for the match, and
    a byte-for-byte check of every regenerated record (docs/records-size.md)."""
    from referee import registry

    for g in games:
        if g not in registry.game_names():
            raise click.UsageError(f"--game {g[:40]!r}: unknown; games: {', '.join(registry.game_names())}")
    games = games or tuple(registry.game_names())
    for g in games:
        if players not in registry.get_spec(g).player_counts:
            raise click.UsageError(f"--players {players}: {g} is not played by {players}")
    _run("bench_records", games=games, matches=matches, players=players,
         storage=storage, price_gb_month=price_gb_month, postgres=postgres)


@bench_group.command("record-reads")
@click.option("--game", "games", multiple=True, help="one game (repeatable) [default: black_angel, solenia]")
@click.option("--matches", type=click.IntRange(1), default=4, show_default=True,
              help="matches of random legal play per game (each stored as JSON and compactly)")
@click.option("--seconds", type=click.FloatRange(0), default=0.4, show_default=True,
              help="time budget of each cell of the table (at least 5 reads each)")
def bench_record_reads(games: tuple[str, ...], matches: int, seconds: float) -> None:
    """CPU ms p50/p95 of the match page, a replay step, the API's replay and GetMatch, with
    records stored as JSON beside compactly: cold (never read by this process), warm (its
    caches) and worker-warmed (the shared Redis cache), in one run (docs/records-size.md)."""
    from benchmarks.bench_record_reads import bench, table_lines
    from referee import registry

    for g in games:
        if g not in registry.game_names():
            raise click.UsageError(f"--game {g[:40]!r}: unknown; games: {', '.join(registry.game_names())}")
    result = bench(games=games or ("black_angel", "solenia"), matches=matches, seconds=seconds)
    table = table_lines(result)
    result.pop("rows")
    _print(result)
    click.echo("")
    for line in table:
        click.echo(line)


def register(group: click.Group) -> None:
    group.add_command(bench_group)
