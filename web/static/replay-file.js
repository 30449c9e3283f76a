// /replay: read a local match record (arena play --out FILE) in the browser and show it in the
// site's replay viewer. Only what the engine needs to replay the match and what the viewer shows
// beside the board is posted (game, variant, players, seed, seat names, each decision's seat,
// option id, time, comment, fallback flag and events, final scores, ranks and forfeit reasons):
// never the bots' output (forfeit log tails). The server replays and renders each step and keeps
// nothing, so every request carries the record again.
(function () {
  "use strict";
  var form = document.getElementById("record-form");
  if (!form || !window.ArenaReplay) return;
  var input = document.getElementById("record-file");
  var status = document.getElementById("record-status");
  var errorBox = document.getElementById("record-error");
  var holder = document.getElementById("record-viewer");
  var viewUrl = form.getAttribute("data-view-url");
  var stepUrl = form.getAttribute("data-step-url");
  var maxFile = parseInt(form.getAttribute("data-max-file"), 10);
  var controller = null;
  document.getElementById("record-needs-js").hidden = true;

  function fail(message) {
    status.textContent = "";
    errorBox.textContent = message;
    errorBox.hidden = false;
  }

  function pick(obj, keys) {
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) return obj;
    var out = {};
    keys.forEach(function (k) { if (obj[k] !== undefined) out[k] = obj[k]; });
    return out;
  }

  function each(list, keys) {
    return Array.isArray(list) ? list.map(function (x) { return pick(x, keys); }) : list;
  }

  // The part of the record the server needs; it checks every field itself.
  function compact(rec) {
    if (!rec || typeof rec !== "object" || Array.isArray(rec)) {
      throw new Error("the file holds no JSON object");
    }
    return {
      match_id: rec.match_id,
      game: rec.game,
      variant: rec.variant,
      players: rec.players,
      seed: rec.seed,
      seats: each(rec.seats, ["name"]),
      decisions: each(rec.decisions, ["seat", "option", "wall_ms", "comment", "forced", "events"]),
      result: pick(rec.result, ["scores", "ranks"]),
      forfeits: each(rec.forfeits, ["seat", "reason", "message"])
    };
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "text/html" },
      body: body
    }).then(function (r) {
      if (r.ok) return r.text();
      return r.json().then(function (e) {
        throw new Error(e.message || ("HTTP " + r.status));
      }, function () { throw new Error("HTTP " + r.status); });
    });
  }

  function askedStep() {
    var asked = new URLSearchParams(window.location.search).get("step");
    if (asked === "end") return "end";
    return /^[0-9]{1,6}$/.test(asked || "") ? parseInt(asked, 10) : 0;
  }

  function open(file) {
    if (controller) { controller.stop(); controller = null; }
    holder.innerHTML = "";
    errorBox.hidden = true;
    if (file.size > maxFile) {
      fail(file.name + " is " + Math.round(file.size / 1048576) + " MiB: larger than any match record.");
      return;
    }
    status.textContent = "Reading " + file.name + "…";
    var reader = new FileReader();
    reader.onerror = function () { fail("Could not read " + file.name + "."); };
    reader.onload = function () {
      var recordJson;
      try {
        recordJson = JSON.stringify(compact(JSON.parse(reader.result)));
      } catch (err) {
        fail(file.name + " is not a match record: " + err.message);
        return;
      }
      var body = function (step) {
        return '{"record":' + recordJson + ',"step":' + JSON.stringify(step) +
          ',"file_name":' + JSON.stringify(file.name) + "}";
      };
      status.textContent = "Replaying " + file.name + "…";
      post(viewUrl, body(askedStep())).then(function (html) {
        holder.innerHTML = html;  // trusted: rendered and escaped by the server's templates
        var root = document.getElementById("replay");
        controller = window.ArenaReplay.start(root, function (step) {
          return post(stepUrl, body(step));
        });
        status.textContent = file.name + ": " + root.getAttribute("data-last") + " steps.";
      }).catch(function (err) {
        fail("Cannot show " + file.name + ": " + err.message);
      });
    };
    reader.readAsText(file);
  }

  input.addEventListener("change", function () {
    if (input.files && input.files[0]) open(input.files[0]);
  });
})();
