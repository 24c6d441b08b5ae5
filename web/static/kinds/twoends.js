// twoends: the row, who took what, both sums.
import {el} from '../dom.js';

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
