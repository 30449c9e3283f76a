"""The learned Solenia bot: the greedy bot's turn planner and a two-turn look-ahead over its best
options, the futures judged by a learned value (``model.onnx``, run by ONNX Runtime).

``model.onnx`` comes from ``python -m sample_bots.solenia_learned.train`` (seeded; the command
and its figures are in ``training.json`` beside it; docs/environments.md, "A learned bot on the
ladder"). It needs numpy and onnxruntime, declared in ``requirements.txt``: the hosted
runtime offers them with the ``learned`` extra (docs/bot-authors-guide.md).
"""

import os

# One thread: the sandbox counts threads as processes, and one decision is a small product.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from pathlib import Path  # noqa: E402

from arena.sdk import serve_bot  # noqa: E402

try:  # imported as a package (tests, benchmarks, the trainer)
    from sample_bots.solenia_learned.model import OnnxValue
    from sample_bots.solenia_learned.planner import look_ahead
except ImportError:  # run from this folder: the sandbox shows only the bot's own folder
    from model import OnnxValue  # type: ignore[no-redef]
    from planner import look_ahead  # type: ignore[no-redef]

VALUE = OnnxValue(Path(__file__).resolve().with_name("model.onnx"))


def act(observation: dict, legal_options: list) -> str:
    return look_ahead(observation, [o.id for o in legal_options], VALUE)


if __name__ == "__main__":
    serve_bot(act)
