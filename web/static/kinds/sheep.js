// sheep: the field with covered tiles shaded and piles counted, and the
// 7-slot tray; the editor of a copy (drag tiles or move them with the
// keys); the playable tiles of POST /v1/play's answer.
import {el} from '../dom.js';
import {color} from '../paint.js';

// countName: an explanation's counts are per tile type.
export const countName = 'type';

// unit is the pixels of one level unit on the field (a tile is 8 units).
const unit = 5;

// letterOf names a sheep tile type with a letter (type 1 = A, …, 27 = A again
// with a number).
function letterOf(type) {
  const i = ((type - 1) % 26 + 26) % 26;
  const round = Math.floor((type - 1) / 26);
  return String.fromCharCode(65 + i) + (round > 0 ? round : '');
}

// draw draws the field from the tiles left, scaled to the first state's
// extent so that the field does not move; a pile of tiles at one spot
// shows its height. marks are tile ids to highlight.
export function draw(st, states, marks = new Set()) {
  const v = st.view;
  const all = states[0].view.tiles || [];
  const tiles = v.tiles || [];
  const field = el('div', {class: 'field'});
  const last = st.cleared ? st.cleared.clicked : null;
  if (v.geometry) {
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

// describe says what the move that led to st did (st.cleared is set).
export function describe(st) {
  const c = st.cleared;
  return `Move ${st.step}: tile ${c.clicked}` + (c.vanished ? ` — three of a kind vanish (${c.vanished.join(', ')}).` : ' goes to the tray.');
}

// grid is the step of a drag or an arrow key: half a tile, as the game's
// levels are laid out; Shift + arrow moves by one unit.
const grid = 4;

// editor edits a copy of a level: drag tiles on the field (or move the
// selected one with the arrow keys), change a tile's type or layer, add
// and remove tiles, change the tray's slots. It draws tiles where the
// level puts them and their layer; what covers what, and whether two
// tiles overlap on one layer, is the server's to say (POST
// /v1/levels/validate).
export function editor(level, onEdit) {
  let lv = level;
  let selected = null;
  let marks = new Set();
  let errorTile = -1;
  const field = el('div', {class: 'field edit-field', id: 'edit-field', role: 'group', 'aria-label': 'tiles: select one, drag it or use the arrow keys'});
  const slots = el('input', {type: 'number', id: 'edit-slots', min: 1, max: 32, 'aria-label': 'tray slots'});
  const panel = el('div', {class: 'tile-panel', id: 'tile-panel'});
  const geometry = () => !lv.tiles.some((t) => Array.isArray(t.covers));
  const size = () => lv.tile_size || 8;
  const edit = (what) => {
    render();
    onEdit(structuredClone(lv), what);
  };
  const byID = (id) => lv.tiles.find((t) => t.id === id);

  slots.addEventListener('change', () => {
    lv.slots = Number(slots.value);
    edit('slots');
  });
  const addTile = () => {
    let n = lv.tiles.length + 1;
    while (byID('t' + n)) n++;
    const base = selected ? byID(selected) : null;
    const t = {id: 't' + n, type: base ? base.type : 1};
    if (geometry()) {
      const top = Math.max(0, ...lv.tiles.map((x) => x.layer || 0));
      Object.assign(t, {x: base ? base.x + size() : 0, y: base ? base.y : 0, layer: base ? base.layer : top + 1});
    } else {
      t.covers = [];
    }
    lv.tiles.push(t);
    selected = t.id;
    edit('add');
    focusSelected();
  };
  const remove = (id) => {
    lv.tiles = lv.tiles.filter((t) => t.id !== id);
    for (const t of lv.tiles) if (Array.isArray(t.covers)) t.covers = t.covers.filter((c) => c !== id);
    selected = null;
    edit('remove');
  };
  const change = (id, patch) => {
    Object.assign(byID(id), patch);
    edit('change');
    focusSelected();
  };
  const focusSelected = () => {
    const e = field.querySelector(`[data-id="${CSS.escape(selected || '')}"]`);
    if (e) e.focus();
  };

  const tileEl = (t, i) => {
    const cls = 'tile edit-tile' + (t.id === selected ? ' selected' : '') + (marks.has(t.id) ? ' marked' : '') + (i === errorTile ? ' invalid' : '');
    const style = geometry() ?
      `left:${t.x * unit}px;top:${t.y * unit}px;width:${size() * unit - 2}px;height:${size() * unit - 2}px;z-index:${(t.layer || 0) + 1};background:${color(t.type - 1)}` :
      `background:${color(t.type - 1)}`;
    const e = el('span', {class: cls, style, tabindex: 0, role: 'button', dataset: {id: t.id, layer: t.layer ?? ''},
      'aria-label': `tile ${t.id}, type ${t.type}` + (geometry() ? `, layer ${t.layer}, at ${t.x}, ${t.y}` : ''),
      title: `${t.id}: type ${t.type} (${letterOf(t.type)})` + (geometry() ? `, layer ${t.layer}` : '')},
    letterOf(t.type), geometry() ? el('small', {class: 'badge'}, 'L' + t.layer) : null);
    e.addEventListener('focus', () => {
      if (selected !== t.id) {
        selected = t.id;
        renderPanel();
        for (const o of field.querySelectorAll('.selected')) o.classList.remove('selected');
        e.classList.add('selected');
      }
    });
    e.addEventListener('keydown', (ev) => keys(ev, t));
    if (geometry()) drag(e, t);
    return e;
  };
  const keys = (ev, t) => {
    const step = ev.shiftKey ? 1 : grid;
    const moves = {ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step]};
    if (moves[ev.key] && geometry()) {
      ev.preventDefault();
      const [dx, dy] = moves[ev.key];
      change(t.id, {x: Math.max(0, t.x + dx), y: Math.max(0, t.y + dy)});
    } else if ((ev.key === 'PageUp' || ev.key === 'PageDown') && geometry()) {
      ev.preventDefault();
      change(t.id, {layer: Math.max(0, t.layer + (ev.key === 'PageUp' ? 1 : -1))});
    } else if (ev.key === '+' || ev.key === '-') {
      ev.preventDefault();
      change(t.id, {type: Math.max(1, t.type + (ev.key === '+' ? 1 : -1))});
    } else if (ev.key === 'Delete' || ev.key === 'Backspace') {
      ev.preventDefault();
      remove(t.id);
    }
  };
  const drag = (e, t) => {
    let start = null;
    e.addEventListener('pointerdown', (ev) => {
      start = {x: ev.clientX, y: ev.clientY, tx: t.x, ty: t.y};
      e.setPointerCapture(ev.pointerId);
    });
    e.addEventListener('pointermove', (ev) => {
      if (!start) return;
      const nx = Math.max(0, start.tx + Math.round((ev.clientX - start.x) / unit / grid) * grid);
      const ny = Math.max(0, start.ty + Math.round((ev.clientY - start.y) / unit / grid) * grid);
      e.style.left = nx * unit + 'px';
      e.style.top = ny * unit + 'px';
      e.dataset.to = nx + ',' + ny;
    });
    e.addEventListener('pointerup', () => {
      const to = e.dataset.to;
      start = null;
      if (!to) return;
      const [nx, ny] = to.split(',').map(Number);
      if (nx !== t.x || ny !== t.y) change(t.id, {x: nx, y: ny});
    });
  };

  const renderPanel = () => {
    const t = selected && byID(selected);
    if (!t) {
      panel.replaceChildren(el('p', {class: 'muted'}, 'Select a tile (click or Tab) to change it. Keys: arrows move, PageUp/PageDown change the layer, + and − the type, Delete removes.'));
      return;
    }
    const num = (name, label, min) => {
      const i = el('input', {type: 'number', id: 'edit-tile-' + name, min, value: t[name], 'aria-label': label});
      i.addEventListener('change', () => change(t.id, {[name]: Number(i.value)}));
      return el('label', {}, label + ' ', i);
    };
    panel.replaceChildren(el('p', {}, 'Tile ', el('strong', {}, t.id)),
      num('type', 'type', 0),
      ...(geometry() ? [num('layer', 'layer', 0), num('x', 'x', 0), num('y', 'y', 0)] : []),
      el('button', {type: 'button', id: 'edit-remove', onclick: () => remove(t.id)}, 'Remove tile'));
  };
  const render = () => {
    const hadFocus = field.contains(document.activeElement);
    slots.value = lv.slots || 7;
    errorTile = errorTile >= lv.tiles.length ? -1 : errorTile;
    if (geometry()) {
      field.classList.remove('layers');
      const maxX = Math.max(0, ...lv.tiles.map((t) => t.x)) + size() + 2 * grid;
      const maxY = Math.max(0, ...lv.tiles.map((t) => t.y)) + size() + 2 * grid;
      field.style.width = maxX * unit + 'px';
      field.style.height = maxY * unit + 'px';
      field.replaceChildren(...lv.tiles.map(tileEl));
    } else {
      field.classList.add('layers');
      field.style.width = '';
      field.style.height = '';
      field.replaceChildren(el('p', {class: 'muted'}, 'Tiles with explicit covers: change types here, covers in the JSON below.'),
        el('div', {class: 'layer-row'}, lv.tiles.map(tileEl)));
    }
    renderPanel();
    if (hadFocus) focusSelected();
  };
  render();
  return {
    element: el('div', {class: 'sheep-editor'},
      el('div', {class: 'controls'}, el('label', {}, 'Tray slots ', slots),
        el('button', {type: 'button', id: 'edit-add', onclick: addTile}, 'Add a tile')),
      el('div', {class: 'scroll-x'}, field), panel),
    set(level) {
      lv = structuredClone(level);
      if (!Array.isArray(lv.tiles)) lv.tiles = [];
      render();
    },
    // mark highlights tiles named by warnings, and the tile a parse error
    // names (field "tiles[3].type" is the fourth tile as edited).
    mark(ids, errField) {
      marks = new Set(ids);
      const m = /^tiles\[(\d+)\]/.exec(errField || '');
      errorTile = m ? Number(m[1]) : -1;
      render();
    },
  };
}

// playControls makes the legal moves clickable: the tiles on the board
// whose click the server lists.
export function playControls(a, legal, board, move) {
  for (const t of board.querySelectorAll('.field .tile[data-id]')) {
    const m = legal.get(JSON.stringify(t.dataset.id));
    if (m === undefined) continue;
    t.classList.add('playable');
    t.setAttribute('role', 'button');
    t.setAttribute('tabindex', '0');
    t.setAttribute('aria-label', 'click tile ' + t.dataset.id);
    t.addEventListener('click', () => move(m));
    t.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        move(m);
      }
    });
  }
  return [];
}

// fieldChanges words a change of the tiles tile by tile, by id.
export const fieldChanges = {
  tiles(a, b) {
    const out = [];
    const before = new Map((Array.isArray(a) ? a : []).map((t) => [t.id, t]));
    const after = new Map((Array.isArray(b) ? b : []).map((t) => [t.id, t]));
    for (const [id, t] of after) {
      const o = before.get(id);
      if (!o) {
        out.push(`tile ${id} added`);
        continue;
      }
      for (const k of ['type', 'layer']) if (o[k] !== t[k]) out.push(`tile ${id}: ${k} ${o[k]} → ${t[k]}`);
      if (o.x !== t.x || o.y !== t.y) out.push(`tile ${id} moved from (${o.x}, ${o.y}) to (${t.x}, ${t.y})`);
      if (JSON.stringify(o.covers) !== JSON.stringify(t.covers)) out.push(`tile ${id}: covers changed`);
    }
    for (const id of before.keys()) if (!after.has(id)) out.push(`tile ${id} removed`);
    return out;
  },
};
