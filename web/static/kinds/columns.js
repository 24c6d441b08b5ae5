// columns: the well with the cells the move changed outlined, and the
// next pieces.
import {el} from '../dom.js';
import {color} from '../paint.js';

export function draw(st, states) {
  const v = st.view;
  const prev = st.step > 0 ? states[st.step - 1].view.board : null;
  const grid = el('div', {class: 'well', style: `grid-template-columns:repeat(${v.width}, 1.6em)`});
  v.board.forEach((row, r) => [...row].forEach((c, col) => {
    const changed = prev && prev[r][col] !== c;
    const target = st.step === 0 && v.target && v.target[0] === r && v.target[1] === col;
    grid.append(c === '.' ?
      el('span', {class: 'cell empty' + (changed ? ' changed' : '')}) :
      el('span', {class: 'cell jewel' + (changed ? ' changed' : '') + (target ? ' target' : ''), style: `background:${color(c)}`, title: c + (target ? ' (target)' : '')}, c));
  }));
  const next = el('div', {class: 'next'}, (v.next || []).slice(0, 6).map((p, i) =>
    el('div', {class: 'piece' + (i === 0 ? ' first' : '')}, [...p].map((c) => el('span', {class: 'cell jewel', style: `background:${color(c)}`}, c)))));
  return el('div', {class: 'columns-view'},
    el('div', {}, el('div', {class: 'label'}, `well ${v.width}×${v.height}, rule ${v.rule}`), grid),
    el('div', {}, el('div', {class: 'label'}, `next pieces (${(v.next || []).length} left)`), next,
      el('p', {}, `score ${v.score}`), el('p', {}, `goal ${v.goal}: ${v.goal_met ? 'met' : 'open'}`)));
}

// describe says what the move that led to st did (st.cleared is set).
export function describe(st) {
  const c = st.cleared;
  return `Move ${st.step}: piece ${c.piece} (top to bottom) into column ${c.col}` +
    (c.jewels ? ` — ${c.jewels} jewels cleared, +${c.points} points.` : ' — nothing cleared.');
}
