"""A small masked-softmax policy network in numpy: what the example learned bot plays with.

Why numpy and this small: the example must train on one core in minutes and its weights must
fit in a bot folder (a few hundred KB), and a hosted bot should need nothing beyond numpy. The
network reads the environments' float32[2048] vector (:mod:`arena.envs.encoding`), squashed by
``sign(x) * log1p(|x|)`` (the vector holds raw counts and scores next to one-hot buckets) and
standardised per bucket with the training data's mean and spread (without that, imitation
barely beats copying the most common move: buckets of very different scales), through
one tanh hidden layer to one logit per catalogue action; illegal actions are masked out before
the softmax. ``policy(obs_vector, action_mask)`` plays the most probable legal action, the
signature :func:`arena.sdk.serve_policy` serves.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

from arena.envs import require
from arena.envs.catalogue import GAMES, catalogue
from arena.envs.encoding import SIZE, encode

np = require("numpy", "numpy")

#: An observation with every kind of leaf the encoder treats differently (numbers, strings,
#: booleans, null, nested lists and dicts): its vector changes whenever the encoding does.
_PROBE = {
    "n": 3,
    "x": 2.5,
    "neg": -7,
    "s": "cell",
    "t": True,
    "f": False,
    "z": None,
    "row": [1, 2, 3, 4, 5],
    "grid": [[0, 1], [2, 3]],
    "cards": [{"id": 4, "text": "a"}] * 5,
    "seat": {"vp": 12, "res": {"wood": 1}},
}


class EncodingMismatch(ValueError):
    """Weights trained on another observation encoding than the one installed."""


def encoding_fingerprint() -> str:
    """Names the installed observation encoding: its size and a digest of the probe's vector.

    Saved with the weights and checked on load, so a policy never silently plays on vectors
    whose buckets mean something else than in training (after a change to
    :mod:`arena.envs.encoding`, retrain)."""
    return f"{SIZE}:{zlib.crc32(encode(_PROBE).tobytes()):08x}"


def squash(x: Any) -> Any:
    """The input transform: raw observation values to a comparable scale (float32)."""
    x = np.asarray(x, dtype=np.float32)
    return np.sign(x) * np.log1p(np.abs(x))


class MaskedMLP:
    """``logits = W2 · tanh(W1 · squash(x) + b1) + b2``, masked to the legal actions."""

    def __init__(
        self, w1: Any, b1: Any, w2: Any, b2: Any, game: str = "", mu: Any = None, sd: Any = None
    ) -> None:
        self.w1, self.b1, self.w2, self.b2 = (
            np.asarray(a, dtype=np.float32) for a in (w1, b1, w2, b2)
        )
        self.game = game
        inputs = self.w1.shape[0]
        self.mu = np.zeros(inputs, np.float32) if mu is None else np.asarray(mu, dtype=np.float32)
        self.sd = np.ones(inputs, np.float32) if sd is None else np.asarray(sd, dtype=np.float32)

    def normalise_on(self, x: Any) -> None:
        """Set the input standardisation from sample vectors ``x``: squashed features are
        centred and scaled per bucket (constant buckets keep scale 1), so no bucket's raw
        magnitude decides how fast its weights learn."""
        z = squash(x)
        self.mu = z.mean(axis=0).astype(np.float32)
        sd = z.std(axis=0)
        self.sd = np.where(sd > 1e-3, sd, 1.0).astype(np.float32)

    def inputs(self, x: Any) -> Any:
        """The network's input: squashed, standardised vectors."""
        return (squash(x) - self.mu) / self.sd

    @classmethod
    def initial(
        cls, inputs: int, hidden: int, actions: int, seed: int, game: str = ""
    ) -> MaskedMLP:
        """Small random first layer, zero output layer: the untrained policy plays uniformly."""
        rng = np.random.default_rng(seed)
        w1 = rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden))
        return cls(w1, np.zeros(hidden), np.zeros((hidden, actions)), np.zeros(actions), game)

    @property
    def params(self) -> list[Any]:
        return [self.w1, self.b1, self.w2, self.b2]

    def forward(self, x: Any) -> tuple[Any, Any]:
        """(hidden activations, logits) of a batch of raw vectors ``x`` (rows)."""
        h = np.tanh(self.inputs(x) @ self.w1 + self.b1)
        return h, h @ self.w2 + self.b2

    def log_probs(self, x: Any, masks: Any) -> tuple[Any, Any]:
        """(hidden, log-probabilities) over the legal actions; illegal ones are -inf."""
        h, logits = self.forward(x)
        logits = np.where(masks > 0, logits, -np.inf)
        top = logits.max(axis=1, keepdims=True)
        z = logits - top
        return h, z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    def gradients(self, x: Any, masks: Any, actions: Any, weights: Any) -> tuple[float, list[Any]]:
        """Loss ``-mean(weights * log p(actions))`` and its gradient for each of :attr:`params`.

        With weights 1 it is the cross-entropy of imitation; with advantages, REINFORCE's."""
        n = len(actions)
        h, logp = self.log_probs(x, masks)
        rows = np.arange(n)
        loss = float(-(weights * logp[rows, actions]).mean())
        p = np.exp(logp)  # exp(-inf) = 0 for the illegal actions
        p[rows, actions] -= 1.0
        dlogits = (p * (weights / n)[:, None]).astype(np.float32)
        gw2 = h.T @ dlogits
        gb2 = dlogits.sum(axis=0)
        dz = (dlogits @ self.w2.T) * (1.0 - h * h)
        gw1 = self.inputs(x).T @ dz
        gb1 = dz.sum(axis=0)
        return loss, [gw1, gb1, gw2, gb2]

    def __call__(self, obs_vector: Any, action_mask: Any) -> int:
        """The legal action with the highest logit (the bot plays greedily)."""
        _, logits = self.forward(np.asarray(obs_vector, dtype=np.float32)[None, :])
        return int(np.argmax(np.where(np.asarray(action_mask)[None, :] > 0, logits, -np.inf)))

    def sample(self, obs_vector: Any, action_mask: Any, rng: Any) -> int:
        """A legal action drawn from the policy's distribution (exploration in training)."""
        _, logp = self.log_probs(
            np.asarray(obs_vector, dtype=np.float32)[None, :], np.asarray(action_mask)[None, :]
        )
        p = np.exp(logp[0])
        return int(rng.choice(len(p), p=p / p.sum()))

    def save(self, path: str | Path) -> None:
        """Compressed float16 weights: half the bytes, and the bot plays what was saved
        (the trainer evaluates the rounded weights, :meth:`rounded`)."""
        arrays = dict(
            zip(("w1", "b1", "w2", "b2", "mu", "sd"), (*self.params, self.mu, self.sd), strict=True)
        )
        np.savez_compressed(
            path,
            game=np.array(self.game),
            encoding=np.array(encoding_fingerprint()),
            **{k: a.astype(np.float16) for k, a in arrays.items()},
        )

    def grown(self, actions: int) -> MaskedMLP:
        """This network with output columns added up to ``actions``, for ids a game's action
        catalogue appended after the network was trained (:mod:`arena.envs.catalogue` only ever
        appends, so the trained outputs keep their meaning).

        Why this bias: an added action's logit is a constant below the lowest logit any trained
        action can reach (``b2 - |w2|_1``, as ``|tanh| <= 1``), so the policy plays exactly as
        trained whenever a trained action is legal, and takes an added one (the first legal)
        only when nothing else is legal — instead of failing on the wider mask."""
        have = self.w2.shape[1]
        if actions < have:
            raise ValueError(f"a network with {have} actions cannot shrink to {actions}")
        w2 = self.w2.astype(np.float32)
        floor = float((self.b2.astype(np.float32) - np.abs(w2).sum(axis=0)).min()) - 1.0
        extra = actions - have
        return MaskedMLP(
            self.w1, self.b1,
            np.concatenate([w2, np.zeros((w2.shape[0], extra), np.float32)], axis=1),
            np.concatenate([self.b2, np.full(extra, floor, np.float32)]),
            self.game, self.mu, self.sd,
        )

    def rounded(self) -> MaskedMLP:
        """This network with its weights rounded to float16, as :meth:`save` stores them."""
        w1, b1, w2, b2, mu, sd = (a.astype(np.float16) for a in (*self.params, self.mu, self.sd))
        return MaskedMLP(w1, b1, w2, b2, self.game, mu, sd)

    @classmethod
    def load(cls, path: str | Path) -> MaskedMLP:
        """The network saved at ``path``; :class:`EncodingMismatch` if it was trained on
        another observation encoding than the installed one. A network trained before its
        game's action catalogue appended ids is :meth:`grown` to the catalogue's size; one
        with more outputs than the catalogue has ids belongs to another catalogue: refused."""
        with np.load(path) as f:
            trained, now = (
                str(f["encoding"]) if "encoding" in f else "unknown",
                encoding_fingerprint(),
            )
            if trained != now:
                game = str(f["game"])
                raise EncodingMismatch(
                    f"{path} was trained on another observation encoding ({trained}) than this "
                    f"arena.envs.encoding ({now}): retrain it (python -m arena.envs.train_example --game {game})"
                )
            net = cls(f["w1"], f["b1"], f["w2"], f["b2"], str(f["game"]), f["mu"], f["sd"])
        if net.game in GAMES:
            actions = len(catalogue(net.game))
            if net.w2.shape[1] > actions:
                raise ValueError(
                    f"{path} has {net.w2.shape[1]} actions but {net.game}'s action catalogue has "
                    f"{actions}: it was trained on another catalogue (retrain it)"
                )
            if net.w2.shape[1] < actions:
                net = net.grown(actions)
        return net
