"""A learned Solenia bot: a small numpy network trained on the Gymnasium environment, served
as it was trained (``arena.sdk.serve_policy``: the environments' encoder and action catalogue).

``weights.npz`` comes from ``python -m arena.envs.train_example --game solenia`` (imitation of
the greedy bot with DAgger, then REINFORCE against the random bot; docs/environments.md, "From
training to the ladder"); ``training.json`` beside it records how. It needs numpy, the
``envs`` extra: on a server without it, run it as a dial-in bot instead.
"""

import os

# One thread: the sandbox counts threads as processes, and one decision is a small product.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from pathlib import Path  # noqa: E402

from arena.envs.mlp import MaskedMLP  # noqa: E402
from arena.sdk import serve_policy  # noqa: E402

POLICY = MaskedMLP.load(Path(__file__).resolve().with_name("weights.npz"))

if __name__ == "__main__":
    serve_policy(POLICY, POLICY.game)
