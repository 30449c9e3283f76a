// Tabletop Arena for JavaScript bots, built from the .proto files only (no generated code).
//
// A bot is one function, act(observation, options) -> option id (or [id, comment]), run in one
// of three ways, chosen by the command line:
//
//   node bot.js --address unix:/path/sock   hosted: the referee starts it (bot.json names it)
//   node bot.js --port 50061                 remote: listens, the referee dials host:port
//   node bot.js --connect HOST:PORT --token T --name N --game G [--tls] [--tls-ca ca.pem]
//                                            dialling: connects out to the Arena server (no
//                                            inbound port, works behind NAT), reconnects
//
// The .proto files are looked up in $ARENA_PROTOS, ./protos next to bot.js, then the
// repository's protos/ (this kit lives in starter_kits/node/).
"use strict";

const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTOCOL_VERSION = 1;
// Statuses that reconnecting cannot mend (a wrong token, a taken name, an unknown game, a bot
// deactivated or refused at qualification), and ABORTED: a newer connection of the same bot
// replaced this one (reconnecting would take it back, for ever).
const FATAL = new Set([
  grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT,
  grpc.status.FAILED_PRECONDITION, grpc.status.UNIMPLEMENTED, grpc.status.ABORTED,
]);

function protoDir() {
  const candidates = [
    process.env.ARENA_PROTOS,
    path.join(__dirname, "..", "protos"),
    path.join(__dirname, "..", "..", "..", "protos"),
  ].filter(Boolean);
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, "bot.proto"))) return dir;
  }
  throw new Error(`bot.proto not found (looked in ${candidates.join(", ")}); set ARENA_PROTOS`);
}

const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

function load() {
  const dir = protoDir();
  const botDef = protoLoader.loadSync(path.join(dir, "bot.proto"), LOADER_OPTIONS);
  const arenaDef = protoLoader.loadSync(path.join(dir, "arena.proto"), LOADER_OPTIONS);
  return {
    botDef,
    bot: grpc.loadPackageDefinition(botDef).tabletop.bot.v1,
    arena: grpc.loadPackageDefinition(arenaDef).tabletop.arena.v1,
  };
}

// The Bot service's three methods around `act`; each takes and returns plain objects.
function handlers(act, hooks, name) {
  return {
    StartMatch(request) {
      if (hooks.start) hooks.start(request);
      return { protocol_version: PROTOCOL_VERSION, bot_name: name };
    },
    Act(request) {
      const observation = request.observation_json ? JSON.parse(request.observation_json) : {};
      const answer = act(observation, request.options, request);
      const [optionId, comment] = Array.isArray(answer) ? answer : [answer, ""];
      return { option_id: String(optionId), comment: String(comment || "").slice(0, 200) };
    },
    EndMatch(request) {
      if (hooks.end) hooks.end(request);
      return {};
    },
  };
}

function serve(act, address, hooks, name) {
  const { bot } = load();
  const methods = handlers(act, hooks, name);
  const wrap = (fn) => (call, callback) => {
    try {
      callback(null, fn(call.request));
    } catch (err) {
      console.error(err && err.stack ? err.stack : err);
      callback({ code: grpc.status.UNKNOWN, details: String(err && err.message ? err.message : err) });
    }
  };
  const server = new grpc.Server();
  server.addService(bot.Bot.service, {
    StartMatch: wrap(methods.StartMatch), Act: wrap(methods.Act), EndMatch: wrap(methods.EndMatch),
  });
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      console.error(`bot: cannot serve on ${address}: ${err.message}`);
      process.exit(2);
    }
    console.error(`bot ${JSON.stringify(name)} serving on ${address}`);
  });
  return server;
}

// Dial in: one ConnectBot stream, calls answered as they come, reconnect when it drops.
function connect(act, options, hooks, name) {
  const { botDef, arena } = load();
  const methods = handlers(act, hooks, name);
  const codec = {};
  for (const [enumName, method] of [["CONNECT_BOT_METHOD_START_MATCH", "StartMatch"],
    ["CONNECT_BOT_METHOD_ACT", "Act"], ["CONNECT_BOT_METHOD_END_MATCH", "EndMatch"]]) {
    const def = botDef["tabletop.bot.v1.Bot"][method];
    codec[enumName] = { method, decode: def.requestDeserialize, encode: def.responseSerialize };
  }
  let credentials = grpc.credentials.createInsecure();
  if (options.tls || options.tlsCa) {
    credentials = grpc.credentials.createSsl(options.tlsCa ? fs.readFileSync(options.tlsCa) : null);
  }
  const client = new arena.Arena(options.server, credentials, {
    "grpc.keepalive_time_ms": 20000, "grpc.keepalive_timeout_ms": 10000,
  });
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${options.token}`);
  let delay = 200;

  function once() {
    const stream = client.ConnectBot(metadata);
    let ended = false;
    stream.on("data", (response) => {
      if (response.message === "welcome") {
        delay = 200;
        console.error(`bot ${JSON.stringify(options.name)} connected to ${options.server} for ${options.game}`);
      } else if (response.message === "call") {
        const call = response.call;
        const answer = { call_id: call.call_id, reply: Buffer.alloc(0), error: "" };
        try {
          const entry = codec[call.method];
          if (!entry) throw new Error(`unknown method ${call.method}`);
          answer.reply = entry.encode(methods[entry.method](entry.decode(call.request)));
        } catch (err) {
          console.error(err && err.stack ? err.stack : err);
          answer.error = String(err && err.message ? err.message : err).slice(0, 500);
        }
        if (!ended) stream.write({ answer });
      }
    });
    const again = (why) => {
      if (ended) return;
      ended = true;
      console.error(`bot ${JSON.stringify(options.name)}: connection lost (${why}); reconnecting`);
      setTimeout(once, delay);
      delay = Math.min(delay * 2, 10000);
    };
    stream.on("error", (err) => {
      if (FATAL.has(err.code)) {
        ended = true;
        console.error(`bot: the server refused the connection: ${err.details || err.message}`);
        process.exit(2);
      }
      again(err.details || err.message);
    });
    stream.on("end", () => again("the server closed the stream"));
    stream.write({ hello: { name: options.name, game: options.game } });
  }
  once();
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const key = { "--address": "address", "--port": "port", "--connect": "server", "--token": "token",
      "--name": "name", "--game": "game", "--tls-ca": "tlsCa" }[flag];
    if (flag === "--tls") options.tls = true;
    else if (key && i + 1 < argv.length) options[key] = argv[++i];
    else throw new Error(`unknown argument ${flag}`);
  }
  return options;
}

// Run the bot the way the command line says (see the top of this file).
function run(act, hooks = {}) {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`bot: ${err.message}`);
    process.exit(2);
  }
  const name = options.name || path.basename(path.dirname(path.resolve(process.argv[1] || ".")));
  if (options.server) {
    options.token = options.token || process.env.ARENA_TOKEN;
    options.game = options.game || process.env.ARENA_GAME;
    options.name = name;
    if (!options.token || !options.game) {
      console.error("bot: --connect needs --token (or $ARENA_TOKEN) and --game (or $ARENA_GAME)");
      process.exit(2);
    }
    return connect(act, options, hooks, name);
  }
  const address = options.port ? `0.0.0.0:${options.port}`
    : options.address || process.env.ARENA_BOT_ADDRESS || "127.0.0.1:50061";
  return serve(act, address, hooks, name);
}

module.exports = { run, serve, connect, load, PROTOCOL_VERSION };
