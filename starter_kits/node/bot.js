// A Tabletop Arena bot in ten lines of JavaScript: pick one id from the legal options.
const { run } = require("./lib/arena");

function act(observation, options) {
  // observation: what your seat may know; options: objects with .id and .label
  const best = options.find((o) => o.label.includes("city")) || options[Math.floor(Math.random() * options.length)];
  return best.id; // your cleverness here
}

run(act);
