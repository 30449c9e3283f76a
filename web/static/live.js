// Live match page: polls the server-rendered (and escaped) fragment of the public board and
// log once a second and swaps it in; when the match is over it goes to the replay at its last
// step (the final result: data-match-url ends in ?step=end).
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root) return;
  var url = root.getAttribute("data-board-url");
  var over = root.getAttribute("data-match-url");
  function poll() {
    fetch(url, { cache: "no-store" }).then(function (r) {
      var status = r.headers.get("X-Match-Status");
      return r.text().then(function (html) {
        root.innerHTML = html;
        if (status === "done" || status === "failed") { window.location.assign(over); return; }
        setTimeout(poll, 1000);
      });
    }).catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 1000);
})();
