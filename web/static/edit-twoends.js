// The twoends editor: the row of values.
import {el} from './dom.js';

export function twoendsEditor(level, onEdit) {
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
