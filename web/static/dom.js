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
