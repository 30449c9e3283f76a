"""A trained :class:`~arena.envs.mlp.MaskedMLP` as an ONNX model, and the policy that plays it
with ONNX Runtime: how a learned bot reaches the ladder without the training code.

Why ONNX, written by hand: a hosted bot runs on the server's Python (docs/bot-authors-guide.md,
"Packages a hosted bot may use"), which offers numpy and ONNX Runtime but no training framework;
an ONNX file is the framework-neutral form any trainer (PyTorch, JAX, this numpy one) can
produce. The network is small enough to write its graph node by node with the ``onnx`` package
(no torch): ``sign(x)·log1p|x|``, the per-bucket standardisation, MatMul/Add/Tanh, MatMul/Add,
and the mask (illegal actions get :data:`ILLEGAL`), so the file alone computes the bot's choice
from the environments' vector and action mask. The model's metadata carries the game, the
observation encoding's fingerprint and the catalogue's size; :meth:`OnnxPolicy.load` refuses a
model whose encoding differs from the installed one (retrain rather than play on buckets that
now mean something else).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.envs import require
from arena.envs.mlp import EncodingMismatch, MaskedMLP, encoding_fingerprint

np = require("numpy", "numpy")

#: The logit of an illegal action in the model's output: far below any legal one.
ILLEGAL = -1.0e9
#: ONNX operator set and IR version: old enough for ONNX Runtime 1.16 and later.
OPSET = 17
IR_VERSION = 8


def export(net: MaskedMLP, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """Write ``net`` as an ONNX model at ``path`` (inputs ``observation`` float32[N, inputs] and
    ``action_mask`` float32[N, actions], output ``logits`` float32[N, actions] with illegal
    actions at :data:`ILLEGAL`); ``extra`` goes into the metadata as JSON (how it was trained)."""
    onnx = require("onnx", "onnx")
    from onnx import TensorProto, helper, numpy_helper

    inputs, hidden = net.w1.shape
    actions = net.w2.shape[1]
    consts = {
        "mu": net.mu, "sd": net.sd, "w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": net.b2,
        "one": np.array(1.0, np.float32), "zero": np.array(0.0, np.float32),
        "illegal": np.array(ILLEGAL, np.float32),
    }
    init = [numpy_helper.from_array(np.asarray(a, dtype=np.float32), k) for k, a in consts.items()]
    n = helper.make_node
    nodes = [
        n("Sign", ["observation"], ["sign"]),
        n("Abs", ["observation"], ["abs"]),
        n("Add", ["abs", "one"], ["abs1"]),
        n("Log", ["abs1"], ["log1p"]),
        n("Mul", ["sign", "log1p"], ["squashed"]),
        n("Sub", ["squashed", "mu"], ["centred"]),
        n("Div", ["centred", "sd"], ["standard"]),
        n("MatMul", ["standard", "w1"], ["h_lin"]),
        n("Add", ["h_lin", "b1"], ["h_pre"]),
        n("Tanh", ["h_pre"], ["h"]),
        n("MatMul", ["h", "w2"], ["o_lin"]),
        n("Add", ["o_lin", "b2"], ["raw_logits"]),
        n("Greater", ["action_mask", "zero"], ["legal"]),
        n("Where", ["legal", "raw_logits", "illegal"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, f"learned_{net.game}",
        [helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["N", inputs]),
         helper.make_tensor_value_info("action_mask", TensorProto.FLOAT, ["N", actions])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", actions])],
        init,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="tabletop-arena"
    )
    model.ir_version = IR_VERSION
    meta = {"game": net.game, "encoding": encoding_fingerprint(), "actions": str(actions),
            "hidden": str(hidden), "training": json.dumps(extra or {}, sort_keys=True)}
    helper.set_model_props(model, meta)
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())
    return path


class OnnxPolicy:
    """``policy(vector, mask) -> action index`` computed by ONNX Runtime from a model file: the
    signature :func:`arena.sdk.serve_policy` serves. One thread: the sandbox counts threads as
    processes, and one decision is a small product."""

    def __init__(self, path: str | Path) -> None:
        ort = require("onnxruntime", "onnxruntime")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about unused CPU features are not the bot's
        self.session = ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        meta = self.session.get_modelmeta().custom_metadata_map
        self.game = meta.get("game", "")
        trained, now = meta.get("encoding", "unknown"), encoding_fingerprint()
        if trained != now:
            raise EncodingMismatch(
                f"{path} was trained on another observation encoding ({trained}) than this "
                f"arena.envs.encoding ({now}): retrain it (arena train --game {self.game or 'GAME'})"
            )

    def logits(self, vectors: Any, masks: Any) -> Any:
        """The masked logits of a batch (rows of vectors and masks)."""
        return self.session.run(
            ["logits"],
            {"observation": np.asarray(vectors, dtype=np.float32),
             "action_mask": np.asarray(masks, dtype=np.float32)},
        )[0]

    def __call__(self, obs_vector: Any, action_mask: Any) -> int:
        """The legal action with the highest logit."""
        return int(np.argmax(self.logits(np.asarray(obs_vector)[None, :],
                                          np.asarray(action_mask)[None, :])[0]))


def export_value_mlp(
    path: str | Path, mu: Any, sd: Any, layers: list[tuple[Any, Any]], meta: dict[str, str]
) -> Path:
    """Write a value network as an ONNX model: input ``features`` float32[N, F], standardised
    with ``mu``/``sd``, then each (weights, bias) of ``layers`` (tanh between them, none after
    the last), output ``value`` float32[N, outputs]; ``meta`` goes into the model's metadata.
    For bots whose network reads their own features rather than the environments' vector."""
    onnx = require("onnx", "onnx")
    from onnx import TensorProto, helper, numpy_helper

    init = [numpy_helper.from_array(np.asarray(mu, dtype=np.float32), "mu"),
            numpy_helper.from_array(np.asarray(sd, dtype=np.float32), "sd")]
    nodes = [helper.make_node("Sub", ["features", "mu"], ["centred"]),
             helper.make_node("Div", ["centred", "sd"], ["x0"])]
    x = "x0"
    for i, (w, b) in enumerate(layers):
        init += [numpy_helper.from_array(np.asarray(w, dtype=np.float32), f"w{i}"),
                 numpy_helper.from_array(np.asarray(b, dtype=np.float32), f"b{i}")]
        nodes += [helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"])]
        last = i == len(layers) - 1
        nodes += [helper.make_node("Add", [f"m{i}", f"b{i}"], ["value" if last else f"a{i}"])]
        if not last:
            nodes += [helper.make_node("Tanh", [f"a{i}"], [f"x{i + 1}"])]
            x = f"x{i + 1}"
    inputs, outputs = np.shape(layers[0][0])[0], np.shape(layers[-1][0])[1]
    graph = helper.make_graph(
        nodes, "value",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", inputs])],
        [helper.make_tensor_value_info("value", TensorProto.FLOAT, ["N", outputs])], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="tabletop-arena")
    model.ir_version = IR_VERSION
    helper.set_model_props(model, meta)
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())
    return path
