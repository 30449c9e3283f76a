"""/replay/view and /replay/step: a local match record replayed and rendered without being kept.

A record file is what ``arena play --out`` writes (``MatchRecord.to_json``); its steps must
render exactly as the public replay page renders the same match, and every user mistake (bad
JSON, an unknown game, an illegal id, a body too large) is a 400 or 413 with a sentence.
"""

from __future__ import annotations

import copy
import io
import json
import re
from typing import Any

import pytest

from arena.db import Match, session_scope
from tests.web.seed import XSS_NAME, play_record
from web.record_file import MAX_REQUEST_BYTES

FORK = re.compile(r'<p class="small" data-testid="fork-command">.*?</p>', re.S)


@pytest.fixture(scope="module")
def stored(site) -> tuple[str, dict[str, Any]]:
    """A finished toy match of the seeded site and its record, as the database keeps it."""
    url, seeded = site
    with session_scope(url) as s:
        m = s.get(Match, seeded.match_ids[0])
        return m.id, copy.deepcopy(m.record)


def _file(record: dict[str, Any]) -> dict[str, Any]:
    """The record as a file written by ``arena play --out`` reads back."""
    return json.loads(json.dumps(record, indent=1))


def _post(client, path: str, record: Any, step: Any = 0, **extra: Any):  # noqa: ANN001, ANN202
    return client.post(path, json={"record": record, "step": step, **extra})


def test_every_step_renders_as_the_public_replay_page(client, stored) -> None:
    match_id, record = stored
    last = len(record["decisions"])
    for step in range(last + 1):
        public = client.get(f"/matches/{match_id}/steps/{step}")
        local = _post(client, "/replay/step", _file(record), step, file_name="m.json")
        assert public.status_code == local.status_code == 200
        # The only difference: ``arena fork`` names the file instead of the match id.
        assert FORK.sub("", local.get_data(as_text=True)) == FORK.sub("", public.get_data(as_text=True))
        if step < last:
            assert f"arena fork m.json --at {step} --seat" in local.get_data(as_text=True)
    end = _post(client, "/replay/step", _file(record), "end")
    assert 'data-testid="final-result"' in end.get_data(as_text=True)


def test_view_shows_summary_stepper_and_log(client, stored) -> None:
    _, record = stored
    response = _post(client, "/replay/view", _file(record), 3, file_name="my match.json")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    last = len(record["decisions"])
    assert f'data-last="{last}" data-step="3"' in html
    assert "data-step-url" not in html  # steps are posted, not fetched from a match URL
    assert html.count('<li data-step="') == last + 1
    assert 'id="play-button"' in html and 'id="play-speed"' in html
    for seat, name in enumerate(s["name"] for s in record["seats"]):
        assert f"<td class=\"name\">{name}</td>" in html
        assert f'<td class="num">{record["result"]["ranks"][seat]}</td>' in html
    assert "arena fork &#39;my match.json&#39; --at 3" in html  # quoted for a shell
    assert f"seed {record['seed']}" in html


def test_names_and_comments_are_escaped(client) -> None:
    record = play_record("xss", [XSS_NAME, "plain"], 7).to_dict()
    html = _post(client, "/replay/view", record, 2, file_name=XSS_NAME).get_data(as_text=True)
    assert XSS_NAME not in html
    assert "&lt;script&gt;" in html


def test_the_viewer_starts_at_the_end_when_asked(client, stored) -> None:
    _, record = stored
    html = _post(client, "/replay/view", record, "end").get_data(as_text=True)
    last = len(record["decisions"])
    assert f'data-step="{last}"' in html and 'data-testid="final-result"' in html
    # A step past the end shows the end, as ?step=N past the end does on a match page.
    assert f'data-step="{last}"' in _post(client, "/replay/view", record, last + 50).get_data(as_text=True)


def _refusal(response, status: int = 400) -> str:  # noqa: ANN001
    assert response.status_code == status
    assert response.is_json
    message = response.get_json()["message"]
    assert "Traceback" not in message and len(message) <= 1000
    return message


@pytest.mark.parametrize("path", ["/replay/view", "/replay/step"])
def test_bad_json_is_a_clear_400(client, path: str) -> None:
    message = _refusal(client.post(path, data=b'{"record": {"game": "toy",', content_type="application/json"))
    assert message.startswith("the request is not valid JSON")
    assert "line 1" in message
    assert _refusal(client.post(path, data=b"\xff\xfe")).startswith("the request is not")
    assert _refusal(client.post(path, data=b"[" * 100_000)).startswith("the request is not")
    assert _refusal(client.post(path, json=[1, 2])) == 'the request must be a JSON object with a "record" object'


def test_wrong_game_is_a_clear_400(client, stored) -> None:
    _, record = stored
    message = _refusal(_post(client, "/replay/view", {**record, "game": "chess"}))
    assert message.startswith("unknown game 'chess': this site replays black_angel, ")
    assert "solenia" in message
    message = _refusal(_post(client, "/replay/view", {**record, "game": "chess" * 1000}))
    assert message.startswith("game is longer than 50 characters: chesschess") and len(message) < 200
    # The ids of one game are not another game's: the engine refuses the first one.
    message = _refusal(_post(client, "/replay/view", {**record, "game": "solenia", "variant": None}))
    assert "decision 0: the engine rejects" in message


def test_illegal_option_id_is_a_clear_400(client, stored) -> None:
    _, record = stored
    bad = copy.deepcopy(record)
    bad["decisions"][4]["option"] = "not-an-option"
    # The viewer checks every id, even past the step it opens at ...
    message = _refusal(_post(client, "/replay/view", bad, 1))
    assert message.startswith("decision 4: the engine rejects 'not-an-option'")
    # ... a step before the bad id still renders, a step after it is refused.
    assert _post(client, "/replay/step", bad, 4).status_code == 200
    assert _refusal(_post(client, "/replay/step", bad, 5)).startswith("decision 4: the engine rejects")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"players": "two"}, 'players must be a whole number from 1 to 16, not "two"'),
        ({"players": 3}, 'the record must list 3 seats (its "players")'),
        ({"seed": True}, "seed must be a whole number from -9223372036854775808 to 18446744073709551615, not true"),
        ({"decisions": None}, 'the record has no "decisions" list'),
        ({"decisions": [{"seat": 0}]}, "decision 0: option must be a string, not null"),
        ({"decisions": [{"seat": 9, "option": "x"}]}, "decision 0: seat must be a whole number from 0 to 1, not 9"),
    ],
)
def test_malformed_record_is_a_clear_400(client, stored, change: dict, expected: str) -> None:
    _, record = stored
    assert _refusal(_post(client, "/replay/step", {**record, **change})) == expected


@pytest.mark.parametrize(
    "change",
    [
        {"forfeits": [{"seat": []}, "x", {"seat": 1, "reason": 7}]},
        {"forfeits": "x"},
        {"result": {"scores": ["a", None, 1e400], "ranks": [[]]}},
        {"result": None},
        {"comment": 5, "wall_ms": "x", "forced": "yes", "events": None},
    ],
)
def test_odd_shown_only_fields_are_left_out(client, stored, change: dict) -> None:
    """Fields that are only shown (forfeits, scores, comments, times) are left out when
    malformed, never a 500."""
    _, record = stored
    record = copy.deepcopy(record)
    first = record["decisions"][0]
    record["decisions"][0] = {**first, **{k: v for k, v in change.items() if k in first}}
    record.update({k: v for k, v in change.items() if k not in first})
    response = _post(client, "/replay/view", record, 1)
    assert response.status_code == 200
    step_box = response.get_data(as_text=True).split('id="step-view"')[1].split("</div>")[0]
    assert "Chose" in step_box
    assert ("Comment:" in step_box) == ("comment" not in change)


def test_bad_step_is_a_clear_400(client, stored) -> None:
    _, record = stored
    assert _refusal(_post(client, "/replay/step", record, -1)).startswith("step must be a whole number")
    assert _refusal(_post(client, "/replay/step", record, "9" * 5000)).startswith("step must be a whole number")


def test_too_large_is_413(client, stored) -> None:
    _, record = stored
    big = {"record": record, "step": 0, "padding": "x" * MAX_REQUEST_BYTES}
    message = _refusal(client.post("/replay/step", json=big), 413)
    assert "1024 KiB" in message
    # Sent without a length (chunked), the body is still cut at the cap.
    body = json.dumps(big).encode()
    response = client.post(
        "/replay/step",
        input_stream=io.BytesIO(body),
        environ_overrides={"CONTENT_LENGTH": "", "wsgi.input_terminated": True},
    )
    _refusal(response, 413)


def test_open_page_has_the_file_picker_and_no_upload_form(client) -> None:
    html = client.get("/replay").get_data(as_text=True)
    assert 'type="file"' in html and 'id="record-file"' in html
    assert "enctype" not in html and 'method="post"' not in html.lower()
    assert "replay-file.js" in html and 'id="record-needs-js"' in html
