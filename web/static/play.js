// A person's seat (/play/<id>). The page works without this script (the option buttons and
// Resign are plain form posts). With it: a click is sent with fetch and the page that comes
// back is swapped in without a reload; while the bots move, the public table (the live page's
// server-rendered, escaped fragment: no hidden information) is fetched and shown; when
// /play/<id>/state says a new decision came (or the game ended), the seat's page is fetched and
// swapped in; the decision's clock counts down.
(function () {
  "use strict";
  var main = document.getElementById("play-main");
  if (!main) return;
  var timer = null;
  var tableTimer = null;
  var shown = null;
  var busy = false;
  var clicked = null; // the button pressed, where a browser has no SubmitEvent.submitter

  function seat() { return document.getElementById("seat"); }

  function tick() {
    var s = seat();
    var clock = document.getElementById("clock");
    var deadline = s ? parseFloat(s.dataset.deadline || "") : NaN;
    if (!clock || !deadline) return;
    var left = Math.max(0, Math.round(deadline - Date.now() / 1000));
    clock.textContent = Math.floor(left / 60) + " min " + (left % 60) + " s";
  }

  function swap(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("play-main");
    if (!fresh) { window.location.reload(); return; }
    main.innerHTML = fresh.innerHTML;
    start();
  }

  function refresh() {
    return fetch(window.location.pathname, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(swap);
  }

  function poll() {
    var s = seat();
    fetch(s.dataset.stateUrl, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (st) {
        if (!st) { timer = setTimeout(poll, 2000); return; }
        var now = st.decision === null ? "" : String(st.decision);
        if (st.status !== s.dataset.status || now !== shown) { refresh(); return; }
        timer = setTimeout(poll, 500);
      })
      .catch(function () { timer = setTimeout(poll, 2000); });
  }

  function showTable() {
    var table = document.getElementById("play-table");
    if (!table) return;
    fetch(table.dataset.boardUrl, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var box = document.getElementById("play-public");
        if (html !== null && box && document.getElementById("play-table") === table) {
          box.innerHTML = html;
        }
        if (document.getElementById("play-table") === table) tableTimer = setTimeout(showTable, 1000);
      })
      .catch(function () { tableTimer = setTimeout(showTable, 3000); });
  }

  function start() {
    clearTimeout(timer);
    clearTimeout(tableTimer);
    busy = false;
    var s = seat();
    if (!s) return;
    tick();
    var log = document.getElementById("play-log");
    if (log) log.scrollTop = log.scrollHeight; // the newest move in view
    shown = s.dataset.decision;
    showTable();
    if (s.dataset.status === "playing" || s.dataset.status === "resigned") {
      timer = setTimeout(poll, 500);
    }
  }

  // Option buttons and Resign: send the form with fetch (the server does not wait for the
  // bots then: this page polls), and swap in the page that comes back.
  main.addEventListener("submit", function (event) {
    var form = event.target;
    // "Play again" starts a new game at a new address: the browser posts it and follows
    if (form instanceof HTMLFormElement && form.hasAttribute("data-navigate")) return;
    if (!(form instanceof HTMLFormElement) || busy) { event.preventDefault(); return; }
    event.preventDefault();
    busy = true;
    var data = new FormData(form);
    var button = event.submitter || clicked;
    if (button && button.name) data.append(button.name, button.value);
    Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = true; });
    fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-Play-Polling": "1" },
    })
      .then(function (r) { return r.text(); })
      .then(swap)
      .catch(function () { window.location.reload(); });
  });

  main.addEventListener("click", function (event) {
    var b = event.target instanceof Element ? event.target.closest("button") : null;
    if (b) clicked = b;
  });

  setInterval(tick, 1000);
  start();
})();
