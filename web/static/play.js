// A person's seat (/play/<id>): reload the page when something changed for the seat (a decision
// is waiting, or the game ended), and count the decision's clock down. The page works without
// this script (the option buttons are plain form posts); it only saves pressing reload.
(function () {
  "use strict";
  var seat = document.getElementById("seat");
  if (!seat) return;
  var clock = document.getElementById("clock");
  var deadline = parseFloat(seat.dataset.deadline || "");
  function tick() {
    if (!clock || !deadline) return;
    var left = Math.max(0, Math.round(deadline - Date.now() / 1000));
    clock.textContent = Math.floor(left / 60) + " min " + (left % 60) + " s";
  }
  tick();
  setInterval(tick, 1000);
  if (seat.dataset.status !== "playing") return;
  var shown = seat.dataset.decision;
  function poll() {
    fetch(seat.dataset.stateUrl, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (!s) return;
        var now = s.decision === null ? "" : String(s.decision);
        if (s.status !== "playing" || now !== shown) {
          window.location.reload();
          return;
        }
        setTimeout(poll, 700);
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 700);
})();
