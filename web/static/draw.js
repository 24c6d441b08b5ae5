// Drawing one state of each kind, from the structured view the simulator
// produced. Balls, jewels and tiles carry a letter as well as a color.
import {el} from './dom.js';

// named colors: the letters designers use for them get them.
const named = {R: '#e5484d', G: '#46a758', B: '#3e8ef7', Y: '#f5d90a', W: '#f4f4f0', P: '#8e4ec6',
  O: '#f76b15', C: '#12a5b8', M: '#d6409f', K: '#4a4a4a', N: '#a07553', S: '#9ba1a6'};

// palette is for tile types and letters without a named color: 16 hues
// far apart, in an order where neighbours differ.
const palette = ['#e5484d', '#3e8ef7', '#f5d90a', '#46a758', '#8e4ec6', '#f76b15', '#12a5b8', '#d6409f',
  '#a07553', '#9ba1a6', '#7ce2fe', '#ffb8c6', '#b5e61d', '#c4a5ff', '#ffd8a8', '#2f6f4f'];

// color gives a letter A–Z, or a sheep tile type (a number), its color.
export function color(key) {
  if (typeof key === 'number') return palette[((key % palette.length) + palette.length) % palette.length];
  return named[key] || palette[(key.charCodeAt(0) - 65) % palette.length];
}

// letterOf names a sheep tile type with a letter (type 1 = A, …, 27 = A again
// with a number).
function letterOf(type) {
  const i = ((type - 1) % 26 + 26) % 26;
  const round = Math.floor((type - 1) / 26);
  return String.fromCharCode(65 + i) + (round > 0 ? round : '');
}

// ball is one ball of color c.
export function ball(c, extra = {}) {
  return el('span', {class: 'ball ' + (extra.class || ''), style: `background:${color(c)}`, title: extra.title || c}, c);
}

// drawState draws state st; states are the states before it (some
// drawings show what a move changed). marks names what to highlight: sheep
// tile ids, or ball and jewel colors.
export {letterOf};

export function drawState(kind, st, states, marks = []) {
  const m = new Set(marks);
  switch (kind) {
    case 'zuma': return zuma(st, m);
    case 'sheep': return sheep(st, states, m);
    case 'columns': return columns(st, states, m);
    case 'twoends': return twoends(st, states);
  }
  return el('pre', {}, st.text);
}

export function describeMove(kind, st) {
  const c = st.cleared;
  if (!c) return 'The level as given.';
  switch (kind) {
    case 'zuma': {
      const mv = st.move;
      const n = c.to - c.from;
      return `Move ${st.step}: ${mv.ball} at ${mv.at}` + (n ? ` — ${n} balls vanish.` : ' — nothing vanishes.');
    }
    case 'sheep':
      return `Move ${st.step}: tile ${c.clicked}` + (c.vanished ? ` — three of a kind vanish (${c.vanished.join(', ')}).` : ' goes to the tray.');
    case 'columns':
      return `Move ${st.step}: piece ${c.piece} (top to bottom) into column ${c.col}` +
        (c.jewels ? ` — ${c.jewels} jewels cleared, +${c.points} points.` : ' — nothing cleared.');
    case 'twoends':
      return `Move ${st.step}: ${c.by} takes ${c.value} from the ${c.side === 'L' ? 'left' : 'right'}.`;
  }
  return '';
}

function zuma(st, marks) {
  const v = st.view;
  const parts = [];
  const mark = (c) => ball(c, {class: marks.has(c) ? 'marked' : ''});
  parts.push(el('div', {class: 'label'}, 'chain'),
    el('div', {class: 'chain'}, v.board ? [...v.board].map(mark) : el('span', {class: 'muted'}, 'empty — cleared!')));
  if (v.mode === 'hand') parts.push(el('div', {class: 'label'}, 'hand'), el('div', {class: 'chain hand'}, [...(v.hand || '')].map(mark)));
  if (v.mode === 'ammo') parts.push(el('div', {class: 'label'}, 'ammo (next first)'), el('div', {class: 'chain hand'}, [...(v.ammo || '')].map((c) => ball(c))));
  if (v.mode === 'unlimited') parts.push(el('div', {class: 'label'}, 'hand'), el('div', {class: 'muted'}, 'any color, any number'));
  const c = st.cleared;
  if (c) {
    parts.push(el('div', {class: 'label'}, 'last move'),
      el('div', {class: 'chain lastmove'}, [...c.inserted].map((b, i) => ball(b, {
        class: (i === c.at ? 'inserted ' : '') + (i >= c.from && i < c.to ? 'cleared' : ''),
        title: b + (i === c.at ? ' (shot)' : '') + (i >= c.from && i < c.to ? ' (vanishes)' : ''),
      }))));
  }
  return el('div', {class: 'zuma'}, parts);
}

// sheep draws the field from the tiles left, scaled to the first state's
// extent so that the field does not move; a pile of tiles at one spot
// shows its height.
function sheep(st, states, marks) {
  const v = st.view;
  const all = states[0].view.tiles || [];
  const tiles = v.tiles || [];
  const field = el('div', {class: 'field'});
  const last = st.cleared ? st.cleared.clicked : null;
  if (v.geometry) {
    const unit = 5;
    const maxX = Math.max(0, ...all.map((t) => t.x)) + v.tile_size;
    const maxY = Math.max(0, ...all.map((t) => t.y)) + v.tile_size;
    field.style.width = maxX * unit + 'px';
    field.style.height = maxY * unit + 'px';
    const pile = new Map();
    for (const t of tiles) pile.set(t.x + ',' + t.y, (pile.get(t.x + ',' + t.y) || 0) + 1);
    const top = new Map();
    for (const t of tiles) {
      const k = t.x + ',' + t.y;
      if (!top.has(k) || top.get(k).layer < t.layer) top.set(k, t);
    }
    const place = (t) => `left:${t.x * unit}px;top:${t.y * unit}px;width:${v.tile_size * unit - 2}px;height:${v.tile_size * unit - 2}px;z-index:${t.layer}`;
    for (const t of [...tiles].sort((a, b) => a.layer - b.layer)) {
      const k = t.x + ',' + t.y;
      const n = pile.get(k);
      field.append(tile(t, {
        style: place(t),
        badge: top.get(k) === t && n > 1 ? '×' + n : null,
        class: marks.has(t.id) ? 'marked' : '',
      }));
    }
    // Where the tile just clicked was: an outline, so the eye finds it on
    // the field as well as in the tray.
    const gone = last !== null && all.find((t) => t.id === last);
    if (gone) {
      field.append(el('span', {class: 'ghost', style: place({...gone, layer: 10001}), title: gone.id + ': clicked by this move',
        'aria-label': 'tile ' + gone.id + ' was clicked here'}));
    }
  } else {
    field.classList.add('layers');
    const byDepth = new Map();
    for (const t of tiles) byDepth.set(t.layer, [...(byDepth.get(t.layer) || []), t]);
    for (const d of [...byDepth.keys()].sort((a, b) => a - b)) {
      field.append(el('div', {class: 'layer-row'}, el('span', {class: 'label'}, 'depth ' + d),
        byDepth.get(d).map((t) => tile(t, {class: marks.has(t.id) ? 'marked' : ''}))));
    }
  }
  const tray = el('div', {class: 'tray', 'aria-label': 'tray'});
  for (let i = 0; i < v.slots; i++) {
    const t = (v.tray || [])[i];
    tray.append(t ? tile({...t, covered: false}, {class: t.id === last ? 'last' : ''}) : el('span', {class: 'slot'}));
  }
  const side = [el('div', {class: 'label'}, `tray — ${v.slots} slots`), tray];
  if (st.cleared && st.cleared.vanished) {
    const vanished = st.cleared.vanished.map((id) => all.find((t) => t.id === id)).filter(Boolean);
    side.push(el('div', {class: 'label'}, 'cleared by this move'),
      el('div', {class: 'tray'}, vanished.map((t) => tile({...t, covered: false}, {class: 'cleared'}))));
  }
  if (v.won) side.push(el('p', {class: 'verdict-solved'}, 'Every tile is gone: won.'));
  if (v.lost) side.push(el('p', {class: 'verdict-unsolvable'}, 'The tray is full: lost.'));
  return el('div', {class: 'sheep'},
    el('div', {}, el('div', {class: 'label'}, `field — ${tiles.length} tiles left, covered ones shaded, piles counted`), field),
    el('div', {}, side));
}

function tile(t, {style = '', badge = null, class: cls = ''}) {
  const letter = letterOf(t.type);
  return el('span', {
    class: 'tile ' + (t.covered ? 'covered ' : '') + cls,
    style: `background:${color(t.type - 1)};${style}`,
    title: `${t.id}: type ${t.type} (${letter})${t.covered ? ', covered' : ''}`,
    dataset: {id: t.id},
  }, letter, badge ? el('small', {class: 'badge'}, badge) : null);
}

function columns(st, states, marks) {
  const v = st.view;
  const prev = st.step > 0 ? states[st.step - 1].view.board : null;
  const grid = el('div', {class: 'well', style: `grid-template-columns:repeat(${v.width}, 1.6em)`});
  v.board.forEach((row, r) => [...row].forEach((c, col) => {
    const changed = prev && prev[r][col] !== c;
    const target = st.step === 0 && v.target && v.target[0] === r && v.target[1] === col;
    grid.append(c === '.' ?
      el('span', {class: 'cell empty' + (changed ? ' changed' : '')}) :
      el('span', {class: 'cell jewel' + (changed ? ' changed' : '') + (target ? ' target' : '') + (marks.has(c) ? ' marked' : ''),
        style: `background:${color(c)}`, title: c + (target ? ' (target)' : '')}, c));
  }));
  const next = el('div', {class: 'next'}, (v.next || []).slice(0, 6).map((p, i) =>
    el('div', {class: 'piece' + (i === 0 ? ' first' : '')}, [...p].map((c) => el('span', {class: 'cell jewel', style: `background:${color(c)}`}, c)))));
  return el('div', {class: 'columns-view'},
    el('div', {}, el('div', {class: 'label'}, `well ${v.width}×${v.height}, rule ${v.rule}`), grid),
    el('div', {}, el('div', {class: 'label'}, `next pieces (${(v.next || []).length} left)`), next,
      el('p', {}, `score ${v.score}`), el('p', {}, `goal ${v.goal}: ${v.goal_met ? 'met' : 'open'}`)));
}

function twoends(st, states) {
  const v = st.view;
  const owner = new Map();
  for (let k = 1; k <= st.step; k++) owner.set(states[k].cleared.index, states[k].cleared.by);
  const row = el('div', {class: 'row'}, v.values.map((x, i) => {
    const by = owner.get(i);
    const lastTaken = st.cleared && st.cleared.index === i;
    return el('span', {class: 'num-cell' + (by ? ' taken by-' + by : '') + (lastTaken ? ' cleared' : ''),
      title: by ? `taken by ${by}` : 'left'}, String(x), by ? el('small', {}, by === 'first' ? '1' : '2') : null);
  }));
  return el('div', {class: 'twoends'},
    el('div', {class: 'label'}, 'row (taken values marked 1 or 2)'), row,
    el('p', {class: 'sums'}, el('span', {class: 'by-first'}, `first: ${v.first}`), ' ',
      el('span', {class: 'by-second'}, `second: ${v.second}`), ' ',
      `— ${v.turn ? v.turn + ' to move' : 'game over'}`));
}
