// Replay stepper: buttons, arrow keys (Left/Right, Home/End) and a slider move through every
// decision of a match. Each step's board is an HTML fragment rendered (and escaped) by the
// server from the engine's spectator view, so the game renderers live in one place (Jinja) and
// the page works without JavaScript too: the buttons are plain links to ?step=N.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root) return;
  var last = parseInt(root.getAttribute("data-last"), 10);
  var base = root.getAttribute("data-step-url");
  var view = document.getElementById("step-view");
  var slider = document.getElementById("step-slider");
  var output = document.getElementById("step-output");
  var log = document.getElementById("event-log");
  var current = parseInt(root.getAttribute("data-step"), 10) || 0;
  var cache = {};
  var wanted = current;

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

  function go(step) {
    step = Math.max(0, Math.min(last, step));
    wanted = step;
    root.removeAttribute("data-ready");
    if (cache[step] !== undefined) { show(step, cache[step]); return; }
    updateChrome(step);
    fetch(base + step, { headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      })
      .then(function (html) {
        cache[step] = html;
        if (wanted === step) show(step, html);
      })
      .catch(function (err) {
        view.textContent = "Could not load step " + step + ": " + err.message;
      });
  }

  root.addEventListener("click", function (ev) {
    var a = ev.target.closest("[data-goto]");
    if (!a) return;
    ev.preventDefault();
    if (a.getAttribute("aria-disabled") === "true") return;
    var t = a.getAttribute("data-goto");
    go(t === "first" ? 0 : t === "prev" ? wanted - 1 : t === "next" ? wanted + 1 : last);
  });
  if (log) {
    log.addEventListener("click", function (ev) {
      var a = ev.target.closest("a[data-step-link]");
      if (!a) return;
      ev.preventDefault();
      go(parseInt(a.getAttribute("data-step-link"), 10));
    });
  }
  slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var tag = ev.target && ev.target.tagName;
    if (ev.target === slider || tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var keys = { ArrowRight: wanted + 1, ArrowLeft: wanted - 1, Home: 0, End: last };
    if (!(ev.key in keys)) return;
    ev.preventDefault();
    go(keys[ev.key]);
  });
  cache[current] = view.innerHTML;
  updateChrome(current);
  root.setAttribute("data-ready", String(current));
})();
