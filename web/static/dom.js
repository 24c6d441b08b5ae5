// Small DOM helpers shared by the pages.

// el builds an element: el('a', {href: '/'}, 'text', child…). Attributes
// starting with "on" are event listeners; class is "class".
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'style') e.style.cssText = v; // CSSOM: allowed by the CSP, unlike a style attribute
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// show replaces the page's content.
export function show(...children) {
  const main = document.getElementById('main');
  main.replaceChildren(...children);
}

// errorBox is how a page shows a failure.
export function errorBox(err) {
  return el('p', {class: 'error', role: 'alert'}, String(err && err.message ? err.message : err));
}

// fmtLabels renders a labels object as "k=v, k=v".
export function fmtLabels(labels) {
  if (!labels || typeof labels !== 'object') return '';
  return Object.entries(labels).map(([k, v]) => k + '=' + (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

// sleep resolves after ms milliseconds.
export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// isFinal reports whether a job state is final.
export function isFinal(state) {
  return state === 'done' || state === 'failed' || state === 'canceled';
}

// button is a button that runs fn; a rejected promise shows in status (or
// an alert box appended after the button).
export function button(label, fn, attrs = {}) {
  const b = el('button', {type: 'button', ...attrs}, label);
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      await fn();
    } catch (err) {
      b.after(errorBox(err));
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

// fmtTime writes a time stamp in the reader's locale, '' for none.
export function fmtTime(t) {
  return t ? new Date(t).toLocaleString() : '';
}

// fmtDuration writes milliseconds as "3.2 s" or "1 min 4 s".
export function fmtDuration(ms) {
  if (ms < 1000) return Math.round(ms) + ' ms';
  const s = ms / 1000;
  if (s < 60) return s.toFixed(1) + ' s';
  return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
}

// labelFilters reads label filters as typed: "chapter:3, author=ana" →
// ["chapter:3", "author:ana"]. Both separators are accepted, so the API's
// form and the submit page's form work alike.
export function labelFilters(text) {
  return text.split(",").map((s) => s.trim()).filter(Boolean).map((s) => {
    const i = s.search(/[:=]/);
    return i < 0 ? s : s.slice(0, i) + ':' + s.slice(i + 1);
  });
}

// scrollBox wraps wide content (a table, a board) so that it scrolls
// inside its own box and the page never scrolls sideways.
export function scrollBox(child, attrs = {}) {
  return el('div', {class: 'scroll-x', ...attrs}, child);
}

// markReady says the page has drawn what it loaded (body data-ready), for
// tests and tools that wait for it.
export function markReady() {
  document.body.dataset.ready = 'true';
}
