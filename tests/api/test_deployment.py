"""The deployment's division of privileges and its broker failures, with real processes (issue 12,
item 4): ``arena serve`` as an unprivileged user with qualification played by a root
``arena worker``, and CreateTournament while the broker is down."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.sdk.client import ArenaClient
from referee._proto import arena_pb2 as pb
from tests.api.processes import (
    ROOT,
    _stop,
    _wait_serving,
    free_port,
    private_redis,
    private_redis_available,
)

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not private_redis_available(), reason="needs redis-server to start a private broker"),
]

RANDOM_BOT = ROOT / "sample_bots" / "random_bot"
TOY = "tests.toy_game:ToyState"


@contextmanager
def system_user() -> Iterator[pwd.struct_passwd]:
    """A system account made for this test (like the image's ``arena`` user), removed after."""
    if os.geteuid() != 0 or not all(shutil.which(t) for t in ("useradd", "userdel", "setpriv", "bwrap")):
        pytest.skip("needs root with useradd, setpriv and bubblewrap")
    name = f"arenat{uuid.uuid4().hex[:8]}"
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                   check=True, capture_output=True, timeout=30)
    user = pwd.getpwnam(name)
    try:
        yield user
    finally:
        deadline = time.monotonic() + 10
        while (left := _pids_of_uid(user.pw_uid)) and time.monotonic() < deadline:
            for pid in left:  # the test's own server, if it outlived its stop
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        gone = subprocess.run(["userdel", name], capture_output=True, text=True, timeout=30)
        assert gone.returncode == 0, gone.stderr


def _pids_of_uid(uid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _closed_ancestor(path: Path) -> Path | None:
    """The outermost folder above ``path`` that other users cannot enter (e.g. /root), if any."""
    for parent in reversed(path.parents):
        if parent != Path("/") and not parent.stat().st_mode & stat.S_IXOTH:
            return parent
    return None


def as_user(user: pwd.struct_passwd, cmd: list[str]) -> list[str]:
    """``cmd`` run with the user's uid and gid, no supplementary groups and no capabilities.

    When this Python is installed where other users cannot read it (pyenv under /root here; an
    image's /usr/local is readable by all), a private mount namespace shows that one install
    read-only — everything else, the project included, is the machine's own.
    """
    drop = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
            "--inh-caps=-all", "--", *cmd]
    prefix = Path(sys.base_prefix).resolve()
    closed = _closed_ancestor(prefix)
    if closed is None:
        return drop
    args = ["bwrap", "--die-with-parent", "--unshare-pid", "--dev-bind", "/", "/", "--perms", "0755", "--tmpfs", str(closed)]
    for parent in reversed(prefix.parents):  # bwrap would make the missing ones 0700
        if closed in parent.parents:
            args += ["--perms", "0755", "--dir", str(parent)]
    return [*args, "--ro-bind", str(prefix), str(prefix), *drop]


def _uids_of(port: int) -> set[int]:
    """Real uids of the running ``arena serve --port PORT`` processes."""
    uids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if b"serve" in argv and str(port).encode() in argv and b"setpriv" not in argv[0] \
                    and b"bwrap" not in argv[0]:
                status = (entry / "status").read_text()
                uids.add(int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1]))
        except (OSError, StopIteration):
            continue
    return uids


def _status(client: ArenaClient, bot_id: int, number: int) -> int:
    return client.version_status(bot_id, number).status


def test_qualification_is_played_by_the_worker_while_the_server_runs_unprivileged(tmp_path: Path) -> None:
    """The server (an ordinary user: no root, no capabilities) stores the upload and sends its
    qualification to the workers: nothing is played until a root ``arena worker`` starts, which
    then sandboxes and qualifies it; a ``wait`` submission waits for the worker's verdict."""
    with system_user() as user, private_redis(tmp_path) as redis_url:
        base = Path(tempfile.mkdtemp(prefix="arena-unpriv-"))  # outside root's 0700 pytest folder
        os.chown(base, user.pw_uid, user.pw_gid)
        procs: list[subprocess.Popen] = []
        server_log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
        try:
            port = free_port()
            env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(base),
                   "ARENA_DATABASE_URL": f"sqlite:///{base / 'arena.sqlite3'}",
                   "ARENA_DATA_DIR": str(base / "data"), "ARENA_BROKER_URL": redis_url,
                   "ARENA_EXTRA_GAMES": TOY, "ARENA_WORKER_HEALTH_FILE": str(tmp_path / "alive")}
            for key in ("ARENA_SANDBOX", "ARENA_QUEUE"):
                env.pop(key, None)
            serve = [sys.executable, "-m", "arena", "serve", "--port", str(port), "--host", "127.0.0.1"]
            procs.append(subprocess.Popen(as_user(user, serve), env=env, cwd=ROOT,
                                          stdout=server_log, stderr=subprocess.STDOUT))
            address = f"127.0.0.1:{port}"
            _wait_serving(address, procs[0])
            assert _uids_of(port) == {user.pw_uid}

            with ArenaClient(address) as anon:
                token = anon.register("unpriv-uma").token
            with ArenaClient(address, token=token) as client:
                first = client.submit(RANDOM_BOT, "toy", "uma-bot", wait=False)
                bot_id = first.bot.bot.id
                assert first.version.status == pb.VERSION_STATUS_QUALIFYING
                time.sleep(3.0)  # the server itself plays nothing
                assert _status(client, bot_id, 1) == pb.VERSION_STATUS_QUALIFYING

                worker_log = tmp_path / "worker.log"
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "arena", "worker", "--concurrency", "1", "--loglevel", "info"],
                    env=env, cwd=ROOT, stdout=open(worker_log, "wb"),  # noqa: SIM115
                    stderr=subprocess.STDOUT, start_new_session=True))
                deadline = time.monotonic() + 90
                while _status(client, bot_id, 1) == pb.VERSION_STATUS_QUALIFYING:
                    assert time.monotonic() < deadline, worker_log.read_text(errors="replace")
                    time.sleep(0.3)
                assert _status(client, bot_id, 1) == pb.VERSION_STATUS_ACTIVE, \
                    client.version_status(bot_id, 1)

                # A later version is held while its SPRT runs — on the worker that recorded its
                # verdict; two pairs and "replace always" so that it ends quickly either way.
                sprt = pb.SprtSettings(max_pairs=2, replace_always=True)
                second = client.submit(RANDOM_BOT, "toy", "uma-bot", wait=True, sprt=sprt)
                assert second.version.number == 2
                assert second.version.status == pb.VERSION_STATUS_TESTING, second.version
                deadline = time.monotonic() + 90
                while _status(client, bot_id, 2) == pb.VERSION_STATUS_TESTING:
                    assert time.monotonic() < deadline, worker_log.read_text(errors="replace")
                    time.sleep(0.3)
                done = client.version_status(bot_id, 2)
                assert done.status == pb.VERSION_STATUS_ACTIVE and done.sprt.replaced, done
                assert done.sprt.pairs == 2 and done.sprt.games == 4, done.sprt
            text = worker_log.read_text(errors="replace")
            assert text.count("arena.tasks.qualify_submission") >= 2 and "succeeded" in text, text
            # The server wrote the uploads as its own user; the worker (root) read and played them.
            for number in (1, 2):
                folder = base / "data" / "bots" / str(bot_id) / f"v{number}"
                assert folder.stat().st_uid == user.pw_uid
            assert _uids_of(port) == {user.pw_uid}
        finally:
            for proc in reversed(procs):  # the worker first (its own session: its bots too)
                if proc.args[0] == sys.executable and proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)
                _stop(proc)
            server_log.close()
            shutil.rmtree(base, ignore_errors=True)


def test_create_tournament_while_the_broker_is_down_is_stored_with_its_start_pending(tmp_path: Path) -> None:
    """CreateTournament succeeds though its start message cannot be sent: the tournament is
    stored, ``scheduled``, with a notice that the start is pending; a sweep once Redis is back
    starts it (no operator)."""
    redis_port = free_port()  # nothing listens here yet: the broker is down
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.sqlite3'}",
           "ARENA_DATA_DIR": str(tmp_path / "data"), "ARENA_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
           "ARENA_EXTRA_GAMES": TOY, "ARENA_REQUEUE_GRACE": "0"}
    env.pop("ARENA_QUEUE", None)
    setup = ("import arena.workers.celery_app  # registers ARENA_EXTRA_GAMES\nfrom arena import bots\nfrom arena.db import init_db, session_scope\ninit_db()\n"
             "with session_scope() as s:\n"
             f"    for i in range(3): bots.register_version(s, 'toy', {str(RANDOM_BOT)!r}, name=f'r{{i}}')\n")
    subprocess.run([sys.executable, "-c", setup], env=env, cwd=ROOT, check=True, timeout=60)
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed with the test's process
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--port", str(port), "--host", "127.0.0.1"],
                              env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        address = f"127.0.0.1:{port}"
        _wait_serving(address, server)
        with ArenaClient(address) as anon:
            token = anon.register("olga-organiser").token
        promoted = subprocess.run([sys.executable, "-m", "arena", "organiser", "olga-organiser"],
                                  env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert promoted.returncode == 0, promoted.stderr
        with ArenaClient(address, token=token) as client:
            started = time.monotonic()
            try:
                created = client.create_tournament(game="toy", players=2, rounds=1)
            except grpc.RpcError as exc:
                pytest.fail(f"CreateTournament failed with the broker down: {exc.code()} {exc.details()}")
            assert time.monotonic() - started < 10  # no long wait on the unreachable broker
            assert created.status == "scheduled" and created.matches_total == 6
            assert created.notice.startswith("start pending"), created.notice
            assert client.tournament(created.id).status == "scheduled"  # stored, not lost

            with private_redis(tmp_path, port=redis_port):
                swept = subprocess.run([sys.executable, "-c", "from arena import tasks; print(tasks.sweep())"],
                                       env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
                assert swept.returncode == 0, swept.stderr
                assert swept.stdout.split()[-1] == "6"  # started, its six matches sent
                after = client.tournament(created.id)
                assert after.status == "running" and not after.notice
    finally:
        _stop(server)
        log.close()


def test_a_qualification_message_redis_lost_is_sent_again(tmp_path: Path) -> None:
    """A submission's qualification message held in Redis is never duplicated; once Redis has
    lost it (a restart without persistence), the server sends it again, and a worker that
    starts afterwards qualifies the version."""
    import redis

    from arena.workers.tasks import QUALIFY_TASK_PREFIX, _task_id_of

    with private_redis(tmp_path) as redis_url:
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.sqlite3'}",
               "ARENA_DATA_DIR": str(tmp_path / "data"), "ARENA_BROKER_URL": redis_url, "ARENA_EXTRA_GAMES": TOY,
               "ARENA_QUALIFY_LOST_AFTER": "2", "ARENA_SANDBOX": "0",
               "ARENA_WORKER_HEALTH_FILE": str(tmp_path / "alive")}
        env.pop("ARENA_QUEUE", None)
        client_redis = redis.Redis.from_url(redis_url)

        def queued() -> list[str]:
            return [t for t in map(_task_id_of, client_redis.lrange("arena", 0, -1)) if t]

        logs = [open(tmp_path / name, "wb") for name in ("server.log", "worker.log")]  # noqa: SIM115
        procs = [subprocess.Popen([sys.executable, "-m", "arena", "serve", "--port", str(port), "--host", "127.0.0.1"],
                                  env=env, cwd=ROOT, stdout=logs[0], stderr=subprocess.STDOUT)]
        try:
            address = f"127.0.0.1:{port}"
            _wait_serving(address, procs[0])
            with ArenaClient(address) as anon:
                token = anon.register("lost-lena").token
            with ArenaClient(address, token=token) as client:
                reply = client.submit(RANDOM_BOT, "toy", "lena-bot", wait=False)
                bot_id = reply.bot.bot.id
                (first,) = queued()
                assert first.startswith(QUALIFY_TASK_PREFIX)
                time.sleep(7.0)  # past LOST_AFTER and a resend round: held, so not sent again
                assert queued() == [first]

                client_redis.delete("arena")  # Redis lost it
                deadline = time.monotonic() + 30
                while not queued():
                    assert time.monotonic() < deadline, (tmp_path / "server.log").read_text()
                    time.sleep(0.3)
                (again,) = queued()
                assert again != first and again.startswith(f"{QUALIFY_TASK_PREFIX}")
                assert "was lost; sending it again" in (tmp_path / "server.log").read_text()

                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "arena", "worker", "--concurrency", "1", "--loglevel", "info"],
                    env=env, cwd=ROOT, stdout=logs[1], stderr=subprocess.STDOUT, start_new_session=True))
                deadline = time.monotonic() + 90
                while _status(client, bot_id, 1) == pb.VERSION_STATUS_QUALIFYING:
                    assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
                    time.sleep(0.3)
                assert _status(client, bot_id, 1) == pb.VERSION_STATUS_ACTIVE
        finally:
            for proc in reversed(procs):
                if proc.poll() is None and proc is not procs[0]:
                    os.killpg(proc.pid, signal.SIGTERM)
                _stop(proc)
            for log in logs:
                log.close()


def test_a_submission_is_decided_once_however_often_it_is_qualified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs of one qualification (a message delivered twice): the first verdict stands, the
    second records nothing, and a run after the verdict plays no match."""
    from sqlalchemy import func, select

    from arena.db import Bot, BotVersion, dispose_all, init_db, session_scope
    from arena.db.accounts import QUALIFIED, QUALIFYING, Submission
    from arena.intake import qualification

    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.sqlite3'}")
    dispose_all()
    init_db()
    with session_scope() as s:
        bot = Bot(owner="ola", name="ola-bot", game="toy", active=False)
        s.add(bot)
        s.flush()
        sub = Submission(bot_id=bot.id, number=1, kind="hosted", source=str(RANDOM_BOT), status=QUALIFYING)
        s.add(sub)
        s.flush()
        sub_id = sub.id
    passed = qualification.Outcome(True, "m" * 32, record={"ok": True})
    refused = qualification.Outcome(False, "n" * 32, "crash", "it crashed")
    assert qualification.record_verdict(sub_id, passed) == "qualified"
    assert qualification.record_verdict(sub_id, refused) == "skipped"
    monkeypatch.setattr(qualification, "qualify", lambda *a, **k: pytest.fail("played a decided submission"))
    assert qualification.qualify_submission(sub_id, qualification.Settings(sandbox=False)) == "skipped"
    with session_scope() as s:
        sub = s.get(Submission, sub_id)
        assert (sub.status, sub.match_id, sub.refusal_kind) == (QUALIFIED, "m" * 32, None)
        assert s.scalar(select(func.count()).select_from(BotVersion)) == 1
        assert s.get(Bot, sub.bot_id).active
    dispose_all()
