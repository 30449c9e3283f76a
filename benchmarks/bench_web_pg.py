"""The website benchmark's data, generated inside PostgreSQL: 1,000,000 matches in minutes.

Python makes only what must be real — 10,000 bots and 120 replayable records of the toy engine
(60 per game) — and PostgreSQL makes the rest with ``INSERT … SELECT`` over
``generate_series``: the matches (each stores one of the records under its own id, so every
match page replays a real game), their seats, the rating history, the ratings (mu/sigma as a
running sum over each bot's matches, with the opponent, seat and player-count ledgers the bot
page shows), tournaments with entrants whose matches seat only those entrants, a running
tournament with running and pending matches, and the ladders; then (:func:`add_accounts`, also
run once on a database kept from before they existed) an account per bot owner and challenges.
Secondary indexes are dropped for the load and rebuilt afterwards (one sorted build each,
instead of millions of random inserts), foreign-key triggers are off in the loading session
(the rows are consistent by construction), and ``VACUUM ANALYZE`` leaves the tables as
autovacuum would.

Records are stored as JSON (``records="json"``, the form of every match before issue 40) or,
for games with an engine version, compactly (``records="compact"``,
:mod:`arena.records.compact`: ``record`` NULL, ``record_compact`` and ``engine_version`` set).
A compact record holds its match id inside its zstandard frame, so it cannot be spliced in SQL
as the JSON text is: Python makes each match's blob from its template's uncompressed body with
the match's own id (:func:`_compact_blobs`, level :data:`arena.records.compact.LEVEL`, the
bytes a worker would store) and streams them to PostgreSQL with a binary COPY. Every match's
blob is distinct, as in production, so the per-process cache of regenerated records
(:data:`arena.records.stored.CACHE`, keyed by those bytes) is exercised as it would be.

The shape: bots alternate between the two games; a ladder match seats 2–4 distinct random bots
of its game; one match in five belongs to a tournament of 500 matches among 16 entrants; one in
a hundred has a forfeit (the last seat timed out); one match every 30 seconds of game time.
"""

from __future__ import annotations

import io
import json
import struct
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

#: Tournament size (matches; fewer in small databases) and entrants; one match in ``TOURNAMENT_EVERY`` is a tournament's.
TOURNAMENT_MATCHES = 500
TOURNAMENT_ENTRANTS = 16
TOURNAMENT_EVERY = 5
#: The newest tournament is still running: its last matches are pending, a few are running.
RUNNING_LEFT = 40
RUNNING_NOW = 4
TEMPLATES = 60
#: The matches are inserted in this many slices, on this many connections at once.
SLICES = 10
THREADS = 2
T0 = datetime(2026, 1, 1)
PLACEHOLDER = "@@MATCH_ID@@"
#: The match id in a compact template: as long as a generated id (``md5('match-' || i)``, 32
#: hex digits), so the header's length — a varint before it — is the same for every match.
COMPACT_PLACEHOLDER = "@" * 32
#: Compact blobs are streamed to PostgreSQL in COPYs of this many rows.
COPY_ROWS = 20_000
RECORD_FORMS = ("json", "compact")

Progress = Callable[[str], None]


def generate(
    url: str,
    n_bots: int,
    n_matches: int,
    games: tuple[str, str],
    records: Callable[[str, str, int], list[dict[str, Any]]],
    progress: Progress,
    form: str = "json",
    variants: tuple[str, str] = ("base", "dice"),
) -> None:
    """Fill the empty (migrated) database at ``url``; ``progress`` gets one line per step.
    ``records(game, variant, count)``: the templates of a game (``variants[i]`` for
    ``games[i]``; a generator may choose its own per player count). ``form``: how finished
    matches store their record, ``json`` or ``compact`` (games with an engine version only)."""
    from arena.db import get_engine

    if n_bots < 8 or n_matches < 1:
        raise ValueError("the web benchmark needs at least 8 bots (4 a game) and 1 match")
    if form not in RECORD_FORMS:
        raise ValueError(f"records are stored as one of {RECORD_FORMS}, not {form!r}")
    engine = get_engine(url)  # migrates the schema
    raw = engine.raw_connection()
    started = time.perf_counter()
    try:
        conn = raw.dbapi_connection  # the psycopg2 connection itself (VACUUM needs autocommit)
        conn.autocommit = True
        cur = _loading_session(conn)

        def step(label: str, sql: str, params: dict[str, Any] | None = None) -> None:
            t = time.perf_counter()
            cur.execute(sql, params)
            rows = f"{cur.rowcount:,} rows, " if cur.rowcount and cur.rowcount > 0 else ""
            progress(
                f"  {label}: {rows}{time.perf_counter() - t:.1f} s "
                f"(total {time.perf_counter() - started:.0f} s)"
            )

        def sliced(label: str, sql: str, params: dict[str, Any], total: int) -> None:
            """``sql`` over ``SLICES`` slices of ``bench_plan.i`` (``%(part)s``), on
            ``THREADS`` connections at once: PostgreSQL runs one INSERT on one core, and a
            line per slice shows the progress of the longest step."""
            t = time.perf_counter()
            todo = list(range(SLICES))
            lock = threading.Lock()
            done = [0]

            def work() -> None:
                other = engine.raw_connection()
                try:
                    other.dbapi_connection.autocommit = True
                    c = _loading_session(other.dbapi_connection)
                    while True:
                        with lock:
                            if not todo:
                                return
                            part = todo.pop(0)
                        c.execute(sql, {**params, "part": part, "parts": SLICES})
                        with lock:
                            done[0] += max(c.rowcount, 0)
                            progress(
                                f"  {label}: {done[0]:,} of {total:,} rows, "
                                f"{time.perf_counter() - t:.0f} s "
                                f"(total {time.perf_counter() - started:.0f} s)"
                            )
                finally:
                    other.close()

            threads = [threading.Thread(target=work) for _ in range(THREADS)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            if done[0] != total:
                raise RuntimeError(f"{label}: {done[0]:,} rows loaded, {total:,} expected")

        total_t = (n_matches - 1) // TOURNAMENT_EVERY + 1
        # small databases (the test suite's) still get several tournaments, one running
        tm = min(TOURNAMENT_MATCHES, max(20, total_t // 4))
        indexes = _drop_secondary_indexes(cur, ("matches", "match_seats", "rating_history"))
        _templates(cur, games, records, variants, form == "compact")
        p = {
            "n_bots": n_bots,
            "n": n_matches,
            "g0": games[0],
            "g1": games[1],
            "t0": T0,
            "tm": tm,
            "te": TOURNAMENT_ENTRANTS,
            "every": TOURNAMENT_EVERY,
            "k": TEMPLATES,
            "left": RUNNING_LEFT,
            "now": RUNNING_NOW,
            # tournament matches in all, and the newest (running) tournament
            "total_t": total_t,
            "max_tid": 1 + (total_t - 1) // tm,
            "v0": variants[0],
            "v1": variants[1],
            "compact": form == "compact",
        }
        step(
            "bots",
            """
            INSERT INTO bots (id, owner, name, game, active, created_at)
            SELECT b, 'owner' || (b %% 97),
                   'bot-' || CASE WHEN b < 10000 THEN lpad(b::text, 4, '0') ELSE b::text END,
                   CASE WHEN b %% 2 = 0 THEN %(g0)s ELSE %(g1)s END, b %% 10 <> 0,
                   %(t0)s::timestamp - make_interval(days => 30) + make_interval(secs => b * 60)
            FROM generate_series(1, %(n_bots)s) b""",
            p,
        )
        step(
            "bot versions",
            """
            INSERT INTO bot_versions (id, bot_id, number, kind, source, digest, initial_mu,
                                      initial_sigma, held, created_at)
            SELECT id, id, 1, 'hosted', '/bots/' || id, lpad(to_hex(id), 64, '0'), 25.0,
                   25.0 / 3, false, created_at FROM bots""",
        )
        # a game's bots, numbered 0..count-1 (bot id = 2·idx + 2 for games[0], 2·idx + 1 else)
        step(
            "plan",
            """
            CREATE UNLOGGED TABLE bench_plan AS
            WITH g AS (
                SELECT 0 AS gi, %(g0)s::text AS game, %(n_bots)s / 2 AS nb
                UNION ALL SELECT 1, %(g1)s, (%(n_bots)s + 1) / 2
            ), base AS (
                SELECT i, CASE WHEN i %% %(every)s = 0 THEN i / %(every)s END AS j
                FROM generate_series(0, %(n)s - 1) i
            ), withgame AS (
                SELECT i, j, 1 + j / %(tm)s AS tid,
                       CASE WHEN j IS NULL THEN i %% 2 ELSE (1 + j / %(tm)s) %% 2 END AS gi,
                       -- the newest tournament's last matches are running, then pending
                       CASE WHEN j IS NULL OR 1 + j / %(tm)s < %(max_tid)s THEN 'done'
                            WHEN %(total_t)s - 1 - j < %(now)s THEN 'running'
                            WHEN %(total_t)s - 1 - j < %(left)s THEN 'pending'
                            ELSE 'done' END AS status
                FROM base
            ), planned AS (
                SELECT w.i, md5('match-' || w.i) AS id,
                       CASE WHEN w.j IS NULL THEN NULL ELSE w.tid END AS tid,
                       w.j, w.status, g.game, g.gi, g.nb, (w.i / 2) %% %(k)s AS k,
                       %(t0)s::timestamp + make_interval(secs => 30 * w.i) AS created_at,
                       random() AS r1, random() AS r2, random() AS r3
                FROM withgame w JOIN g ON g.gi = w.gi
            )
            SELECT p.*, t.players,
                   CASE WHEN p.status = 'done' THEN row_number() OVER (
                       PARTITION BY p.game, p.status = 'done' ORDER BY p.i) END AS seq
            FROM planned p JOIN bench_templates t ON t.game = p.game AND t.k = p.k""",
            p,
        )
        cur.execute("CREATE UNLOGGED TABLE bench_compact (i int PRIMARY KEY, blob bytea)")
        if form == "compact":
            t = time.perf_counter()
            made = _compact_blobs(conn, cur)
            progress(
                f"  compact records: {made:,} made and copied, {time.perf_counter() - t:.1f} s "
                f"(total {time.perf_counter() - started:.0f} s)"
            )
        sliced(
            "matches",
            """
            INSERT INTO matches (id, game, variant, players, seed, kind, tournament_id, round,
                "table", status, sandbox, attempts, created_at, queued_at, started_at,
                finished_at, result, forfeits, record, record_compact, engine_version,
                rating_seq, decision_ms, bank_ms)
            SELECT b.id, b.game, t.variant, t.players, t.seed,
                   CASE WHEN b.tid IS NULL THEN 'ladder' ELSE 'tournament' END, b.tid,
                   -- 16 entrants: four tables a round
                   CASE WHEN b.tid IS NULL THEN 0 ELSE (b.j %% %(tm)s) / 4 END,
                   CASE WHEN b.tid IS NULL THEN 0 ELSE (b.j %% %(tm)s) %% 4 END,
                   b.status, true, CASE WHEN b.status = 'pending' THEN 0 ELSE 1 END,
                   b.created_at, b.created_at,
                   CASE WHEN b.status = 'pending' THEN NULL ELSE b.created_at END,
                   CASE WHEN b.status = 'done' THEN b.created_at + interval '5 seconds' END,
                   CASE WHEN b.status = 'done' THEN t.result END,
                   CASE WHEN b.status = 'done' THEN
                        CASE WHEN b.r3 < 0.01 THEN t.forfeit ELSE '[]'::json END END,
                   CASE WHEN b.status = 'done' AND NOT %(compact)s
                        THEN (t.head || b.id || t.tail)::json END,
                   c.blob, CASE WHEN c.blob IS NOT NULL THEN t.engine END,
                   b.seq, 2000, 5000
            FROM bench_plan b JOIN bench_templates t ON t.game = b.game AND t.k = b.k
            LEFT JOIN bench_compact c ON c.i = b.i
            WHERE b.i %% %(parts)s = %(part)s
            ORDER BY b.id  -- in primary-key order: fewer random index page writes""",
            p,
            n_matches,
        )
        # Seats: distinct bots by a stride walk over the game's bots (ladder) or over the
        # tournament's 16 entrants; 3·stride < pool size keeps 4 seats distinct.
        step(
            "seats (staging)",
            """
            CREATE UNLOGGED TABLE bench_seats AS
            WITH pools AS (
                SELECT b.*, t.ranks, t.scores,
                       CASE WHEN b.tid IS NULL THEN b.nb ELSE least(%(te)s, b.nb) END AS pool,
                       CASE WHEN b.tid IS NULL THEN 0
                            ELSE (((b.tid - 1) / 2) * %(te)s) %% greatest(1, b.nb - %(te)s + 1)
                       END AS pool_start
                FROM bench_plan b JOIN bench_templates t ON t.game = b.game AND t.k = b.k
            ), picks AS (
                SELECT p.*, s.seat,
                       p.pool_start + (floor(p.r1 * p.pool)::int
                           + s.seat * (1 + floor(p.r2 * greatest(1, (p.pool - 1) / 3))::int))
                           %% p.pool AS idx
                FROM pools p CROSS JOIN LATERAL generate_series(0, p.players - 1) s(seat)
            )
            SELECT id AS match_id, game, seq, status, created_at, players, seat,
                   CASE WHEN gi = 0 THEN 2 * idx + 2 ELSE 2 * idx + 1 END AS bot,
                   CASE WHEN status = 'done' THEN ranks[seat + 1] END AS rank,
                   CASE WHEN status = 'done' THEN scores[seat + 1] END AS score,
                   CASE WHEN status = 'done' AND r3 < 0.01 AND seat = players - 1
                        THEN 'timeout' END AS forfeit
            FROM picks""",
            p,
        )
        # float8 throughout: numeric (what a bare 25.0 is) makes the window sums several
        # times slower
        step(
            "seats: ratings (running sums)",
            """
            CREATE UNLOGGED TABLE bench_rated AS
            SELECT s.*, k AS played,
                   o.mu0 + sum(delta) OVER w AS mu_after,
                   greatest(0.9::float8, (25.0 / 3)::float8 * power(0.97::float8, k)) AS sigma_after,
                   o.mu0 + sum(delta) OVER w - delta AS mu_before,
                   greatest(0.9::float8, (25.0 / 3)::float8 * power(0.97::float8, k - 1))
                       AS sigma_before
            FROM (SELECT *, (players / 2.0::float8 - rank) * 0.3::float8 AS delta,
                         row_number() OVER (PARTITION BY bot ORDER BY seq) AS k
                  FROM bench_seats WHERE status = 'done') s
            JOIN (SELECT id, 25.0::float8 + (random() - 0.5) * 8 AS mu0 FROM bots) o
              ON o.id = s.bot
            WINDOW w AS (PARTITION BY bot ORDER BY seq ROWS UNBOUNDED PRECEDING)""",
        )
        step(
            "match seats",
            """
            INSERT INTO match_seats (match_id, seat, bot_version_id, rank, score, forfeit,
                                     mu_before, sigma_before, mu_after, sigma_after)
            SELECT match_id, seat, bot, rank, score, forfeit, mu_before, sigma_before,
                   mu_after, sigma_after FROM bench_rated
            UNION ALL
            SELECT match_id, seat, bot, NULL, NULL, NULL, NULL, NULL, NULL, NULL
            FROM bench_seats WHERE status <> 'done'
            ORDER BY 1, 2  -- in primary-key order: appends to the index, no random page writes
            """,
        )
        step(
            "rating history",
            """
            INSERT INTO rating_history (bot_version_id, game, match_id, seq, mu, sigma, created_at)
            SELECT bot, game, match_id, seq, mu_after, sigma_after,
                   created_at + interval '5 seconds'
            FROM bench_rated ORDER BY seq, game, seat""",
        )
        step(
            "ratings",
            """
            WITH last AS (
                SELECT DISTINCT ON (bot) bot, game, mu_after, sigma_after, played,
                       created_at + interval '5 seconds' AS at
                FROM bench_rated ORDER BY bot, seq DESC
            ), opp AS (
                SELECT bot, json_object_agg(opp, n) AS counts, count(*) AS distinct_n
                FROM (SELECT a.bot, b.bot AS opp, count(*) AS n
                      FROM bench_rated a JOIN bench_rated b
                        ON b.match_id = a.match_id AND b.seat <> a.seat
                      GROUP BY a.bot, b.bot) x
                GROUP BY bot
            ), seats AS (
                SELECT bot, json_object_agg(players, seats) AS counts
                FROM (SELECT bot, players, json_object_agg(seat, n) AS seats
                      FROM (SELECT bot, players, seat, count(*) AS n FROM bench_rated
                            GROUP BY bot, players, seat) y
                      GROUP BY bot, players) z
                GROUP BY bot
            ), pc AS (
                SELECT bot, json_object_agg(players, n) AS counts
                FROM (SELECT bot, players, count(*) AS n FROM bench_rated
                      GROUP BY bot, players) w
                GROUP BY bot
            )
            INSERT INTO ratings (bot_version_id, game, mu, sigma, provisional, games_played,
                                 distinct_opponents, opponent_counts, seat_counts,
                                 player_counts, updated_at)
            SELECT l.bot, l.game, l.mu_after, l.sigma_after, l.played < 10, l.played,
                   coalesce(opp.distinct_n, 0), coalesce(opp.counts, '{}'::json),
                   coalesce(seats.counts, '{}'::json), coalesce(pc.counts, '{}'::json), l.at
            FROM last l LEFT JOIN opp USING (bot) LEFT JOIN seats USING (bot)
            LEFT JOIN pc USING (bot)""",
        )
        step(
            "rating locks",
            """
            INSERT INTO rating_locks (game, last_seq)
            SELECT game, coalesce(max(seq), 0) FROM bench_plan GROUP BY game""",
        )
        step(
            "tournaments",
            """
            INSERT INTO tournaments (id, name, game, variant, players, rounds, seed, status,
                matches_total, matches_done, created_at, started_at, finished_at)
            SELECT tid, 'Cup ' || tid, min(game),
                   CASE WHEN min(game) = %(g0)s THEN %(v0)s ELSE %(v1)s END, 4, 1, tid,
                   CASE WHEN bool_and(status = 'done') THEN 'done' ELSE 'running' END,
                   count(*), count(*) FILTER (WHERE status = 'done'),
                   min(created_at) - interval '1 minute', min(created_at),
                   CASE WHEN bool_and(status = 'done')
                        THEN max(created_at) + interval '5 seconds' END
            FROM bench_plan WHERE tid IS NOT NULL GROUP BY tid""",
            p,
        )
        step(
            "tournament entries",
            """
            INSERT INTO tournament_entries (tournament_id, bot_version_id, position)
            SELECT tid, bot, row_number() OVER (PARTITION BY tid ORDER BY bot) - 1
            FROM (SELECT DISTINCT b.tid, s.bot FROM bench_seats s
                  JOIN bench_plan b ON b.id = s.match_id WHERE b.tid IS NOT NULL) e""",
        )
        step(
            "ladders",
            """
            INSERT INTO ladders (game, variant, enabled, queue_target, sandbox, player_counts,
                                 updated_at)
            SELECT game, min(variant), true, 4, true, '{}'::json, max(created_at)
            FROM matches WHERE kind = 'ladder' GROUP BY game""",
        )
        for table in ("bench_rated", "bench_seats", "bench_plan", "bench_templates", "bench_compact"):
            cur.execute(f"DROP TABLE {table}")
        for name, definition in indexes:
            step(f"index {name}", definition)
        cur.execute("SET session_replication_role = DEFAULT")
        for table in (
            "matches",
            "match_seats",
            "rating_history",
            "ratings",
            "bots",
            "bot_versions",
            "tournaments",
            "tournament_entries",
        ):
            step(f"vacuum analyze {table}", f"VACUUM (ANALYZE) {table}")
    finally:
        raw.close()


def _loading_session(conn: Any) -> Any:
    """A cursor on ``conn`` (autocommit) set up for bulk loading."""
    cur = conn.cursor()
    cur.execute("SET session_replication_role = replica")  # no FK triggers while loading
    cur.execute("SET maintenance_work_mem = '512MB'")
    cur.execute("SET work_mem = '256MB'")
    cur.execute("SET synchronous_commit = off")
    try:  # records compress ~2.5 times faster with lz4 than with the default pglz
        cur.execute("SET default_toast_compression = 'lz4'")
    except Exception:  # noqa: BLE001 - a server built without lz4 keeps pglz
        pass
    return cur


def _drop_secondary_indexes(cur: Any, tables: tuple[str, ...]) -> list[tuple[str, str]]:
    """Drop the tables' indexes that back no constraint; their definitions, to rebuild."""
    cur.execute(
        """SELECT i.indexname, i.indexdef FROM pg_indexes i
           WHERE i.schemaname = current_schema() AND i.tablename = ANY(%s)
             AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)""",
        (list(tables),),
    )
    found = cur.fetchall()
    for name, _ in found:
        cur.execute(f'DROP INDEX "{name}"')
    return found


def _templates(
    cur: Any,
    games: tuple[str, str],
    records: Callable[[str, str, int], list[dict[str, Any]]],
    variants: tuple[str, str],
    compact_form: bool,
) -> None:
    """Real playouts, as a small table: the record split around its match id, ranks, scores;
    for compact storage also the compact record's uncompressed body split around its match id
    (:func:`_compact_body`) and the engine version it names."""
    cur.execute(
        """CREATE UNLOGGED TABLE bench_templates (
               game text, k int, variant text, players int, seed int, result json,
               forfeit json, ranks int[], scores float8[], head text, tail text,
               chead bytea, ctail bytea, engine text,
               PRIMARY KEY (game, k))"""
    )
    rows = []
    for gi, game in enumerate(games):
        for k, rec in enumerate(records(game, variants[gi], TEMPLATES)):
            result = rec["result"]
            text = json.dumps({**rec, "match_id": PLACEHOLDER}, ensure_ascii=False)
            head, tail = text.split(PLACEHOLDER)
            chead = ctail = engine = None
            if compact_form:
                chead, ctail = _compact_body(rec)
                from arena.records import compact

                engine = compact.engine_version(game)
            forfeit = [
                {
                    "seat": rec["players"] - 1,
                    "reason": "timeout",
                    "message": "no decision within the time bank",
                    "decision": None,
                }
            ]
            rows.append(
                (
                    game,
                    k,
                    rec["variant"],
                    rec["players"],
                    rec["seed"],
                    json.dumps(result),
                    json.dumps(forfeit),
                    list(result["ranks"]),
                    [float(s) for s in result["scores"]],
                    head,
                    tail,
                    chead,
                    ctail,
                    engine,
                )
            )
    cur.executemany(
        "INSERT INTO bench_templates VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        rows,
    )


def _compact_body(rec: dict[str, Any]) -> tuple[bytes, bytes]:
    """The uncompressed body of ``rec``'s compact record (:func:`arena.records.compact.encode_data`,
    which replays and verifies it) split around its match id: a match's compact record is
    ``MAGIC`` and the zstandard frame of ``head + id + tail``, byte for byte what
    ``encode`` gives for the record under that id (checked here for the template itself)."""
    import zstandard

    from arena.records import compact

    blob = compact.encode_data({**rec, "match_id": COMPACT_PLACEHOLDER})
    body = zstandard.ZstdDecompressor().decompress(blob[len(compact.MAGIC):])
    parts = body.split(COMPACT_PLACEHOLDER.encode())
    if len(parts) != 2:
        raise RuntimeError(f"{rec['game']} record: its compact body holds the id {len(parts) - 1} times")
    probe = "0123456789abcdef" * 2
    if _compress(parts[0] + probe.encode() + parts[1]) != compact.encode_data({**rec, "match_id": probe}):
        raise RuntimeError(f"{rec['game']} record: splicing the id does not give encode()'s bytes")
    return parts[0], parts[1]


def _compress(body: bytes, z: Any = None) -> bytes:
    """A compact record from its body, as :func:`arena.records.compact.encode` compresses it."""
    import zstandard

    from arena.records import compact

    z = z or zstandard.ZstdCompressor(level=compact.LEVEL)
    return compact.MAGIC + z.compress(body)


def _compact_blobs(conn: Any, cur: Any) -> int:
    """Each finished match's compact record (its template's body with the match's id,
    compressed) into ``bench_compact`` by binary COPY, :data:`COPY_ROWS` at a time; how many."""
    import zstandard

    from arena.records import compact

    z = zstandard.ZstdCompressor(level=compact.LEVEL)
    parts = {}
    cur.execute("SELECT game, k, chead, ctail FROM bench_templates")
    for game, k, chead, ctail in cur.fetchall():
        parts[(game, k)] = (bytes(chead), bytes(ctail))
    reader = conn.cursor("bench_compact_plan", withhold=True)  # server-side (autocommit: WITH HOLD)
    reader.itersize = COPY_ROWS
    reader.execute("SELECT i, id, game, k FROM bench_plan WHERE status = 'done' ORDER BY i")
    writer = conn.cursor()
    made = 0
    buf = io.BytesIO()

    def flush() -> None:
        buf.write(struct.pack("!h", -1))
        buf.seek(0)
        writer.copy_expert("COPY bench_compact (i, blob) FROM STDIN (FORMAT binary)", buf)

    def start() -> io.BytesIO:
        out = io.BytesIO()
        out.write(b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0))
        return out

    buf = start()
    rows = 0
    for i, mid, game, k in reader:
        head, tail = parts[(game, k)]
        if len(mid) != len(COMPACT_PLACEHOLDER):
            raise RuntimeError(f"match id {mid!r} is not {len(COMPACT_PLACEHOLDER)} characters")
        blob = compact.MAGIC + z.compress(head + mid.encode() + tail)
        buf.write(struct.pack("!hii", 2, 4, i))
        buf.write(struct.pack("!i", len(blob)))
        buf.write(blob)
        rows += 1
        made += 1
        if rows == COPY_ROWS:
            flush()
            buf, rows = start(), 0
    if rows:
        flush()
    reader.close()
    cur.execute("ANALYZE bench_compact")
    return made


#: The accounts' known API tokens: ``TOKEN_PREFIX + name`` (the benchmark signs in with them).
TOKEN_PREFIX = "arena-bench-token-"
#: A ``bench_dataset`` row with this kind marks a database that has the accounts and challenges
#: (a database kept from before they existed gets them once, on its next run).
ACCOUNTS_MARK = "web+accounts-v1"
#: The author whose bots get many challenges (and whose private pages are measured): the owner
#: of bot 1.
FOCUS_OWNER = "owner1"


def bench_token(owner: str) -> str:
    """The API token of the benchmark's account ``owner`` (its hash is in ``users``)."""
    return TOKEN_PREFIX + owner


def add_accounts(url: str, progress: Progress) -> bool:
    """Give the (loaded) benchmark database its accounts and challenges unless it has them:
    a user per bot owner (token :func:`bench_token`), and challenges made of existing two-player
    ladder matches (challenger: seat 0's bot, by its owner's account; opponent: seat 1's) —
    one such match in 64 over all bots, plus every one in which a bot of :data:`FOCUS_OWNER`
    sits in seat 0, so the author's bots list a full Challenges table. The matches keep their
    kind and rating: what is measured is the bot page's query over ``challenges``. Marked in
    ``bench_dataset`` (kind :data:`ACCOUNTS_MARK`); True when added now."""
    from arena.db import get_engine

    engine = get_engine(url)  # migrates the schema first (users, challenges)
    raw = engine.raw_connection()
    try:
        conn = raw.dbapi_connection
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute(
            "CREATE TABLE IF NOT EXISTS bench_dataset (kind text, bots int, matches int, "
            "loaded_s float8)"
        )
        cur.execute("SELECT 1 FROM bench_dataset WHERE kind = %s", (ACCOUNTS_MARK,))
        if cur.fetchone() is not None:
            return False
        started = time.perf_counter()
        conn.autocommit = False  # all or nothing: a half-added run is redone by the next one
        cur.execute(
            """INSERT INTO users (name, role, token_hash, created_at)
               SELECT o.owner, 'user',
                      encode(sha256(convert_to(%(prefix)s || o.owner, 'UTF8')), 'hex'), %(t0)s
               FROM (SELECT DISTINCT owner FROM bots) o
               WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.name = o.owner)""",
            {"prefix": TOKEN_PREFIX, "t0": T0},
        )
        users = cur.rowcount
        cur.execute(
            """INSERT INTO challenges (user_id, challenger_bot_id, opponent_bot_id, match_id,
                                       rated, created_at)
               SELECT u.id, v0.bot_id, v1.bot_id, m.id, m.rated,
                      m.created_at - interval '1 second'
               FROM matches m
               JOIN match_seats s0 ON s0.match_id = m.id AND s0.seat = 0
               JOIN match_seats s1 ON s1.match_id = m.id AND s1.seat = 1
               JOIN bot_versions v0 ON v0.id = s0.bot_version_id
               JOIN bot_versions v1 ON v1.id = s1.bot_version_id
               JOIN bots b ON b.id = v0.bot_id
               JOIN users u ON u.name = b.owner
               WHERE m.players = 2 AND m.kind = 'ladder' AND m.status = 'done'
                 AND (substr(m.id, 1, 2) < '04' OR b.owner = %(focus)s)
                 AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.match_id = m.id)
               ORDER BY m.created_at""",
            {"focus": FOCUS_OWNER},
        )
        challenges = cur.rowcount
        cur.execute(
            "INSERT INTO bench_dataset VALUES (%s, 0, %s, %s)",
            (ACCOUNTS_MARK, challenges, time.perf_counter() - started),
        )
        conn.commit()
        conn.autocommit = True
        for table in ("users", "challenges"):
            cur.execute(f"VACUUM (ANALYZE) {table}")
        progress(
            f"  accounts and challenges: {users:,} users, {challenges:,} challenges, "
            f"{time.perf_counter() - started:.1f} s"
        )
        return True
    finally:
        raw.close()
