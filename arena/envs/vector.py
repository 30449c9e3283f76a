"""A Gymnasium vector env with several sub-environments per worker process.

Why not Gymnasium's ``AsyncVectorEnv``: it runs *one* sub-environment per process and sends one
pickled message each way per sub-environment per step. Our steps are short (~120-300 µs), so
that round trip — pickling the action and the step's tuple, the pipe, waking a sleeping
process — and Gymnasium's per-step shared-memory write cost about as much CPU as the step
itself, so two workers lose to one env (docs/environments.md, Speed). Here each of ``workers`` processes steps a block of
``num_envs / workers`` sub-environments per message, and nothing but one byte crosses the pipe
on a step: the actions, observations, masks, rewards, flags and the fixed-structure infos all
live in shared memory, written in place by the workers.

It behaves as Gymnasium's vector envs do (``SyncVectorEnv`` gives identical trajectories under
the same seeds, tests/envs/test_batched_vector.py): ``reset(seed=s)`` seeds sub-env ``i`` with
``s + i``; autoreset is Gymnasium's default ``NEXT_STEP`` (the step after an episode ended
resets that sub-env, ignoring its action, with reward 0); infos are the sub-envs' ``{"illegal_action",
"rank"}`` merged into arrays with their ``_key`` masks; ``options={"reset_mask": …}`` resets some
sub-envs only; ``call``/``get_attr``/``set_attr`` reach every sub-env in order. The legal-action
masks of the current observations are ``action_masks()`` (bool ``[num_envs, n]``, read from
shared memory: no message to the workers). ``step_async``/``step_wait`` split a step as
``AsyncVectorEnv``'s do.

Made by ``gymnasium.make_vec(id, num_envs=16, vectorization_mode="vector_entry_point",
workers=2, …)`` for every registered id (:mod:`arena.envs.registration`), or directly.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import traceback
from collections.abc import Sequence
from typing import Any

from arena.envs import require
from arena.envs.encoding import SIZE

np = require("numpy", "numpy")
vector = require("gymnasium.vector", "gymnasium")
error = require("gymnasium.error", "gymnasium")

_STEP = b"s"  # the one message of a step, each way (the reply: _DONE)
_DONE = b"k"


def _error(exc: BaseException) -> bytes:
    """A worker's error for main: the exception itself, or (not picklable) its text."""
    trace = traceback.format_exc()
    try:
        return pickle.dumps((False, (exc, trace)))
    except Exception:  # noqa: BLE001 - an exception pickle cannot carry
        return pickle.dumps((False, (RuntimeError(f"{type(exc).__name__}: {exc}"), trace)))


def _layout(num_envs: int, actions: int) -> dict[str, tuple[Any, tuple[int, ...]]]:
    """The shared arrays: name -> (dtype, shape). One place, read by main and workers alike."""
    return {
        "observation": (np.float32, (num_envs, SIZE)),
        "action_mask": (np.int8, (num_envs, actions)),
        "actions": (np.int64, (num_envs,)),
        "rewards": (np.float64, (num_envs,)),
        "terminated": (np.bool_, (num_envs,)),
        "truncated": (np.bool_, (num_envs,)),
        "illegal_action": (np.bool_, (num_envs,)),
        "rank": (np.int64, (num_envs,)),
    }


def _views(buffers: dict[str, Any], layout: dict[str, tuple[Any, tuple[int, ...]]]) -> dict[str, Any]:
    """Numpy arrays over the shared buffers (made once per process, written in place)."""
    return {name: np.frombuffer(buffers[name], dtype=dtype).reshape(shape)
            for name, (dtype, shape) in layout.items()}


def _worker(conn: Any, first: int, count: int, num_envs: int, actions: int,
            buffers: dict[str, Any], env_kwargs: dict[str, Any]) -> None:
    """Own sub-envs ``first .. first+count-1``; answer main's messages until ``close``.

    A step message is the single byte ``_STEP``: the actions are read from, and every result
    written to, the shared arrays at the sub-envs' rows; the reply is ``_DONE`` (or a pickled
    error). Everything else (reset, call, set, close) is a pickled tuple answered by a pickled
    ``(ok, value)``.
    """
    from arena.envs.gymnasium import TabletopEnv

    arrays = _views(buffers, _layout(num_envs, actions))
    obs_out, mask_out, act_in = arrays["observation"], arrays["action_mask"], arrays["actions"]
    rewards, terminated, truncated = arrays["rewards"], arrays["terminated"], arrays["truncated"]
    illegal, rank = arrays["illegal_action"], arrays["rank"]
    envs: list[Any] = []
    autoreset = [False] * count
    rows = range(first, first + count)

    def write(i: int, obs: dict[str, Any], info: dict[str, Any]) -> None:
        obs_out[i] = obs["observation"]
        mask_out[i] = obs["action_mask"]
        illegal[i] = info["illegal_action"]
        rank[i] = info["rank"]

    try:
        envs = [TabletopEnv(**env_kwargs) for _ in rows]
        conn.send_bytes(pickle.dumps((True, None)))
    except Exception as exc:  # noqa: BLE001 - reported to main, which raises it
        conn.send_bytes(_error(exc))
        return
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):  # main went away
            break
        try:
            if message == _STEP:
                for j, i in enumerate(rows):
                    env = envs[j]
                    if autoreset[j]:  # Gymnasium's NEXT_STEP autoreset: this step resets
                        obs, info = env.reset()
                        rewards[i], terminated[i], truncated[i] = 0.0, False, False
                        autoreset[j] = False
                    else:
                        obs, reward, term, trunc, info = env.step(int(act_in[i]))
                        rewards[i], terminated[i], truncated[i] = reward, term, trunc
                        autoreset[j] = term or trunc
                    write(i, obs, info)
                conn.send_bytes(_DONE)
                continue
            command, *args = pickle.loads(message)
            if command == "reset":
                seeds, mask, options = args
                for j, i in enumerate(rows):
                    if mask[j]:
                        obs, info = envs[j].reset(seed=seeds[j], options=options)
                        terminated[i] = truncated[i] = autoreset[j] = False
                        write(i, obs, info)
                result: Any = None
            elif command == "call":
                name, call_args, call_kwargs = args
                result = []
                for env in envs:
                    attr = env.get_wrapper_attr(name)
                    result.append(attr(*call_args, **call_kwargs) if callable(attr) else attr)
            elif command == "set":
                name, values = args
                for env, value in zip(envs, values, strict=True):
                    env.set_wrapper_attr(name, value)
                result = None
            elif command == "close":
                for env in envs:
                    env.close()
                conn.send_bytes(pickle.dumps((True, None)))
                break
            else:
                raise ValueError(f"unknown command {command!r}")
            conn.send_bytes(pickle.dumps((True, result)))
        except Exception as exc:  # noqa: BLE001 - reported to main, which raises it
            conn.send_bytes(_error(exc))
    conn.close()


class BatchedVectorEnv(vector.VectorEnv):
    """``num_envs`` Gymnasium envs of one configuration, stepped by ``workers`` processes in
    blocks (sub-envs ``0..k-1`` by the first worker, and so on), results in shared memory.

    ``env_kwargs`` are the keywords of :func:`arena.envs.gymnasium.env` (``game``,
    ``opponents``, ``players``, ``variant``, ``seat``, …), the same for every sub-env; an
    ``opponents`` policy must be picklable under a ``spawn``/``forkserver`` ``context``.
    ``copy=False`` hands out the shared arrays themselves (overwritten by the next step), as
    ``AsyncVectorEnv(copy=False)`` does.
    """

    metadata: dict[str, Any] = {"autoreset_mode": vector.AutoresetMode.NEXT_STEP,
                                "render_modes": ["ansi", "rgb_array"]}
    # (class defaults, so close() works on an instance whose __init__ failed early)
    _pipes: Sequence[Any] = ()
    _processes: Sequence[Any] = ()
    _closing = False
    _start_method = "fork"
    _starting = False
    _pending: list[BaseException | None] | None = None  # a step_async's send errors, until step_wait

    def __init__(self, num_envs: int = 1, workers: int | None = None, *, copy: bool = True,
                 context: str | None = None, **env_kwargs: Any) -> None:
        from arena.envs.gymnasium import TabletopEnv

        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {str(num_envs)[:20]}")
        if workers is None:
            workers = min(num_envs, os.cpu_count() or 1)
        if not isinstance(workers, int) or not 1 <= workers <= num_envs:
            raise ValueError(f"workers must be 1..num_envs ({num_envs}), not {str(workers)[:20]}")
        if env_kwargs.get("info_extras"):
            raise ValueError("info_extras=True is for a single env: a vector env merges infos "
                             "into fixed arrays")
        if env_kwargs.get("render_mode") == "human":
            raise ValueError("render_mode='human' is for a single env")
        probe = TabletopEnv(**env_kwargs)  # checks the arguments here, before any process
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = env_kwargs.get("render_mode")
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        self.observation_space = vector.utils.batch_space(probe.observation_space, num_envs)
        self.action_space = vector.utils.batch_space(probe.action_space, num_envs)
        self.metadata = dict(self.metadata)
        n_actions = int(probe.action_space.n)
        probe.close()

        ctx = multiprocessing.get_context(context)
        self._start_method = ctx.get_start_method()
        self._starting = True
        layout = _layout(num_envs, n_actions)
        buffers = {name: ctx.RawArray("b", int(np.prod(shape)) * np.dtype(dtype).itemsize)
                   for name, (dtype, shape) in layout.items()}
        self._arrays = _views(buffers, layout)
        self._all = np.ones(num_envs, dtype=np.bool_)
        sizes = [len(block) for block in np.array_split(np.arange(num_envs), workers)]
        self._blocks: list[tuple[int, int]] = []
        self._step_messages: list[bytes] = []
        self._pipes: list[Any] = []
        self._processes: list[Any] = []
        self._closing = False
        first = 0
        try:
            for count in sizes:
                parent, child = ctx.Pipe()
                process = ctx.Process(
                    target=_worker, name=f"BatchedVectorEnv-worker-{len(self._processes)}",
                    args=(child, first, count, num_envs, n_actions, buffers, dict(env_kwargs)),
                    daemon=True)
                process.start()
                child.close()
                self._blocks.append((first, count))
                self._step_messages.append(_STEP)
                self._pipes.append(parent)
                self._processes.append(process)
                first += count
            self._collect([None] * len(self._pipes))  # each worker built its envs, or why not
            self._starting = False
        except BaseException:
            self.close()
            raise

    @property
    def workers(self) -> int:
        """The number of worker processes."""
        return len(self._processes)

    def _dead(self, i: int, exc: BaseException) -> RuntimeError:
        """The error for worker ``i``'s pipe failing (``exc``): the worker process ended."""
        worker = self._processes[i]
        worker.join(1)  # its pipe closed as it exited: reap it, so its exit code is known
        why = "close() this env"
        if self._start_method != "fork" and self._starting:
            # the commonest cause, and the worker's own traceback (on stderr) does not name it
            why = (f"with the {self._start_method!r} start method each worker imports the main "
                   "script again, so a script must make the env under "
                   "'if __name__ == \"__main__\":' (the worker's own error is on stderr)")
        problem = RuntimeError(f"BatchedVectorEnv worker {worker.name} ended (exit code "
                               f"{worker.exitcode}); {why}")
        problem.__cause__ = exc
        return problem

    def _send(self, messages: Sequence[bytes]) -> list[BaseException | None]:
        """Send each worker its message; the errors of the workers that could not be sent to."""
        if self._pending is not None:
            raise error.AlreadyPendingCallError(
                "a step_async is pending: call step_wait() first", "step")
        errors: list[BaseException | None] = [None] * len(self._pipes)
        for i, (pipe, message) in enumerate(zip(self._pipes, messages, strict=True)):
            try:
                pipe.send_bytes(message)
            except OSError as exc:  # a worker that died: nothing to read from it
                errors[i] = self._dead(i, exc)
        return errors

    def _collect(self, errors: list[BaseException | None]) -> list[Any]:
        """Read every reply in order (but of the workers in ``errors``); the first error is
        raised after all have replied, so no reply is left in a pipe for the next call."""
        results: list[Any] = [None] * len(self._pipes)
        for i, pipe in enumerate(self._pipes):
            if errors[i] is not None:
                continue
            try:
                reply = pipe.recv_bytes()
            except (EOFError, OSError) as exc:
                errors[i] = self._dead(i, exc)
                continue
            if reply == _DONE:
                continue
            ok, value = pickle.loads(reply)
            if ok:
                results[i] = value
            else:
                exc, trace = value
                exc.add_note(f"in a BatchedVectorEnv worker process:\n{trace}")
                errors[i] = exc
        for problem in errors:
            if problem is not None:
                raise problem
        return results

    def _exchange(self, messages: Sequence[bytes]) -> list[Any]:
        return self._collect(self._send(messages))

    def _to_all(self, *message: Any) -> list[Any]:
        data = pickle.dumps(message)
        return self._exchange([data] * len(self._pipes))

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every sub-env (or those of ``options["reset_mask"]``): ``seed`` an int seeds
        sub-env ``i`` with ``seed + i``, a list one seed each, ``None`` leaves them to their own
        generators — as ``SyncVectorEnv`` does."""
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int | np.integer):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"If seeds are passed as a list the length must match "
                                 f"num_envs={self.num_envs} but got length={len(seeds)}.")
        options = dict(options) if options else None
        mask = self._all
        if options is not None and "reset_mask" in options:
            mask = options.pop("reset_mask")
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ \
                    or mask.shape != (self.num_envs,) or not mask.any():
                raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                                 f"({self.num_envs},) with a True value")
        self._exchange([pickle.dumps(("reset", seeds[first:first + count],
                                      mask[first:first + count].tolist(), options))
                        for first, count in self._blocks])
        return self._observation(), self._infos(mask.copy())

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """Step every sub-env (a sub-env whose episode ended last step is reset instead)."""
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions: Any) -> None:
        """Start a step and return at once (as ``AsyncVectorEnv.step_async``): the trainer's
        own work can overlap the workers'; ``step_wait()`` gives the step's results."""
        if self._pending is not None:
            raise error.AlreadyPendingCallError(
                "a step_async is pending: call step_wait() first", "step")
        self._arrays["actions"][:] = actions
        self._pending = self._send(self._step_messages)

    def step_wait(self) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """The results of the step ``step_async`` started."""
        if self._pending is None:
            raise error.NoAsyncCallError("step_wait() without a step_async()", "step")
        errors, self._pending = self._pending, None
        self._collect(errors)
        a = self._arrays
        return (self._observation(), a["rewards"].copy(), a["terminated"].copy(),
                a["truncated"].copy(), self._infos(self._all.copy()))

    def _observation(self) -> dict[str, Any]:
        a = self._arrays
        if self.copy:
            return {"observation": a["observation"].copy(), "action_mask": a["action_mask"].copy()}
        return {"observation": a["observation"], "action_mask": a["action_mask"]}

    def _infos(self, present: Any) -> dict[str, Any]:
        """The infos as ``VectorEnv._add_info`` merges them: each key's array and its mask
        (the sub-envs that reported it)."""
        a = self._arrays
        illegal = np.where(present, a["illegal_action"], False)
        rank = np.where(present, a["rank"], 0)
        return {"illegal_action": illegal, "_illegal_action": present,
                "rank": rank, "_rank": present.copy()}

    def action_masks(self) -> Any:
        """The legal actions of the current observations, bool ``[num_envs, n]`` (what
        maskable-PPO implementations call; the observation's ``action_mask`` as bool)."""
        return self._arrays["action_mask"].astype(np.bool_)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` (or read attribute ``name``) of every sub-env, in order."""
        return tuple(value for block in self._to_all("call", name, args, kwargs)
                     for value in block)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Attribute ``name`` of every sub-env, in order."""
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of every sub-env: one value for all, or a list of one each."""
        if not isinstance(values, list | tuple):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"Values must be a list or tuple with length equal to the number "
                             f"of environments. Got `{len(values)}` values for {self.num_envs} "
                             f"environments.")
        self._exchange([pickle.dumps(("set", name, list(values[first:first + count])))
                        for first, count in self._blocks])

    def render(self) -> tuple[Any, ...]:
        """Every sub-env's ``render()`` (``render_mode`` ``ansi`` or ``rgb_array``)."""
        return self.call("render")

    def __del__(self) -> None:
        """Stop the workers of an env dropped without ``close()`` (as AsyncVectorEnv does)."""
        if not getattr(self, "closed", True):
            self.close()

    def close_extras(self, **kwargs: Any) -> None:
        """Ask the workers to close their envs and stop; end any that does not within 5 s."""
        if self._closing:
            return
        self._closing = True
        if self._pending is not None:  # a step started and never waited for: read its replies
            errors, self._pending = self._pending, None
            try:
                self._collect(errors)
            except Exception:  # noqa: BLE001, S110 - closing anyway
                pass
        for pipe in self._pipes:
            try:
                pipe.send_bytes(pickle.dumps(("close",)))
            except (BrokenPipeError, OSError):
                pass
        for pipe in self._pipes:
            try:
                if pipe.poll(5):
                    pipe.recv_bytes()
            except (EOFError, OSError):
                pass
            pipe.close()
        for process in self._processes:
            process.join(5)
            if process.is_alive():
                process.terminate()
                process.join(1)
