"""Hostile URLs (issue #26 item 7): ids beyond the database's signed 64-bit integers, digits
``int`` cannot read, and 10,000-character values. Never a 500; an id no row can have is a 404
like any unknown id; an error message quotes the value shortened."""

from __future__ import annotations

import pytest

from arena.quoting import MAX_MESSAGE
from web.ids import MAX_ID, parse_number
from web.pages import _SAFE_GAME

#: Out of range: 2**63 and 2**64 overflowed SQLite's integer binding (a 500 before), 5,000
#: digits are past what int() reads.
HUGE = [str(2**63), str(2**64), "9" * 5000]
#: Not ASCII numbers, though str.isdigit() says yes to the first two ("²" broke int()).
ODD = ["²", "١٢", "-1", "1.5", "1e5"]

#: Every route with an integer id in its path (the seven of the report, and the step routes).
PATH_ROUTES = [
    "/bots/{n}",
    "/api/bots/{n}",
    "/tournaments/{n}",
    "/api/tournaments/{n}",
    "/seasons/{n}",
    "/seasons/{n}/standings.json",
    "/matches/{m}/steps/{n}",
    "/api/matches/{m}/replay/{n}",
]
#: Every query argument that is an id filter, in the JSON API.
API_ID_FILTERS = ["/api/matches?bot={n}", "/api/matches?tournament={n}", "/api/matches?game=toy&bot={n}"]
#: The same filters on the HTML page: the page shows the refusal above an empty list.
PAGE_ID_FILTERS = ["/matches?bot={n}", "/matches?tournament={n}", "/matches?game=toy&bot={n}"]
#: Offsets and counts: any number is fine, a huge one is clamped.
OFFSETS = ["/tournaments/{t}?from={n}", "/api/tournaments/{t}?from={n}", "/api/matches?limit={n}",
           "/matches/{m}?step={n}"]


def _url(template: str, seeded, n: str) -> str:  # noqa: ANN001
    return template.format(n=n, m=seeded.match_ids[0], t=seeded.tournament_id)


@pytest.mark.parametrize("n", HUGE)
@pytest.mark.parametrize("route", PATH_ROUTES + API_ID_FILTERS)
def test_an_id_beyond_int64_is_a_404(client, seeded, route: str, n: str) -> None:  # noqa: ANN001
    response = client.get(_url(route, seeded, n))
    assert response.status_code == 404, (route, response.status_code)
    if route.startswith("/api/"):
        assert len(response.get_json()["message"]) <= 120


@pytest.mark.parametrize("route", PATH_ROUTES + API_ID_FILTERS)
def test_the_largest_id_is_just_unknown(client, seeded, route: str) -> None:  # noqa: ANN001
    response = client.get(_url(route, seeded, str(MAX_ID)))
    assert response.status_code in (200, 404), route
    if "/matches?" in route:
        assert response.get_json()["matches"] == []


@pytest.mark.parametrize("n", HUGE + ODD)
@pytest.mark.parametrize("route", PAGE_ID_FILTERS)
def test_the_matches_page_refuses_an_impossible_id_filter_in_words(client, seeded, route: str, n: str) -> None:  # noqa: ANN001
    response = client.get(_url(route, seeded, n))
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    alert = page[page.find('role="alert"'):][:2_000]  # the input field keeps what was typed
    assert 'role="alert"' in page and "9" * 100 not in alert


@pytest.mark.parametrize("n", ODD)
@pytest.mark.parametrize("route", API_ID_FILTERS + ["/api/matches?limit={n}", "/api/tournaments/{t}?from={n}"])
def test_the_api_refuses_what_is_not_a_number_with_400(client, seeded, route: str, n: str) -> None:  # noqa: ANN001
    assert client.get(_url(route, seeded, n)).status_code == 400


@pytest.mark.parametrize("n", HUGE + ODD)
@pytest.mark.parametrize("route", OFFSETS)
def test_huge_or_odd_offsets_never_break_a_page(client, seeded, route: str, n: str) -> None:  # noqa: ANN001
    response = client.get(_url(route, seeded, n))
    assert response.status_code in (200, 400), (route, n, response.status_code)


@pytest.mark.parametrize("route", ["/matches/{x}", "/api/matches/{x}", "/games/{x}", "/api/games/{x}/leaderboard",
                                   "/matches/{x}/live", "/api/matches/{x}/record"])
def test_an_unknown_ten_thousand_character_name_is_quoted_shortened(client, route: str) -> None:  # noqa: ANN001
    response = client.get(route.format(x="x" * 10_000))
    assert response.status_code == 404
    assert response.get_data(as_text=True).count("x" * 100) == 0
    assert len(response.data) < 6_000


@pytest.mark.parametrize("arg", ["outcome", "status", "bot"])
def test_a_ten_thousand_character_filter_is_quoted_shortened(client, arg: str) -> None:  # noqa: ANN001
    api = client.get(f"/api/matches?{arg}={'y' * 10_000}")
    assert api.status_code in (200, 400)
    if api.status_code == 400:
        assert len(api.get_json()["message"]) <= MAX_MESSAGE
    page = client.get(f"/matches?{arg}={'y' * 10_000}").get_data(as_text=True)
    alert = page[page.find('role="alert"'):][:2_000]
    assert 'role="alert"' in page and "y" * 100 not in alert


def test_parse_number_reads_ascii_digits_only() -> None:
    assert parse_number("42") == 42 and parse_number(" 007 ") == 7
    assert parse_number(str(MAX_ID)) == MAX_ID
    assert parse_number(str(MAX_ID + 1)) == MAX_ID + 1
    assert parse_number("9" * 5000) == MAX_ID + 1
    assert parse_number("0" * 40 + "3") == 3
    for text in ["", "²", "١٢", "-1", "+1", "1.5", "1e5", "x", None]:
        assert parse_number(text) is None, text


def test_a_game_name_with_a_final_newline_is_not_a_template_name() -> None:
    assert _SAFE_GAME.fullmatch("black_angel")
    assert not _SAFE_GAME.fullmatch("black_angel\n")


@pytest.mark.parametrize(("url", "status"), [
    ("/matches/%00", 404), ("/api/matches/%00", 404), ("/api/matches/%00/record", 404), ("/matches/%00/live", 404),
    ("/matches?bot=a%00b", 400), ("/api/matches?game=%00", 400), ("/api/tournaments?status=%00", 400),
])
def test_a_nul_character_in_a_url_is_refused_before_any_query(client, url: str, status: int) -> None:  # noqa: ANN001
    """PostgreSQL cannot compare a string with a NUL in it: these were 500s there."""
    assert client.get(url).status_code == status
