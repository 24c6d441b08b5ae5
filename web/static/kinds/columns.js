// columns: the well with the cells the move changed outlined, and the
// next pieces; the editor of a copy; the column and rotation, in play.
import {el} from '../dom.js';
import {color} from '../paint.js';

// draw draws state st; marks are jewel colors to highlight.
export function draw(st, states, marks = new Set()) {
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

// describe says what the move that led to st did (st.cleared is set).
export function describe(st) {
  const c = st.cleared;
  return `Move ${st.step}: piece ${c.piece} (top to bottom) into column ${c.col}` +
    (c.jewels ? ` — ${c.jewels} jewels cleared, +${c.points} points.` : ' — nothing cleared.');
}

const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

// editor edits a copy of a level: the well (click a cell to paint it with
// the chosen jewel, or empty it), its size and match rule, the pieces and
// the goal. Whether the well is settled and free of matches is the
// server's to say.
export function editor(level, onEdit) {
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

// playControls offers the legal drops: the next piece's rotation, then
// the column.
export function playControls(a, legal, board, move) {
  const rot = el('select', {id: 'play-rot', 'aria-label': 'rotation'},
    el('option', {value: 0}, 'as it comes'), el('option', {value: 1}, 'rotated once'), el('option', {value: 2}, 'rotated twice'));
  const cols = el('div', {class: 'chain', role: 'group', 'aria-label': 'drop into column'});
  const drawCols = () => cols.replaceChildren(...Array.from({length: a.state.view.width}, (_, c) => {
    const key = JSON.stringify({col: c, rot: Number(rot.value)});
    return el('button', {type: 'button', class: 'col', dataset: {col: c}, disabled: !legal.has(key),
      'aria-label': 'drop into column ' + c, onclick: () => move(legal.get(key))}, String(c));
  }));
  rot.addEventListener('change', drawCols);
  drawCols();
  return [el('label', {}, 'Next piece ', rot), el('div', {class: 'label'}, 'drop into column'), cols];
}
