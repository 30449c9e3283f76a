"""Website latency with a big database: 10,000 bots and 1,000,000 matches.

On PostgreSQL (a database created and dropped by the run, generated inside the server by
:mod:`benchmarks.bench_web_pg` with a progress line per step) and over real HTTP through
waitress, the production server ``arena web`` runs, with a keep-alive client in this process.
``database="sqlite"`` keeps the older form: a SQLite file filled from Python and reused between
runs (``$ARENA_BENCH_DIR``, default the temp folder), through the WSGI test client (no sockets).

Measures p50/p95 of every page — home, each game's leaderboard, the match history (first page,
a deep keyset page, a bot's matches, a game, forfeits, a bot's wins), the match page and a
replay step (a different, never-cached match every request), the bot page, the tournament list
and pages (a finished and the running one), the live page and its board fragment, the /play
form (bare, and with a game chosen: every active bot of the game listed as an opponent) — and
their ``/api/`` twins, next to a trivial Flask route in the same run and process, so the figures
can be read as "n times a do-nothing request" on any machine. Signed in (each visitor a client
of its own with its session cookie, signed in once through the form and POST /signin with the
CSRF token, as a browser does): the bot page as another author (with the Challenge form listing
their bots of the game) and as the owner, and the owner's /me, /me/bots/<id> and
/me/bots/<id>/matches/<match> for their bot with the most matches. The dataset has an account
per bot owner (known tokens: :func:`benchmarks.bench_web_pg.bench_token`) and a few thousand
challenges, so a bot page's Challenges table is read at scale (``bot_page_with_challenges``:
bots with a full table). Beside wall-clock time it reports
the CPU the process spent per request (server threads and client; PostgreSQL's own CPU is
not in it), which a loaded machine inflates far less. Matches are real games of the toy engine
(tests/toy_game.py, registered here): 60 distinct seeded playouts a game, each stored under
many match ids, so every match page replays a real record.

``records="json"`` or ``"compact"`` (PostgreSQL only) plays real games instead — Black Angel and
Solenia (:data:`REAL_GAMES`), 60 random-play records a game at 2-4 seats
(:mod:`benchmarks.random_records`) — stored as JSON or compactly (issue 40), and also measures
the match page, a replay step and the API's match with a warm cache of regenerated records
(``*_warm``: a few matches, read once before): the cold figures are of a match never read before
(the API's match reads a compact record's header, never the cache: its two figures are alike).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

BOTS = 10_000
MATCHES = 1_000_000
TOURNAMENTS = 20
SAMPLES = 200
SCHEMA_TAG = "v4"
GAMES = ("toy", "toy_dice")
#: The games of ``records="json"`` / ``"compact"``: real engines, which have an engine version.
REAL_GAMES = ("black_angel", "solenia")
#: How finished matches store their record: the toy game's JSON (the benchmark's original
#: dataset), or real games' records as JSON or compactly.
RECORD_FORMS = ("toy", "json", "compact")
#: The matches the ``*_warm`` pages read (each read once before, so in every cache).
WARM_MATCHES = 20
#: The author (not the owner of the bots whose pages it opens) signed in for the Challenge form.
AUTHOR = "owner2"


def _register_toy() -> None:
    root = Path(__file__).resolve().parents[1]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from referee import registry
    from referee.engine import GameSpec
    from tests.toy_game import ToyState

    class ToyDice(ToyState):
        """The toy game under a second name, so the site has two games of 500 bots each."""

        spec = GameSpec(
            name="toy_dice",
            title="Toy High Card (dice)",
            configurations=ToyState.spec.configurations,
            default_variant="dice",
            time_control=ToyState.spec.time_control,
        )
        __slots__ = ()

    registry.register(ToyState)
    registry.register(ToyDice)


def _records(game: str, variant: str, count: int) -> list[dict[str, Any]]:
    """Real playouts of the toy engine as match records (random but seeded choices)."""
    from referee import registry
    from referee.record import Decision, MatchRecord, SeatTotals
    from referee.rng import Rng

    out = []
    for i in range(count):
        players = 2 + i % 3
        seed = 1000 + i
        state = registry.new_game(game, players, seed, variant)
        rng = Rng(seed)
        rec = MatchRecord(
            match_id="",
            game=game,
            variant=variant,
            players=players,
            seed=seed,
            time_control={"decision_ms": 2000, "bank_ms": 5000},
            seats=[{"name": f"seat {s}", "kind": "hosted"} for s in range(players)],
        )
        totals = [SeatTotals(seat=s) for s in range(players)]
        n = 0
        while not state.is_over():
            seat = state.to_move()
            opts = state.legal_options()
            choice = opts[rng.below(len(opts))].id
            events = state.apply(choice)
            ms = 5.0 + rng.below(400) / 10
            rec.decisions.append(Decision(n, seat, choice, ms, None, f"plan {n}", False, events))
            totals[seat].decisions += 1
            totals[seat].time_used_ms += ms
            n += 1
        rec.result = state.result().to_json()
        rec.totals = totals
        out.append(rec.to_dict())
    return out


def _real_records(game: str, variant: str | None, count: int) -> list[dict[str, Any]]:
    """Records of a real game by random legal play (the engine itself, seeded), 2-4 seats at
    each player count's default variant (``variant`` is ignored: it differs by player count)."""
    from benchmarks.random_records import played_record

    return [played_record(game, 1000 + i, players=2 + i % 3).to_dict() for i in range(count)]


def _dataset(records: str) -> tuple[tuple[str, str], Callable[..., list[dict[str, Any]]], tuple[str, str]]:
    """``(games, template maker, variants)`` of the record form ``records``."""
    if records not in RECORD_FORMS:
        raise ValueError(f"records: one of {RECORD_FORMS}, not {records!r}")
    if records == "toy":
        return GAMES, _records, ("base", "dice")
    from referee import registry

    variants = tuple(registry.get_spec(g).configurations[0][1] for g in REAL_GAMES)
    return REAL_GAMES, _real_records, (variants[0], variants[1])


def _generate(url: str, n_bots: int, n_matches: int) -> None:
    from sqlalchemy import insert

    from arena.db import (
        Bot,
        BotVersion,
        Challenge,
        Rating,
        RatingLock,
        Tournament,
        get_engine,
    )
    from arena.db.accounts import User
    from arena.sdk.auth import hash_token
    from benchmarks.bench_web_pg import FOCUS_OWNER, bench_token

    rnd = random.Random(7)
    engine = get_engine(url)
    t0 = datetime(2026, 1, 1)
    bots, versions = [], []
    game_of: dict[int, str] = {}
    for b in range(1, n_bots + 1):
        game = GAMES[b % 2]
        game_of[b] = game
        bots.append(
            {
                "id": b,
                "owner": f"owner{b % 97}",
                "name": f"bot-{b:04d}",
                "game": game,
                "active": b % 10 != 0,
                "created_at": t0,
            }
        )
        versions.append(
            {
                "id": b,
                "bot_id": b,
                "number": 1,
                "kind": "hosted",
                "source": f"/bots/{b}",
                "digest": f"{b:064x}",
                "initial_mu": 25.0,
                "initial_sigma": 25 / 3,
                "created_at": t0,
            }
        )
    mu = {b: rnd.gauss(25, 4) for b in bots_ids(n_bots)}
    sigma = {b: 25 / 3 for b in bots_ids(n_bots)}
    played = {b: 0 for b in bots_ids(n_bots)}
    by_game = {g: [b for b in bots_ids(n_bots) if game_of[b] == g] for g in GAMES}
    templates = {g: _records(g, "dice" if g == "toy_dice" else "base", 60) for g in GAMES}
    tournaments = [
        {
            "id": t,
            "name": f"Cup {t}",
            "game": GAMES[t % 2],
            "variant": "base",
            "players": 3,
            "rounds": 1,
            "seed": t,
            "status": "done" if t > 2 else "running",
            "matches_total": 500,
            "matches_done": 500 if t > 2 else 250,
            "created_at": t0,
        }
        for t in range(1, TOURNAMENTS + 1)
    ]
    seq = {g: 0 for g in GAMES}
    matches, seats, history = [], [], []
    owners = sorted({b["owner"] for b in bots})
    user_id = {name: i for i, name in enumerate(owners, start=1)}
    challenges = []
    with engine.begin() as conn:
        conn.execute(insert(Bot), bots)
        conn.execute(insert(BotVersion), versions)
        conn.execute(insert(Tournament), tournaments)
        conn.execute(
            insert(User),
            [
                {
                    "id": i,
                    "name": name,
                    "role": "user",
                    "created_at": t0,
                    "token_hash": hash_token(bench_token(name)),
                }
                for name, i in user_id.items()
            ],
        )
    for i in range(n_matches):
        game = GAMES[i % 2]
        rec = dict(templates[game][(i // 2) % 60])
        players = rec["players"]
        ids = rnd.sample(by_game[game], players)
        seq[game] += 1
        mid = uuid.UUID(int=rnd.getrandbits(128)).hex
        at = t0 + timedelta(seconds=30 * i)
        rec["match_id"] = mid
        tid = 1 + i % TOURNAMENTS if i % 5 == 0 else None
        matches.append(
            {
                "id": mid,
                "game": game,
                "variant": rec["variant"],
                "players": players,
                "seed": rec["seed"],
                "kind": "tournament" if tid else "ladder",
                "tournament_id": tid,
                "round": 0,
                "table": i,
                "status": "done",
                "created_at": at,
                "started_at": at,
                "finished_at": at + timedelta(seconds=5),
                "result": rec["result"],
                "forfeits": [],
                "record": rec,
                "rating_seq": seq[game],
                "attempts": 1,
                "sandbox": True,
            }
        )
        # challenges as bench_web_pg.add_accounts makes them: two-player ladder matches
        owner = bots[ids[0] - 1]["owner"]
        if players == 2 and tid is None and (mid[:2] < "04" or owner == FOCUS_OWNER):
            challenges.append(
                {
                    "user_id": user_id[owner],
                    "challenger_bot_id": ids[0],
                    "opponent_bot_id": ids[1],
                    "match_id": mid,
                    "rated": True,
                    "created_at": at - timedelta(seconds=1),
                }
            )
        # about one match in a hundred has a forfeit (the last seat timed out)
        forfeit_seat = players - 1 if rnd.random() < 0.01 else None
        for s, b in enumerate(ids):
            before = (mu[b], sigma[b])
            rank = rec["result"]["ranks"][s]
            mu[b] += (players / 2 - rank) * 0.3 * sigma[b] / 8
            sigma[b] = max(0.9, sigma[b] * 0.97)
            played[b] += 1
            seats.append(
                {
                    "match_id": mid,
                    "seat": s,
                    "bot_version_id": b,
                    "rank": rank,
                    "score": float(rec["result"]["scores"][s]),
                    "forfeit": "timeout" if s == forfeit_seat else None,
                    "mu_before": before[0],
                    "sigma_before": before[1],
                    "mu_after": mu[b],
                    "sigma_after": sigma[b],
                }
            )
            history.append(
                {
                    "bot_version_id": b,
                    "game": game,
                    "match_id": mid,
                    "seq": seq[game],
                    "mu": mu[b],
                    "sigma": sigma[b],
                    "created_at": at,
                }
            )
        if len(matches) >= 5_000:
            _flush(engine, matches, seats, history)
    _flush(engine, matches, seats, history)
    now = t0 + timedelta(seconds=30 * n_matches)
    with engine.begin() as conn:
        conn.execute(
            insert(Rating),
            [
                {
                    "bot_version_id": b,
                    "game": game_of[b],
                    "mu": mu[b],
                    "sigma": sigma[b],
                    "provisional": played[b] < 10,
                    "games_played": played[b],
                    "distinct_opponents": 0,
                    "opponent_counts": {},
                    "seat_counts": {},
                    "player_counts": {},
                    "updated_at": now,
                }
                for b in bots_ids(n_bots)
            ],
        )
        conn.execute(insert(RatingLock), [{"game": g, "last_seq": seq[g]} for g in GAMES])
        if challenges:
            conn.execute(insert(Challenge), challenges)
    from benchmarks.bench_db import analyze

    analyze(engine)


def bots_ids(n: int) -> range:
    return range(1, n + 1)


def _flush(engine: Any, matches: list, seats: list, history: list) -> None:
    from arena.db import Match, MatchSeat, RatingHistory
    from benchmarks.bench_db import load

    if matches:
        load(engine, Match, matches)
        load(engine, MatchSeat, seats)
        load(engine, RatingHistory, history)
    matches.clear()
    seats.clear()
    history.clear()


def _database(n_bots: int, n_matches: int, folder: str | None) -> tuple[str, float | None]:
    where = Path(folder or os.environ.get("ARENA_BENCH_DIR") or tempfile.gettempdir())
    path = where / f"arena-bench-web-{SCHEMA_TAG}-{n_bots}-{n_matches}.sqlite3"
    url = f"sqlite:///{path}"
    ready = path.with_suffix(".ready")
    if ready.exists():
        return url, None
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)
    started = time.perf_counter()
    _generate(url, n_bots, n_matches)
    ready.write_text("ok")
    return url, time.perf_counter() - started


def _measure(client: Any, paths: list[str]) -> dict[str, float]:
    """Wall-clock p50/p95 per request, plus the CPU time this process spent on it — the server's
    threads and the client's, not PostgreSQL's (less sensitive to other processes on a busy
    machine, so the two together tell load from cost)."""
    times, cpu = [], []
    for path in paths:
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(path)
        body = response.data
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        if response.status_code != 200 or not body:
            raise RuntimeError(f"{path} answered {response.status_code}")
    times.sort()
    cpu.sort()
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
        "max_ms": round(times[-1], 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "cpu_p95_ms": round(cpu[int(0.95 * (len(cpu) - 1))], 2),
        "n": len(times),
    }


class _HttpResponse:
    def __init__(self, status: int, body: bytes) -> None:
        self.status_code, self.data = status, body

    def get_json(self) -> Any:
        import json

        return json.loads(self.data)


class HttpClient:
    """A keep-alive HTTP/1.1 client with the test client's ``get``/``post`` (status_code,
    data) and its cookie jar (a signed-in author's session), following no redirects."""

    def __init__(self, host: str, port: int) -> None:
        import http.client

        self._conn = http.client.HTTPConnection(host, port, timeout=60)
        self._cookies: dict[str, str] = {}

    def _send(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> _HttpResponse:
        import http.client
        from http.cookies import SimpleCookie

        headers = dict(headers or {})
        if self._cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self._cookies.items())
        try:
            self._conn.request(method, path, body=body, headers=headers)
            response = self._conn.getresponse()
        except (ConnectionError, http.client.RemoteDisconnected):
            # waitress closes a connection idle for 120 s (a signed-in visitor waits while the
            # other pages are measured): a new connection, the same cookies
            self._conn.close()
            self._conn.request(method, path, body=body, headers=headers)
            response = self._conn.getresponse()
        for raw in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(raw).items():
                self._cookies[name] = morsel.value
        return _HttpResponse(response.status, response.read())

    def get(self, path: str) -> _HttpResponse:
        return self._send("GET", path)

    def post(self, path: str, data: dict[str, str]) -> _HttpResponse:
        from urllib.parse import urlencode

        return self._send(
            "POST",
            path,
            urlencode(data).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )

    def close(self) -> None:
        self._conn.close()


@contextmanager
def _waitress(app: Any) -> Iterator[Callable[[], HttpClient]]:
    """``app`` served by waitress on a free port, with 8 threads: as ``arena web`` served it when
    docs/web.md's numbers were measured (it now has ``web.command.THREADS``, 14, so that /play's
    bounded long polls never take the threads pages need; a page request uses one either way).
    What it yields makes a client (each its own connection and cookies: one per visitor)."""
    import threading

    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=8, ident="tabletop-arena")
    thread = threading.Thread(target=server.run, name="bench-waitress", daemon=True)
    thread.start()
    clients: list[HttpClient] = []

    def client() -> HttpClient:
        clients.append(HttpClient("127.0.0.1", server.effective_port))
        return clients[-1]

    try:
        yield client
    finally:
        for c in clients:
            c.close()
        server.close()
        thread.join(timeout=10)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def bench(
    samples: int = SAMPLES,
    bots: int = BOTS,
    matches: int = MATCHES,
    folder: str | None = None,
    database: str = "postgres",
    progress: Callable[[str], None] | None = None,
    keep: str | None = None,
    records: str = "toy",
) -> dict[str, Any]:
    """Run the measurement (smaller ``bots``/``matches`` only to check that it works).
    ``database``: "postgres" (a throw-away database over waitress; SQLite when no PostgreSQL
    answers) or "sqlite" (a reusable file, WSGI test client). ``keep``: the name of a PostgreSQL
    database the run keeps — loaded by the first run, measured again as it is by the next ones
    (same ``bots`` and ``matches``). ``progress`` gets a line per loading step (default:
    standard error), since loading a million matches takes minutes. ``records``: ``toy`` (the
    toy game's JSON records), ``json`` or ``compact`` (real games' records stored so;
    PostgreSQL only)."""
    progress = progress or _stderr
    _register_toy()
    from benchmarks.bench_db import postgres_available, postgres_database

    games, make, variants = _dataset(records)
    if keep is not None:
        url, generated, fresh = kept_dataset(keep, bots, matches, progress, records)
        result = _run(url, generated, samples, matches, http=True, games=games)
        result["database"] = f"postgresql {keep} ({'loaded now' if fresh else 'reused'}, kept)"
        result.update(_sizes(url, records))
        return result
    if database == "postgres" and postgres_available():
        from benchmarks.bench_web_pg import add_accounts, generate

        with postgres_database() as url:
            started = time.perf_counter()
            progress(f"loading {bots:,} bots and {matches:,} matches into PostgreSQL …")
            generate(url, bots, matches, games, make, progress, records if records != "toy" else "json",
                     variants)
            add_accounts(url, progress)
            generated = time.perf_counter() - started
            progress(f"loaded in {generated:.0f} s; measuring the pages …")
            result = _run(url, generated, samples, matches, http=True, games=games)
            result["database"] = "postgresql (dropped after the run)"
            result.update(_sizes(url, records))
            return result
    if records != "toy":
        raise ValueError(f"records={records!r} needs PostgreSQL (the SQLite form plays the toy game)")
    url, generated = _database(bots, matches, folder)
    return _run(url, generated, samples, matches, http=False)


def _sizes(url: str, records: str) -> dict[str, Any]:
    """How the records are stored and what the database takes: the whole database
    (``pg_database_size``) and the matches table with its TOAST and indexes
    (``pg_total_relation_size``), beside its heap and TOAST without indexes."""
    from sqlalchemy import text

    from arena.db import get_engine

    with get_engine(url).connect() as conn:
        one = lambda sql: conn.execute(text(sql)).scalar()  # noqa: E731
        return {
            "records": records,
            "database_bytes": int(one("SELECT pg_database_size(current_database())")),
            "matches_total_bytes": int(one("SELECT pg_total_relation_size('matches')")),
            "matches_table_bytes": int(one("SELECT pg_table_size('matches')")),
            "matches_stored_json": int(one("SELECT count(*) FROM matches WHERE record IS NOT NULL")),
            "matches_stored_compact": int(
                one("SELECT count(*) FROM matches WHERE record_compact IS NOT NULL")
            ),
        }


def kept_dataset(
    name: str,
    bots: int,
    matches: int,
    progress: Callable[[str], None] | None = None,
    records: str = "toy",
) -> tuple[str, float, bool]:
    """``(url, load seconds, loaded now?)`` of the kept PostgreSQL database ``name`` holding
    this benchmark's dataset, loading it first unless an earlier run did. The schema is
    migrated either way (``get_engine``), so new indexes reach an old dataset, and a dataset
    loaded before the accounts and challenges existed gets them once
    (:func:`benchmarks.bench_web_pg.add_accounts`, marked in ``bench_dataset``). ``records``:
    the dataset's record form (:data:`RECORD_FORMS`; a database kept with another is loaded
    anew)."""
    progress = progress or _stderr
    _register_toy()
    games, make, variants = _dataset(records)
    kind = "web" if records == "toy" else f"web-{records}"
    from arena.db import dispose_all, get_engine
    from benchmarks.bench_db import kept_database, mark_loaded
    from benchmarks.bench_web_pg import add_accounts, generate

    with kept_database(name, kind, bots, matches) as (url, loaded):
        if loaded is not None:
            progress(
                f"reusing {name} ({bots:,} bots, {matches:,} matches, loaded in "
                f"{loaded:.0f} s); migrating it …"
            )
            get_engine(url)
            if add_accounts(url, progress):
                progress(f"added the accounts and challenges to {name} (once)")
            dispose_all()
            return url, loaded, False
        started = time.perf_counter()
        progress(f"loading {bots:,} bots and {matches:,} matches into PostgreSQL {name} …")
        generate(url, bots, matches, games, make, progress, records if records != "toy" else "json",
                 variants)
        generated = time.perf_counter() - started
        mark_loaded(url, kind, bots, matches, generated)
        add_accounts(url, progress)  # after mark_loaded, which empties bench_dataset
        dispose_all()
        progress(f"loaded in {generated:.0f} s (kept as {name}); measuring …")
        return url, generated, True


def _run(
    url: str,
    generated: float | None,
    samples: int,
    matches: int,
    http: bool,
    games: tuple[str, str] = GAMES,
) -> dict[str, Any]:
    from web.app import create_app

    app = create_app(url)
    app.add_url_rule("/__bench_trivial", "bench_trivial", lambda: "ok")
    if http:
        with _waitress(app) as new_client:
            result = _pages(app, new_client, url, generated, samples, matches, games)
        result["server"] = "waitress, 8 threads, real HTTP (keep-alive)"
        return result
    result = _pages(app, app.test_client, url, generated, samples, matches, games)
    result["server"] = "WSGI test client (no sockets)"
    return result


def _sign_in(client: Any, owner: str) -> None:
    """Sign ``client`` in as the benchmark's account ``owner``, as a browser does: the form
    (which starts a session holding the CSRF token), then POST /signin with the token."""
    import re

    from benchmarks.bench_web_pg import bench_token

    form = client.get("/signin").data.decode()
    found = re.search(r'name="csrf_token" value="([^"]+)"', form)
    if found is None:
        raise RuntimeError("/signin has no CSRF token field")
    done = client.post(
        "/signin", data={"token": bench_token(owner), "next": "/me", "csrf_token": found.group(1)}
    )
    if done.status_code != 303:
        raise RuntimeError(f"signing in as {owner} answered {done.status_code}")
    if owner not in client.get("/me").data.decode():
        raise RuntimeError(f"signed in as {owner}, but /me does not name them")


def _pages(
    app: Any,
    new_client: Callable[[], Any],
    url: str,
    generated: float | None,
    samples: int,
    matches: int,
    games: tuple[str, str] = GAMES,
) -> dict[str, Any]:
    from sqlalchemy import func, select

    from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, Tournament, get_engine
    from arena.db.challenges import Challenge
    from arena.records import stored
    from benchmarks.bench_web_pg import FOCUS_OWNER

    rnd = random.Random(11)
    client = new_client()
    with get_engine(url).connect() as conn:
        match_ids = list(conn.execute(select(Match.id).where(Match.status == "done")).scalars())
        bot_ids = list(conn.execute(select(Bot.id)).scalars())
        done_tournaments = list(
            conn.execute(select(Tournament.id).where(Tournament.status == "done")).scalars()
        )
        running_tournaments = list(
            conn.execute(select(Tournament.id).where(Tournament.status == "running")).scalars()
        )
        live_ids = list(conn.execute(select(Match.id).where(Match.status == "running")).scalars())
        # the signed-in pages: FOCUS_OWNER's bots (the owner's view, the private pages) and
        # other authors' active bots (AUTHOR's view, with the Challenge form)
        owned = list(
            conn.execute(select(Bot.id).where(Bot.owner == FOCUS_OWNER).order_by(Bot.id)).scalars()
        )
        others = list(
            conn.execute(select(Bot.id).where(Bot.owner != AUTHOR, Bot.active.is_(True))).scalars()
        )
        # the owner's bot with the most matches, and its matches (newest first)
        busiest = conn.execute(
            select(BotVersion.bot_id)
            .join(Rating, Rating.bot_version_id == BotVersion.id)
            .where(BotVersion.bot_id.in_(owned))
            .order_by(Rating.games_played.desc(), BotVersion.bot_id)
            .limit(1)
        ).scalar()
        busiest_matches = list(
            conn.execute(
                select(MatchSeat.match_id)
                .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
                .where(BotVersion.bot_id == busiest)
            ).scalars()
        )
        challenged = conn.execute(
            select(func.count())
            .select_from(Challenge)
            .where(Challenge.challenger_bot_id == busiest)
        ).scalar()
        n_challenges = conn.execute(select(func.count()).select_from(Challenge)).scalar()
    if not owned or busiest is None or not busiest_matches or not others:
        raise RuntimeError(
            f"the dataset has no rated bot of {FOCUS_OWNER} or none of "
            "another author: the signed-in pages cannot be measured"
        )
    author, owner = new_client(), new_client()
    _sign_in(author, AUTHOR)
    _sign_in(owner, FOCUS_OWNER)
    deep = client.get("/api/matches?limit=200").get_json()
    for _ in range(min(100, matches // 400)):  # 100 pages (20,000 matches) down at full size
        deep = client.get(deep["older"]).get_json()
    deep_cursor = deep["older"].split("before=")[1].split("&")[0]

    # warm-up: import templates, fill connection pools and the per-game win cache
    for path in (
        "/__bench_trivial",
        "/",
        *(f"/games/{g}" for g in games),
        *(f"/api/games/{g}/leaderboard" for g in games),
        "/matches",
        f"/matches/{match_ids[0]}",
        f"/bots/{bot_ids[0]}",
        "/tournaments",
        "/play",
        f"/play?game={games[0]}",
    ):
        client.get(path)
    for path in (
        f"/bots/{owned[0]}",
        "/me",
        f"/me/bots/{busiest}",
        f"/me/bots/{busiest}/matches/{busiest_matches[0]}",
    ):
        owner.get(path)
    author.get(f"/bots/{others[0]}")

    def each(make: Callable[[], str]) -> list[str]:
        return [make() for _ in range(samples)]

    pages: dict[str, list[str]] = {
        "trivial_route": ["/__bench_trivial"] * samples,
        "home": ["/"] * samples,
    }
    for g in games:
        pages[f"leaderboard_{g}"] = [f"/games/{g}"] * samples
    pages.update(
        {
            "history_first_page": ["/matches"] * samples,
            "history_deep_page": [f"/matches?before={deep_cursor}"] * samples,
            "history_by_bot": each(lambda: f"/matches?bot={rnd.choice(bot_ids)}"),
            "history_by_game": each(lambda: f"/matches?game={rnd.choice(games)}"),
            "history_done_forfeits": ["/matches?status=done&outcome=forfeit"] * samples,
            "history_by_game_and_outcome": each(
                lambda: f"/matches?game={games[0]}&bot={rnd.choice(bot_ids[1::2])}&outcome=win"
            ),
            "match_page": each(lambda: f"/matches/{rnd.choice(match_ids)}"),
            "match_replay_step": each(
                lambda: f"/matches/{rnd.choice(match_ids)}/steps/{rnd.randint(1, 8)}"
            ),
            "bot_page": each(lambda: f"/bots/{rnd.choice(bot_ids)}"),
            "tournaments": ["/tournaments"] * samples,
            # the author's bots have a full Challenges table (the latest 20 of ~40 each at 1M)
            "bot_page_with_challenges": each(lambda: f"/bots/{rnd.choice(owned)}"),
            "play_form": ["/play"] * samples,
            # a game chosen: the form lists every active bot of the game as an opponent
            "play_form_game": each(lambda: f"/play?game={rnd.choice(games)}"),
        }
    )
    signed_in: dict[str, tuple[Any, list[str]]] = {
        # another author: the Challenge form with their bots of the page's game
        "bot_page_signed_in_author": (author, each(lambda: f"/bots/{rnd.choice(others)}")),
        "bot_page_signed_in_owner": (owner, each(lambda: f"/bots/{rnd.choice(owned)}")),
        "me": (owner, ["/me"] * samples),
        "me_bot": (owner, [f"/me/bots/{busiest}"] * samples),
        "me_bot_match": (
            owner,
            each(lambda: f"/me/bots/{busiest}/matches/{rnd.choice(busiest_matches)}"),
        ),
    }
    if done_tournaments:
        pages["tournament_page"] = each(lambda: f"/tournaments/{rnd.choice(done_tournaments)}")
    if running_tournaments:
        pages["tournament_running"] = each(
            lambda: f"/tournaments/{rnd.choice(running_tournaments)}"
        )
    if live_ids:
        pages["live_page"] = each(lambda: f"/matches/{rnd.choice(live_ids)}/live")
        pages["live_board"] = each(lambda: f"/matches/{rnd.choice(live_ids)}/live/board")
    for g in games:
        pages[f"api_leaderboard_{g}"] = [f"/api/games/{g}/leaderboard"] * samples
    pages.update(
        {
            "api_matches_first_page": ["/api/matches"] * samples,
            "api_matches_deep_page": [f"/api/matches?before={deep_cursor}"] * samples,
            "api_matches_by_bot": each(lambda: f"/api/matches?bot={rnd.choice(bot_ids)}"),
            "api_match": each(lambda: f"/api/matches/{rnd.choice(match_ids)}"),
            "api_match_replay": each(lambda: f"/api/matches/{rnd.choice(match_ids)}/replay"),
            "api_bot": each(lambda: f"/api/bots/{rnd.choice(bot_ids)}"),
            "api_tournaments": ["/api/tournaments"] * samples,
            "api_ladders": ["/api/ladders"] * samples,
        }
    )
    # the same pages with the record cache warm: a few matches, each read just before
    warm = rnd.sample(match_ids, min(WARM_MATCHES, len(match_ids)))
    pages.update(
        {
            "match_page_warm": each(lambda: f"/matches/{rnd.choice(warm)}"),
            "match_replay_step_warm": each(
                lambda: f"/matches/{rnd.choice(warm)}/steps/{rnd.randint(1, 8)}"
            ),
            "api_match_warm": each(lambda: f"/api/matches/{rnd.choice(warm)}"),
        }
    )
    if done_tournaments:
        pages["api_tournament"] = each(lambda: f"/api/tournaments/{rnd.choice(done_tournaments)}")
    result: dict[str, Any] = {
        "load_average_1min": round(os.getloadavg()[0], 2),
        "games": list(games),
        "record_cache_size": stored.CACHE.size,
        "cpus": os.cpu_count(),
        "bots": len(bot_ids),
        "matches": matches,
        "database": url,
        "generated_in_s": round(generated, 1) if generated is not None else "reused",
        "challenges": n_challenges,
        "signed_in_as": f"{FOCUS_OWNER} (owner), {AUTHOR} (another author)",
        "me_bot_id": busiest,
        "me_bot_matches": len(busiest_matches),
        "me_bot_challenges": challenged,
    }
    # Cold means never read by this process: a kept database, or an earlier run in this
    # process (a test session) with the same records, would otherwise start with hits.
    stored.CACHE.clear()
    for name, paths in pages.items():
        if name.endswith("_warm"):
            for path in dict.fromkeys(paths):  # each once: regenerated, replayed, cached
                client.get(path)
        hits, misses = stored.CACHE.hits, stored.CACHE.misses
        result[name] = _measure(client, paths)
        if stored.CACHE.hits + stored.CACHE.misses > hits + misses:  # a page that read records
            result[name]["record_cache_hits"] = stored.CACHE.hits - hits
            result[name]["record_cache_misses"] = stored.CACHE.misses - misses
    for name, (who, paths) in signed_in.items():
        who.get(paths[0])  # untimed: reconnects a connection the server closed while idle
        result[name] = _measure(who, paths)
    # the win-count aggregate behind the leaderboard: built once per process and game, then
    # brought up to date with the matches rated since (here: the last 10 of the game)
    from web.db import db
    from web.queries.leaderboard import WinCache

    with app.app_context():
        cache = WinCache()
        start = time.perf_counter()
        cache.get(db(), games[0])
        result["leaderboard_wins_full_build_ms"] = round((time.perf_counter() - start) * 1000, 1)
        seq, totals = cache._data[games[0]]
        cache._data[games[0]] = (seq - 10, totals)
        start = time.perf_counter()
        cache.get(db(), games[0])
        result["leaderboard_wins_update_10_matches_ms"] = round(
            (time.perf_counter() - start) * 1000, 2
        )
    trivial = result["trivial_route"]["p50_ms"] or 0.01
    worst = max(
        v["p95_ms"] for k, v in result.items() if isinstance(v, dict) and k != "trivial_route"
    )
    result["worst_page_p95_ms"] = worst
    result["goal_p95_under_50ms"] = worst < 50
    result["leaderboard_p50_vs_trivial"] = round(
        result[f"leaderboard_{games[0]}"]["p50_ms"] / trivial, 1
    )
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=2))
