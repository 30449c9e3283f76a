// Replay viewer: buttons, arrow keys (Left/Right, Home/End), a slider, and play/pause at 1, 2 or
// 4 steps a second (Space) move through every decision of a match. Each step's board is an HTML
// fragment rendered (and escaped) by the server from the engine's spectator view, so the game
// renderers live in one place (Jinja) and the page works without JavaScript too: the buttons are
// plain links to ?step=N. The step shown is kept in the address (history.replaceState), so a
// copied link opens that moment, also while playing.
//
// ArenaReplay.start(root, load) drives one viewer; load(step) returns a promise of the step's
// HTML. A match page loads steps with GET from data-step-url; /replay (replay-file.js) posts
// the record of a local file instead.
(function () {
  "use strict";

  function inFormField(el) {
    if (!el || !el.tagName) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || tag === "BUTTON" ||
      el.isContentEditable;
  }

  function start(root, load) {
    var last = parseInt(root.getAttribute("data-last"), 10);
    var view = root.querySelector("#step-view");
    var slider = root.querySelector("#step-slider");
    var output = root.querySelector("#step-output");
    var log = root.querySelector("#event-log");
    var playButton = root.querySelector("#play-button");
    var speed = root.querySelector("#play-speed");
    var current = parseInt(root.getAttribute("data-step"), 10) || 0;
    var cache = {};
    var pending = {};
    var wanted = current;
    var timer = null;

    function links() { return root.querySelectorAll("[data-goto]"); }

    function updateChrome(step) {
      slider.value = String(step);
      output.textContent = "Step " + step + " of " + last;
      root.setAttribute("data-step", String(step));
      links().forEach(function (a) {
        var target = a.getAttribute("data-goto");
        var to = target === "first" ? 0 : target === "prev" ? Math.max(0, step - 1)
          : target === "next" ? Math.min(last, step + 1) : last;
        a.setAttribute("href", "?step=" + to);
        var off = (target === "first" || target === "prev") ? step === 0 : step === last;
        // At an end the buttons that lead nowhere are disabled (greyed, out of the tab order).
        if (off) {
          a.setAttribute("aria-disabled", "true");
          a.setAttribute("tabindex", "-1");
        } else {
          a.removeAttribute("aria-disabled");
          a.removeAttribute("tabindex");
        }
      });
      if (log) {
        var old = log.querySelector("[aria-current]");
        if (old) old.removeAttribute("aria-current");
        var item = log.querySelector('[data-step="' + step + '"]');
        if (item) {
          item.setAttribute("aria-current", "step");
          var top = item.offsetTop - log.offsetTop;
          if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - item.offsetHeight) {
            log.scrollTop = Math.max(0, top - log.clientHeight / 2);
          }
        }
      }
      if (window.history && window.history.replaceState) {
        window.history.replaceState(null, "", "?step=" + step);
      }
    }

    function show(step, html) {
      view.innerHTML = html;  // trusted: rendered and escaped by the server's templates
      current = step;
      updateChrome(step);
      root.setAttribute("data-ready", String(step));
    }

    // One request per step however often it is asked for (playing prefetches the next one).
    function get(step) {
      if (cache[step] !== undefined) return Promise.resolve(cache[step]);
      if (!pending[step]) {
        pending[step] = load(step).then(function (html) {
          cache[step] = html;
          return html;
        }).finally(function () { delete pending[step]; });
      }
      return pending[step];
    }

    function go(step) {
      step = Math.max(0, Math.min(last, step));
      wanted = step;
      root.removeAttribute("data-ready");
      if (cache[step] !== undefined) { show(step, cache[step]); return; }
      updateChrome(step);
      get(step).then(function (html) {
        if (wanted === step) show(step, html);
      }).catch(function (err) {
        if (wanted !== step) return;
        setPlaying(false);
        view.textContent = "Could not load step " + step + ": " + err.message;
      });
    }

    function tick() {
      // A slow step is waited for: playing never skips a decision.
      if (root.getAttribute("data-ready") !== String(wanted)) return;
      if (wanted >= last) { setPlaying(false); return; }
      go(wanted + 1);
      if (wanted >= last) { setPlaying(false); return; }
      get(wanted + 1).catch(function () {});  // the error shows when that step is reached
    }

    function setPlaying(on) {
      if (timer !== null) { clearInterval(timer); timer = null; }
      if (on) {
        if (wanted >= last) go(0);  // Play at the end starts again from the opening position
        timer = setInterval(tick, 1000 / (parseInt(speed.value, 10) || 1));
      }
      playButton.innerHTML = on ? '<span aria-hidden="true">❚❚</span> Pause'
        : '<span aria-hidden="true">▶</span> Play';
      root.setAttribute("data-playing", on ? "true" : "false");
    }

    function onClick(ev) {
      var a = ev.target.closest("[data-goto]");
      if (!a) return;
      ev.preventDefault();
      if (a.getAttribute("aria-disabled") === "true") return;
      var t = a.getAttribute("data-goto");
      go(t === "first" ? 0 : t === "prev" ? wanted - 1 : t === "next" ? wanted + 1 : last);
    }

    function onLogClick(ev) {
      var a = ev.target.closest("a[data-step-link]");
      if (!a) return;
      ev.preventDefault();
      go(parseInt(a.getAttribute("data-step-link"), 10));
    }

    function onKey(ev) {
      if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
      if (ev.target === slider || inFormField(ev.target)) return;
      if (ev.key === " " || ev.key === "Spacebar") {
        ev.preventDefault();  // not a page scroll
        setPlaying(timer === null);
        return;
      }
      var keys = { ArrowRight: wanted + 1, ArrowLeft: wanted - 1, Home: 0, End: last };
      if (!(ev.key in keys)) return;
      ev.preventDefault();
      go(keys[ev.key]);
    }

    function onPlay() { setPlaying(timer === null); }
    function onSpeed() { if (timer !== null) setPlaying(true); }
    function onSlide() { go(parseInt(slider.value, 10)); }

    root.addEventListener("click", onClick);
    if (log) log.addEventListener("click", onLogClick);
    slider.addEventListener("input", onSlide);
    playButton.addEventListener("click", onPlay);
    speed.addEventListener("change", onSpeed);
    document.addEventListener("keydown", onKey);
    // The play controls only work with this script, so they are shown by it.
    root.querySelectorAll("#play-button, .speed, .play-hint").forEach(function (el) {
      el.hidden = false;
    });
    cache[current] = view.innerHTML;
    updateChrome(current);
    setPlaying(false);
    root.setAttribute("data-ready", String(current));

    return {
      stop: function () {
        setPlaying(false);
        document.removeEventListener("keydown", onKey);
      }
    };
  }

  function getFrom(base) {
    return function (step) {
      return fetch(base + step, { headers: { "Accept": "text/html" } }).then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      });
    };
  }

  window.ArenaReplay = { start: start };
  var root = document.getElementById("replay");
  if (root && root.hasAttribute("data-step-url")) {
    start(root, getFrom(root.getAttribute("data-step-url")));
  }
})();
