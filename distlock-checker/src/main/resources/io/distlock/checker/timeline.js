// Draws the check report's timeline from the JSON in #timeline-data (times in ms from the start of the run)
// and makes it explorable: wheel, buttons or +/- zoom around a point, dragging pans, clicking selects. The
// fragment selects and zooms: #select=o3 (an overlap), #select=h12 (a hold), #select=f2 (a fault), #t=1500-2500.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('timeline-data').textContent);
  var box = document.getElementById('timeline');
  var tip = document.getElementById('tip');
  var panel = document.getElementById('selection');
  var windowLabel = document.getElementById('window');
  var LEFT = 96, RIGHT = 14, TOP = 8, ROW = 26, BAR = 14, AXIS = 26, MIN_SPAN = 0.05;

  var laneRow = {};
  D.lanes.forEach(function (p, i) { laneRow[p] = i + 1; }); // row 0 is the nemesis
  var rows = D.lanes.length + 1;
  var holdOverlaps = D.holds.map(function () { return []; });
  D.overlaps.forEach(function (o, i) { o.holds.forEach(function (h) { if (h >= 0) { holdOverlaps[h].push(i); } }); });
  var view = { from: 0, to: Math.max(D.end, 1) };
  var selected = null; // {type: 'o' | 'h' | 'f', i: index}
  var width = 0;

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  function rowY(row) { return TOP + row * ROW; }
  function x(t) { return LEFT + (t - view.from) * (width - LEFT - RIGHT) / (view.to - view.from); }
  function inView(s, e) { return e >= view.from && s <= view.to; }
  function decimals() { return Math.max(0, Math.min(6, 3 - Math.floor(Math.log10(Math.max(view.to - view.from, 1e-3)) - 1))); }
  function sec(ms) { return (ms / 1000).toFixed(Math.max(3, decimals())) + ' s'; }
  function dur(ms) { return ms >= 1000 ? (ms / 1000).toFixed(3) + ' s' : ms.toFixed(ms < 10 ? 2 : 1) + ' ms'; }
  function token(t, raw) { return t ? 't' + t + ' (raw ' + raw + ')' : 'no token'; }

  function describeHold(i) {
    var h = D.holds[i];
    var text = 'process ' + h.p + (h.sh ? ' held a shared hold' : ' held the lock') + ', token ' + token(h.t, h.raw) + '\n'
      + sec(h.s) + ' to ' + sec(h.e) + ' (' + dur(h.e - h.s) + '), ended by ' + h.by
      + (h.le < 0 ? '' : h.le < h.e ? '\nits lease ran out at ' + sec(h.le) + ': held past it for ' + dur(h.e - Math.max(h.s, h.le))
        : '\nits lease ran until ' + sec(h.le));
    holdOverlaps[i].forEach(function (o) { text += '\n' + describeOverlap(o, i); });
    return text;
  }
  function describeOverlap(o, exceptHold) {
    var ov = D.overlaps[o];
    var others = ov.holds.filter(function (h) { return h !== exceptHold && h >= 0; })
      .map(function (h) { return 'process ' + D.holds[h].p + ' (t' + D.holds[h].t + ')'; });
    return 'overlap with ' + others.join(', ') + ' for ' + dur(ov.e - ov.s) + ' at ' + sec(ov.s) + ' (' + D.groups[ov.g] + ')';
  }
  function describeFault(i) {
    var f = D.faults[i];
    return f.d + '\n' + (f.e > f.s ? sec(f.s) + ' to ' + sec(f.e) + ' (' + dur(f.e - f.s) + ')' : 'at ' + sec(f.s));
  }
  var MARKS = { accepted: 'fenced write accepted', rejected: 'fenced write rejected', lost: 'loss notice', lostupdate: 'lost update' };
  function describeMark(i) {
    var m = D.marks[i];
    return MARKS[m.m] + ': process ' + m.p + ' at ' + sec(m.at) + (m.t ? ', token ' + token(m.t, m.raw) : '') + (m.note ? '\n' + m.note : '');
  }

  function niceStep(span, pixels) {
    var raw = span / Math.max(1, pixels / 110);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) { if (steps[i] * p >= raw) { return steps[i] * p; } }
    return 10 * p;
  }

  function render() {
    width = Math.max(420, box.clientWidth);
    var height = rowY(rows) + AXIS;
    var plotW = width - LEFT - RIGHT;
    var out = [];
    out.push('<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" role="img" aria-label="timeline"'
      + (selected ? ' class="has-selection"' : '') + '>');
    out.push('<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
      + '<rect width="6" height="6" fill="#fff" fill-opacity=".6"/><line x1="0" y1="0" x2="0" y2="6" stroke="#a8a8a8" stroke-width="3"/></pattern>'
      + '<pattern id="pastlease" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">'
      + '<line x1="0" y1="0" x2="0" y2="5" stroke="#fff" stroke-width="2"/></pattern>'
      + '<clipPath id="plot"><rect x="' + LEFT + '" y="0" width="' + plotW + '" height="' + height + '"/></clipPath></defs>');
    for (var r = 0; r < rows; r++) {
      out.push('<rect x="0" y="' + rowY(r) + '" width="' + width + '" height="' + ROW + '" fill="' + (r === 0 ? '#f1f1f1' : r % 2 ? '#fff' : '#fafafa') + '"/>');
      out.push('<text class="lane-label" x="6" y="' + (rowY(r) + ROW / 2 + 4) + '">' + (r === 0 ? 'nemesis' : 'process ' + D.lanes[r - 1]) + '</text>');
    }
    var step = niceStep(view.to - view.from, plotW);
    var first = Math.ceil(view.from / step) * step;
    var digits = Math.max(0, -Math.floor(Math.log10(step / 1000) + 1e-9));
    for (var t = first; t <= view.to + 1e-9; t += step) {
      var tx = x(t);
      out.push('<line class="grid" x1="' + tx + '" y1="' + rowY(0) + '" x2="' + tx + '" y2="' + rowY(rows) + '"/>');
      out.push('<text class="axis" x="' + tx + '" y="' + (rowY(rows) + 16) + '" text-anchor="middle">' + (t / 1000).toFixed(digits) + ' s</text>');
    }
    out.push('<g clip-path="url(#plot)">');
    var labels = [];
    D.faults.forEach(function (f, i) {
      if (!inView(f.s, f.e)) { return; }
      var fx = x(f.s), fw = Math.max(4, x(f.e) - fx);
      var sel = selected && selected.type === 'f' && selected.i === i ? ' selected' : '';
      out.push('<rect class="nemesis' + sel + '" data-f="' + i + '" x="' + fx + '" y="' + (rowY(0) + 4) + '" width="' + fw + '" height="' + (ROW - 8) + '"/>');
      labels.push('<text class="fault-label" x="' + (fx + fw + 3) + '" y="' + (rowY(0) + ROW / 2 + 4) + '">' + esc(f.k) + '</text>');
      if (f.p >= 0 && laneRow[f.p] !== undefined) {
        out.push('<rect class="fault' + sel + '" data-f="' + i + '" x="' + fx + '" y="' + (rowY(laneRow[f.p]) + 1) + '" width="' + fw + '" height="' + (ROW - 2) + '"/>');
        labels.push('<text class="fault-label" x="' + (fx + fw + 3) + '" y="' + (rowY(laneRow[f.p]) + ROW - 5) + '">' + esc(f.k) + '</text>');
      } else {
        out.push('<rect class="fault server" x="' + fx + '" y="' + rowY(1) + '" width="' + fw + '" height="' + (rowY(rows) - rowY(1)) + '"/>');
      }
    });
    D.holds.forEach(function (h, i) {
      if (!inView(h.s, h.e) || laneRow[h.p] === undefined) { return; }
      var hx = x(h.s), hw = Math.max(3, x(h.e) - hx);
      var cls = 'hold' + (h.sh ? ' shared' : '') + (holdOverlaps[i].length ? ' in-overlap' : '') + (isSelectedHold(i) ? ' selected' : '');
      out.push('<rect class="' + cls + '" data-h="' + i + '" x="' + hx + '" y="' + (rowY(laneRow[h.p]) + (ROW - BAR) / 2) + '" width="' + hw + '" height="' + BAR + '"/>');
      if (h.le >= 0 && h.le < h.e) { // the part held after the recorded lease end: the holder's lease was no longer valid
        var px = x(Math.max(h.s, h.le));
        out.push('<rect class="past-lease" x="' + px + '" y="' + (rowY(laneRow[h.p]) + (ROW - BAR) / 2) + '" width="' + Math.max(1, hx + hw - px)
          + '" height="' + BAR + '"/>');
      }
    });
    D.overlaps.forEach(function (o, i) {
      if (!inView(o.s, o.e)) { return; }
      var lanes = o.holds.filter(function (h) { return h >= 0; }).map(function (h) { return laneRow[D.holds[h].p]; });
      var ox = x(o.s), ow = Math.max(3, x(o.e) - ox);
      var sel = (o.v ? ' violation' : ' allowed') + (selected && selected.type === 'o' && selected.i === i ? ' selected' : '');
      var top = Math.min.apply(null, lanes), bottom = Math.max.apply(null, lanes);
      out.push('<line class="overlap-link' + sel + '" x1="' + (ox + ow / 2) + '" y1="' + (rowY(top) + ROW / 2) + '" x2="' + (ox + ow / 2)
        + '" y2="' + (rowY(bottom) + ROW / 2) + '"/>');
      lanes.forEach(function (row) {
        out.push('<rect class="overlap' + sel + '" x="' + ox + '" y="' + (rowY(row) + (ROW - BAR) / 2 - 2) + '" width="' + ow + '" height="' + (BAR + 4) + '"/>');
      });
    });
    var visibleMarks = 0;
    D.marks.forEach(function (m, i) {
      if (m.at < view.from || m.at > view.to || laneRow[m.p] === undefined) { return; }
      visibleMarks++;
      var mx = x(m.at), y = rowY(laneRow[m.p]);
      if (m.m === 'accepted') {
        out.push('<line class="mark accepted" data-m="' + i + '" x1="' + mx + '" y1="' + (y + ROW - 5) + '" x2="' + mx + '" y2="' + (y + ROW) + '"/>');
      } else if (m.m === 'rejected') {
        out.push('<path class="mark rejected" data-m="' + i + '" d="M' + (mx - 4) + ',' + (y + ROW) + 'l4,-7l4,7z"/>');
      } else if (m.m === 'lost') {
        out.push('<path class="mark lost" data-m="' + i + '" d="M' + (mx - 5) + ',' + y + 'l10,0l-5,8z"/>');
      } else {
        out.push('<circle class="mark lostupdate" data-m="' + i + '" cx="' + mx + '" cy="' + (y + ROW / 2) + '" r="4.5"/>');
      }
    });
    out.push(labels.join(''));
    out.push('</g></svg>');
    box.innerHTML = out.join('');
    box.firstChild.setAttribute('data-marks', visibleMarks);
    windowLabel.textContent = 'showing ' + sec(view.from) + ' to ' + sec(view.to) + ' of ' + sec(D.end);
  }

  function isSelectedHold(i) {
    if (!selected) { return false; }
    if (selected.type === 'h') { return selected.i === i; }
    return selected.type === 'o' && D.overlaps[selected.i].holds.indexOf(i) >= 0;
  }

  var pending = false;
  function redraw() {
    if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; render(); }); }
  }

  function setView(from, to) {
    var span = Math.min(Math.max(to - from, MIN_SPAN), Math.max(D.end, 1));
    from = Math.max(0, Math.min(from, Math.max(D.end, 1) - span));
    view = { from: from, to: from + span };
    redraw();
  }
  function zoom(factor, atMs) {
    var at = atMs === undefined ? (view.from + view.to) / 2 : atMs;
    setView(at - (at - view.from) * factor, at + (view.to - at) * factor);
  }
  function showAround(s, e) {
    var pad = Math.max((e - s) * 0.25, 2);
    setView(s - pad, e + pad);
  }
  function timeAt(clientX) {
    var rect = box.getBoundingClientRect();
    return view.from + (clientX - rect.left - LEFT) * (view.to - view.from) / (width - LEFT - RIGHT);
  }

  function select(sel, zoomTo) {
    selected = sel;
    document.querySelectorAll('li.selected').forEach(function (li) { li.classList.remove('selected'); });
    if (!sel) {
      panel.textContent = 'Nothing selected: click a hold, a fault or an overlap entry.';
      redraw();
      return;
    }
    var entry = null;
    if (sel.type === 'o') {
      var o = D.overlaps[sel.i];
      var holds = o.holds.filter(function (h) { return h >= 0; });
      panel.textContent = 'Overlap ' + (sel.i + 1) + ' of ' + D.overlaps.length + ': ' + D.groups[o.g] + '\n'
        + holds.map(function (h) { return describeHold(h).split('\n').slice(0, 2).join(', '); }).join('\n');
      entry = document.getElementById('o' + sel.i);
      if (zoomTo) {
        showAround(Math.min.apply(null, holds.map(function (h) { return D.holds[h].s; })),
          Math.max.apply(null, holds.map(function (h) { return D.holds[h].e; })));
      }
    } else if (sel.type === 'h') {
      panel.textContent = describeHold(sel.i);
      if (holdOverlaps[sel.i].length) { entry = document.getElementById('o' + holdOverlaps[sel.i][0]); }
      if (zoomTo) { showAround(D.holds[sel.i].s, D.holds[sel.i].e); }
    } else {
      panel.textContent = describeFault(sel.i);
      if (zoomTo) { showAround(D.faults[sel.i].s, D.faults[sel.i].e); }
    }
    if (entry) {
      entry.classList.add('selected');
      var details = entry.closest('details');
      if (details) { details.open = true; }
    }
    redraw();
    return entry;
  }

  function fromFragment() {
    var hash = decodeURIComponent(location.hash.replace(/^#/, ''));
    var m = /^select=([ohf])(\d+)$/.exec(hash);
    var limits = { o: D.overlaps.length, h: D.holds.length, f: D.faults.length };
    if (m && +m[2] < limits[m[1]]) {
      select({ type: m[1], i: +m[2] }, true);
      return;
    }
    m = /^t=([\d.]+)-([\d.]+)$/.exec(hash);
    if (m) { setView(+m[1], +m[2]); }
  }

  box.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, timeAt(ev.clientX));
  }, { passive: false });
  var drag = null;
  box.addEventListener('pointerdown', function (ev) {
    drag = { x: ev.clientX, from: view.from, to: view.to, moved: false };
    box.setPointerCapture(ev.pointerId);
  });
  box.addEventListener('pointermove', function (ev) {
    if (drag) {
      var dx = ev.clientX - drag.x;
      if (Math.abs(dx) > 3) { drag.moved = true; box.classList.add('dragging'); tip.hidden = true; }
      if (drag.moved) {
        var shift = dx * (drag.to - drag.from) / (width - LEFT - RIGHT);
        setView(drag.from - shift, drag.to - shift);
      }
      return;
    }
    var target = ev.target;
    var text = target.dataset.h !== undefined ? describeHold(+target.dataset.h)
      : target.dataset.f !== undefined ? describeFault(+target.dataset.f)
      : target.dataset.m !== undefined ? describeMark(+target.dataset.m) : null;
    if (!text) { tip.hidden = true; return; }
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8) + 'px';
    tip.style.top = (ev.clientY + 16) + 'px';
  });
  box.addEventListener('pointerleave', function () { tip.hidden = true; });
  box.addEventListener('pointerup', function (ev) {
    var wasDrag = drag && drag.moved;
    drag = null;
    box.classList.remove('dragging');
    if (wasDrag) { return; }
    var target = document.elementFromPoint(ev.clientX, ev.clientY) || ev.target;
    var entry = null;
    if (target.dataset && target.dataset.h !== undefined) {
      var h = +target.dataset.h;
      entry = select(holdOverlaps[h].length ? { type: 'o', i: holdOverlaps[h][0] } : { type: 'h', i: h }, false);
    } else if (target.dataset && target.dataset.f !== undefined) {
      select({ type: 'f', i: +target.dataset.f }, false);
    } else {
      select(null);
    }
    if (entry) { entry.scrollIntoView({ block: 'nearest' }); }
  });
  box.addEventListener('dblclick', function (ev) { zoom(0.5, timeAt(ev.clientX)); });

  function step(direction) {
    if (!D.overlaps.length) { return; }
    var current = selected && selected.type === 'o' ? selected.i : direction > 0 ? -1 : D.overlaps.length;
    var next = (current + direction + D.overlaps.length) % D.overlaps.length;
    history.replaceState(null, '', '#select=o' + next);
    select({ type: 'o', i: next }, true);
  }
  document.querySelectorAll('[data-zoom]').forEach(function (button) {
    button.addEventListener('click', function () {
      var how = button.dataset.zoom;
      if (how === 'fit') { setView(0, D.end); } else { zoom(how === 'in' ? 0.5 : 2); }
    });
  });
  document.querySelectorAll('[data-step]').forEach(function (button) {
    button.addEventListener('click', function () { step(+button.dataset.step); });
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.target !== document.body) { return; }
    if (ev.key === '+' || ev.key === '=') { zoom(0.5); }
    else if (ev.key === '-') { zoom(2); }
    else if (ev.key === '0') { setView(0, D.end); }
    else if (ev.key === 'ArrowLeft') { setView(view.from - (view.to - view.from) / 4, view.to - (view.to - view.from) / 4); }
    else if (ev.key === 'ArrowRight') { setView(view.from + (view.to - view.from) / 4, view.to + (view.to - view.from) / 4); }
  });
  document.querySelectorAll('a[href^="#select="]').forEach(function (link) {
    link.addEventListener('click', function (ev) {
      ev.preventDefault();
      history.replaceState(null, '', link.getAttribute('href'));
      fromFragment();
      box.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    });
  });
  window.addEventListener('hashchange', fromFragment);
  window.addEventListener('resize', redraw);
  fromFragment();
  render();
  if (selected) { box.scrollIntoView({ block: 'start' }); }
}());
