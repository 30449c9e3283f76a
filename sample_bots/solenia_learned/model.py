"""The learned Solenia bot's evaluation, ``value = features · w + b`` in points: in numpy while
it is trained, in ONNX Runtime in the bot; both are ``evaluate(leaves, seat) -> values`` for
:func:`planner.choose`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

try:
    from sample_bots.solenia_learned.features import GREEDY_WEIGHTS, NAMES, SIZE, features
except ImportError:  # run from this folder (the sandbox)
    from features import GREEDY_WEIGHTS, NAMES, SIZE, features  # type: ignore[no-redef]

#: Names the feature set in the model's metadata: a model fitted to other features is refused.
FEATURES_ID = f"solenia_learned/{SIZE}:" + ",".join(NAMES)


def greedy_weights() -> Any:
    """The weights under which the model is the greedy bot's own evaluation (where training starts)."""
    w = np.zeros(SIZE, np.float32)
    for name, weight in GREEDY_WEIGHTS.items():
        w[NAMES.index(name)] = weight
    return w


class LinearValue:
    """The model in numpy: what the trainer plays with (the exported file computes the same)."""

    def __init__(self, w: Any, b: float = 0.0) -> None:
        self.w = np.asarray(w, dtype=np.float32)
        self.b = float(b)

    def values(self, x: Any) -> Any:
        return np.asarray(x, dtype=np.float32) @ self.w + np.float32(self.b)

    def __call__(self, leaves: list, seat: int) -> list[float]:
        return self.values(np.array([features(s, seat) for s in leaves], np.float32)).tolist()


class OnnxValue:
    """The exported model run by ONNX Runtime on one thread (what the hosted bot uses)."""

    def __init__(self, path: str | Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), sess_options=options,
                                            providers=["CPUExecutionProvider"])
        got = self.session.get_modelmeta().custom_metadata_map.get("features", "unknown")
        if got != FEATURES_ID:
            raise ValueError(f"{path} was fitted to other features ({got[:60]}) than these "
                             f"({FEATURES_ID[:60]}): retrain it (python -m sample_bots.solenia_learned.train)")

    def values(self, x: Any) -> Any:
        return self.session.run(["value"], {"features": np.asarray(x, dtype=np.float32)})[0][:, 0]

    def linear(self) -> tuple[Any, float]:
        """``(w, b)`` as the file computes them, read back through ONNX Runtime (the value at
        zero, then at each unit vector): a :class:`LinearValue` of them plays as this file does."""
        got = self.values(np.vstack([np.zeros(SIZE), np.eye(SIZE)]))
        return (got[1:] - got[0]).astype(np.float32), float(got[0])

    def __call__(self, leaves: list, seat: int) -> list[float]:
        return self.values(np.array([features(s, seat) for s in leaves], np.float32)).tolist()
