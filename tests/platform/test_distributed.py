"""One machine → many, exercised (issue 12, item 5): the worker processes run in network
namespaces of their own, each reaching Redis and PostgreSQL only over a veth link to a bridge on
the host — the nearest thing to separate machines this host allows. Needs root (``ip netns``)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.platform.conftest import RANDOM_BOT, ROOT, platform_env
from tests.platform.test_celery_redis import SANDBOX, _check_every_match_exactly_once
from tests.platform.test_resilience import PrivatePostgres, PrivateRedis

pytestmark = pytest.mark.redis


class Network:
    """A bridge on the host (``<prefix>.1``) and namespaces joined to it by veth pairs."""

    def __init__(self) -> None:
        if os.geteuid() != 0 or shutil.which("ip") is None:
            pytest.skip("network namespaces need root and iproute2")
        self.tag = uuid.uuid4().hex[:5]
        self.prefix = f"10.{random.randint(200, 250)}.{random.randint(1, 254)}"
        self.bridge = f"arb{self.tag}"
        self.namespaces: list[str] = []
        self.links: list[str] = []
        try:
            self._ip("link", "add", self.bridge, "type", "bridge")
        except RuntimeError as exc:
            pytest.skip(f"cannot create a bridge here: {exc}")
        self._ip("addr", "add", f"{self.host}/24", "dev", self.bridge)
        self._ip("link", "set", self.bridge, "up")

    @property
    def host(self) -> str:
        return f"{self.prefix}.1"

    @staticmethod
    def _ip(*args: str) -> None:
        out = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"ip {' '.join(args)}: {out.stderr.strip()}")

    def add_namespace(self) -> str:
        i = len(self.namespaces) + 1
        ns, outer, inner = f"arena-{self.tag}-{i}", f"arv{self.tag}{i}h", f"arv{self.tag}{i}n"
        self._ip("netns", "add", ns)
        self.namespaces.append(ns)
        self._ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        self.links.append(outer)
        self._ip("link", "set", inner, "netns", ns)
        self._ip("link", "set", outer, "master", self.bridge)
        self._ip("link", "set", outer, "up")
        self._ip("-n", ns, "addr", "add", f"{self.prefix}.{i + 1}/24", "dev", inner)
        self._ip("-n", ns, "link", "set", inner, "up")
        self._ip("-n", ns, "link", "set", "lo", "up")
        return ns

    def close(self) -> None:
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        for link in [*self.links, self.bridge]:
            subprocess.run(["ip", "link", "del", link], capture_output=True)


@pytest.fixture
def network() -> Iterator[Network]:
    net = Network()
    try:
        yield net
    finally:
        net.close()


REACH = """
import socket, sys
def reach(host, port):
    try:
        socket.create_connection((host, port), timeout=2).close()
        return True
    except OSError:
        return False
print(reach(sys.argv[1], int(sys.argv[2])), reach("127.0.0.1", int(sys.argv[2])))
"""


def test_workers_in_their_own_network_namespaces(network: Network, tmp_path: Path) -> None:
    """Two workers, each in a namespace of its own, play a round-robin submitted from the host;
    Redis and PostgreSQL listen only on the bridge address. Every match exactly once, both
    workers played, ratings equal a rebuild."""
    broker = PrivateRedis(tmp_path, host=network.host)
    pg = PrivatePostgres(host=network.host)
    procs: list[subprocess.Popen] = []
    try:
        pg.init(trust_net=f"{network.prefix}.0/24")
        pg.start()
        broker.start()
        env = platform_env(pg.url, broker.url)
        namespaces = [network.add_namespace(), network.add_namespace()]
        # From inside a namespace the services are reachable only over the link: the host's
        # loopback (where this machine's shared Redis listens) is not there.
        seen = subprocess.run(["ip", "netns", "exec", namespaces[0], sys.executable, "-c", REACH,
                               network.host, str(broker.port)], capture_output=True, text=True,
                              timeout=30)
        assert seen.stdout.split() == ["True", "False"], seen.stderr
        for i, ns in enumerate(namespaces):
            log = open(tmp_path / f"worker-{i}.log", "wb")  # noqa: SIM115
            procs.append(subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, "-m", "arena", "worker", "--loglevel", "info"],
                env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        bots = [f"--bot=b{i}={RANDOM_BOT}" for i in range(4)]
        out = subprocess.run([sys.executable, "-m", "arena", "tournament", "toy", *bots, "-k", "2",
                              "--decision-ms", "2000", "--bank-ms", "5000", *SANDBOX],
                             env=env, cwd=ROOT, capture_output=True, text=True, timeout=150)
        logs = "\n".join(p.read_text(errors="replace")[-3000:] for p in tmp_path.glob("worker-*.log"))
        assert out.returncode == 0, out.stdout + out.stderr + logs
        assert "12 played, 0 failed" in out.stdout
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        broker.stop()
    try:
        matches = _check_every_match_exactly_once(pg.url)
        played_by = {m.worker.split(":")[1] for m in matches}
        assert len(played_by) == 2, played_by  # both namespaces' workers took part
    finally:
        pg.destroy()
