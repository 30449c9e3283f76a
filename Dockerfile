# One image for every role of the deployment (see docker-compose.yml): the Arena gRPC server,
# Celery workers, beat and the website all run `arena <command>` from the same code, so a
# match is refereed by exactly the engine version the server accepted the bot with.
FROM python:3.11-slim

# bubblewrap: the bot sandbox; procps: `ps` for debugging a worker; nodejs: the runtime of
# hosted JavaScript bots (a bot.json naming `node`, see docs/dial-in-and-other-languages.md).
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap procps nodejs \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/arena
COPY pyproject.toml setup.py README.md ./
COPY protos ./protos
COPY arena ./arena
COPY referee ./referee
COPY web ./web
COPY sample_bots ./sample_bots
COPY benchmarks ./benchmarks
# The build compiles protos/ into referee/_proto (setup.py hook). The `learned` extra is there
# for hosted bots (a trained policy, docs/environments.md): they run on this Python, and numpy and
# onnxruntime are the libraries beyond the SDK the hosted runtime offers (referee/runtime.py),
# pinned to the versions the tests ran (docs/bot-authors-guide.md, "Packages a hosted bot may use").
RUN pip install --no-cache-dir ".[learned]" "numpy==2.4.*" "onnxruntime==1.32.*" \
    && python -c "import referee._proto.bot_pb2, referee.registry"

# Sandboxed bots run as unprivileged uids; the shared data volume (uploaded bots, beat state).
RUN useradd --system --uid 10001 --home /var/lib/arena arena \
    && mkdir -p /var/lib/arena && chown arena /var/lib/arena
ENV ARENA_DATA_DIR=/var/lib/arena \
    ARENA_PROTOS=/opt/arena/protos \
    PYTHONUNBUFFERED=1
VOLUME ["/var/lib/arena"]

ENTRYPOINT ["arena"]
CMD ["--help"]
