// sjlint report index: sorts the table by a clicked column and filters its rows by the text
// typed. Reads cell text only; writes nothing but row order and visibility.
(function () {
  'use strict';
  var table = document.getElementById('runs');
  var filter = document.getElementById('filter');
  if (!table || !filter) { return; }
  var body = table.tBodies[0];
  function key(tr, i, num) {
    var td = tr.cells[i];
    return num ? Number(td.getAttribute('data-sort') || 0) : td.textContent.toLowerCase();
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
    function sort() {
      var num = th.getAttribute('data-type') === 'num';
      var up = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (o) { o.setAttribute('aria-sort', 'none'); });
      th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a, i, num), y = key(b, i, num);
        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    }
    th.addEventListener('click', sort);
    th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
  });
  function apply() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    Array.prototype.forEach.call(body.rows, function (tr) {
      var t = tr.textContent.toLowerCase();
      tr.hidden = !words.every(function (w) { return t.indexOf(w) >= 0; });
    });
  }
  filter.addEventListener('input', apply);
  // `index.html#filter=WORDS` opens the index filtered.
  var m = /^#filter=(.*)$/.exec(location.hash);
  if (m) {
    filter.value = decodeURIComponent(m[1]);
    apply();
  }
}());
