// sheep: the field with covered tiles shaded and piles counted, and the
// 7-slot tray.
import {el} from '../dom.js';
import {color} from '../paint.js';

// letterOf names a sheep tile type with a letter (type 1 = A, …, 27 = A again
// with a number).
function letterOf(type) {
  const i = ((type - 1) % 26 + 26) % 26;
  const round = Math.floor((type - 1) / 26);
  return String.fromCharCode(65 + i) + (round > 0 ? round : '');
}

// draw draws the field from the tiles left, scaled to the first state's
// extent so that the field does not move; a pile of tiles at one spot
// shows its height.
export function draw(st, states) {
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
    for (const t of [...tiles].sort((a, b) => a.layer - b.layer)) {
      const k = t.x + ',' + t.y;
      const n = pile.get(k);
      field.append(tile(t, {
        style: `left:${t.x * unit}px;top:${t.y * unit}px;width:${v.tile_size * unit - 2}px;height:${v.tile_size * unit - 2}px;z-index:${t.layer}`,
        badge: top.get(k) === t && n > 1 ? '×' + n : null,
      }));
    }
  } else {
    field.classList.add('layers');
    const byDepth = new Map();
    for (const t of tiles) byDepth.set(t.layer, [...(byDepth.get(t.layer) || []), t]);
    for (const d of [...byDepth.keys()].sort((a, b) => a - b)) {
      field.append(el('div', {class: 'layer-row'}, el('span', {class: 'label'}, 'depth ' + d), byDepth.get(d).map((t) => tile(t, {}))));
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
  }, letter, badge ? el('small', {class: 'badge'}, badge) : null);
}

// describe says what the move that led to st did (st.cleared is set).
export function describe(st) {
  const c = st.cleared;
  return `Move ${st.step}: tile ${c.clicked}` + (c.vanished ? ` — three of a kind vanish (${c.vanished.join(', ')}).` : ' goes to the tray.');
}
