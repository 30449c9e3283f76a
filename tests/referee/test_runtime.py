"""The hosted bot runtime (referee/runtime.py): what a bot declares in requirements.txt is checked
before it starts, and numpy and ONNX Runtime really work inside the sandbox.

The sandboxed tests play real matches: the bot's bot.py imports numpy and onnxruntime under
bubblewrap (the seccomp filter, the rlimits, Landlock), loads an ONNX model from its own folder
and lets the model choose every move.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from arena.intake.bots import BotError, source_digest
from referee import runtime
from referee.match import MatchConfig, SeatSpec, run_match
from tests.referee.helpers import RANDOM_BOT, needs_bwrap

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
np = pytest.importorskip("numpy")


def _declare(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text("print('never started')\n")
    (folder / runtime.DECLARATION).write_text(text)
    return folder


def test_a_declaration_of_offered_packages_in_matching_versions_passes(tmp_path: Path) -> None:
    bot = _declare(tmp_path / "b", "# the model's runtime\nnumpy>=1.24\nonnxruntime >= 1.16, < 999\n\n")
    assert dict(runtime.check_requirements(bot)) == {
        "numpy": np.__version__, "onnxruntime": runtime.installed("onnxruntime")}


@pytest.mark.parametrize(("text", "message"), [
    ("torch\n", "torch: not offered to hosted bots"),
    ("numpy>=999\n", f"numpy>=999: this server has numpy {np.__version__}"),
    ("numpy==1.*\n", "this server has numpy") if not np.__version__.startswith("1.") else ("numpy==0.*\n", "this server has numpy"),
    ("-r other.txt\n", "line 1: '-r other.txt' is not a package name"),
    ("numpy @ https://example.org/numpy.whl\n", "is not a package name"),
])
def test_a_declaration_the_runtime_cannot_meet_is_refused_with_the_reason(
    tmp_path: Path, text: str, message: str
) -> None:
    bot = _declare(tmp_path / "b", text)
    with pytest.raises(runtime.RuntimeMissing, match="lacks what this bot declares|not a package") as err:
        runtime.check_requirements(bot)
    assert message in str(err.value)
    with pytest.raises(BotError, match=message.split(":")[0]):  # the intake refuses it too
        source_digest(str(bot))


def test_versions_compare_by_release_numbers() -> None:
    assert runtime._satisfies("2.4.6", ">=", "2.4")
    assert not runtime._satisfies("2.4.6", "<", "2.4.6")
    assert runtime._satisfies("1.32.0", "~=", "1.20")
    assert not runtime._satisfies("2.0.0", "~=", "1.20")
    assert runtime._satisfies("2.4.6rc1", "==", "2.4.*")
    assert runtime.normalise("ONNX_Runtime") == "onnx-runtime"


def test_the_runtime_offers_numpy_and_onnxruntime_here() -> None:
    versions = runtime.offered()
    assert versions["numpy"] == np.__version__
    assert versions["onnxruntime"] is not None


def _scoring_model(path: Path, options: int) -> None:
    """An ONNX model scoring ``options`` slots from a vector (MatMul + Add + ArgMax)."""
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.eye(options, dtype=np.float32)[::-1].copy(), "w")
    b = numpy_helper.from_array(np.linspace(0, 0.5, options, dtype=np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Add", ["y", "b"], ["s"]),
         helper.make_node("ArgMax", ["s"], ["best"], axis=1, keepdims=0)],
        "score", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, options])],
        [helper.make_tensor_value_info("best", TensorProto.INT64, [1])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())


ONNX_BOT = textwrap.dedent('''
    """Every move chosen by an ONNX model run with onnxruntime on numpy input."""
    import os
    import numpy as np
    import onnxruntime as ort
    from arena.sdk import serve_bot

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    MODEL = ort.InferenceSession(os.path.join(os.path.dirname(os.path.abspath(__file__)), "model.onnx"),
                                 sess_options=opts, providers=["CPUExecutionProvider"])
    print("runtime", np.__version__, ort.__version__, flush=True)

    def act(observation, options):
        x = np.zeros((1, 8), dtype=np.float32)
        x[0, : min(8, len(options))] = 1.0
        best = int(MODEL.run(["best"], {"x": x})[0][0])
        return options[best % len(options)].id

    if __name__ == "__main__":
        serve_bot(act)
''')


@needs_bwrap
def test_a_sandboxed_bot_imports_numpy_and_onnxruntime_and_plays_with_a_model(tmp_path: Path) -> None:
    bot = tmp_path / "onnx_bot"
    bot.mkdir()
    (bot / "bot.py").write_text(ONNX_BOT)
    (bot / runtime.DECLARATION).write_text("numpy\nonnxruntime\n")
    _scoring_model(bot / "model.onnx", 8)
    record = run_match(MatchConfig(game="black_angel", seed=3, sandbox=True,
                                   seats=[SeatSpec("onnx", str(bot)), SeatSpec("random", str(RANDOM_BOT))]))
    assert record.forfeits == [], [(f.reason, f.message, f.log_tail) for f in record.forfeits]
    assert record.result is not None
    assert sum(1 for d in record.decisions if d.seat == 0) >= 5  # the bot chose (single options are not asked)


@needs_bwrap
def test_a_bot_declaring_a_package_the_runtime_lacks_forfeits_at_start_with_the_reason(tmp_path: Path) -> None:
    bot = tmp_path / "needs_torch"
    bot.mkdir()
    (bot / "bot.py").write_text(ONNX_BOT)
    (bot / runtime.DECLARATION).write_text("numpy\ntorch>=2\n")
    record = run_match(MatchConfig(game="black_angel", seed=3, sandbox=shutil.which("bwrap") is not None,
                                   seats=[SeatSpec("t", str(bot)), SeatSpec("random", str(RANDOM_BOT))]))
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "start_failed")]
    assert "torch>=2: not offered to hosted bots" in record.forfeits[0].message
