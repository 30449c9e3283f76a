// Find a bot in long tables: an <input data-filter="CSS selectors"> hides the body rows of those
// tables whose text does not contain what was typed (case-insensitive). Why client-side: a
// tournament of 300 entrants sends its standings and crosstable whole (a few hundred rows), so
// filtering them in the page is instant and the page stays one request.
(function () {
  "use strict";
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var tables = document.querySelectorAll(input.getAttribute("data-filter"));
    input.addEventListener("input", function () {
      var needle = input.value.trim().toLowerCase();
      tables.forEach(function (table) {
        Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
          row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) < 0;
        });
      });
    });
  });
})();
