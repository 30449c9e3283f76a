"""Tournaments that survive a single failure with no operator (issue 12, items 1 and 2).

Real processes only: a private ``redis-server`` on its own port (killed with SIGKILL — never the
shared one on 6379), a private PostgreSQL cluster (``initdb``/``pg_ctl`` on its own port, as the
``postgres`` user), real ``arena worker`` / ``arena beat`` / ``arena tournament`` processes.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from sqlalchemy import func, select

from arena.db import Match, Tournament, dispose_all, session_scope
from tests.platform.conftest import RANDOM_BOT, ROOT, Workers, free_port, platform_env
from tests.platform.test_celery_redis import SANDBOX, _check_every_match_exactly_once, _slow_bot
from tests.shortcut_paths import needs_tested_releases

pytestmark = pytest.mark.redis


# --- helpers: a private Redis and a private PostgreSQL ----------------------------------------


class PrivateRedis:
    """A redis-server of this test only, without persistence (a restart loses everything)."""

    def __init__(self, folder: Path, host: str = "127.0.0.1") -> None:
        self.server = shutil.which("redis-server")
        if self.server is None:
            pytest.skip("redis-server not installed")
        self.port, self.folder, self.host = free_port(), folder, host
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def start(self) -> None:
        import redis

        self.proc = subprocess.Popen(
            [self.server, "--port", str(self.port), "--bind", self.host, "--save", "",
             "--appendonly", "no", "--dir", str(self.folder),
             # Off the loopback (a test bridge only this test uses), no password: allow it.
             "--protected-mode", "yes" if self.host == "127.0.0.1" else "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                if redis.Redis(host=self.host, port=self.port).ping():
                    return
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


def _wait_for(predicate, timeout: float, what: str, logs=lambda: "") -> None:  # noqa: ANN001
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}\n{logs()}")


def _db_value(db: str, query):  # noqa: ANN001, ANN202
    """One scalar from the database ``db`` (None while it cannot be read)."""
    os.environ["ARENA_DATABASE_URL"] = db
    try:
        dispose_all()
        with session_scope() as s:
            return s.scalar(query)
    except Exception:  # noqa: BLE001 - not created yet, or restarting
        return None
    finally:
        os.environ.pop("ARENA_DATABASE_URL", None)
        dispose_all()


# --- item 1: the sweeper ------------------------------------------------------------------------

THREE_SWEEPERS = """
import json, sys, time
from arena import tasks
start = float(sys.argv[1])
while time.time() < start:
    time.sleep(0.001)
print(json.dumps({"sent": tasks.sweep()}))
"""


def test_three_sweepers_at_once_send_no_match_twice(
    redis_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tournament left ``scheduled`` (its start message lost) and three sweepers started at
    the same instant (beat, a client, ``arena resume``): it is started, and every match is in
    the queue exactly once."""
    import redis

    from arena.competition import tournaments
    from arena.intake import bots

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", db)
    dispose_all()
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"s{i}").id for i in range(6)]
        t = tournaments.create_tournament(s, "toy", ids, players=2, rounds=1)
        tid, total = t.id, t.matches_total
    dispose_all()
    env = platform_env(db, redis_db, ARENA_REQUEUE_GRACE="0")
    start = time.time() + 3.0  # all three are imported and waiting by then
    procs = [subprocess.Popen([sys.executable, "-c", THREE_SWEEPERS, str(start)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    sent = [json.loads(out.strip().splitlines()[-1])["sent"] for out, _ in outs]
    client = redis.Redis.from_url(redis_db)
    from arena.workers.tasks import _match_of_message

    messages = Counter(_match_of_message(raw) for raw in client.lrange(env["ARENA_QUEUE"], 0, -1))
    with session_scope() as s:
        assert s.get(Tournament, tid).status == "running"
        match_ids = set(s.scalars(select(Match.id).where(Match.tournament_id == tid)))
    assert total == 30 and sum(sent) == total, sent
    assert set(messages) == match_ids
    assert set(messages.values()) == {1}, "a match was sent more than once"


def test_a_sweep_goes_to_the_control_queue_and_is_taken_before_queued_matches(
    redis_db: str, tmp_path: Path
) -> None:
    """Sweeps (and beat's ladder ticks) are routed to ``<queue>.control``; ``arena worker``
    polls it first, so a sweep sent after 40 queued matches runs before all of them."""
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, redis_db)
    script = (
        "from arena import tasks\n"
        "for i in range(40):\n"
        "    tasks.play_match.apply_async(args=[f'{i:032x}'], task_id=f'play-{i:032x}-q')\n"
        "r = tasks.sweep.apply_async(task_id='the-sweep')\n"
        "print(r.id)\n"
    )
    workers = Workers(env, tmp_path)
    subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, check=True, timeout=60)
    workers.start(1)
    try:
        log = tmp_path / "worker-0.log"
        _wait_for(lambda: log.read_text(errors="replace").count("succeeded") >= 5, 60,
                  "the worker to run tasks", workers.logs)
    finally:
        workers.stop()
    order = [line for line in (tmp_path / "worker-0.log").read_text().splitlines() if "received" in line]
    assert "the-sweep" in order[0], order[:3]


# --- item 2: workers outlive the broker and the database ---------------------------------------


def _lose_redis_while_holding_a_countdown_message(tmp_path: Path, **env_extra: str) -> tuple[bool, str]:
    """A worker holds an unacknowledged countdown message when its Redis is SIGKILLed, and
    Redis comes back: (whether the worker served a new message afterwards, its log)."""
    broker = PrivateRedis(tmp_path)
    broker.start()
    env = platform_env(f"sqlite:///{tmp_path / 'arena.sqlite3'}", broker.url, **env_extra)
    workers = Workers(env, tmp_path)
    (worker,) = workers.start(1)
    send = ("import sys\nfrom arena import tasks\n"
            "tasks.play_match.apply_async(args=[sys.argv[1]], task_id='play-' + sys.argv[1] + '-t',"
            " countdown=float(sys.argv[2]))\n")
    log = tmp_path / "worker-0.log"
    try:
        workers.wait_ready()
        held = "a" * 32
        subprocess.run([sys.executable, "-c", send, held, "120"], env=env, cwd=ROOT, check=True, timeout=60)
        _wait_for(lambda: f"play-{held}-t] received" in log.read_text(errors="replace"), 30,
                  "the countdown message to reach the worker", workers.logs)
        broker.kill9()
        _wait_for(lambda: "Connection to broker lost" in log.read_text(errors="replace"), 30,
                  "the worker to notice", workers.logs)
        time.sleep(1.0)
        broker.start()
        after = "b" * 32
        subprocess.run([sys.executable, "-c", send, after, "0"], env=env, cwd=ROOT, check=True, timeout=60)
        deadline = time.time() + 60
        while time.time() < deadline and worker.poll() is None:
            if f"play-{after}-t] succeeded" in log.read_text(errors="replace"):
                return worker.poll() is None, log.read_text(errors="replace")
            time.sleep(0.2)
        return False, log.read_text(errors="replace")
    finally:
        workers.stop()
        broker.stop()


def test_worker_survives_redis_sigkill_while_holding_a_countdown_message(tmp_path: Path) -> None:
    """kombu's restore of unacknowledged messages used to crash the worker (exit 0) with
    AttributeError("'NoneType' object has no attribute 'hostname'"); now it keeps serving
    (the shortcut kombu_restore_fix, arena.workers.celery_app._patch_kombu_restore)."""
    served, log = _lose_redis_while_holding_a_countdown_message(tmp_path)
    assert served, log[-3000:]
    assert "Unrecoverable error" not in log


@needs_tested_releases()
def test_without_the_restore_fix_kombu_still_stops_the_worker(tmp_path: Path) -> None:
    """The public path of kombu_restore_fix is kombu's own restore, with its bug
    (celery/kombu#970, celery/kombu#582): the worker stops on the AttributeError and needs its
    supervisor. When a kombu release fixes it, this fails: then the work-around can go."""
    served, log = _lose_redis_while_holding_a_countdown_message(
        tmp_path, ARENA_SHORTCUTS="-kombu_restore_fix")
    assert not served
    assert "Unrecoverable error" in log and "hostname" in log, log[-3000:]


def test_worker_exits_non_zero_when_celery_stops_on_an_unrecoverable_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``app.worker_main`` drops Celery's exit code; ``arena worker`` passes it on, so a worker
    stopped by a broker failure is restarted by its supervisor instead of exiting 0."""
    from arena import cli
    from arena.workers.celery_app import app

    monkeypatch.setenv("ARENA_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'a.sqlite3'}")
    dispose_all()
    seen: list[list[str]] = []

    def fake_start(argv: list[str]) -> int:
        seen.append(argv)
        return 1  # what Celery returns after "Unrecoverable error"

    monkeypatch.setattr(app, "start", fake_start)
    result = CliRunner().invoke(cli.cli, ["worker"])
    assert result.exit_code == 1
    queues = seen[0][seen[0].index("-Q") + 1].split(",")
    assert queues[0].endswith(".control") and queues[1] == queues[0][: -len(".control")]
    dispose_all()


def _start_beat(env: dict[str, str], tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "beat", "--loglevel", "info",
         "--schedule-file", str(tmp_path / "beat" / "schedule")],
        env=env, cwd=ROOT, stdout=open(tmp_path / "beat.log", "wb"),  # noqa: SIM115
        stderr=subprocess.STDOUT, start_new_session=True)


def test_redis_down_when_a_tournament_is_submitted(tmp_path: Path) -> None:
    """The tournament is stored but its start message cannot be sent; once Redis, a worker and
    beat are up, beat's sweep starts it and it completes — no ``arena resume``."""
    broker = PrivateRedis(tmp_path)  # not started yet: Redis is down
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    env = platform_env(db, broker.url, ARENA_SWEEP_EVERY="1")
    bots = [f"--bot=b{i}={RANDOM_BOT}" for i in range(3)]
    out = subprocess.run([sys.executable, "-m", "arena", "tournament", "toy", *bots, "-k", "2",
                          "--decision-ms", "2000", "--bank-ms", "5000", *SANDBOX],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "cannot reach the broker" in out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    assert _db_value(db, select(Tournament.status)) == "scheduled"
    broker.start()
    workers = Workers(env, tmp_path)
    workers.start(1)
    beat = _start_beat(env, tmp_path)
    try:
        _wait_for(lambda: _db_value(db, select(Tournament.status)) == "done", 90,
                  "the tournament to complete",
                  lambda: workers.logs() + (tmp_path / "beat.log").read_text(errors="replace"))
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=10)
        workers.stop()
        broker.stop()
    assert len(_check_every_match_exactly_once(db)) == 6


# --- PostgreSQL restarted mid-tournament --------------------------------------------------------


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class PrivatePostgres:
    """A PostgreSQL cluster of this test only (``initdb`` + ``pg_ctl``), on its own port, run as
    the ``postgres`` user when this process is root (PostgreSQL refuses to run as root)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.initdb, self.pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        if not self.initdb or not self.pg_ctl:
            pytest.skip("PostgreSQL server binaries not installed")
        self.user = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no postgres user")
            self.user = "postgres"
        self.folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        if self.user:
            shutil.chown(self.folder, self.user)

    def _run(self, *cmd: str) -> None:
        full = ["runuser", "-u", self.user, "--", *cmd] if self.user else list(cmd)
        out = subprocess.run(full, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {out.stdout}{out.stderr}")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg2://postgres@{self.host}:{self.port}/postgres"

    def init(self, trust_net: str | None = None) -> None:
        """``trust_net``: also accept connections from that network (e.g. 10.1.2.0/24)."""
        self._run(self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        if trust_net:
            with open(self.data / "pg_hba.conf", "a") as hba:
                hba.write(f"host all all {trust_net} trust\n")

    def start(self) -> None:
        opts = (f"-p {self.port} -k {self.folder} -c listen_addresses={self.host} -c fsync=off "
                "-c max_connections=60")
        self._run(self.pg_ctl, "-D", str(self.data), "-o", opts, "-l", str(self.folder / "log"),
                  "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except RuntimeError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    pg = PrivatePostgres()
    try:
        pg.init()
        pg.start()
        yield pg
    finally:
        pg.destroy()


def test_postgres_restarted_mid_tournament(
    redis_db: str, tmp_path: Path, private_pg: PrivatePostgres
) -> None:
    """Two workers play while PostgreSQL is stopped for a few seconds and started again: the
    tournament completes, every match recorded exactly once, ratings equal a rebuild."""
    db = private_pg.url
    env = platform_env(db, redis_db, ARENA_DB_RETRY_SECONDS="120")
    workers = Workers(env, tmp_path)
    workers.start(2)
    log = tmp_path / "tournament.log"
    bots = [f"--bot=b{i}={_slow_bot(tmp_path, 0.05)}" for i in range(4)]
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "toy", *bots, "-k", "2",
                             "--decision-ms", "2000", "--bank-ms", "5000", *SANDBOX],
                            env=env, cwd=ROOT, stdout=open(log, "wb"),  # noqa: SIM115
                            stderr=subprocess.STDOUT)
    try:
        done = select(func.count()).select_from(Match).where(Match.status == "done")
        running = select(func.count()).select_from(Match).where(Match.status == "running")
        _wait_for(lambda: (_db_value(db, done) or 0) >= 2 and (_db_value(db, running) or 0) >= 1,
                  90, "matches to be under way", workers.logs)
        private_pg.stop("fast")  # kills every connection, mid-match
        time.sleep(4.0)          # longer than a lease: heartbeats and recordings fail meanwhile
        private_pg.start()
        try:
            proc.wait(timeout=150)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"tournament did not finish\n{log.read_text()}\n{workers.logs()}")
        assert proc.returncode == 0, log.read_text() + workers.logs()
    finally:
        if proc.poll() is None:
            proc.kill()
        workers.stop()
    assert "12 played, 0 failed" in log.read_text()
    assert len(_check_every_match_exactly_once(db)) == 12
    assert "database unavailable" in workers.logs(tail=None)  # the outage really hit the workers


# --- item 4 (first part): health check while playing, SIGTERM finishes the match ---------------


def test_health_file_stays_fresh_while_playing_and_sigterm_finishes_the_match(
    redis_db: str, tmp_path: Path
) -> None:
    """The worker's health check (a file its own thread touches while it holds a broker
    connection) stays true while its solo pool plays a match; SIGTERM then lets it finish that
    match (recorded once, by this worker, on the first attempt) and exit 0."""
    from arena.workers.celery_app import HEALTH_EVERY, worker_healthy

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    alive = tmp_path / "alive"
    env = platform_env(db, redis_db, ARENA_WORKER_HEALTH_FILE=str(alive), ARENA_LEASE_SECONDS="20")
    workers = Workers(env, tmp_path)
    (worker,) = workers.start(1)
    log = tmp_path / "tournament.log"
    bots = [f"--bot=b{i}={_slow_bot(tmp_path, 1.5)}" for i in range(2)]
    submit = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "toy", *bots, "-k", "2",
                               "--decision-ms", "4000", "--bank-ms", "60000", *SANDBOX],
                              env=env, cwd=ROOT, stdout=open(log, "wb"),  # noqa: SIM115
                              stderr=subprocess.STDOUT)
    try:
        running = select(Match.id).where(Match.status == "running")
        _wait_for(lambda: _db_value(db, running) is not None, 90, "a match to start", workers.logs)
        playing = _db_value(db, running)
        fresh = []
        for _ in range(4):  # over two health periods, all while the match is being played
            fresh.append(worker_healthy(alive, max_age=2 * HEALTH_EVERY))
            time.sleep(HEALTH_EVERY / 2)
        # The compose file's own health check command, run as Docker would, mid-match.
        check = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["worker"]["healthcheck"]["test"]
        assert check[:3] == ["CMD", "python", "-c"]
        compose_check = subprocess.run([sys.executable, "-c", check[3]], env=env, cwd=ROOT,
                                       capture_output=True, text=True, timeout=60)
        assert _db_value(db, select(Match.status).where(Match.id == playing)) == "running"
        assert all(fresh), fresh
        assert compose_check.returncode == 0, compose_check.stderr
        worker.send_signal(signal.SIGTERM)  # the main process only: its bots are not signalled
        assert worker.wait(timeout=120) == 0, workers.logs()
    finally:
        submit.kill()
        submit.wait()
        workers.stop()
    assert _db_value(db, select(Match.status).where(Match.id == playing)) == "done"
    assert _db_value(db, select(Match.attempts).where(Match.id == playing)) == 1
    assert _db_value(db, select(func.count()).select_from(Match).where(Match.status == "done")) == 1
    assert not alive.exists()  # removed at shutdown: a stopped worker is not "healthy"
    stopped_check = subprocess.run([sys.executable, "-c", check[3]], env=env, cwd=ROOT,
                                   capture_output=True, text=True, timeout=60)
    assert stopped_check.returncode != 0  # the same command fails once the worker is gone


STALE_SCRIPT = """
import json, time
from arena import tasks
from arena.workers.celery_app import app
from arena.db import Match, session_scope
from sqlalchemy import select
with session_scope() as s:
    stuck, held = sorted(s.scalars(select(Match.id)))[:2]
queue = app.conf.task_default_queue
with app.connection_for_write() as conn:
    client = conn.default_channel.client
    for tag, mid, age in (("t-stuck", stuck, 10 * tasks.UNACKED_STALE), ("t-held", held, 1.0)):
        message = {"headers": {"id": f"play-{mid}-x"}}
        client.hset("unacked", f"{queue}-{tag}", json.dumps([message, "", queue]))
        client.zadd("unacked_index", {f"{queue}-{tag}": time.time() - age})
sent = tasks.sweep()
queued = sorted(tasks.broker_snapshot()[0])
print(json.dumps({"stuck": stuck, "held": held, "sent": sent, "queued": queued}))
"""


def test_sweeper_resends_a_match_whose_message_a_worker_holds_too_long(
    redis_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pending match whose message sits in Redis' ``unacked`` hash for far longer than a
    claim takes (a worker lost Redis while holding it, and Redis kept it) is re-sent; one
    delivered a second ago is left alone."""
    from arena.competition import tournaments
    from arena.intake import bots

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", db)
    dispose_all()
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"u{i}").id for i in range(2)]
        tournaments.create_tournament(s, "toy", ids, players=2, rounds=1)  # 2 matches
    dispose_all()
    env = platform_env(db, redis_db, ARENA_REQUEUE_GRACE="0")
    out = subprocess.run([sys.executable, "-c", STALE_SCRIPT], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["sent"] == 1 and result["queued"] == [result["stuck"]]


# --- issue 30 item 4: recovery never multiplies messages ------------------------------------------

MANY_SWEEPS_SCRIPT = """
import json, time
from collections import Counter
from sqlalchemy import update
from arena import recording, tasks
from arena.workers.celery_app import app
from arena.db import Match, session_scope
from arena.workers.tasks import _match_of_message
with session_scope() as s:
    ids = [recording.create_match(s, "toy", "base", pair, seed=i, kind="adhoc").id
           for i, pair in enumerate([(1, 2), (2, 1), (1, 2), (2, 1)])]
pending, expired, dead, retrying = ids
now = time.time()
with session_scope() as s:  # three matches whose worker's lease ran out a second ago
    s.execute(update(Match).where(Match.id.in_([expired, dead, retrying]))
              .values(status="running", worker="gone:1", lease_until=now - 1))
queue = app.conf.task_default_queue
with app.connection_for_write() as conn:
    client = conn.default_channel.client
    # dead: the copy its (killed) player was delivered, before that player's lease began;
    # retrying: a copy delivered after the lease, that a worker holds for a retry countdown.
    for tag, mid, since in (("t-dead", dead, now - 1 - recording.LEASE_SECONDS - 2),
                            ("t-retry", retrying, now - 0.5)):
        message = {"headers": {"id": f"play-{mid}-x"}}
        client.hset("unacked", f"{queue}-{tag}", json.dumps([message, "", queue]))
        client.zadd("unacked_index", {f"{queue}-{tag}": since})
sent = [tasks.sweep() for _ in range(8)]  # no worker takes anything meanwhile
with app.connection_for_write() as conn:
    raws = conn.default_channel.client.lrange(queue, 0, -1)
copies = Counter(_match_of_message(raw) for raw in raws)
print(json.dumps({"sent": sent, "copies": {k: copies.get(v, 0) for k, v in
                  (("pending", pending), ("expired", expired), ("dead", dead), ("retrying", retrying))}}))
"""


def test_many_sweeps_with_no_worker_leave_one_copy_of_each_match(
    redis_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight sweeps and no worker: a pending match, a running match whose lease expired, and one
    whose dead worker's delivery is still in ``unacked`` are each in the queue exactly once (the
    first sweep sends them, the others see the queued copy); a running match with a copy
    delivered after its lease expired (a worker's retry countdown) is not sent at all."""
    from arena.intake import bots

    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv("ARENA_DATABASE_URL", db)
    dispose_all()
    with session_scope() as s:
        assert [bots.register_version(s, "toy", RANDOM_BOT, name=f"m{i}").id for i in range(2)] == [1, 2]
    dispose_all()
    env = platform_env(db, redis_db, ARENA_REQUEUE_GRACE="0")
    out = subprocess.run([sys.executable, "-c", MANY_SWEEPS_SCRIPT], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["copies"] == {"pending": 1, "expired": 1, "dead": 1, "retrying": 0}, result
    assert result["sent"] == [3, 0, 0, 0, 0, 0, 0, 0], result
