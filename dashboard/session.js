// The read key lives in this browser tab only: sessionStorage is dropped when
// the tab closes, is not shared with other tabs, and never reaches the
// address bar, so a bookmarked or shared view carries no key.

const storageKey = 'uptake.readKey';

/** The key this tab signed in with, or null. */
export function currentKey() {
  return sessionStorage.getItem(storageKey);
}

export function remember(key) {
  sessionStorage.setItem(storageKey, key);
}

/** Sign out: the key is forgotten, in this tab and anywhere it was kept. */
export function forget() {
  sessionStorage.removeItem(storageKey);
  // Never written there; cleared in case an older page or a user put it there.
  localStorage.removeItem(storageKey);
}
