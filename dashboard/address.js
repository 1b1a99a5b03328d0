// What a view shows lives in the page's address after '#', so a view can be
// bookmarked or sent to a colleague: `#/update/2.1-flexible?from=…&to=…&test=include`.
// The key never goes there.

import { daysAgo } from './format.js';

export const views = ['updates', 'update', 'adoption', 'explore'];
export const testModes = ['exclude', 'include', 'only'];
const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The view and its parameters from `location.hash`. Unknown or malformed
 * parts fall back to defaults: the updates view, the last 30 days (as the
 * API's own default), test events excluded.
 */
export function readAddress(hash = location.hash) {
  const [path, queryText = ''] = hash.replace(/^#/, '').split('?', 2);
  const segments = path.split('/').filter((segment) => segment !== '');
  const query = new URLSearchParams(queryText);
  let view = views.includes(segments[0]) ? segments[0] : 'updates';
  let updateId = null;
  if (view === 'update') {
    updateId = segments.length > 1 ? decodeURIComponent(segments[1]) : null;
    if (!updateId) view = 'updates';
  }
  const from = datePattern.test(query.get('from') ?? '') ? query.get('from') : daysAgo(29);
  const to = datePattern.test(query.get('to') ?? '') ? query.get('to') : daysAgo(0);
  const test = testModes.includes(query.get('test')) ? query.get('test') : 'exclude';
  const extra = {};
  for (const [name, value] of query) {
    if (!['from', 'to', 'test'].includes(name)) extra[name] = value;
  }
  return { view, updateId, from, to, test, extra };
}

/** The hash of `address`, with only the parameters a view needs. */
export function hashOf({ view, updateId = null, from, to, test, extra = {} }) {
  const path = view === 'update' ? `/update/${encodeURIComponent(updateId)}` : `/${view}`;
  const query = new URLSearchParams({ from, to, test, ...extra });
  return `#${path}?${query}`;
}

/** Goes to `address`, keeping it in the browser's history. */
export function go(address) {
  const hash = hashOf(address);
  if (location.hash !== hash) location.hash = hash;
}

/** The report parameters every view shares. */
export function rangeParameters({ from, to, test }) {
  return { from, to, test };
}
