"""Toolkit wrappers' steps per CPU second beside the bare engine's decisions per CPU second.

Every loop plays 2-player games of the game's default variant with uniformly random legal
choices, seeds 0, 1, 2, … until it has used ``seconds`` of CPU time of this process
(``process_time``: other load on the machine slows the run, not the figures much). What each
loop does per decision:

* ``engine``: ``state.option_ids()`` and ``state.apply(choice)`` — the bare engine, nothing a
  seat would need to decide;
* ``engine+observation``: the same plus ``state.observation(seat)`` for the seat to move — the
  engine work any agent needs to *see* the game (the referee builds it for every decision), so
  the honest baseline for a wrapper that hands out an observation;
* ``pettingzoo``: ``agent_iter()``, ``last()`` (the float32 vector and the mask), a random legal
  index from the mask, ``step()``; ``pettingzoo-mask``: the same with ``observation="mask"``
  (no vector; the infos still offer the structured observation when read);
* ``gymnasium``: ``step()`` of the single-agent environment against ``random`` opponents (each
  step also plays the other seat's decisions, counted as decisions here) with the vector;
  ``gymnasium+masks``: the same, the legal indices read from ``action_masks()`` as a
  maskable-PPO implementation does (instead of the observation's mask);
* ``openspiel``: ``legal_actions()`` and ``apply_action()`` of the registered Python game (which
  keeps every seat's perfect-recall digest: an observation per seat per move).

The ratios are what to read: ``pettingzoo / engine`` and ``gymnasium+masks / engine`` (issue #38
asks for >= 0.5), ``pettingzoo-mask / engine``.

Then, per game, one env in this process against Gymnasium's ``AsyncVectorEnv`` with two worker
processes and against the batched vector env (:mod:`arena.envs.vector`: two worker processes
of eight sub-envs each), in steps per *wall-clock* second (:func:`bench_vector`; >= 1.6x asked
on two cores): the only figures here that other load on the machine distorts, since they
measure parallelism (their CPU µs per step, also printed, it changes little). Their
sub-envs play against ``random`` opponents, or ``greedy`` (the environments' default) with
``opponents="greedy"`` (``--opponents greedy``).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

from referee import registry

GAMES = ("black_angel", "solenia", "orbital")


def _timed(loops: dict[str, Callable[[int], int]], seconds: float) -> dict[str, dict[str, Any]]:
    """Run every loop on seeds 0, 1, … until each has used ``seconds`` of CPU time, in rounds
    of one game per loop (the same seeds for all, and any change in the machine's load shared
    alike, so the ratios hold even when the absolute figures wander)."""
    spent = dict.fromkeys(loops, 0.0)
    decisions = dict.fromkeys(loops, 0)
    games = dict.fromkeys(loops, 0)
    seed = 0
    while min(spent.values()) < seconds:
        for name, loop in loops.items():
            if spent[name] >= seconds:
                continue
            t0 = time.process_time()
            decisions[name] += loop(seed)
            spent[name] += time.process_time() - t0
            games[name] += 1
        seed += 1
    return {
        name: {
            "decisions": decisions[name],
            "games": games[name],
            "cpu_s": round(spent[name], 2),
            "per_s": round(decisions[name] / spent[name]) if spent[name] else 0,
        }
        for name in loops
    }


def _engine(game: str, observe: bool) -> Callable[[int], int]:
    def play(seed: int) -> int:
        state = registry.new_game(game, 2, seed, None)
        rng = random.Random(seed)
        n = 0
        while (seat := state.to_move()) is not None:
            ids = state.option_ids()
            if observe:
                state.observation(seat)
            state.apply(ids[rng.randrange(len(ids))])
            n += 1
        return n

    return play


def _pettingzoo(game: str, mode: str) -> Callable[[int], int]:

    from arena.envs.pettingzoo import env

    e = env(game, 2, observation=mode)

    def play(seed: int) -> int:
        e.reset(seed=seed)
        rng = random.Random(seed)
        n = 0
        for _agent in e.agent_iter():
            obs, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = obs["action_mask"].view(bool).nonzero()[0]  # the fastest numpy spelling (docs)
            e.step(int(legal[rng.randrange(len(legal))]))
            n += 1
        return n

    return play


def _gymnasium(game: str, masks: bool = False) -> Callable[[int], int]:

    from arena.envs.gymnasium import env

    e = env(game, opponents="random", players=2)
    moves = [0]
    opponent = e._opponent  # counted, so the figure is decisions (the learner's and the bots')

    def counted(state: Any, seat: int, rng: random.Random) -> str:
        moves[0] += 1
        return opponent(state, seat, rng)

    e._opponent = counted

    def play(seed: int) -> int:
        moves[0] = 0
        obs, _ = e.reset(seed=seed)
        rng = random.Random(seed)
        n = 0
        done = False
        while not done:
            mask = e.action_masks() if masks else obs["action_mask"].view(bool)
            legal = mask.nonzero()[0]  # the fastest numpy spelling (docs)
            obs, _r, done, _t, _i = e.step(int(legal[rng.randrange(len(legal))]))
            n += 1
        return n + moves[0]

    return play


def _openspiel(game: str) -> Callable[[int], int]:
    import pyspiel

    import arena.envs.openspiel  # noqa: F401  (registers the games)

    g = pyspiel.load_game(f"tabletop_{game}", {"players": 2, "variant": ""})

    def play(seed: int) -> int:
        state = g.new_initial_state()
        state.apply_action(seed)
        rng = random.Random(seed)
        n = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return play


def bench_game(
    game: str,
    seconds: float = 3.0,
    toolkits: tuple[str, ...] = ("pettingzoo", "gymnasium", "openspiel"),
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    loops: dict[str, Callable[[int], int]] = {
        "engine": _engine(game, False),
        "engine+observation": _engine(game, True),
    }
    if "pettingzoo" in toolkits:
        loops["pettingzoo"] = _pettingzoo(game, "vector")
        loops["pettingzoo-mask"] = _pettingzoo(game, "mask")
    if "gymnasium" in toolkits:
        loops["gymnasium"] = _gymnasium(game)
        loops["gymnasium+masks"] = _gymnasium(game, masks=True)
    if "openspiel" in toolkits:
        loops["openspiel"] = _openspiel(game)
    for loop in loops.values():  # warm-up: imports, catalogues, the encoder's path table
        loop(10_000)
    rows = _timed(loops, seconds)
    if progress is not None:
        for name, row in rows.items():
            progress(f"{game} {name}: {row['per_s']} decisions per CPU s ({row['games']} games)")
    engine = rows["engine"]["per_s"]
    seen = rows["engine+observation"]["per_s"]
    out: dict[str, Any] = {"game": game, **{f"{k}_per_cpu_s": v["per_s"] for k, v in rows.items()}}
    for name in rows:
        if name.startswith("engine"):
            continue
        out[f"{name}_vs_engine"] = round(rows[name]["per_s"] / engine, 2)
        out[f"{name}_vs_engine+observation"] = round(rows[name]["per_s"] / seen, 2)
    return out


def _make_env(game: str, opponents: str = "random") -> Any:
    """A sub-environment of the vector measurement (module level: worker processes import it)."""
    from arena.envs.gymnasium import env

    return env(game, opponents=opponents, players=2)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc (Linux); 0 elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


class _VectorLoop:
    """Random legal actions into a vector env, run in slices so several vector envs can take
    turns (any change in the machine's load then falls on all of them alike). Counts steps
    (every sub-env's), wall time, and CPU time of this process and of each of the env's
    workers. A
    sub-env whose episode ended is reset by the vector env on its next step (Gymnasium's
    default autoreset), whatever the action."""

    def __init__(self, vec: Any, seed: int, pids: list[int]) -> None:
        import numpy as np

        self.vec, self.pids = vec, pids
        self.rng = np.random.default_rng(seed)
        self.obs, _ = vec.reset(seed=seed)
        self.clear()

    def clear(self) -> None:
        self.steps, self.wall, self.main_cpu = 0, 0.0, 0.0
        self.worker_cpu = [0.0] * len(self.pids)

    def run(self, seconds: float) -> None:
        import numpy as np

        vec, rng, obs = self.vec, self.rng, self.obs
        main0, workers0 = time.process_time(), [_cpu_of(p) for p in self.pids]
        start = time.perf_counter()
        steps = 0
        while time.perf_counter() - start < seconds:
            masks = obs["action_mask"]
            actions = np.zeros(len(masks), dtype=np.int64)
            for i, mask in enumerate(masks):
                legal = mask.view(bool).nonzero()[0]
                if len(legal):
                    actions[i] = legal[rng.integers(len(legal))]
            obs, _r, _d, _t, _i = vec.step(actions)
            steps += len(masks)
        self.wall += time.perf_counter() - start
        self.main_cpu += time.process_time() - main0
        for i, (pid, before) in enumerate(zip(self.pids, workers0, strict=True)):
            self.worker_cpu[i] += _cpu_of(pid) - before
        self.steps += steps
        self.obs = obs


def bench_vector(game: str, seconds: float = 3.0, workers: int = 2,
                 per_worker: int = 8, opponents: str = "random") -> dict[str, Any]:
    """Steps per wall-clock second — the figure a trainer sees — of one env stepped in this
    process (``SyncVectorEnv`` of one), Gymnasium's ``AsyncVectorEnv`` with ``workers`` worker
    processes (one sub-env each), and the batched env (:mod:`arena.envs.vector`) with
    ``workers`` processes of ``per_worker`` sub-envs each; taking turns in slices of 0.25 s
    until each has run ``seconds``. Also CPU µs per step (this process and the workers, all
    counted), which other load on the machine changes little: what the parallel envs spend
    beyond the single env's step is their overhead; and the *critical path* in CPU µs per step
    (this process's CPU plus the slowest worker's: main waits for the workers, the workers for
    main's next actions), with ``_vs_single_by_cpu`` the ratio it gives — what two otherwise
    idle cores would show at most, process wake-ups not counted. Wall time, so other load
    lowers the steps per second; read the ratios, and the load average. ``opponents``: who
    plays the other seat in every sub-env — ``random`` (the cheapest step, so the worst case
    for parallelism) or the environment's default, ``greedy`` (a step includes greedy's
    decisions, as in a run that trains against it)."""
    from functools import partial

    from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

    from arena.envs.vector import BatchedVectorEnv

    make = partial(_make_env, game, opponents)
    single = "single_env"
    envs: dict[str, Any] = {}  # the keys' prefix in the result -> the vector env
    try:
        envs[single] = SyncVectorEnv([make])
        envs[f"async_{workers}_workers"] = AsyncVectorEnv([make for _ in range(workers)])
        envs[f"batched_{workers}x{per_worker}"] = BatchedVectorEnv(
            workers * per_worker, workers, game=game, opponents=opponents, players=2)
        loops = {}
        for name, vec in envs.items():
            processes = getattr(vec, "processes", None) or getattr(vec, "_processes", [])
            loops[name] = _VectorLoop(vec, 0, [p.pid for p in processes])
            loops[name].run(0.2)  # warm-up: imports, catalogues, path tables
            loops[name].clear()
        while min(loop.wall for loop in loops.values()) < seconds:
            for loop in loops.values():
                if loop.wall < seconds:
                    loop.run(min(0.25, seconds - loop.wall + 0.01))
    finally:
        for vec in envs.values():
            vec.close()
    out: dict[str, Any] = {}
    one = loops[single].steps / loops[single].wall
    for name, loop in loops.items():
        rate = loop.steps / loop.wall
        out[f"{name}_steps_per_s"] = round(rate)
        cpu = loop.main_cpu + sum(loop.worker_cpu)
        # the critical path of a vector step: this process's share, then the slowest worker's
        # (main waits for the workers, which wait for main's next step)
        critical = loop.main_cpu + max(loop.worker_cpu, default=0.0)
        out[f"{name}_cpu_us_per_step"] = round(cpu / loop.steps * 1e6) if loop.steps else 0
        out[f"{name}_critical_cpu_us_per_step"] = (round(critical / loop.steps * 1e6)
                                                   if loop.steps else 0)
        if name != single:
            out[f"{name}_vs_single"] = round(rate / one, 2) if one else 0.0
            base = loops[single].main_cpu / loops[single].steps
            out[f"{name}_vs_single_by_cpu"] = (round(base / (critical / loop.steps), 2)
                                               if critical else 0.0)
    if hasattr(os, "getloadavg"):
        out["load_average_1min"] = round(os.getloadavg()[0], 2)
    return out


def bench(
    games: tuple[str, ...] = GAMES,
    seconds: float = 3.0,
    toolkits: tuple[str, ...] = ("pettingzoo", "gymnasium", "openspiel"),
    progress: Callable[[str], None] | None = None,
    vector: bool = True,
    per_worker: int = 8,
    opponents: str = "random",
) -> dict[str, Any]:
    out = {game: bench_game(game, seconds, toolkits, progress) for game in games}
    if vector and "gymnasium" in toolkits:
        for game in games:
            row = bench_vector(game, seconds, per_worker=per_worker, opponents=opponents)
            if progress is not None:
                progress(f"{game} vector envs: {row}")
            out[game].update(row)
    return out
