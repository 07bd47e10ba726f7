// Checks the replay tests (tests/test_html_replay_ux.py) run inside a replay page: each a function
// of no argument that returns plain data; the test evaluates `(this file).name()`.
({
  // What the page marks as the move just made, at every frame.
  marks: () => {
    const out = [];
    for (let i = 0; i < golfrefReplay.frames; i++) {
      golfrefReplay.show(i);
      out.push({
        stock: !!document.querySelector('#stock .card[data-last]'),
        discard: !!document.querySelector('#discard .card[data-last]'),
        slots: [...document.querySelectorAll('#seats .card[data-last]')].map(c => [Number(c.closest('.seat').dataset.seat), Number(c.dataset.slot)]),
        labelled: [...document.querySelectorAll('.card[data-last]')].every(c => /just (moved|drawn from|discarded)/.test(c.getAttribute('aria-label'))),
      });
    }
    return out;
  },

  // Boxes that must not move while stepping: the controls, the moment's box, the piles, every
  // seat, its heading (on one line), its cards and its numbers line (one box whose badge of the seat to move
  // never wraps: one line box), the side panel and the charts. Returns where something moved.
  stable: () => {
    const sel = '.controls, .controls > *, #now, #piles, #piles > .pile, #seats .seat, #seats .seat h3, ' +
      '#seats .card, #seats .numbers, #side, #moves, #chart, #totals-chart';
    const boxes = () => [...document.querySelectorAll(sel)].map(n => {
      const r = n.getBoundingClientRect();
      return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
    });
    const lines = () => [...document.querySelectorAll('#seats .seat h3')].every(h => {
      const tops = [...h.children].filter(c => getComputedStyle(c).display !== 'none').map(c => c.getBoundingClientRect().top);
      return Math.max(...tops) - Math.min(...tops) < 4;
    });
    golfrefReplay.show(0);
    const first = boxes();
    const moved = [];
    for (let i = 1; i < golfrefReplay.frames; i++) {
      golfrefReplay.show(i);
      const now = boxes();
      if (now.length !== first.length) { moved.push([i, 'count', first.length, now.length]); continue; }
      const k = now.findIndex((b, j) => b.join() !== first[j].join());
      if (k >= 0) moved.push([i, first[k], now[k]]);
      if (!lines()) moved.push([i, 'a seat heading wraps']);
      if ([...document.querySelectorAll('#seats .badge.turn')].some(b => b.getClientRects().length !== 1)) moved.push([i, 'the turn badge wraps']);
      if (window.scrollY !== 0) moved.push([i, 'scrolled', window.scrollY]);
    }
    return moved;
  },

  // Every text on the page against what is behind it: the colour of each element that holds
  // text (and of the ::before and ::after marks), over the first opaque background up its
  // ancestors, with the ancestors' opacity; WCAG 2's contrast ratio.
  contrast: () => {
    const rgba = c => { const m = c.match(/rgba?\(([^)]*)\)/); if (!m) return null;
      const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
    const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
    const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
    const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
    function behind(node, own) {
      const layers = own ? [own] : [];
      for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
        const cs = getComputedStyle(n);
        if (cs.backgroundImage !== 'none') return null;  // a card's back: it holds no text
        const c = rgba(cs.backgroundColor);
        if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
      }
      let colour = [255, 255, 255, 1];
      for (const l of layers.reverse()) colour = over(l, colour);
      return colour;
    }
    function alpha(node) { let a = 1; for (let n = node; n && n.nodeType === 1; n = n.parentElement) a *= Number(getComputedStyle(n).opacity); return a; }
    const out = [];
    const check = (node, text, fgCss, own, where) => {
      const bg = behind(node, own);
      if (!bg) return;
      const fg = rgba(fgCss);
      fg[3] *= alpha(node);
      out.push({ where: where, text: text.slice(0, 40), fg: fgCss, bg: bg.map(Math.round).join(','), ratio: ratio(over(fg, bg), bg) });
    };
    for (const node of document.querySelectorAll('body *')) {
      if (!node.getClientRects().length) continue;
      const cs = getComputedStyle(node);
      if (cs.visibility !== 'visible' || node.closest('[hidden], .print-only, option')) continue;
      const name = node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') + (node.className && node.className.baseVal === undefined ? '.' + String(node.className).split(' ').join('.') : '');
      const text = [...node.childNodes].filter(c => c.nodeType === 3).map(c => c.textContent).join('').trim()
        || (node.tagName === 'SELECT' ? node.value : '');
      if (text) check(node, text, node instanceof SVGElement ? cs.fill : cs.color, null, name);
      for (const pseudo of ['::before', '::after']) {
        const ps = getComputedStyle(node, pseudo);
        if (ps.content && ps.content !== 'none' && ps.content !== 'normal' && ps.content !== '""' && ps.display !== 'none') {
          const own = rgba(ps.backgroundColor);
          check(node, ps.content, ps.color, own && own[3] > 0 ? own : null, name + pseudo);
        }
      }
    }
    return out;
  },
})
