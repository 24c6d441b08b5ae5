// twoends: the row, who took what, both sums; the editor of a copy; the
// two ends to take, in play.
import {el} from '../dom.js';

// encodeMoves writes moves as a plan: one string of L and R.
export function encodeMoves(moves) {
  return moves.join('');
}

// draw draws state st (nothing to mark: an explanation of twoends names
// no values).
export function draw(st, states) {
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

// describe says what the move that led to st did (st.cleared is set).
export function describe(st) {
  const c = st.cleared;
  return `Move ${st.step}: ${c.by} takes ${c.value} from the ${c.side === 'L' ? 'left' : 'right'}.`;
}

// editor edits a copy of a level: the row of values.
export function editor(level, onEdit) {
  let lv = level;
  const values = el('input', {type: 'text', id: 'edit-values', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'values, left to right'});
  const preview = el('div', {class: 'row'});
  const render = () => {
    values.value = (lv.values || []).join(', ');
    preview.replaceChildren(...(lv.values || []).map((v) => el('span', {class: 'num-cell'}, String(v))));
  };
  values.addEventListener('input', () => {
    // Numbers as numbers; anything else as typed, for the server to name.
    const vs = values.value.split(/[\s,]+/).filter(Boolean).map((s) => (/^-?\d+$/.test(s) ? Number(s) : s));
    lv = {kind: 'twoends', values: vs};
    preview.replaceChildren(...vs.map((v) => el('span', {class: 'num-cell'}, String(v))));
    onEdit(structuredClone(lv));
  });
  render();
  return {
    element: el('div', {class: 'twoends-editor'}, el('label', {}, 'Values ', values), preview),
    set(level) {
      lv = structuredClone(level);
      render();
    },
    mark() {},
  };
}

// playControls offers the ends the server lists as legal.
export function playControls(a, legal, board, move) {
  const v = a.state.view;
  return ['L', 'R'].filter((s) => legal.has(JSON.stringify(s))).map((s) => el('button', {type: 'button', class: 'take', dataset: {move: s},
    onclick: () => move(s)}, (s === 'L' ? 'Take left: ' + v.values[v.left] : 'Take right: ' + v.values[v.right])));
}
