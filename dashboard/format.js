// Numbers and dates as people read them, in the browser's language. Dates
// stay the API's UTC dates and are labelled so wherever they appear.

const integerFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const percentFormat = new Intl.NumberFormat(undefined, {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});
const hoursFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** 1234567 → "1,234,567". */
export function count(value) {
  return integerFormat.format(value);
}

/** 0.4567 → "45.7%"; null (no denominator) → "—". */
export function percent(fraction) {
  return fraction === null || fraction === undefined ? '—' : percentFormat.format(fraction);
}

/** A ratio as a percentage, "—" when the denominator is zero. */
export function ratio(part, whole) {
  return whole > 0 ? percent(part / whole) : '—';
}

/** Hours with one decimal: 26.25 → "26.3 h"; null → "—". */
export function hours(value) {
  return value === null || value === undefined ? '—' : `${hoursFormat.format(value)} h`;
}

/** An RFC 3339 time as "2026-11-30 14:05 UTC". */
export function time(rfc3339) {
  if (!rfc3339) return '—';
  return `${rfc3339.slice(0, 10)} ${rfc3339.slice(11, 16)} UTC`;
}

/** A Date's UTC calendar date, YYYY-MM-DD. */
export function isoDate(date) {
  return date.toISOString().slice(0, 10);
}

/** The UTC date `days` before today, as YYYY-MM-DD. */
export function daysAgo(days) {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() - days);
  return isoDate(date);
}

/** Every date from `from` to `to` inclusive (YYYY-MM-DD, UTC). */
export function datesBetween(from, to) {
  const dates = [];
  const day = new Date(`${from}T00:00:00Z`);
  const end = new Date(`${to}T00:00:00Z`);
  // A range as wide as the API allows would be millions of days; charts
  // only ever ask for the span that holds events.
  for (let guard = 0; day <= end && guard < 4000; guard += 1) {
    dates.push(isoDate(day));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return dates;
}
