// The webhook deliveries of a batch (docs/webhooks.md): its callbacks'
// events with their state, every attempt with its status or error, and a
// button that sends an event again. A section of the batch page, kept in a
// module of its own; it refreshes itself while an event is pending.
import {getJSON, request} from './api.js';
import {el, sleep} from './dom.js';

// deliveriesSection returns the section at once and fills it as the log
// arrives; it shows nothing but a line when the batch has no callback.
export function deliveriesSection(batchID) {
  const view = {sec: el('section', {id: 'deliveries', 'aria-live': 'polite'}, el('h2', {}, 'Webhook deliveries')),
    batchID, following: false};
  follow(view);
  return view.sec;
}

// finalTypes end a batch's events.
const finalTypes = ['batch.finished', 'batch.canceled'];

// follow loads the log until the batch's final event is there and no event
// is pending: every second while one is, every 5 s while the batch is not
// finished (for 10 minutes at most). One loop at a time: a redelivery
// started while it runs keeps it going.
async function follow(view) {
  if (view.following) return;
  view.following = true;
  try {
    for (let round = 0; round < 120; round++) {
      let log;
      try {
        log = await load(view);
      } catch (err) {
        // A busy or restarting server: say so, and try again at the next
        // round rather than stop following.
        view.sec.append(el('p', {class: 'error'}, String(err.message || err)));
        await sleep(2000);
        continue;
      }
      const pending = log.events.some((e) => e.state === 'pending');
      if (!pending && log.events.some((e) => finalTypes.includes(e.type))) return;
      await sleep(pending ? 1000 : 5000);
    }
  } finally {
    view.following = false;
  }
}

// load shows the log once and returns it.
async function load(view) {
  const log = await getJSON('/v1/batches/' + view.batchID + '/deliveries');
  view.sec.replaceChildren(el('h2', {}, 'Webhook deliveries'), ...render(log, () => follow(view)));
  view.sec.dataset.loaded = 'true'; // not data-ready: the report's section has that
  return log;
}

function render(log, refresh) {
  if (log.events.length === 0) {
    return [el('p', {class: 'muted'}, 'No callback events (the batch named no callback URL, or none is due yet).')];
  }
  return [
    el('table', {},
      el('thead', {}, el('tr', {}, ['event', 'type', 'url', 'state', 'attempts', ''].map((h) => el('th', {scope: 'col'}, h)))),
      el('tbody', {}, log.events.map((e) => el('tr', {dataset: {event: e.id, state: e.state}},
        el('td', {}, el('code', {}, e.id)),
        el('td', {}, e.type),
        el('td', {}, e.url),
        el('td', {}, e.state + (e.next_attempt_at && e.state === 'pending' ? ' (next ' + time(e.next_attempt_at) + ')' : '')),
        el('td', {class: 'num'}, e.attempts),
        el('td', {}, el('button', {type: 'button', onclick: (ev) => redeliver(ev.target, e.id, refresh)}, 'Redeliver')))))),
    el('h3', {}, 'Attempts (newest first)'),
    el('table', {id: 'delivery-attempts'},
      el('thead', {}, el('tr', {}, ['at', 'event', 'attempt', 'status', 'ms', 'error'].map((h) => el('th', {scope: 'col'}, h)))),
      el('tbody', {}, log.deliveries.map((d) => el('tr', {dataset: {ok: d.error ? 'false' : 'true', redelivery: d.redelivery}},
        el('td', {}, time(d.at)),
        el('td', {}, el('code', {}, d.event_id)),
        el('td', {class: 'num'}, d.attempt + (d.redelivery ? ' (redelivery ' + d.redelivery + ')' : '')),
        el('td', {class: 'num'}, d.status_code ?? '—'),
        el('td', {class: 'num'}, d.duration_ms),
        el('td', {}, d.error || '—'))))),
  ];
}

async function redeliver(button, id, refresh) {
  button.disabled = true;
  try {
    await request('/v1/webhook-events/' + encodeURIComponent(id) + '/redeliver', {method: 'POST'});
    refresh();
  } catch (err) {
    button.replaceWith(el('span', {class: 'error'}, String(err.message || err)));
  }
}

function time(iso) {
  return new Date(iso).toLocaleTimeString();
}
