// Sortable tables: every <th data-sort="num|text"> of a table.sortable becomes a button.
// Why client-side: a leaderboard has at most a few thousand rows already on the page, so
// re-sorting them in the browser is instant and needs no round trip. aria-sort tells screen
// readers the current order; rows sort by td[data-value] when present, else by their text.
(function () {
  "use strict";
  function cellValue(row, index, kind) {
    var cell = row.cells[index];
    if (!cell) return kind === "num" ? -Infinity : "";
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (kind === "num") {
      var n = parseFloat(raw);
      return isNaN(n) ? -Infinity : n;
    }
    return raw.toLowerCase();
  }
  function sortBy(table, th, index) {
    var kind = th.getAttribute("data-sort");
    var current = th.getAttribute("aria-sort");
    var dir = current === "ascending" ? "descending" : current === "descending" ? "ascending"
      : (kind === "num" ? "descending" : "ascending");
    table.querySelectorAll("thead th[aria-sort]").forEach(function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var sign = dir === "ascending" ? 1 : -1;
    rows.sort(function (a, b) {
      var x = cellValue(a, index, kind), y = cellValue(b, index, kind);
      return x < y ? -sign : x > y ? sign : 0;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    var status = table.parentNode.nextElementSibling;
    if (status && !status.classList.contains("sort-status")) status = null;
    if (status) status.textContent = "Sorted by " + th.textContent.trim() + ", " + dir + ".";
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, index) {
      if (!th.hasAttribute("data-sort")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, th, index); });
    });
    var status = document.createElement("p");
    status.className = "sort-status small muted";
    status.setAttribute("aria-live", "polite");
    table.parentNode.parentNode.insertBefore(status, table.parentNode.nextSibling);
  });
})();
