// The dashboard's shell: sign-in, the shared date range and test mode, and
// the view named by the page's address. Each view is a module whose `load`
// asks the API and returns what to show; this file puts it on the page,
// draws its charts and records how long that took from the request:
// `data-drawn-ms` on <main> once the view is drawn, `data-complete-ms` once
// what it fills in later has arrived (read by the browser tests and
// tools/dashboard-timing).

import { Api, ApiError } from './api.js';
import { go, hashOf, readAddress } from './address.js';
import { destroyCharts } from './charts.js';
import { notice, replaceChildren } from './dom.js';
import { daysAgo } from './format.js';
import { currentKey, forget, remember } from './session.js';
import * as adoption from './view-adoption.js';
import * as explore from './view-explore.js';
import * as update from './view-update.js';
import * as updates from './view-updates.js';

const views = { updates, update, adoption, explore };
const byId = (id) => document.getElementById(id);
const page = {
  signIn: byId('sign-in'),
  signInForm: byId('sign-in-form'),
  keyInput: byId('read-key'),
  signInError: byId('sign-in-error'),
  dashboard: byId('dashboard'),
  nav: byId('views'),
  session: byId('session'),
  appId: byId('app-id'),
  signOut: byId('sign-out'),
  range: byId('range'),
  from: byId('from'),
  to: byId('to'),
  test: byId('test'),
  rangeError: byId('range-error'),
  main: byId('main'),
  heading: byId('view-heading'),
  content: byId('content'),
};

let api = null;
let generation = 0;
// When the view being drawn was asked for: navigation start for the first
// view (performance.now() counts from it), the click or key press after.
let requestedAt = 0;

function showSignIn(message = null) {
  api = null;
  destroyCharts();
  replaceChildren(page.content);
  page.dashboard.hidden = true;
  page.nav.hidden = true;
  page.session.hidden = true;
  page.signIn.hidden = false;
  page.signInError.hidden = message === null;
  page.signInError.textContent = message ?? '';
  document.title = 'Sign in · Uptake';
  page.keyInput.value = '';
  page.keyInput.focus();
}

/** Checks a key with the API (`GET /v1/app`) and returns the app's id. */
async function appOf(key) {
  const answer = await new Api(key).json('/v1/app');
  return answer.appId;
}

async function signIn(key) {
  page.signInError.hidden = true;
  try {
    const appId = await appOf(key);
    remember(key);
    enter(key, appId);
  } catch (error) {
    const message = error instanceof ApiError && error.isUnauthorized
      ? 'That key was refused: it is not the read key of any app. Use the read key (upr_…), not the ingest key (upi_…).'
      : `Could not sign in: ${error.message}`;
    showSignIn(message);
  }
}

function enter(key, appId) {
  api = new Api(key);
  page.appId.textContent = appId;
  page.signIn.hidden = true;
  page.dashboard.hidden = false;
  page.nav.hidden = false;
  page.session.hidden = false;
  render();
}

/** Keeps the range form and the navigation links in step with the address. */
function syncControls(address) {
  page.from.value = address.from;
  page.to.value = address.to;
  page.test.value = address.test;
  page.rangeError.hidden = true;
  for (const link of page.nav.querySelectorAll('a[data-view]')) {
    const view = link.dataset.view;
    link.href = hashOf({ ...address, view, extra: view === address.view ? address.extra : {} });
    const current = view === address.view || (view === 'updates' && address.view === 'update');
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function render({ moveFocus = false } = {}) {
  if (!api) return;
  const address = readAddress();
  syncControls(address);
  const mine = ++generation;
  const startedAt = requestedAt;
  destroyCharts();
  page.main.dataset.state = 'loading';
  page.main.setAttribute('aria-busy', 'true');
  delete page.main.dataset.drawnMs;
  delete page.main.dataset.completeMs;
  page.heading.textContent = address.view === 'update' ? `Update ${address.updateId}` : page.heading.textContent;
  replaceChildren(page.content, notice('loading', 'Loading…'));
  let state = 'ready';
  try {
    const result = await views[address.view].load(api, address);
    if (mine !== generation) return;
    page.heading.textContent = result.title;
    document.title = `${result.title} · Uptake`;
    replaceChildren(page.content, ...result.content);
    await Promise.all((result.figures ?? []).map((figure) => figure.draw()));
    await afterNextFrame();
    if (mine !== generation) return;
    page.main.dataset.drawnMs = String(Math.round(performance.now() - startedAt));
    // What a view fills in after its first drawing (the updates' rates).
    if (result.pending) await result.pending;
  } catch (error) {
    if (mine !== generation) return;
    if (error instanceof ApiError && error.isUnauthorized) {
      forget();
      showSignIn('Your key is no longer accepted (it may have been rotated). Sign in again with the current read key.');
      return;
    }
    state = 'error';
    const detail = error instanceof ApiError ? error.message : `${error.name}: ${error.message}`;
    replaceChildren(page.content, notice('error', `This view could not be loaded: ${detail}`));
  }
  await afterNextFrame();
  if (mine !== generation) return;
  page.main.dataset.drawnMs ??= String(Math.round(performance.now() - startedAt));
  page.main.dataset.completeMs = String(Math.round(performance.now() - startedAt));
  page.main.dataset.state = state;
  page.main.removeAttribute('aria-busy');
  if (moveFocus) page.heading.focus();
}

/** Resolves once the frame showing what was just put on the page is painted. */
function afterNextFrame() {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

page.signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = page.keyInput.value.trim();
  if (key) signIn(key);
});

page.signOut.addEventListener('click', () => {
  forget();
  showSignIn();
});

page.range.addEventListener('submit', (event) => {
  event.preventDefault();
  const from = page.from.value;
  const to = page.to.value;
  if (!from || !to || from > to) {
    page.rangeError.textContent = 'Choose a start date on or before the end date.';
    page.rangeError.hidden = false;
    return;
  }
  requestedAt = performance.now();
  go({ ...readAddress(), from, to, test: page.test.value });
});

page.test.addEventListener('change', () => page.range.requestSubmit());

for (const button of page.range.querySelectorAll('button[data-days]')) {
  button.addEventListener('click', () => {
    requestedAt = performance.now();
    go({ ...readAddress(), from: daysAgo(Number(button.dataset.days) - 1), to: daysAgo(0) });
  });
}

byId('skip-link').addEventListener('click', () => page.main.focus());

window.addEventListener('hashchange', () => {
  if (requestedAt < performance.now() - 50) requestedAt = performance.now();
  render({ moveFocus: true });
});

const savedKey = currentKey();
if (savedKey) {
  appOf(savedKey).then(
    (appId) => enter(savedKey, appId),
    (error) => {
      if (error instanceof ApiError && error.isUnauthorized) forget();
      showSignIn(error instanceof ApiError && error.isUnauthorized
        ? 'Your key is no longer accepted (it may have been rotated). Sign in again with the current read key.'
        : `Could not sign in: ${error.message}`);
    });
} else {
  showSignIn();
}
