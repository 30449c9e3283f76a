"""A small Python client of the Arena service, used by the ``arena`` CLI and by scripts.

It hides channel set-up, the token metadata and archive packing; it returns the protobuf
messages themselves, so nothing here needs updating when the contract grows a field.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path

from arena.sdk.auth import auth_metadata
from referee._proto import arena_pb2, arena_pb2_grpc
from referee.tls import env_ca, env_tls, open_channel

DEFAULT_SERVER = "localhost:50051"
SERVER_ENV = "ARENA_SERVER"
TOKEN_ENV = "ARENA_TOKEN"
#: Folders and files that never belong in an upload (caches, VCS data, virtualenvs).
SKIPPED_NAMES = {"__pycache__", ".git", ".hg", ".svn", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
#: Client-side cap on message size; the server enforces its own (see arena.server.config).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


def unreachable_hint(details: str, tls: bool) -> str:
    """What to check when a channel to the server failed, from gRPC's ``details``; "" when the
    details say nothing more than they show.

    A plaintext client talking to a TLS server sees the server close the socket; a TLS client
    talking to plaintext sees a wrong TLS version; both are worth a hint about ``--tls``. A
    refused connection or an unknown host is not about TLS at all, and the hint would send the
    user after the wrong setting."""
    text = details.lower()
    if "connection refused" in text:
        return " (nothing listens there: is the server running, and is the port right?)"
    if "lookup" in text or "resolv" in text:
        return " (the host name is unknown: is it spelled right?)"
    if tls:
        if "wrong_version_number" in text or "wrong version number" in text:
            return " (that port does not answer TLS: is it a plaintext server? then drop --tls/--tls-ca)"
        if "certificate" in text:
            return " (its certificate is not signed by a CA you trust: pass the CA that signed it as --tls-ca)"
        if "handshake" in text:
            return " (the TLS handshake failed: does the server serve TLS, and does --tls-ca sign its certificate?)"
        return ""
    if "socket closed" in text or "connection reset" in text or "end of file" in text:
        return " (the server closed the connection: is it serving TLS? then add --tls, and --tls-ca for a self-made certificate)"
    return ""


def token_file() -> Path:
    """``$XDG_CONFIG_HOME/tabletop-arena/token`` (default ``~/.config/tabletop-arena/token``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tabletop-arena" / "token"


def load_token() -> str | None:
    """The token from ``ARENA_TOKEN``, else from the token file, else None."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        return token
    path = token_file()
    if path.is_file():
        return path.read_text(encoding="utf-8").strip() or None
    return None


def save_token(token: str) -> Path:
    """Write the token file readable by its owner only."""
    path = token_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    return path


def pack_folder(folder: Path) -> bytes:
    """A tar.gz of a bot folder, with ``bot.py`` at the top; skips caches and links."""
    folder = Path(folder)
    if not ((folder / "bot.py").is_file() or (folder / "bot.json").is_file()):
        raise FileNotFoundError(f"{folder} has no bot.py: a bot is a folder with bot.py at its top")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if any(part in SKIPPED_NAMES for part in rel.parts) or path.suffix == ".pyc":
                continue
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                continue
            tar.add(path, arcname=rel.as_posix(), recursive=False)
    return buf.getvalue()


def read_upload(path: Path) -> tuple[bytes, str]:
    """The bytes to upload for ``path`` (a bot folder or a ready archive) and a file name hint."""
    path = Path(path)
    if path.is_dir():
        return pack_folder(path), f"{path.name}.tar.gz"
    if path.is_file():
        return path.read_bytes(), path.name
    raise FileNotFoundError(f"{path} does not exist")


class ArenaClient:
    """Calls to one Arena server; ``token`` is needed only for calls that change something.

    ``tls``/``ca``: speak TLS, trusting the CA file ``ca`` (PEM) or else the system's roots;
    None takes ``ARENA_TLS`` / ``ARENA_TLS_CA`` from the environment (a CA file implies TLS).
    """

    def __init__(
        self,
        server: str = DEFAULT_SERVER,
        token: str | None = None,
        timeout: float = 60.0,
        tls: bool | None = None,
        ca: Path | str | None = None,
    ) -> None:
        self.server = server
        self.token = token
        self.timeout = timeout
        self.ca = ca if ca is not None else env_ca()
        self.tls = bool(self.ca) or (tls if tls is not None else env_tls())
        self._channel = open_channel(
            server,
            tls=self.tls,
            ca=self.ca,
            options=[
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ],
        )
        self.stub = arena_pb2_grpc.ArenaStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _meta(self) -> tuple[tuple[str, str], ...]:
        return auth_metadata(self.token) if self.token else ()

    # --- accounts ---------------------------------------------------------------------------
    def register(self, name: str) -> arena_pb2.RegisterReply:
        return self.stub.Register(arena_pb2.RegisterRequest(name=name), timeout=self.timeout)

    def whoami(self) -> arena_pb2.User:
        return self.stub.WhoAmI(arena_pb2.WhoAmIRequest(), metadata=self._meta(), timeout=self.timeout)

    # --- bots -------------------------------------------------------------------------------
    def submit(self, path: Path, game: str, name: str, wait: bool = True,
               sprt: arena_pb2.SprtSettings | None = None) -> arena_pb2.SubmitBotReply:
        data, archive_name = read_upload(path)
        request = arena_pb2.SubmitBotRequest(name=name, game=game, archive=data, archive_name=archive_name, wait=wait,
                                             sprt=sprt)
        return self.stub.SubmitBot(request, metadata=self._meta(), timeout=max(self.timeout, 600.0))

    def register_remote(self, address: str, game: str, name: str, wait: bool = True) -> arena_pb2.SubmitBotReply:
        request = arena_pb2.RegisterRemoteBotRequest(name=name, game=game, address=address, wait=wait)
        return self.stub.RegisterRemoteBot(request, metadata=self._meta(), timeout=max(self.timeout, 600.0))

    def bots(self, game: str = "", owner: str = "", mine: bool = False) -> list[arena_pb2.Bot]:
        reply = self.stub.ListBots(
            arena_pb2.ListBotsRequest(game=game, owner=owner, mine=mine), metadata=self._meta(), timeout=self.timeout
        )
        return list(reply.bots)

    def bot(self, bot_id: int) -> arena_pb2.BotDetail:
        # With a token, the owner (or an organiser) also gets the versions' qualification logs.
        return self.stub.GetBot(arena_pb2.GetBotRequest(bot_id=bot_id), metadata=self._meta(), timeout=self.timeout)

    def version_status(self, bot_id: int, number: int = 0) -> arena_pb2.BotVersion:
        return self.stub.GetVersionStatus(
            arena_pb2.GetVersionStatusRequest(bot_id=bot_id, number=number), metadata=self._meta(),
            timeout=self.timeout,
        )

    def deactivate(self, bot_id: int) -> arena_pb2.BotDetail:
        return self.stub.DeactivateBot(
            arena_pb2.DeactivateBotRequest(bot_id=bot_id), metadata=self._meta(), timeout=self.timeout
        )

    def challenge(self, bot_id: int, opponent_bot_id: int, rated: bool = False) -> arena_pb2.Challenge:
        """Bot ``bot_id`` (the caller's) challenges ``opponent_bot_id`` to a match now."""
        request = arena_pb2.ChallengeBotRequest(bot_id=bot_id, opponent_bot_id=opponent_bot_id, rated=rated)
        return self.stub.ChallengeBot(request, metadata=self._meta(), timeout=self.timeout)

    def all_bots(self, game: str = "", owner: str = "", mine: bool = False) -> Iterator[arena_pb2.Bot]:
        """Every bot matching the filters, page after page (``bots`` reads the first page only)."""
        token = ""
        while True:
            reply = self.stub.ListBots(
                arena_pb2.ListBotsRequest(game=game, owner=owner, mine=mine, page_size=1000, page_token=token),
                metadata=self._meta(), timeout=self.timeout)
            yield from reply.bots
            token = reply.next_page_token
            if not token:
                return

    # --- tournaments ----------------------------------------------------------------------------
    def create_tournament(self, **fields: object) -> arena_pb2.Tournament:
        return self.stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(**fields), metadata=self._meta(), timeout=self.timeout
        )

    def start_ladder(self, game: str, variant: str = "", decision_ms: int = 0, bank_ms: int = 0,
                     house: bool | None = None) -> arena_pb2.Ladder:
        """``house``: seat (True) or remove (False) the house bots; None: the server's default
        (seated)."""
        request = arena_pb2.StartLadderRequest(game=game, variant=variant, decision_ms=decision_ms, bank_ms=bank_ms)
        if house is not None:
            request.house = house
        return self.stub.StartLadder(request, metadata=self._meta(), timeout=self.timeout)

    def stop_ladder(self, game: str) -> arena_pb2.Ladder:
        return self.stub.StopLadder(arena_pb2.StopLadderRequest(game=game), metadata=self._meta(), timeout=self.timeout)

    def ladder(self, game: str) -> arena_pb2.Ladder:
        return self.stub.GetLadder(arena_pb2.GetLadderRequest(game=game), timeout=self.timeout)

    def tournament(self, tournament_id: int) -> arena_pb2.Tournament:
        return self.stub.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tournament_id), timeout=self.timeout)

    # --- results ------------------------------------------------------------------------------
    def leaderboard(self, game: str, limit: int = 0) -> arena_pb2.Leaderboard:
        return self.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game, limit=limit), timeout=self.timeout)

    def rating_history(self, bot_id: int) -> arena_pb2.RatingHistory:
        return self.stub.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot_id=bot_id), timeout=self.timeout)

    def matches(self, **filters: object) -> arena_pb2.ListMatchesReply:
        return self.stub.ListMatches(arena_pb2.ListMatchesRequest(**filters), timeout=self.timeout)

    def match(self, match_id: str) -> arena_pb2.Match:
        # With a token, the record keeps the crash logs of the caller's own bots (all: organisers).
        return self.stub.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id), metadata=self._meta(),
                                  timeout=self.timeout)

    def watch(self, match_id: str, timeout: float | None = None) -> Iterator[arena_pb2.MatchEvent]:
        return self.stub.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match_id), timeout=timeout)
