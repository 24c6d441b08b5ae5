// The columns editor: the well (click a cell to paint it with the chosen
// jewel, or empty it), its size and match rule, the pieces and the goal.
// Whether the well is settled and free of matches is the server's to say.
import {el} from './dom.js';
import {color} from './draw.js';

const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function columnsEditor(level, onEdit) {
  let lv = level;
  let brush = '.';
  let badCell = null;
  const num = (id, label, min, max) => el('input', {type: 'number', id, min, max, 'aria-label': label});
  const width = num('edit-width', 'width', 3, 16);
  const height = num('edit-height', 'height', 3, 32);
  const rule = el('select', {id: 'edit-rule', 'aria-label': 'match rule'}, el('option', {value: 'lines'}, 'lines'), el('option', {value: 'groups'}, 'groups'));
  const goal = el('select', {id: 'edit-goal', 'aria-label': 'goal'}, ['clear', 'score', 'target', 'survive'].map((g) => el('option', {value: g}, g)));
  const score = num('edit-score', 'score to reach', 1);
  const cell = el('input', {type: 'text', id: 'edit-cell', placeholder: 'row, col', size: 6, 'aria-label': 'target cell: row, column'});
  const pieces = el('input', {type: 'text', id: 'edit-pieces', spellcheck: 'false', 'aria-label': 'pieces, each three jewels top to bottom'});
  const brushes = el('div', {class: 'chain', role: 'radiogroup', 'aria-label': 'paint with'});
  const well = el('div', {class: 'well', id: 'edit-well'});

  const edit = () => {
    render();
    onEdit(structuredClone(lv));
  };
  const resize = () => {
    const w = Number(width.value);
    const h = Number(height.value);
    const rows = lv.board || [];
    const out = [];
    for (let r = 0; r < h; r++) {
      const src = rows[rows.length - h + r] || '';
      out.push((src + '.'.repeat(w)).slice(0, w));
    }
    lv.width = w;
    lv.height = h;
    lv.board = out;
    edit();
  };
  width.addEventListener('change', resize);
  height.addEventListener('change', resize);
  rule.addEventListener('change', () => { lv.rule = rule.value; edit(); });
  const readGoal = () => {
    const g = {type: goal.value};
    if (goal.value === 'score') g.score = Number(score.value) || 1;
    if (goal.value === 'target') g.cell = cell.value.split(/[\s,]+/).filter(Boolean).map(Number);
    lv.goal = g;
    edit();
  };
  goal.addEventListener('change', readGoal);
  score.addEventListener('change', readGoal);
  cell.addEventListener('change', readGoal);
  pieces.addEventListener('input', () => {
    lv.pieces = pieces.value.split(/[\s,]+/).filter(Boolean);
    onEdit(structuredClone(lv));
  });
  const paint = (r, c) => {
    const row = lv.board[r];
    lv.board[r] = row.slice(0, c) + brush + row.slice(c + 1);
    edit();
    const b = well.querySelector(`[data-cell="${r},${c}"]`);
    if (b) b.focus();
  };
  const render = () => {
    width.value = lv.width;
    height.value = lv.height;
    rule.value = lv.rule || 'lines';
    goal.value = (lv.goal && lv.goal.type) || 'clear';
    score.value = (lv.goal && lv.goal.score) || '';
    score.hidden = goal.value !== 'score';
    cell.value = lv.goal && lv.goal.cell ? lv.goal.cell.join(', ') : '';
    cell.hidden = goal.value !== 'target';
    if (document.activeElement !== pieces) pieces.value = (lv.pieces || []).join(' ');
    const used = new Set((lv.board || []).join('').replace(/\./g, '') + (lv.pieces || []).join(''));
    const offered = ['.', ...letters.split('').filter((l) => used.has(l) || 'RGBY'.includes(l))];
    brushes.replaceChildren(...offered.map((b) => el('button', {type: 'button', role: 'radio', class: 'pick cell ' + (b === '.' ? 'empty' : 'jewel'),
      'aria-checked': String(b === brush), 'aria-label': b === '.' ? 'empty' : 'jewel ' + b, dataset: {brush: b},
      style: b === '.' ? '' : `background:${color(b)}`, onclick: () => { brush = b; render(); }}, b === '.' ? '' : b)));
    well.style.gridTemplateColumns = `repeat(${lv.width}, 1.6em)`;
    const cells = [];
    (lv.board || []).forEach((row, r) => [...row].forEach((ch, c) => {
      const bad = badCell && badCell[0] === r && badCell[1] === c;
      cells.push(el('button', {type: 'button', class: 'cell ' + (ch === '.' ? 'empty' : 'jewel') + (bad ? ' invalid' : ''),
        style: ch === '.' ? '' : `background:${color(ch)}`, dataset: {cell: r + ',' + c},
        'aria-label': `row ${r}, column ${c}: ${ch === '.' ? 'empty' : ch}`, onclick: () => paint(r, c)}, ch === '.' ? '' : ch));
    }));
    well.replaceChildren(...cells);
  };
  render();
  return {
    element: el('div', {class: 'columns-editor'},
      el('div', {class: 'grid2'},
        el('label', {}, 'Width ', width), el('label', {}, 'Height ', height),
        el('label', {}, 'Rule ', rule), el('label', {}, 'Goal ', goal, ' ', score, cell),
        el('label', {}, 'Pieces ', pieces)),
      el('div', {class: 'label'}, 'paint with'), brushes,
      el('div', {class: 'label'}, 'well (top row first): click a cell to paint it'), el('div', {class: 'scroll-x'}, well)),
    set(level) {
      lv = structuredClone(level);
      if (!Array.isArray(lv.board)) lv.board = [];
      render();
    },
    mark(_, errField) {
      const m = /^board\[(\d+)\](?:\[(\d+)\])?/.exec(errField || '');
      badCell = m ? [Number(m[1]), Number(m[2] || 0)] : null;
      render();
    },
  };
}
