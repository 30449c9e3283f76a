"""The Arena gRPC service: each method checks the caller, then hands over to one module.

Authentication is per call: methods that change something call :func:`accounts.caller`
first, so a missing or wrong token is refused before anything else is looked at.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.db import Bot, BotVersion, session_scope
from arena.db.accounts import ROLE_ORGANISER, Submission, User
from arena.play import challenges, events
from arena.server import accounts, convert, idempotency, results, tournaments, watch
from arena.server.config import ServerConfig
from arena.server.errors import ApiError, handle, handle_stream, invalid
from arena.server.registrations import RegistrationCap
from arena.server.streams import ClientAddresses
from arena.server.submissions import (
    Submissions,
    get_bot,
    get_owned_bot,
    playing_version_id,
    sprt_settings,
    sprt_tests,
)
from arena.workers.live import LiveBus, get_bus
from referee._proto import arena_pb2 as pb
from referee._proto import arena_pb2_grpc
from referee.record import without_logs

log = logging.getLogger("arena.server.servicer")


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    def __init__(self, config: ServerConfig, bus: LiveBus | None = None) -> None:
        self.config = config
        self.url: str | None = None  # the database of arena.db: ARENA_DATABASE_URL or its default
        self.bus = bus or get_bus()
        #: Who a call comes from, for every per-client cap (Register here, WatchMatch's hub).
        self.addresses = ClientAddresses(config.trusted_proxies)
        self.registrations = RegistrationCap(config.registrations_per_client_per_hour)
        self.submissions = Submissions(config)
        self.leaderboards = results.LeaderboardCache()
        self.submissions.on_bots_changed = self.leaderboards.invalidate

    def close(self) -> None:
        self.submissions.close()

    # --- accounts ----------------------------------------------------------------------------
    @handle
    def Register(self, request: pb.RegisterRequest, context: grpc.ServicerContext) -> pb.RegisterReply:  # noqa: N802
        user, token = accounts.register_user(request.name, self.url, idempotency.request_hash(request.request_id),
                                             self.registrations, self._client(context))
        return pb.RegisterReply(user=convert.user(user), token=token)

    def _client(self, context: grpc.ServicerContext) -> str:
        """The call's client as every per-client cap counts it (``addr:…``)."""
        return self.addresses.client(context.peer(), tuple(context.invocation_metadata() or ()))

    @handle
    def RotateToken(self, request: pb.RotateTokenRequest, context: grpc.ServicerContext) -> pb.RotateTokenReply:  # noqa: N802
        user, token = accounts.rotate_token(accounts.caller(context, self.url), self.url)
        return pb.RotateTokenReply(user=convert.user(user), token=token)

    @handle
    def WhoAmI(self, request: pb.WhoAmIRequest, context: grpc.ServicerContext) -> pb.User:  # noqa: N802
        return convert.user(accounts.caller(context, self.url))

    # --- bots -------------------------------------------------------------------------------
    @handle
    def SubmitBot(self, request: pb.SubmitBotRequest, context: grpc.ServicerContext) -> pb.SubmitBotReply:  # noqa: N802
        user = accounts.caller(context, self.url)
        sub_id = idempotency.once(self.url, user, request.request_id, lambda: self.submissions.submit_hosted(
            user, request.name, request.game, request.archive, request.wait,
            sprt_settings(request), self._client(context)))
        return self._submission_reply(sub_id)

    @handle
    def RegisterRemoteBot(self, request: pb.RegisterRemoteBotRequest, context: grpc.ServicerContext) -> pb.SubmitBotReply:  # noqa: N802
        user = accounts.caller(context, self.url)
        sub_id = idempotency.once(self.url, user, request.request_id, lambda: self.submissions.submit_remote(
            user, request.name, request.game, request.address, request.wait,
            sprt_settings(request), self._client(context)))
        return self._submission_reply(sub_id)

    def _submission_reply(self, sub_id: int) -> pb.SubmitBotReply:
        with session_scope(self.url) as s:
            sub = s.get(Submission, sub_id)
            bot = s.get(Bot, sub.bot_id)
            detail = self._bot_detail(s, bot, logs=True)  # the reply goes to the submitter, its owner
            number = sub.number
        version = next(v for v in detail.versions if v.number == number)
        return pb.SubmitBotReply(bot=detail, version=version)

    def _bot_detail(self, session: Session, bot: Bot, logs: bool = False) -> pb.BotDetail:
        """The bot and its versions; qualification logs only for its owner and organisers."""
        subs = session.scalars(
            select(Submission).where(Submission.bot_id == bot.id).order_by(Submission.number.desc())
        ).all()
        playing = playing_version_id(session, bot)
        playing_number = next((s.number for s in subs if s.bot_version_id == playing), 0) if playing else 0
        tests = sprt_tests(session, bot.id)
        latest = {t.candidate_version_id: t for t in reversed(tests)}  # newest test per version
        return pb.BotDetail(
            bot=convert.bot(bot, playing_number, len(subs)),
            versions=[convert.version(s, playing, logs, latest.get(s.bot_version_id)) for s in subs],
            sprt_tests=[convert.sprt_test(t) for t in tests],
        )

    @handle
    def ListBots(self, request: pb.ListBotsRequest, context: grpc.ServicerContext) -> pb.ListBotsReply:  # noqa: N802
        owner = request.owner
        if request.mine:
            owner = accounts.caller(context, self.url).name
        offset, size = convert.offset_page(request.page_size, request.page_token, 100, 1000)
        with session_scope(self.url) as s:
            query = select(Bot).order_by(Bot.game, Bot.name, Bot.id)
            if request.game:
                query = query.where(Bot.game == request.game)
            if owner:
                query = query.where(Bot.owner == owner)
            fetched = s.scalars(query.offset(offset).limit(size + 1)).all()
            bots = fetched[:size]
            ids = [b.id for b in bots]
            counts = dict(
                s.execute(
                    select(Submission.bot_id, func.count()).where(Submission.bot_id.in_(ids)).group_by(Submission.bot_id)
                ).all()
            ) if ids else {}
            playing = dict(
                s.execute(
                    select(BotVersion.bot_id, func.max(BotVersion.number))
                    .where(BotVersion.bot_id.in_(ids), BotVersion.held.is_(False)).group_by(BotVersion.bot_id)
                ).all()
            ) if ids else {}
            return pb.ListBotsReply(bots=[convert.bot(b, playing.get(b.id, 0), counts.get(b.id, 0)) for b in bots],
                                    next_page_token=convert.next_offset_token(offset, size, len(fetched)))

    @handle
    def GetBot(self, request: pb.GetBotRequest, context: grpc.ServicerContext) -> pb.BotDetail:  # noqa: N802
        viewer = accounts.caller(context, self.url, required=False)
        with session_scope(self.url) as s:
            bot = get_bot(s, request.bot_id)
            return self._bot_detail(s, bot, may_read_logs(bot, viewer))

    @handle
    def GetVersionStatus(self, request: pb.GetVersionStatusRequest, context: grpc.ServicerContext) -> pb.BotVersion:  # noqa: N802
        viewer = accounts.caller(context, self.url, required=False)
        with session_scope(self.url) as s:
            bot = get_bot(s, request.bot_id)
            sub = self.submissions.find_submission(s, bot.id, request.number)
            logs = may_read_logs(bot, viewer)
            tests = [t for t in sprt_tests(s, bot.id) if t.candidate_version_id == sub.bot_version_id]
            version = convert.version(sub, playing_version_id(s, bot), logs, tests[0] if tests else None)
            if sub.record:
                record = sub.record if logs else without_logs(sub.record)
                version.qualification_record_json = json.dumps(record, ensure_ascii=False)
            return version

    @handle
    def DeactivateBot(self, request: pb.DeactivateBotRequest, context: grpc.ServicerContext) -> pb.BotDetail:  # noqa: N802
        user = accounts.caller(context, self.url)
        with session_scope(self.url) as s:
            bot = get_owned_bot(s, request.bot_id, user)
            bot.active = False
            s.flush()
            detail = self._bot_detail(s, bot)
        self.leaderboards.invalidate()  # after the commit: a rebuild now sees the bot inactive
        try:  # withdrawn from its events now; else at their next pairing or deadline sweep
            events.bot_deactivated(self.url, bot.id)
        except Exception:  # noqa: BLE001 - the deactivation stands; the sweeps withdraw it later
            log.warning("bot %s deactivated; withdrawing it from its events failed", bot.id, exc_info=True)
        return detail

    @handle
    def ChallengeBot(self, request: pb.ChallengeBotRequest, context: grpc.ServicerContext) -> pb.Challenge:  # noqa: N802
        user = accounts.caller(context, self.url)
        try:
            made = challenges.challenge(user.id, request.bot_id, request.opponent_bot_id, request.rated,
                                        limits=self.config.challenges, sandbox=self.config.sandbox,
                                        plays_matches=True, url=self.url)
        except challenges.ChallengeRefused as exc:
            raise challenge_refusal(exc) from None
        return pb.Challenge(
            id=made.id, bot_id=made.bot_id, opponent_bot_id=made.opponent_bot_id, challenger=made.challenger,
            rated=made.rated, match_id=made.match_id,
            match_status=convert.enum_of(pb.MatchStatus, "MATCH_STATUS_", made.match_status),
            create_time=convert.time_of(made.created_at), remaining_this_hour=made.remaining_this_hour,
        )

    # --- tournaments --------------------------------------------------------------------------------
    @handle
    def CreateTournament(self, request: pb.CreateTournamentRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        user = accounts.caller(context, self.url)
        accounts.require_organiser(user)
        return tournaments.create_round_robin(self.url, request, sandbox=self.config.sandbox,
                                              entries_per_author=self.config.entries_per_author,
                                              organiser=user.name)

    # --- an event's lifecycle (arena.play.events checks who may) -------------------------------
    def _event_step(self, request: object, context: grpc.ServicerContext) -> pb.Tournament:
        return tournaments.event_step(self.url, accounts.caller(context, self.url), request)

    @handle
    def StartTournament(self, request: pb.StartTournamentRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def SetTournamentEntries(self, request: pb.SetTournamentEntriesRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802, E501
        return self._event_step(request, context)

    @handle
    def EnterTournament(self, request: pb.EnterTournamentRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def WithdrawEntry(self, request: pb.WithdrawEntryRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def PauseTournament(self, request: pb.PauseTournamentRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def ResumeTournament(self, request: pb.ResumeTournamentRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def SetRoundDeadline(self, request: pb.SetRoundDeadlineRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def CorrectResult(self, request: pb.CorrectResultRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        return self._event_step(request, context)

    @handle
    def ListTournamentAudit(self, request: pb.ListTournamentAuditRequest, context: grpc.ServicerContext) -> pb.ListTournamentAuditReply:  # noqa: N802, E501
        return tournaments.list_audit(self.url, request.tournament_id)

    @handle
    def StartLadder(self, request: pb.StartLadderRequest, context: grpc.ServicerContext) -> pb.Ladder:  # noqa: N802
        user = accounts.caller(context, self.url)
        accounts.require_organiser(user)
        return tournaments.start_ladder(self.url, request, sandbox=self.config.sandbox)

    @handle
    def StopLadder(self, request: pb.StopLadderRequest, context: grpc.ServicerContext) -> pb.Ladder:  # noqa: N802
        user = accounts.caller(context, self.url)
        accounts.require_organiser(user)
        return tournaments.stop_ladder(self.url, request.game)

    @handle
    def GetLadder(self, request: pb.GetLadderRequest, context: grpc.ServicerContext) -> pb.Ladder:  # noqa: N802
        return tournaments.get_ladder(self.url, request.game)

    @handle
    def GetTournament(self, request: pb.GetTournamentRequest, context: grpc.ServicerContext) -> pb.Tournament:  # noqa: N802
        if request.tournament_id <= 0:
            raise invalid("tournament_id must be a positive tournament id")
        return tournaments.get_tournament(self.url, request.tournament_id)

    @handle
    def ListTournaments(self, request: pb.ListTournamentsRequest, context: grpc.ServicerContext) -> pb.ListTournamentsReply:  # noqa: N802
        return tournaments.list_tournaments(self.url, request)

    # --- results ------------------------------------------------------------------------------------
    @handle
    def GetLeaderboard(self, request: pb.GetLeaderboardRequest, context: grpc.ServicerContext) -> pb.Leaderboard:  # noqa: N802
        return self.leaderboards.get(self.url, request.game, request.limit, request.page_token)

    @handle
    def GetRatingHistory(self, request: pb.GetRatingHistoryRequest, context: grpc.ServicerContext) -> pb.RatingHistory:  # noqa: N802
        with session_scope(self.url) as s:
            return results.rating_history(s, request)

    @handle
    def ListMatches(self, request: pb.ListMatchesRequest, context: grpc.ServicerContext) -> pb.ListMatchesReply:  # noqa: N802
        with session_scope(self.url) as s:
            return results.list_matches(s, request)

    @handle
    def GetMatch(self, request: pb.GetMatchRequest, context: grpc.ServicerContext) -> pb.Match:  # noqa: N802
        viewer = accounts.caller(context, self.url, required=False)
        with session_scope(self.url) as s:
            return results.get_match(s, request.match_id, viewer)[1]

    @handle_stream
    def WatchMatch(self, request: pb.WatchMatchRequest, context: grpc.ServicerContext) -> Iterator[pb.MatchEvent]:  # noqa: N802
        yield from watch.watch(self.url, self.bus, request.match_id, context)


#: How each kind of refused challenge (arena.play.challenges.ChallengeRefused) reaches a client.
_CHALLENGE_CODES = {
    "not_found": grpc.StatusCode.NOT_FOUND,
    "denied": grpc.StatusCode.PERMISSION_DENIED,
    "invalid": grpc.StatusCode.INVALID_ARGUMENT,
    "unavailable": grpc.StatusCode.FAILED_PRECONDITION,
    "exhausted": grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def challenge_refusal(exc: challenges.ChallengeRefused) -> ApiError:
    """The status of a refused challenge; a cap also says when to retry (google.rpc.RetryInfo)."""
    details = ()
    if exc.retry_after_s is not None:
        details = (error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=exc.retry_after_s)),)
    return ApiError(_CHALLENGE_CODES.get(exc.kind, grpc.StatusCode.FAILED_PRECONDITION), exc.message, details)


def may_read_logs(bot: Bot, viewer: User | None) -> bool:
    """Crash logs, stderr tails and qualification logs: the bot's owner and organisers only."""
    return viewer is not None and (viewer.role == ROLE_ORGANISER or viewer.name == bot.owner)
