// Why a level is not solved, in words and on the board: the server's
// explanation (GET /v1/jobs/{id}/replay, "explanation") for unsolvable and
// unknown results — the counts that are off, the click at which the tray
// must fill, what a proof exhausted, how far a search got in its budget —
// with buttons that show its position.
import {postJSON} from './api.js';
import {button, el} from './dom.js';

// explainSection renders rp.explanation. goTo(step, marks) shows a state
// of the replay with marks highlighted; playLine(moves) plays a line by
// hand; job is the job, for "solve again with more time"; renderer is the
// kind's module, which names what the counts count.
export function explainSection(rp, job, renderer, {goTo, playLine}) {
  const e = rp.explanation;
  if (!e) return null;
  const sec = el('section', {id: 'why', class: 'why verdict-box-' + rp.verdict, 'aria-label': 'why'},
    el('h2', {}, rp.verdict === 'unknown' ? 'Why it is not decided' : 'Why it cannot be won'),
    el('p', {id: 'why-summary', class: 'why-summary'}, e.summary));
  for (const f of e.facts || []) sec.append(el('p', {class: 'why-fact'}, f));
  if (e.counts && Object.keys(e.counts).length) {
    sec.append(el('table', {class: 'counts', id: 'why-counts'},
      el('thead', {}, el('tr', {}, el('th', {scope: 'col'}, renderer.countName || 'color'), el('th', {scope: 'col'}, 'count'))),
      el('tbody', {}, Object.entries(e.counts).map(([k, n]) => el('tr', {}, el('td', {}, k), el('td', {class: 'num'}, n))))));
  }
  const actions = el('div', {class: 'controls'});
  if (e.step !== undefined && e.step !== null) {
    actions.append(button(`Show the best line’s end (step ${e.step})`, async () => goTo(e.step, e.marks || []), {id: 'why-show'}));
  } else if (e.marks && e.marks.length) {
    actions.append(button('Mark them on the board', async () => goTo(0, e.marks), {id: 'why-show'}));
  }
  if (e.line && e.line.length) {
    actions.append(button('Play the longest line', async () => playLine(e.line), {id: 'why-line'}));
  }
  if (rp.verdict === 'unknown') {
    const ms = Math.min(3600000, Math.max(10000, 4 * ((job.budget && job.budget.max_ms) || 60000)));
    actions.append(button(`Solve again with more time (${ms / 1000} s)`, async () => {
      const labels = {...(job.labels || {}), rerun_of: String(job.id)};
      const next = await postJSON('/v1/jobs', {level: rp.level, priority: 'interactive', budget: {max_ms: ms}, labels});
      location.href = '/ui/jobs/' + next.id;
    }, {id: 'solve-again'}));
  }
  if (actions.children.length) sec.append(actions);
  return sec;
}
