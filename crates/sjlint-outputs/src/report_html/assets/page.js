// sjlint report: draws the timeline from the page's JSON data. Every string from the stream is
// set with textContent or as an attribute value, never parsed as HTML.
(function () {
  'use strict';
  var src = document.getElementById('run-data');
  var tl = document.getElementById('tl');
  var tip = document.getElementById('tip');
  if (!src || !tl || !tip) { return; }
  var data = JSON.parse(src.textContent);
  var span = Math.max(data.span, 1);
  var ROW = 18, SEG = 8, AXIS = 18, MOST_BARS = 3000;
  var v0 = 0, v1 = span, frame = 0;

  function el(tag, cls) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    return e;
  }

  tl.textContent = '';
  var labels = el('div', 'labels');
  var track = el('div', 'track');
  tl.appendChild(labels);
  tl.appendChild(track);
  var height = AXIS + SEG + 6 + Math.max(data.rows.length, 1) * ROW;
  tl.style.height = height + 'px';
  var head = el('div', 'label seglabel');
  head.style.top = AXIS + 'px';
  head.textContent = 'text';
  labels.appendChild(head);
  data.rows.forEach(function (r, i) {
    var l = el('div', 'label' + (r[1] ? ' sub' : ''));
    l.style.top = (AXIS + SEG + 6 + i * ROW) + 'px';
    l.textContent = r[0];
    l.title = r[0];
    labels.appendChild(l);
  });

  function fmt(p) {
    if (!data.clock) { return 'line ' + Math.round(p + data.t0); }
    if (p < 1000) { return Math.round(p) + ' ms'; }
    if (p < 60000) { return (p / 1000).toFixed(p < 10000 ? 1 : 0) + ' s'; }
    if (p < 3600000) { return Math.floor(p / 60000) + ' min ' + Math.round((p % 60000) / 1000) + ' s'; }
    if (p < 86400000) { return Math.floor(p / 3600000) + ' h ' + Math.round((p % 3600000) / 60000) + ' min'; }
    return Math.floor(p / 86400000) + ' d ' + Math.round((p % 86400000) / 3600000) + ' h';
  }

  function step(w) {
    var raw = w / 8, pow = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var s = [1, 2, 5, 10].map(function (m) { return m * pow; }).find(function (x) { return x >= raw; });
    return Math.max(s || raw, data.clock ? 1 : 1);
  }

  function render() {
    frame = 0;
    var W = Math.max(track.clientWidth, 50), w = v1 - v0;
    var x = function (p) { return (p - v0) / w * W; };
    var box = document.createDocumentFragment();
    var st = step(w);
    for (var t = Math.ceil(v0 / st) * st; t <= v1; t += st) {
      var tick = el('div', 'tick');
      tick.style.left = x(t) + 'px';
      tick.textContent = fmt(t);
      box.appendChild(tick);
    }
    data.idle.forEach(function (g) {
      if (g[1] < v0 || g[0] > v1) { return; }
      var d = el('div', 'idle');
      d.style.left = x(g[0]) + 'px';
      d.style.width = Math.max(x(g[1]) - x(g[0]), 1) + 'px';
      d.title = 'idle ' + fmt(g[1] - g[0]);
      box.appendChild(d);
    });
    data.segs.forEach(function (s) {
      if (s[2] < v0 || s[1] > v1) { return; }
      var d = el('div', s[0] ? 'seg seg-think' : 'seg seg-text');
      d.style.left = x(s[1]) + 'px';
      d.style.width = Math.max(x(s[2]) - x(s[1]), 2) + 'px';
      d.style.top = AXIS + 'px';
      box.appendChild(d);
    });
    var seen = [];
    data.calls.forEach(function (c, i) { if (c[4] >= v0 && c[3] <= v1) { seen.push(i); } });
    if (seen.length >= MOST_BARS) {
      // Too many to draw one by one (a page holds 3,000 calls of a longer run: as many as
      // MOST_BARS): one block per row and pixel column, with its count.
      var cells = new Map();
      seen.forEach(function (i) {
        var c = data.calls[i], a = Math.floor(Math.max(x(c[3]), 0)), b = Math.floor(Math.min(x(c[4]), W));
        for (var px = a; px <= b && px < a + 4; px++) {
          var key = c[6] * 100000 + px, v = cells.get(key);
          if (!v) { cells.set(key, v = { n: 0, row: c[6], px: px, k: c[2], bad: 0 }); }
          v.n++; v.bad |= c[5] & 1;
        }
      });
      cells.forEach(function (v) {
        var d = el('div', 'agg k-' + data.kinds[v.k] + (v.bad ? ' failed' : ''));
        d.style.left = v.px + 'px';
        d.style.top = (AXIS + SEG + 6 + v.row * ROW) + 'px';
        d.title = v.n + ' calls';
        box.appendChild(d);
      });
    } else {
      seen.forEach(function (i) {
        var c = data.calls[i];
        var d = el('div', 'bar k-' + data.kinds[c[2]] + (c[5] & 1 ? ' failed' : '') + (c[5] & 2 ? ' open' : ''));
        d.setAttribute('data-call-id', c[0]);
        d.setAttribute('data-kind', data.kinds[c[2]]);
        d.setAttribute('data-i', String(i));
        d.setAttribute('tabindex', '0');
        d.setAttribute('aria-label', c[1] + ' (' + data.kinds[c[2]] + ')');
        d.style.left = x(c[3]) + 'px';
        d.style.width = Math.max(x(c[4]) - x(c[3]), 3) + 'px';
        d.style.top = (AXIS + SEG + 6 + c[6] * ROW) + 'px';
        box.appendChild(d);
      });
    }
    data.marks.forEach(function (m) {
      if (m[0] < v0 || m[0] > v1) { return; }
      var a = el('a', 'mark');
      a.href = '#finding-' + m[1];
      a.setAttribute('data-finding', String(m[1]));
      a.style.left = x(m[0]) + 'px';
      a.title = m[2] + ' (line ' + m[3] + ')';
      a.setAttribute('aria-label', 'finding ' + a.title);
      box.appendChild(a);
    });
    track.textContent = '';
    track.appendChild(box);
  }

  function later() { if (!frame) { frame = requestAnimationFrame(render); } }

  function view(a, b) {
    var least = data.clock ? 10 : 2, w = Math.min(Math.max(b - a, least), span);
    a = Math.min(Math.max(a, 0), span - w);
    v0 = a; v1 = a + w;
    later();
  }

  function zoom(f, at) {
    var c = at === undefined ? (v0 + v1) / 2 : at;
    view(c - (c - v0) * f, c + (v1 - c) * f);
  }

  function line(k, v) {
    var p = el('div');
    var b = el('b'); b.textContent = k + ': ';
    var s = el('span'); s.textContent = v;
    p.appendChild(b); p.appendChild(s);
    tip.appendChild(p);
  }

  function cut(text, full) {
    if (text === undefined) { return '(not kept: ' + full + ' bytes)'; }
    return full > text.length ? text + ' … (' + full + ' bytes in all)' : text;
  }

  function show(e) {
    var t = e.target.closest ? e.target.closest('.bar') : null;
    if (!t) { return; }
    var c = data.calls[Number(t.getAttribute('data-i'))];
    if (!c) { return; }
    tip.textContent = '';
    line('call', c[1]);
    line('kind', data.kinds[c[2]]);
    line('id', c[0]);
    line(data.clock ? 'duration' : 'records', data.clock ? fmt(c[4] - c[3]) : (c[4] - c[3]) + ' lines');
    line('line', String(c[7]));
    line('status', c[5] & 2 ? 'unfinished (runs to the end of the stream)' : (c[5] & 1 ? 'failed' : 'ended'));
    line('arguments', cut(c[8], c[9]));
    line('output', cut(c[10], c[11]));
    var r = t.getBoundingClientRect(), host = tl.getBoundingClientRect();
    tip.hidden = false;
    tip.style.left = Math.max(0, Math.min(r.left - host.left, host.width - 320)) + 'px';
    tip.style.top = (r.bottom - host.top + tl.offsetTop + 4) + 'px';
  }

  function hide() { tip.hidden = true; }

  track.addEventListener('mouseover', show);
  track.addEventListener('focusin', show);
  track.addEventListener('mouseleave', hide);
  track.addEventListener('focusout', hide);
  track.addEventListener('wheel', function (e) {
    e.preventDefault();
    var r = track.getBoundingClientRect();
    zoom(e.deltaY > 0 ? 1.25 : 0.8, v0 + (e.clientX - r.left) / r.width * (v1 - v0));
  }, { passive: false });
  var drag = null;
  track.addEventListener('mousedown', function (e) { drag = { x: e.clientX, a: v0, b: v1 }; });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) { return; }
    var d = (drag.x - e.clientX) / Math.max(track.clientWidth, 1) * (drag.b - drag.a);
    view(drag.a + d, drag.b + d);
  });
  tl.addEventListener('keydown', function (e) {
    var w = v1 - v0;
    if (e.key === '+' || e.key === '=') { zoom(0.8); } else if (e.key === '-') { zoom(1.25); } else if (e.key === '0') { view(0, span); } else if (e.key === 'ArrowLeft' && e.target === tl) { view(v0 - w / 10, v1 - w / 10); } else if (e.key === 'ArrowRight' && e.target === tl) { view(v0 + w / 10, v1 + w / 10); } else { return; }
    e.preventDefault();
  });
  document.querySelectorAll('[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      var z = b.getAttribute('data-zoom');
      if (z === 'in') { zoom(0.5); } else if (z === 'out') { zoom(2); } else { view(0, span); }
    });
  });
  // Each finding can bring its place on the timeline into view.
  document.querySelectorAll('#findings li[data-rule]').forEach(function (li, i) {
    var m = data.marks[i];
    if (!m) { return; }
    var b = el('button', 'goto');
    b.type = 'button';
    b.textContent = 'on the timeline';
    b.addEventListener('click', function () {
      var w = v1 - v0;
      view(m[0] - w / 2, m[0] + w / 2);
      tl.scrollIntoView({ block: 'center' });
      tl.focus();
    });
    li.appendChild(b);
  });
  window.addEventListener('resize', later);
  render();
  // `page.html#call-N` opens on call N with its details shown.
  var want = /^#call-(\d+)$/.exec(location.hash);
  var bar = want && track.querySelector('[data-i="' + want[1] + '"]');
  if (bar) {
    bar.focus();
    show({ target: bar });
  }
}());
