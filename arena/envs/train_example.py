"""Train the example learned bot: ``python -m arena.envs.train_example --game solenia``.

numpy only, one core, a few minutes. The learner is a :class:`arena.envs.mlp.MaskedMLP` over
the Gymnasium environment's spaces (the float32[2048] vector and the action mask), playing one
seat against the ``random`` house bot, seats alternating.

How it learns, and why this way: imitation of the game's greedy house bot with DAgger, then a
short REINFORCE fine-tune against the random bot. Pure REINFORCE from a uniform policy needs
tens of thousands of games before the terminal-only reward says much; the greedy bot beats the
random one in every game, so copying its choices gives a strong start in a few hundred. DAgger
(round 0: the teacher plays and is copied; later rounds: the learner plays, the teacher labels
every state the learner reached) teaches the learner what to do in the positions its own
mistakes lead to, which plain copying never shows it. The teacher only labels: it sees the
seat's observation and legal options, as any bot would (``arena.envs.opponents``). REINFORCE
then optimises the environment's own reward (+1 win, -1 loss) with the batch mean as baseline.

Writes the weights (``weights.npz``, float16, the file the bot serves), the same network as an
ONNX model (``model.onnx``, :mod:`arena.envs.onnx_model`, where the ``onnx`` package is
installed), the training curve (``training.png``) and its figures (``training.json``) into one
folder: ``--dir``, by default ``$ARENA_HOME/trained/learned_<game>`` (``ARENA_HOME`` unset: the
same home the server uses, ``${XDG_DATA_HOME:-~/.local/share}/tabletop-arena``). A run never
replaces a file git tracks (the committed example, the docs' PNG) unless ``--replace-tracked``
says so (``--dir sample_bots/learned_solenia --curve docs/learned_solenia_training.png
--replace-tracked`` retrains the example). ``--opponent greedy`` plays DAgger's games, REINFORCE
and the curve against greedy instead of random. The win share the curve shows is measured on
held-out seeds; the benchmark (``arena bench learned``) measures the saved bot on seeds 0..199.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core, as promised: before numpy starts its threads

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from arena.envs import MissingExtra, require  # noqa: E402
from arena.envs.catalogue import catalogue  # noqa: E402
from arena.envs.encoding import SIZE  # noqa: E402
from arena.envs.mlp import MaskedMLP  # noqa: E402
from arena.envs.opponents import opponent  # noqa: E402

np = require("numpy", "numpy")

#: Seeds of the curve's evaluation games: far from the benchmark's 0..199 and from training's.
EVAL_SEED0 = 1_000_000
TRAIN_SEED0 = 2_000_000
#: The ONNX model's file name beside weights.npz (what an ONNX bot folder ships).
ONNX_NAME = "model.onnx"
#: The files a run writes into its folder (besides the curve, which may go elsewhere).
OUTPUTS = ("weights.npz", "training.json", ONNX_NAME)


@dataclass
class Settings:
    """Everything that shapes a training run (stored in training.json beside the weights)."""

    game: str = "solenia"
    players: int = 2
    hidden: int = 64
    rounds: int = 5  # DAgger rounds (round 0: the teacher plays)
    games_per_round: int = 150
    epochs: int = 8  # passes over the whole aggregated data after each round
    batch: int = 256
    lr: float = 1e-3
    rl_iterations: int = 10  # REINFORCE updates after imitation
    rl_games: int = 32  # games per REINFORCE update
    rl_lr: float = 5e-4
    eval_games: int = 60  # per point of the curve
    seed: int = 1
    opponent: str = "random"  # the house bot of the DAgger games, REINFORCE and the curve


@dataclass
class Curve:
    """The training curve: one point per DAgger round and per REINFORCE evaluation."""

    phase: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    win_share: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)


class Adam:
    """Adam over a list of arrays, updated in place."""

    def __init__(self, params: list[Any], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads: list[Any]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (self.lr * math.sqrt(1 - b2**self.t) / (1 - b1**self.t)) * m / (np.sqrt(v) + 1e-8)


def _env(game: str, players: int, seat: int, opponents: str = "random") -> Any:
    from arena.envs.gymnasium import env

    return env(game, opponents=opponents, players=players, seat=seat)


def play(
    policy: Any,
    game: str,
    seeds: list[int],
    players: int = 2,
    *,
    rng: Any = None,
    teacher: Any = None,
    record: list | None = None,
    opponents: str = "random",
) -> list[tuple[int, int]]:
    """Play one game per seed against house bot ``opponents`` (default random), the learner in seat ``seed % players``.

    ``policy(vector, mask) -> index`` (or, with ``rng``, its ``sample`` draws the move); with
    ``teacher`` (a house bot of :mod:`arena.envs.opponents`) every learner state is also
    labelled with the teacher's choice and appended to ``record`` as (vector, mask, label);
    without a teacher ``record`` gets (vector, mask, played). Returns (rank of the learner,
    best rank of the others) per game.
    """
    cat = catalogue(game)
    envs = [_env(game, players, seat, opponents) for seat in range(players)]
    teach = random.Random(0)
    out = []
    for seed in seeds:
        e = envs[seed % players]
        obs, info = e.reset(seed=seed)
        done, steps = False, []
        while not done:
            vec, mask = obs["observation"], obs["action_mask"]
            action = policy.sample(vec, mask, rng) if rng is not None else policy(vec, mask)
            if record is not None:
                label = action
                if teacher is not None:
                    label = cat.action_of(teacher(e.unwrapped.state, e.unwrapped.seat, teach))
                steps.append((vec, mask, label))
            obs, _reward, done, _trunc, info = e.step(action)
        if record is not None:
            record.append(steps)
        ranks = e.unwrapped.state.result().ranks
        me = e.unwrapped.seat
        out.append((ranks[me], min(r for i, r in enumerate(ranks) if i != me)))
    return out


def wins(outcomes: list[tuple[int, int]]) -> int:
    """Games the learner won outright (a shared first place is not a win)."""
    return sum(1 for mine, theirs in outcomes if mine == 1 and theirs > 1)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``k / n``."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _teacher_games(
    game: str, players: int, seeds: list[int], record: list, opponents: str = "random"
) -> None:
    """Round 0: the greedy bot plays the learner's seat; each of its choices is a label."""
    cat = catalogue(game)
    bot = opponent("greedy", game)
    rng = random.Random(0)
    envs = [_env(game, players, seat, opponents) for seat in range(players)]
    for seed in seeds:
        e = envs[seed % players]
        obs, _ = e.reset(seed=seed)
        done, steps = False, []
        while not done:
            u = e.unwrapped
            label = cat.action_of(bot(u.state, u.seat, rng))
            steps.append((obs["observation"], obs["action_mask"], label))
            obs, _r, done, _t, _i = e.step(label)
        record.append(steps)


def _stack(games: list[list[tuple[Any, Any, int]]]) -> tuple[Any, Any, Any]:
    rows = [s for g in games for s in g]
    return (
        np.stack([r[0] for r in rows]),
        np.stack([r[1] for r in rows]),
        np.array([r[2] for r in rows], dtype=np.intp),
    )


def train(
    s: Settings,
    out: Path | None = None,
    curve_png: Path | None = None,
    log: Any = print,
    onnx: bool = False,
) -> tuple[MaskedMLP, dict[str, Any]]:
    """Train per ``s``; save the weights to ``out`` (with ``onnx``, the ONNX model beside them,
    :data:`ONNX_NAME`) and the curve to ``curve_png`` if given.

    Returns the (float16-rounded) network and the figures of the run."""
    cat = catalogue(s.game)
    net = MaskedMLP.initial(SIZE, s.hidden, len(cat), s.seed, s.game)
    rng = np.random.default_rng(s.seed)
    curve = Curve()
    eval_seeds = list(range(EVAL_SEED0, EVAL_SEED0 + s.eval_games))
    next_seed = TRAIN_SEED0 + 10_000 * s.seed
    games_played = 0
    start = time.process_time()

    def point(phase: str, loss: float) -> None:
        share = wins(play(net, s.game, eval_seeds, s.players, opponents=s.opponent)) / max(
            1, len(eval_seeds)
        )
        curve.phase.append(phase)
        curve.seconds.append(round(time.process_time() - start, 1))
        curve.games.append(games_played)
        curve.win_share.append(share)
        curve.loss.append(round(loss, 4))
        log(
            f"{phase:<12} games {games_played:>5}  cpu {curve.seconds[-1]:>7.1f} s  "
            f"loss {loss:7.4f}  win share vs {s.opponent} {share:.3f}"
        )

    point("untrained", float("nan"))
    x = m = a = None  # all imitation data so far, one row per labelled state
    opt = Adam(net.params, s.lr)
    for r in range(s.rounds):
        seeds = list(range(next_seed, next_seed + s.games_per_round))
        next_seed += s.games_per_round
        data: list[list[tuple[Any, Any, int]]] = []  # this round's games
        if r == 0:
            _teacher_games(s.game, s.players, seeds, data, s.opponent)
        else:  # DAgger: the learner plays (sampling), the teacher labels where it went
            play(
                net,
                s.game,
                seeds,
                s.players,
                rng=rng,
                teacher=opponent("greedy", s.game),
                record=data,
                opponents=s.opponent,
            )
        games_played += len(seeds)
        # Stacked round by round, the per-state vectors dropped at once: the data's memory
        # stays about twice its size at the peak (the copy that grows it), not three times.
        new = _stack(data)
        del data
        x, m, a = (
            new if x is None else (np.concatenate(p) for p in zip((x, m, a), new, strict=True))
        )
        del new
        if r == 0:  # the input standardisation, from the teacher's games, fixed from now on
            net.normalise_on(x)
        ones = np.ones(len(a), dtype=np.float32)
        loss = 0.0
        for _ in range(s.epochs):
            order = rng.permutation(len(a))
            losses = []
            for i in range(0, len(a), s.batch):
                b = order[i : i + s.batch]
                batch_loss, grads = net.gradients(x[b], m[b], a[b], ones[b])
                opt.step(grads)
                losses.append(batch_loss)
            loss = float(np.mean(losses))
        point(f"dagger {r}", loss)
    opt = Adam(net.params, s.rl_lr)
    for it in range(s.rl_iterations):
        seeds = list(range(next_seed, next_seed + s.rl_games))
        next_seed += s.rl_games
        games: list = []
        outcomes = play(
            net, s.game, seeds, s.players, rng=rng, record=games, opponents=s.opponent
        )
        games_played += len(seeds)
        returns = np.array(
            [
                1.0 if mine == 1 and theirs > 1 else (0.0 if mine == theirs else -1.0)
                for mine, theirs in outcomes
            ],
            dtype=np.float32,
        )
        adv = returns - returns.mean()
        x, m, a = _stack(games)
        w = np.concatenate([np.full(len(g), adv[i], dtype=np.float32) for i, g in enumerate(games)])
        loss, grads = net.gradients(x, m, a, w)
        opt.step(grads)
        if (it + 1) % max(1, s.rl_iterations // 4) == 0 or it + 1 == s.rl_iterations:
            point(f"reinforce {it + 1}", loss)
    net = net.rounded()
    figures = {
        "settings": asdict(s),
        "curve": asdict(curve),
        "cpu_seconds": round(time.process_time() - start, 1),
        "games_played": games_played,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        net.save(out)
        (out.parent / "training.json").write_text(json.dumps(figures, indent=1) + "\n")
        log(f"weights: {out} ({out.stat().st_size:,} bytes)")
        if onnx:
            from arena.envs.onnx_model import export

            model = export(net, out.with_name(ONNX_NAME), {"settings": asdict(s)})
            log(f"ONNX model: {model} ({model.stat().st_size:,} bytes)")
    if curve_png is not None:
        plot(curve, s, curve_png)
        log(f"curve: {curve_png}")
    return net, figures


def plot(curve: Curve, s: Settings, path: Path) -> None:
    """The training curve as a PNG: win share vs the random bot and the loss, over CPU time."""
    matplotlib = require("matplotlib", "matplotlib")
    matplotlib.use("Agg")
    plt = require("matplotlib.pyplot", "matplotlib")
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    t = curve.seconds
    ax.plot(
        t,
        curve.win_share,
        marker="o",
        color="tab:blue",
        label="win share vs random (held-out seeds)",
    )
    lo = [wilson(round(w * s.eval_games), s.eval_games)[0] for w in curve.win_share]
    hi = [wilson(round(w * s.eval_games), s.eval_games)[1] for w in curve.win_share]
    ax.fill_between(t, lo, hi, color="tab:blue", alpha=0.15, label="95% interval")
    ax.axhline(0.7, color="grey", linestyle="--", linewidth=1, label="target 0.70")
    ax.set_ylim(0, 1)
    ax.set_xlabel("training CPU time (s, one core)")
    ax.set_ylabel("win share")
    for x, y, label in zip(t, curve.win_share, curve.phase, strict=True):
        if label.startswith(("dagger", "untrained")):
            ax.annotate(label, (x, y), textcoords="offset points", xytext=(4, -12), fontsize=7)
    rl = [x for x, phase in zip(t, curve.phase, strict=True) if phase.startswith("reinforce")]
    if rl:
        ax.axvspan(
            t[len(t) - len(rl) - 1],
            rl[-1],
            color="tab:green",
            alpha=0.06,
            label="REINFORCE vs random",
        )
    ax2 = ax.twinx()
    imitation = [
        (x, loss)
        for x, loss, phase in zip(t, curve.loss, curve.phase, strict=True)
        if phase.startswith("dagger")
    ]
    ax2.plot(
        [x for x, _ in imitation],
        [loss for _, loss in imitation],
        color="tab:orange",
        marker=".",
        linewidth=1,
        label="imitation loss (cross-entropy, all data so far)",
    )
    ax2.set_ylim(bottom=0)
    ax2.set_ylabel("imitation loss")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="lower right", fontsize=8)
    ax.set_title(
        f"learned_{s.game}: {s.players} players, MLP {SIZE}-{s.hidden}-{len(catalogue(s.game))}, "
        f"{s.eval_games} games per point"
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def _at_least(least: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be {least} or more, not {value}")
        return value

    return parse


def default_dir(game: str) -> Path:
    """Where a training run writes unless told: under ``ARENA_HOME`` (else the server's default
    home), so a run from a clone never overwrites the tracked example bot or the docs' PNG.
    (The rule of ``arena.server.config.default_data_dir``, restated: ``arena.envs`` imports no
    server code.)"""
    home = os.environ.get("ARENA_HOME", "").strip()
    if home:
        base = Path(home).expanduser()
    else:
        data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        base = Path(data).expanduser() / "tabletop-arena"
    return base / "trained" / f"learned_{game}"


def tracked_files(paths: list[Path]) -> list[Path]:
    """Those of ``paths`` that exist and that git tracks in the work tree holding them: a
    training run never replaces committed files unless told to (``--replace-tracked``).
    Without git, or outside a work tree, nothing counts as tracked."""
    import subprocess

    out = []
    for path in paths:
        if not path.is_file():
            continue
        try:
            done = subprocess.run(
                ["git", "ls-files", "--error-unmatch", "--", path.resolve().name],
                cwd=path.resolve().parent, capture_output=True, timeout=30, check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return []
        if done.returncode == 0:
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    d = Settings()
    p = argparse.ArgumentParser(
        prog="python -m arena.envs.train_example", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--game", default=d.game, choices=["solenia", "black_angel"])
    p.add_argument(
        "--opponent", default=d.opponent, choices=["random", "greedy"],
        help="the house bot the learner plays in DAgger, REINFORCE and the curve "
             f"(default {d.opponent})",
    )
    for name, least, text in (
        ("hidden", 1, "hidden units"),
        ("rounds", 1, "DAgger rounds (round 0: the greedy bot plays)"),
        ("games_per_round", 1, "games per DAgger round"),
        ("epochs", 1, "passes over all imitation data after each round"),
        ("batch", 1, "imitation minibatch size"),
        ("rl_iterations", 0, "REINFORCE updates after imitation (0: none)"),
        ("rl_games", 1, "games per REINFORCE update"),
        ("eval_games", 1, "held-out games per point of the curve"),
        ("seed", 0, "initial weights, sampling and the training games' seeds"),
    ):
        p.add_argument(
            f"--{name.replace('_', '-')}",
            type=_at_least(least),
            default=getattr(d, name),
            help=f"{text} (default {getattr(d, name)})",
        )
    p.add_argument(
        "--lr", type=float, default=d.lr, help=f"imitation learning rate (Adam, default {d.lr})"
    )
    p.add_argument(
        "--rl-lr", type=float, default=d.rl_lr, help=f"REINFORCE learning rate (default {d.rl_lr})"
    )
    p.add_argument(
        "--dir", type=Path,
        help="folder for weights.npz, training.json and training.png "
             "(default $ARENA_HOME/trained/learned_GAME)",
    )
    p.add_argument("--curve", type=Path, help="training curve PNG (default DIR/training.png)")
    p.add_argument("--no-curve", action="store_true", help="skip the PNG (no matplotlib needed)")
    p.add_argument(
        "--onnx", choices=["auto", "yes", "no"], default="auto",
        help=f"also write the ONNX model ({ONNX_NAME}; needs the onnx package, the 'learned' "
             "extra): auto = where onnx is installed (default)",
    )
    p.add_argument(
        "--replace-tracked", action="store_true",
        help="allow replacing files git tracks (retraining a committed example bot)",
    )
    args = p.parse_args(argv)
    s = Settings(**{k: getattr(args, k) for k in asdict(d) if k != "players"})
    folder = args.dir or default_dir(s.game)
    out = folder / "weights.npz"
    curve = None if args.no_curve else (args.curve or folder / "training.png")
    targets = [folder / name for name in OUTPUTS] + ([curve] if curve else [])
    tracked = [] if args.replace_tracked else tracked_files(targets)
    if tracked:
        p.error(
            "would replace files the repository tracks: "
            + ", ".join(str(t) for t in tracked)
            + "; choose another --dir/--curve, or pass --replace-tracked to retrain them"
        )
    onnx = args.onnx != "no"
    if onnx:
        try:
            require("onnx", "onnx")  # before minutes of training, not after
        except MissingExtra as exc:
            if args.onnx == "yes":
                p.error(f"{exc}; or pass --onnx no")
            onnx = False
    train(s, out, curve, log=lambda line: print(line, file=sys.stderr, flush=True), onnx=onnx)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
