"""Settings of one Arena server: where uploaded bots live, upload caps, qualification.

Where uploaded bots are stored — the *data directory*:

* ``ARENA_DATA_DIR`` when set;
* else ``ARENA_HOME`` when set (the folder that also holds the default SQLite database);
* else ``${XDG_DATA_HOME:-~/.local/share}/tabletop-arena``.

Each version of a hosted bot is unpacked into ``<data dir>/bots/<bot id>/v<number>/`` and never
changed afterwards (a match replays against exactly the code that played it). Several machines
(server and workers) must see the same data directory, e.g. a shared volume.

The database is not set here: the server, the workers and the web all find it the same way,
through ``ARENA_DATABASE_URL`` (see :mod:`arena.db.session`), so they cannot disagree.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

from arena.evaluation.sprt import SprtSettings
from arena.intake.uploads import MiB, UploadLimits
from arena.play.challenges import ChallengeLimits
from arena.workers.sandbox import SANDBOX_ENV, sandbox_default  # noqa: F401 - settings' names too
from referee.engine import TimeControl

DATA_DIR_ENV = "ARENA_DATA_DIR"
#: PEM files of the server's certificate (chain) and private key: set both to serve TLS only.
TLS_CERT_ENV = "ARENA_TLS_CERT"
TLS_KEY_ENV = "ARENA_TLS_KEY"
#: Comma-separated addresses or networks (CIDR) of reverse proxies whose ``x-forwarded-for``
#: metadata names the client (arena.server.streams.ClientAddresses). Default: nobody's.
TRUSTED_PROXIES_ENV = "ARENA_TRUSTED_PROXIES"
#: New accounts per client per rolling hour (``Register``).
REGISTRATIONS_ENV = "ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR"


def default_data_dir() -> Path:
    explicit = os.environ.get(DATA_DIR_ENV) or os.environ.get("ARENA_HOME")
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "tabletop-arena"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) <= 0:
        raise ValueError(f"{name}={value!r} is not a positive whole number")
    return int(value)


def _env_networks(name: str) -> tuple[str, ...]:
    """A comma-separated list of IP addresses or CIDR networks; anything else is refused."""
    raw = os.environ.get(name, "")
    items = tuple(item.strip() for item in raw.split(",") if item.strip())
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{name}={raw!r}: {item!r} is not an IP address or network") from None
    return items


@dataclass
class ServerConfig:
    data_dir: Path = field(default_factory=default_data_dir)
    limits: UploadLimits = field(default_factory=UploadLimits)
    #: Run bots in bubblewrap during qualification.
    sandbox: bool = field(default_factory=sandbox_default)
    #: Time control of qualification matches; None uses the game's own.
    qualification_time_control: TimeControl | None = None
    #: How long a bot may take from launch (or dial) to answering StartMatch.
    qualification_startup_ms: int = 10000
    #: Qualification matches run in this many background threads of the server.
    qualification_workers: int = 2
    #: How long a ``wait=true`` submission may block before returning QUALIFYING.
    qualification_wait_s: float = 600.0
    #: The SPRT a new version plays against the version it would replace (None: no test, a
    #: qualified version replaces its predecessor at once). A submission may override it.
    sprt: SprtSettings | None = field(default_factory=SprtSettings)
    #: Time control of SPRT matches; None uses the game's own.
    sprt_time_control: TimeControl | None = None
    #: Seeds of SPRT pairs: None draws secret random ones; a number counts up from it
    #: (reproducible tests).
    sprt_seed: int | None = None
    #: Threads of the server playing SPRT tests (each plays its matches one after another).
    sprt_workers: int = 1
    #: Threads answering unary calls (WatchMatch streams hold none: see arena.server.streams).
    max_workers: int = 32
    #: Open WatchMatch streams at once, in total and per client (IP address, IPv6 by /64, and
    #: account).
    max_streams: int = field(default_factory=lambda: _env_int("ARENA_MAX_STREAMS", 2000))
    max_streams_per_client: int = field(default_factory=lambda: _env_int("ARENA_MAX_STREAMS_PER_CLIENT", 16))
    #: Distinct watched matches at once (each live one holds a pump thread), in total and per
    #: client (IP address, IPv6 by /64, and account); see arena.server.streams.
    max_watched_matches: int = field(default_factory=lambda: _env_int("ARENA_MAX_WATCHED_MATCHES", 256))
    max_watched_matches_per_client: int = field(
        default_factory=lambda: _env_int("ARENA_MAX_WATCHED_MATCHES_PER_CLIENT", 8))
    #: Reverse proxies whose x-forwarded-for is believed (ARENA_TRUSTED_PROXIES; default none).
    trusted_proxies: tuple[str, ...] = field(default_factory=lambda: _env_networks(TRUSTED_PROXIES_ENV))
    #: New accounts (``Register``) one client may make per rolling hour — its address, IPv6 by
    #: /64, behind a trusted proxy the address the proxy names — counted in the database (see
    #: arena.server.registrations): every per-account cap is worth this many times its value to
    #: one client an hour, no more.
    registrations_per_client_per_hour: int = field(
        default_factory=lambda: _env_int(REGISTRATIONS_ENV, 5))
    #: Dial-in bots (``ConnectBot``, see arena.server.dialin), each cap refused with
    #: RESOURCE_EXHAUSTED. Open streams in total (an idle one costs the server no thread but
    #: about 70 KiB and one file descriptor: keep the fd limit above it), per client IP address
    #: and per account (a reconnection that replaces its own stream never counts twice).
    dialin_streams: int = field(default_factory=lambda: _env_int("ARENA_DIALIN_STREAMS", 2000))
    dialin_streams_per_client: int = field(default_factory=lambda: _env_int("ARENA_DIALIN_STREAMS_PER_CLIENT", 100))
    dialin_streams_per_account: int = field(default_factory=lambda: _env_int("ARENA_DIALIN_STREAMS_PER_ACCOUNT", 20))
    #: New bot names one account may create by dialling in, per rolling hour.
    dialin_new_bots_per_hour: int = field(default_factory=lambda: _env_int("ARENA_DIALIN_NEW_BOTS_PER_HOUR", 10))
    #: Qualifications one account may have pending (of any kind of bot) before a hello that
    #: would start another is refused.
    dialin_pending_qualifications: int = field(
        default_factory=lambda: _env_int("ARENA_DIALIN_PENDING_QUALIFICATIONS", 2))
    #: The same across accounts, per client (IP address, IPv6 by /64; see
    #: arena.server.streams.ClientAddresses): qualifications pending that calls from it started.
    pending_qualifications_per_client: int = field(
        default_factory=lambda: _env_int("ARENA_PENDING_QUALIFICATIONS_PER_CLIENT", 4))
    #: A dial-in bot refused at qualification for its own fault is not qualified again until
    #: this many seconds after the refusal (its hellos are refused RESOURCE_EXHAUSTED meanwhile).
    requalify_backoff_s: int = field(default_factory=lambda: _env_int("ARENA_REQUALIFY_BACKOFF_S", 120))
    #: How long a new ConnectBot stream may take to send its hello.
    dialin_hello_timeout_s: float = 10.0
    #: How often the server looks whether a connected bot was deactivated or replaced by
    #: another route, or was refused at qualification (its stream is then ended, saying why).
    dialin_check_s: float = 2.0
    #: Entries one author may have in a tournament made by ``CreateTournament`` (the API has no
    #: field for it yet: the operator's setting, ARENA_ENTRIES_PER_AUTHOR; arena.intake.authors).
    entries_per_author: int = field(default_factory=lambda: _env_int("ARENA_ENTRIES_PER_AUTHOR", 1))
    #: Challenges (``ChallengeBot``): per account per rolling hour, per account not finished yet,
    #: against one bot not finished yet (ARENA_CHALLENGES_PER_HOUR, ARENA_CHALLENGES_PENDING,
    #: ARENA_CHALLENGES_PENDING_PER_BOT; see arena.play.challenges).
    challenges: ChallengeLimits = field(default_factory=ChallengeLimits.from_env)
    #: Serve TLS with this certificate chain and key (PEM); both None: plaintext.
    tls_cert: Path | None = field(default_factory=lambda: _env_path(TLS_CERT_ENV))
    tls_key: Path | None = field(default_factory=lambda: _env_path(TLS_KEY_ENV))

    @property
    def bots_dir(self) -> Path:
        return self.data_dir / "bots"

    @property
    def max_message_bytes(self) -> int:
        """Largest request accepted: the archive cap plus room for the other fields."""
        return self.limits.max_archive_bytes + MiB
