// A person's seat (/play/<id>). The page works without this script (the option buttons and
// Resign are plain form posts). With it: a click is sent with fetch and the page that comes
// back is swapped in without a reload; while the bots move, the public table (the live page's
// server-rendered, escaped fragment: no hidden information) is fetched and shown; when
// /play/<id>/state (a long poll) says a new decision came (or the game ended), the seat's page
// is fetched and swapped in; the decision's clock counts down.
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

  // The server's answer shown: "play-swap" (performance.measure) is the time from the answer's
  // arrival to the new page drawn and its board ready (issue #37: within 100 ms).
  function swap(html) {
    if (window.performance && performance.mark) performance.mark("play-answer");
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("play-main");
    if (!fresh) { window.location.reload(); return; }
    // move the parsed nodes in (re-serialising them through innerHTML would parse twice)
    while (main.firstChild) main.removeChild(main.firstChild);
    while (fresh.firstChild) main.appendChild(document.adoptNode(fresh.firstChild));
    main.className = fresh.className; // .over at the end (fit() adds .fit again)
    main.removeAttribute("aria-busy");
    start();
    // the game just ended: the result and the final board from the top (the page may have
    // been scrolled down to the last place clicked)
    var result = document.getElementById("play-result");
    if (result && result.scrollIntoView) result.scrollIntoView({ block: "start" });
    if (window.performance && performance.measure) performance.measure("play-swap", "play-answer");
  }

  function refresh() {
    var mine = waiting; // a click sent meanwhile, or a newer page, makes this answer stale
    return fetch(window.location.pathname, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) { if (mine === waiting && !busy) swap(html); });
  }

  // Wait for the next change: /play/<id>/state?wait=1 answers when the seat's status or
  // decision is no longer the one shown (then the seat's page is fetched), or the public feed
  // moved on (then the public table is), or after ~25 s (then it asks again). A request the
  // server did not let wait (too many wait) says retry_ms: the page polls then.
  var seen = "";
  var waiting = 0; // which start() the request in flight belongs to

  function poll() {
    var s = seat();
    var mine = ++waiting;
    var url = s.dataset.stateUrl + "?wait=1&status=" + encodeURIComponent(s.dataset.status) +
      "&decision=" + encodeURIComponent(shown || "") + "&seen=" + seen;
    var asked = Date.now();
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (st) {
        if (mine !== waiting) return; // a newer page started its own
        if (!st) { timer = setTimeout(poll, 2000); return; }
        var now = st.decision === null ? "" : String(st.decision);
        if (st.status !== s.dataset.status || now !== shown) { refresh(); return; }
        var moved = String(st.changes) !== seen;
        seen = String(st.changes);
        if (moved) showTable();
        // never faster than 4 a second, whatever the server answers
        var again = st.retry_ms || Math.max(0, 250 - (Date.now() - asked));
        timer = setTimeout(poll, again);
      })
      .catch(function () { if (mine === waiting) timer = setTimeout(poll, 2000); });
  }

  function showTable() {
    var table = document.getElementById("play-table");
    if (!table) return;
    clearTimeout(tableTimer);
    fetch(table.dataset.boardUrl, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var box = document.getElementById("play-public");
        if (html !== null && box && document.getElementById("play-table") === table) {
          box.innerHTML = html;
        }
        // the feed's changes fetch it at once (poll); this is the fallback
        if (document.getElementById("play-table") === table) tableTimer = setTimeout(showTable, 3000);
      })
      .catch(function () { tableTimer = setTimeout(showTable, 3000); });
  }


  // ---- Acting on the board -------------------------------------------------------------
  // Each option button carries data-parts: the board keys (web/targets.py) a person clicks, in
  // order, to choose it; board elements carry the same keys in data-target. While it is the
  // person's turn, every element standing for the next part of a remaining option is
  // highlighted and gets data-choice (the part it stands for); the rest of the board is inert.
  // A click narrows the options; one option left: a one-click choice is sent at once, a longer
  // one asks for Confirm. Options with no place on the board are buttons in the action bar.
  var table = null; // the decision being chosen on the board: {board, opts, picked, byKey}
  var listOpen = false; // a person who opened the option list keeps it open at the next decisions

  main.addEventListener("toggle", function (event) {
    if (event.target instanceof Element && event.target.id === "option-list") listOpen = event.target.open;
  }, true);

  function keysOf(el) { return (el.getAttribute("data-target") || "").split(" ").filter(Boolean); }

  function setupBoard() {
    table = null;
    var board = document.querySelector("#play-board[data-deciding]");
    var buttons = document.querySelectorAll("#your-turn button.option[data-option-id]");
    var list = document.getElementById("option-list");
    if (list) list.open = listOpen; // the board is the way; the list stays one tap away
    if (!board || !buttons.length) return;
    var byKey = {};
    Array.prototype.forEach.call(board.querySelectorAll("[data-target]"), function (el) {
      keysOf(el).forEach(function (k) { (byKey[k] = byKey[k] || []).push(el); });
    });
    var opts = Array.prototype.map.call(buttons, function (b) {
      var parts = (b.getAttribute("data-parts") || "").split(" ").filter(Boolean);
      // a part the board does not draw: the option stays a button (never unreachable)
      if (!parts.every(function (k) { return byKey[k]; })) parts = [];
      return { id: b.getAttribute("data-option-id"), label: b.textContent.replace(/\s+/g, " ").trim(),
               parts: parts, button: b, any: b.hasAttribute("data-any-order") };
    });
    table = { board: board, opts: opts, picked: [], byKey: byKey };
    render();
    reveal();
  }

  // The parts of o still to click after the picked ones (null: o does not fit them). An
  // any-order option (data-any-order: a payment, which resources) fits in any order: a multiset.
  function rest(o) {
    var picked = table.picked;
    if (!o.any) {
      for (var i = 0; i < picked.length; i++) if (o.parts[i] !== picked[i]) return null;
      return o.parts.length >= picked.length ? o.parts.slice(picked.length) : null;
    }
    var left = o.parts.slice();
    for (var j = 0; j < picked.length; j++) {
      var at = left.indexOf(picked[j]);
      if (at < 0) return null;
      left.splice(at, 1);
    }
    return left;
  }

  function remaining() {
    return table.opts.filter(function (o) { return rest(o) !== null; });
  }

  function barButton(text, choice, cls) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (choice !== null) b.setAttribute("data-choice", choice);
    b.className = cls;
    return b;
  }

  function render() {
    var board = table.board;
    Array.prototype.forEach.call(board.querySelectorAll("[data-choice], .picked"), function (el) {
      el.removeAttribute("data-choice");
      el.classList.remove("target", "picked");
      if (el.hasAttribute("data-target")) { el.removeAttribute("tabindex"); el.removeAttribute("role"); }
    });
    table.picked.forEach(function (k) {
      (table.byKey[k] || []).forEach(function (el) { el.classList.add("picked"); });
    });
    var n = table.picked.length;
    var rem = remaining();
    var done = rem.filter(function (o) { return o.parts.length === n; });
    var next = rem.filter(function (o) { return o.parts.length > n; });
    var loose = false;
    next.forEach(function (o) {
      var left = rest(o);
      loose = loose || o.any;
      (o.any ? left : left.slice(0, 1)).forEach(function (key) { table.byKey[key].forEach(function (el) {
        el.setAttribute("data-choice", key);
        el.classList.add("target");
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
      }); });
    });
    var bar = document.getElementById("board-bar");
    var box = document.getElementById("board-buttons");
    var prompt = document.getElementById("board-prompt");
    if (!bar || !box || !prompt) return;
    box.innerHTML = "";
    var words;
    var asked = document.querySelector("#your-turn .prompt");
    if (n === 0) {
      words = "Your move" + (asked ? " (" + asked.textContent.trim() + ")" : "") +
        (next.length ? ": click or tap a highlighted place" : ":");
      if (done.length && next.length) words += ", or";
    } else if (done.length === 1 && !next.length) {
      words = "Confirm: " + done[0].label;
    } else {
      var last = (table.byKey[table.picked[n - 1]] || [])[0];
      var what = last ? last.querySelector("strong") : null; // the card picked, by its name
      // an any-order choice names every part picked so far ("wood, wood")
      what = loose ? table.picked.map(function (k) { return k.split(":").pop(); }).join(", ") : what && what.textContent.trim();
      words = (next.length ? "Next" : "Which one") + (what ? " (" + what + ")" : "") +
        (next.length ? ": click or tap a highlighted place" : "?");
      if (done.length && next.length) words += ", or";
    }
    prompt.textContent = words;
    if (n > 0 && done.length === 1 && !next.length) {
      box.appendChild(barButton("Confirm", "confirm", "confirm"));
    } else {
      done.forEach(function (o) { box.appendChild(barButton(o.label, o.id, "option")); });
    }
    if (n > 0) box.appendChild(barButton("Cancel", null, "secondary cancel"));
    bar.hidden = false;
    if (n > 0 && next.length) reveal();
  }

  // A wide screen: the table fits the window (the board scrolls in its own pane beside the
  // decision and the log), so the board and the action bar are on the first screen.
  function fit() {
    var wide = window.matchMedia && window.matchMedia("(min-width: 60rem)").matches;
    var on = wide && !main.classList.contains("over") && !!main.querySelector(".play-boards > *");
    main.classList.toggle("fit", on);
    if (on) {
      var top = main.getBoundingClientRect().top + window.scrollY;
      main.style.setProperty("--play-top", Math.ceil(top + 12) + "px");
    }
  }

  // Bring the next places into view when none is on screen (on a phone: the map above the
  // hand; on a wide screen: within the board's pane), never hidden behind the action bar.
  function reveal() {
    var board = table.board;
    var bar = document.getElementById("board-bar");
    var pane = main.classList.contains("fit") && board.scrollHeight > board.clientHeight;
    var box = pane ? board.getBoundingClientRect() : { top: 0, bottom: window.innerHeight };
    var top = Math.max(0, box.top);
    var bottom = Math.min(window.innerHeight, box.bottom) - (bar ? bar.offsetHeight : 0);
    var places = board.querySelectorAll("[data-target][data-choice]");
    for (var i = 0; i < places.length; i++) {
      var r = places[i].getBoundingClientRect();
      if (r.bottom > top && r.top < bottom) return;
    }
    if (!places.length) return;
    if (pane) {
      var r0 = places[0].getBoundingClientRect();
      board.scrollTop += r0.top + r0.height / 2 - (top + bottom) / 2;
    } else if (places[0].scrollIntoView) {
      places[0].scrollIntoView({ block: "center" });
    }
  }

  function send(o) {
    if (busy) return;
    if (o.button.form && o.button.form.requestSubmit) o.button.form.requestSubmit(o.button);
    else o.button.click();
  }

  function pick(el) {
    var choice = el.getAttribute("data-choice");
    if (choice === "confirm") {
      var rem = remaining();
      if (rem.length === 1) send(rem[0]);
      return;
    }
    var direct = table.opts.filter(function (o) { return o.id === choice && !el.hasAttribute("data-target"); });
    if (direct.length) { send(direct[0]); return; }
    table.picked.push(choice);
    var left = remaining();
    if (left.length === 1 && left[0].parts.length === table.picked.length && table.picked.length === 1) {
      send(left[0]); // one click, one option: played at once (as lichess moves a piece)
      return;
    }
    render();
  }

  main.addEventListener("click", function (event) {
    if (!table || !(event.target instanceof Element)) return;
    if (event.target.closest(".board-bar .cancel")) { table.picked = []; render(); return; }
    var el = event.target.closest("[data-choice]");
    if (!el || !table.board.contains(el)) return;
    event.preventDefault();
    pick(el);
  });

  main.addEventListener("keydown", function (event) {
    if (!table || (event.key !== "Enter" && event.key !== " ")) return;
    var el = event.target instanceof Element ? event.target : null;
    if (!el || !el.hasAttribute("data-target") || !el.hasAttribute("data-choice")) return;
    event.preventDefault();
    pick(el);
  });

  // The link between the option list and the board: hovering (or focusing, or long-pressing)
  // an option lights its places on the board; hovering a place lights its options.
  function hint(on, els) {
    els.forEach(function (el) { el.classList.toggle("hint", on); });
  }

  function linked(el) {
    if (!table) return [];
    if (el.matches("#your-turn button.option")) {
      var o = table.opts.filter(function (x) { return x.button === el; })[0];
      if (!o) return [];
      var out = [];
      o.parts.forEach(function (k) { out = out.concat(table.byKey[k] || []); });
      return out.concat(before(out));
    }
    var keys = keysOf(el);
    return table.opts.filter(function (x) {
      return x.parts.some(function (k) { return keys.indexOf(k) >= 0; });
    }).map(function (x) { return x.button; }).concat(before([el]));
  }

  // A place in a row counted off (data-counted: Orbital's unused crew, where "3 crew in" is the
  // third token) hints with the places before it, so that the hint shows the whole count.
  function before(els) {
    var out = [];
    els.forEach(function (e) {
      var item = e.closest("[data-counted] > *");
      while (item && (item = item.previousElementSibling)) out.push(item);
    });
    return out;
  }

  function hoverable(target) {
    if (!(target instanceof Element)) return null;
    return target.closest("#your-turn button.option, #play-board [data-target]");
  }

  ["mouseover", "focusin"].forEach(function (type) {
    main.addEventListener(type, function (event) {
      var el = hoverable(event.target);
      if (el) hint(true, linked(el));
    });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    main.addEventListener(type, function (event) {
      var el = hoverable(event.target);
      if (el) hint(false, linked(el));
    });
  });
  var press = null;
  var pressed = false;
  main.addEventListener("touchstart", function (event) {
    var el = hoverable(event.target);
    pressed = false;
    if (!el) return;
    clearTimeout(press);
    press = setTimeout(function () {
      pressed = true;
      var els = linked(el);
      hint(true, els);
      setTimeout(function () { hint(false, els); }, 1500);
    }, 450);
  }, { passive: true });
  main.addEventListener("touchend", function () { clearTimeout(press); }, { passive: true });
  main.addEventListener("click", function (event) {
    if (pressed) { pressed = false; event.preventDefault(); event.stopImmediatePropagation(); }
  }, true);

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
    fit();
    setupBoard();
    showTable();
    waiting++; // an answer to the last page's request is not for this one
    if (s.dataset.status === "playing" || s.dataset.status === "resigned") poll();
  }

  // Option buttons and Resign: send the form with fetch (the server does not wait for the
  // bots then: this page waits on /state), and swap in the page that comes back.
  main.addEventListener("submit", function (event) {
    var form = event.target;
    // "Play again" starts a new game at a new address: the browser posts it and follows
    if (form instanceof HTMLFormElement && form.hasAttribute("data-navigate")) return;
    if (!(form instanceof HTMLFormElement) || busy) { event.preventDefault(); return; }
    event.preventDefault();
    busy = true;
    waiting++; // the request waiting for the old page's change is not this page's any more
    clearTimeout(timer);
    main.setAttribute("aria-busy", "true"); // sent: the next page is on its way
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

  window.addEventListener("resize", function () { if (seat()) fit(); });
  setInterval(tick, 1000);
  start();
})();
