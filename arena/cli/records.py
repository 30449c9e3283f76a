"""``arena records compact|expand``: convert the stored match records between today's JSON and
the compact form (:mod:`arena.records.convert`, issue 40) — on the server machine, against the
database (like ``arena ratings rebuild``)."""

from __future__ import annotations

import click


@click.group("records")
def records_group() -> None:
    """Stored match records: convert them to the compact form and back (docs/records-size.md)."""


def _reporter(quiet: bool):  # noqa: ANN202 - a Progress callback
    def report(progress) -> None:  # noqa: ANN001
        if not quiet:
            click.echo(progress.line(), err=True)
    return report


@records_group.command("compact")
@click.option("--limit", type=click.IntRange(1), default=None, help="Convert at most this many records this run.")
@click.option("--retry-kept", is_flag=True,
              help="Try again the records an earlier run kept as JSON (they did not verify then).")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def compact_command(limit: int | None, retry_kept: bool, quiet: bool) -> None:
    """Store every finished match still kept as JSON in the compact form, verifying each one:
    its compact form must regenerate the stored JSON byte for byte, else the JSON is kept.
    Streams a page of records at a time, each page committed: stop it any time and run it
    again to carry on."""
    from arena.db import session_scope
    from arena.records import convert

    with session_scope() as s:
        progress = convert.compact_records(s, limit=limit, retry_kept=retry_kept, report=_reporter(quiet))
    click.echo(progress.line())
    for mid, why in progress.reasons[:20]:
        click.echo(f"kept as JSON: {mid}: {why}")


@records_group.command("expand")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def expand_command(quiet: bool) -> None:
    """Store every compact record as JSON again (what a downgrade past migration 0022 needs)."""
    from arena.db import session_scope
    from arena.records import convert

    with session_scope() as s:
        progress = convert.expand_records(s, report=_reporter(quiet))
    click.echo(f"{progress.converted} records stored as JSON again, {progress.kept} could not be regenerated")
    for mid, why in progress.reasons[:20]:
        click.echo(f"still compact: {mid}: {why}")
    if progress.kept:
        raise SystemExit(1)


def register(group: click.Group) -> None:
    group.add_command(records_group)
