"""``arena export dataset`` (issue 40 item 4): the selected matches' decisions as training rows,
Parquet or JSON Lines, resumable, filtered, and without the matches of opted-out authors."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

# The rows are the environments' encodings (numpy), Parquet is pyarrow: the datasets extra.
# Without it (the run on the minimum versions installs only [dev]) the command says what to
# install, which test_user_mistakes_are_one_line cannot tell from a mistake: the module skips.
pytest.importorskip("numpy")
pytest.importorskip("pyarrow")

from arena.cli import cli
from arena.db import init_db, session_scope
from arena.db.accounts import User
from arena.db.models import Bot, BotVersion, Match, MatchSeat, Tournament
from benchmarks.random_records import played_record

T0 = datetime(2026, 11, 1, 12, 0)


def _bot(s, owner: str, name: str, game: str) -> int:  # noqa: ANN001
    bot = Bot(owner=owner, name=name, game=game)
    s.add(bot)
    s.flush()
    version = BotVersion(bot_id=bot.id, number=1, source="/x", initial_mu=25.0, initial_sigma=8.0)
    s.add(version)
    s.flush()
    return version.id


def _match(s, game: str, seed: int, versions: list[int], mus: list[float], day: int,  # noqa: ANN001
           tournament_id: int | None = None) -> tuple[str, int]:
    record = played_record(game, seed, players=len(versions))
    m = Match(id=record.match_id, game=game, variant=record.variant, players=record.players, seed=seed,
              status="done", record=record.to_dict(), result=record.result, tournament_id=tournament_id,
              created_at=T0 + timedelta(days=day), finished_at=T0 + timedelta(days=day, minutes=1))
    s.add(m)
    for seat, (vid, mu) in enumerate(zip(versions, mus, strict=True)):
        s.add(MatchSeat(match_id=m.id, seat=seat, bot_version_id=vid, rank=record.result["ranks"][seat],
                        score=record.result["scores"][seat], mu_before=mu, sigma_before=2.0))
    return m.id, len(record.decisions)


@pytest.fixture
def archive(db_url: str) -> dict:
    """Six finished matches: four of Solenia (one in a tournament, one with a weak seat, one of an
    opted-out author), two of Black Angel; a pending match and a running one are never exported."""
    init_db(db_url)
    with session_scope() as s:
        s.add_all([User(name="ann", token_hash="a" * 64), User(name="olga", token_hash="o" * 64, dataset_opt_out=True)])
        t = Tournament(name="cup", game="solenia", variant="summer", players=2, format="round_robin")
        s.add(t)
        s.flush()
        a, b = _bot(s, "ann", "alpha", "solenia"), _bot(s, "ben", "beta", "solenia")
        o = _bot(s, "olga", "opted", "solenia")
        c, d = _bot(s, "ann", "gamma", "black_angel"), _bot(s, "ben", "delta", "black_angel")
        out = {
            "plain": _match(s, "solenia", 1, [a, b], [31.0, 33.0], 1),
            "cup": _match(s, "solenia", 2, [b, a], [32.0, 34.0], 2, tournament_id=t.id),
            "weak": _match(s, "solenia", 3, [a, b], [31.0, 12.0], 3),
            "optout": _match(s, "solenia", 4, [a, o], [35.0, 35.0], 4),
            "ba1": _match(s, "black_angel", 5, [c, d], [20.0, 21.0], 5),
            "ba2": _match(s, "black_angel", 6, [d, c], [22.0, 23.0], 6),
        }
        s.add(Match(id="f" * 32, game="solenia", variant="summer", players=2, seed=9, status="running"))
        out["tournament"] = t.id
        s.commit()
    return out


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, ["export", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _parquet(out: Path):  # noqa: ANN202
    ds = pytest.importorskip("pyarrow.dataset")
    pytest.importorskip("pandas")  # to_pandas: not in the minimum-versions run's install
    return ds.dataset(out, format="parquet", partitioning="hive").to_table().to_pandas()


def test_parquet_export_by_game_with_the_seat_rating_and_result(archive: dict, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    _run("dataset", "--out", str(out))
    assert sorted(p.name for p in out.iterdir()) == ["_export.json", "_lock", "_manifest.jsonl", "game=black_angel",
                                                     "game=solenia"]
    df = _parquet(out)
    by_match = df.groupby("match_id").size().to_dict()
    wanted = {archive[k][0]: archive[k][1] for k in ("plain", "cup", "weak", "ba1", "ba2")}
    assert by_match == wanted  # every decision once; the opted-out author's match left out
    row = df[(df.match_id == archive["plain"][0]) & (df.decision == 0)].iloc[0]
    assert row.game == "solenia" and row.seat == 0 and row.bot == "alpha" and row.rating_mu == 31.0
    assert row.rating_sigma == 2.0 and row.bot_version == 1 and row.action_space > 100
    assert row.option_ids[row.choice_index] == row.choice
    assert row.action in set(row.legal_actions)
    assert json.loads(row.observation)["seat"] == 0
    from arena.envs.decisions import dense_vector
    from arena.envs.encoding import encode

    for _, r in df[df.match_id == archive["ba1"][0]].iterrows():  # the environments' vector, row by row
        assert (dense_vector(r.vector_index, r.vector_value) == encode(json.loads(r.observation))).all()
    assert list(row.ranks)[0] == row.seat_rank
    seat1 = df[(df.match_id == archive["plain"][0]) & (df.seat == 1)]
    assert set(seat1.bot) == {"beta"} and set(seat1.rating_mu) == {33.0}
    assert (df.groupby(["match_id", "decision"]).size() == 1).all()


def test_parts_close_at_a_match_end_and_no_vector_leaves_it_null(archive: dict, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.datasets import export

    monkeypatch.setattr(export, "PART_ROWS", 50)  # every match closes a part
    _run("dataset", "--out", str(tmp_path / "o"), "--no-vector", "--game", "black_angel")
    parts = sorted(p.name for p in (tmp_path / "o" / "game=black_angel").iterdir())
    assert parts == ["part-00000.parquet", "part-00001.parquet"]
    df = _parquet(tmp_path / "o")
    assert df.vector_index.isna().all() and df.match_id.nunique() == 2
    assert len(df) == archive["ba1"][1] + archive["ba2"][1]


def test_filters_select_by_game_rating_bot_tournament_and_date(archive: dict, tmp_path: Path) -> None:
    def ids(*args: str) -> set[str]:
        out = tmp_path / f"f{len(list(tmp_path.iterdir()))}"
        _run("dataset", "--out", str(out), "--format", "jsonl", *args)
        return {json.loads(line)["match_id"] for p in out.glob("game=*/*.jsonl") for line in p.read_text().splitlines()}

    m = {k: v[0] for k, v in archive.items() if isinstance(v, tuple)}
    assert ids("--game", "solenia", "--min-rating", "30") == {m["plain"], m["cup"]}
    assert ids("--game", "solenia", "--max-rating", "32.5") == {m["weak"]}
    assert ids("--bot", "delta") == {m["ba1"], m["ba2"]}
    assert ids("--tournament", str(archive["tournament"])) == {m["cup"]}
    assert ids("--since", "2026-11-03", "--until", "2026-11-06") == {m["cup"], m["weak"]}
    assert ids("--players", "2", "--variant", "base") == {m["ba1"], m["ba2"]}


def test_a_rerun_continues_where_the_last_one_stopped(archive: dict, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    _run("dataset", "--out", str(out), "--game", "solenia", "--limit", "1")
    first = _parquet(out)
    assert first.match_id.nunique() == 1
    # a run killed after writing a part but before naming it in the manifest: the part is redone
    (out / "game=solenia" / "part-00077.parquet").write_bytes(b"half")
    (out / "_manifest.jsonl").open("ab").write(b'{"part": "game=sol')  # a line cut short
    text = _run("dataset", "--out", str(out), "--game", "solenia")
    assert "2 matches written this run, 3 in all" in text
    df = _parquet(out)
    assert df.match_id.nunique() == 3 and not (out / "game=solenia" / "part-00077.parquet").exists()
    assert (df.groupby(["match_id", "decision"]).size() == 1).all()  # nothing twice
    assert "0 matches written this run" in _run("dataset", "--out", str(out), "--game", "solenia")
    result = CliRunner().invoke(cli, ["export", "dataset", "--out", str(out), "--game", "black_angel"])
    assert result.exit_code == 1 and "another selection" in result.output
    import fcntl

    with open(out / "_lock", "a") as held:  # an export running into this folder now
        fcntl.flock(held, fcntl.LOCK_EX)
        result = CliRunner().invoke(cli, ["export", "dataset", "--out", str(out), "--game", "solenia"])
    assert result.exit_code == 1 and "another export is writing this folder" in result.output


def test_opt_out_from_the_cli_and_back(archive: dict, tmp_path: Path) -> None:
    _run("opt-out", "olga", "--undo")
    _run("dataset", "--out", str(tmp_path / "a"), "--format", "jsonl", "--game", "solenia")
    lines = [json.loads(x) for p in (tmp_path / "a").glob("game=*/*") for x in p.read_text().splitlines()]
    assert archive["optout"][0] in {r["match_id"] for r in lines}
    assert all(r["game"] == "solenia" for r in lines)
    _run("opt-out", "ann")  # ann's bots sat in every Solenia match
    _run("dataset", "--out", str(tmp_path / "b"), "--format", "jsonl", "--game", "solenia")
    assert not list((tmp_path / "b").glob("game=*/*"))
    result = CliRunner().invoke(cli, ["export", "opt-out", "nobody"])
    assert result.exit_code == 1 and "no account named 'nobody'" in result.output


def test_user_mistakes_are_one_line(archive: dict, tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    for args, says in [
        (["--game", "chess"], "unknown"),
        (["--since", "yesterday"], "YYYY-MM-DD"),
        (["--out", str(tmp_path / "full")], "is not empty and holds no export"),
    ]:
        full = ["export", "dataset", *(args if "--out" in args else ["--out", str(tmp_path / "o"), *args])]
        result = CliRunner().invoke(cli, full)
        assert result.exit_code in (1, 2) and says in result.output and "Traceback" not in result.output
    assert (tmp_path / "full" / "x").read_text() == "mine"


def test_parquet_without_pyarrow_says_how_to_install_it(archive: dict, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    result = CliRunner().invoke(cli, ["export", "dataset", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and 'pip install -e ".[datasets]"' in result.output


def test_a_record_that_does_not_replay_is_left_out_and_said(archive: dict, tmp_path: Path) -> None:
    with session_scope() as s:
        m = s.get(Match, archive["ba1"][0])
        record = dict(m.record)
        record["seed"] += 1
        m.record = record
        s.commit()
    result = CliRunner().invoke(cli, ["export", "dataset", "--out", str(tmp_path / "o"), "--game", "black_angel"])
    assert result.exit_code == 0, result.output
    assert f"match {archive['ba1'][0]}: left out" in result.output and "1 matches left out" in result.output


def test_the_loading_examples_of_the_docs_run(archive: dict, tmp_path: Path) -> None:
    """docs/datasets.md, Loading: pandas on the whole folder, and Hugging Face datasets when installed."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import numpy as np

    out = tmp_path / "solenia-30"
    _run("dataset", "--out", str(out))
    df = pd.read_parquet(out)
    rows = df[(df.game == "solenia") & (df.seat_rank == 1)]
    row = rows.iloc[0]
    assert json.loads(row.observation)["seat"] == row.seat
    assert row.option_ids[row.choice_index] == row.choice
    vector = np.zeros(2048, np.float32)
    vector[row.vector_index] = row.vector_value
    mask = np.zeros(row.action_space, np.int8)
    mask[row.legal_actions] = 1
    assert mask[row.action] == 1 and vector.any()
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset("parquet", data_files=str(out / "game=solenia" / "*.parquet"), split="train",
                               cache_dir=str(tmp_path / "hf"))
    ds = ds.filter(lambda r: r["rating_mu"] is not None and r["rating_mu"] > 30)
    assert len(ds) == len(df[(df.game == "solenia") & (df.rating_mu > 30)])
