// A Tabletop Arena bot in ten lines of JavaScript: pick one id from the legal options.
const { run } = require("./lib/arena");

// A taste per game (docs/observations/<game>.md lists every field and option id); else random.
const PREFER = {
  solenia: (o) => o.label.includes("city"), // deliver supply tiles to a city
  orbital: (o) => o.id.startsWith("build:"), // grow the station: build:CARD:MODULE.SIDE
};

function act(observation, options) {
  // observation: what your seat may know (observation.game names the game); options: .id and .label
  const prefer = PREFER[observation.game];
  const best = (prefer && options.find(prefer)) || options[Math.floor(Math.random() * options.length)];
  return best.id; // your cleverness here
}

run(act);
