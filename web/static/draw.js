// Drawing, editing and playing a level's states. Each kind has a module of
// its own, kinds/<kind>.js, found by the kind's name: a new kind adds one
// module and nothing here. A module exports
//
//   - draw(st, states, marks), the board of state st (states are all the
//     plan's states, for context; marks, a Set, names what to highlight:
//     tile ids, or ball and jewel colors, from an explanation or a warning);
//   - describe(st), one line on the move that led to st (st.cleared is set);
//   - editor(level, onEdit), the editor of a copy of a level (edit.js):
//     {element, set(level), mark(ids, errorField)}, calling onEdit(level)
//     on every change;
//   - playControls(answer, legal, board, move), the controls that offer the
//     legal moves of POST /v1/play's answer (play.js; legal maps each move's
//     JSON to the move, board is the drawn board, move(m) plays m);
//
// and may export encodeMoves(moves), a list of moves in the kind's plan
// format when that is not an array; countName, what an explanation's
// counts count ('color' unless it says); fieldChanges, how a change of a
// level's field reads ({field: (before, after) => [lines]}).
import {el} from './dom.js';

// plain draws a kind whose module does not load: the canonical text.
const plain = {draw: (st) => el('pre', {}, st.text), describe: () => '', playControls: () => []};

// rendererOf loads the renderer of kind, or, logging why, plain (every
// kind has a module: web's TestEveryKindHasARenderer).
export async function rendererOf(kind) {
  try {
    if (!/^[a-z][a-z0-9_]*$/.test(kind)) throw new Error('not a kind name');
    return await import(`./kinds/${kind}.js`);
  } catch (err) {
    console.error(`no renderer for kind ${kind}: ${err}`);
    return plain;
  }
}

// describeMove says what the move that led to st did.
export function describeMove(renderer, st) {
  return st.cleared ? renderer.describe(st) : 'The level as given.';
}
