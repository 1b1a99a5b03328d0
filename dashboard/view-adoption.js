// Adoption: the share of each day's installs on each app version, so "is
// 2.1 taking over?" is one glance. Versions stack in version order (the
// API's own order, so 2.10 sits above 2.9); the versions a configuration
// targets are marked.

import { rangeParameters } from './address.js';
import { chartFigure, pointStyle, seriesColours, shareAxis, shareTooltip } from './charts.js';
import { h, notice, replaceChildren, table } from './dom.js';
import { count, percent, datesBetween } from './format.js';

/** The most series the chart draws: one colour each, told apart. */
export const maxBands = seriesColours.length;
/** A version whose share reaches this on some day keeps a band of its own. */
export const ownBandShare = 0.2;

/**
 * How `versions` (in version order) are drawn: as bands of neighbouring
 * versions, at most `limit`, each an array of versions. With few versions
 * each is a band of its own. Otherwise the targets and the versions that
 * reached `ownBandShare` of a day's installs keep bands of their own, and
 * the versions between them are drawn in bands of neighbours, as even as
 * can be: a chart of 90 days of a weekly release (or a daily one) is then
 * a dozen bands in version order, where nine versions and one "Other" hid
 * nearly everything in "Other". `peaks` maps a version to its highest
 * share of a day.
 */
export function bands(versions, peaks, targets, limit = maxBands) {
  if (versions.length <= limit) return versions.map((version) => [version]);
  const byPeak = versions
    .filter((version) => !targets.has(version) && (peaks.get(version) ?? 0) >= ownBandShare)
    .sort((a, b) => peaks.get(b) - peaks.get(a));
  let own = new Set([...versions.filter((version) => targets.has(version)), ...byPeak].slice(0, limit - 1));
  let segments = segmentsOf(versions, own);
  // Too many runs between the versions kept apart: give up the smallest
  // of those (never a target) until the runs fit.
  while (segments.length > limit && byPeak.length > 0) {
    const dropped = byPeak.pop();
    if (!own.has(dropped)) continue;
    own = new Set([...own].filter((version) => version !== dropped));
    segments = segmentsOf(versions, own);
  }
  // Spread what is left of the limit over the runs, by their length.
  const runs = segments.filter((segment) => !segment.own);
  let spare = limit - segments.length;
  const pieces = new Map(runs.map((run) => [run, 1]));
  while (spare > 0) {
    const widest = runs
      .filter((run) => pieces.get(run) < run.versions.length)
      .sort((a, b) => b.versions.length / pieces.get(b) - a.versions.length / pieces.get(a))[0];
    if (!widest) break;
    pieces.set(widest, pieces.get(widest) + 1);
    spare -= 1;
  }
  return segments.flatMap((segment) => (segment.own ? [segment.versions] : split(segment.versions, pieces.get(segment))));
}

/** Versions in order, cut into the kept ones (alone) and the runs between. */
function segmentsOf(versions, own) {
  const segments = [];
  for (const version of versions) {
    if (own.has(version)) {
      segments.push({ own: true, versions: [version] });
    } else if (segments.length > 0 && !segments.at(-1).own) {
      segments.at(-1).versions.push(version);
    } else {
      segments.push({ own: false, versions: [version] });
    }
  }
  return segments;
}

/** `versions` in `count` runs of neighbours, as even as can be. */
function split(versions, count) {
  const runs = [];
  for (let index = 0; index < count; index += 1) {
    runs.push(versions.slice(Math.round((index * versions.length) / count), Math.round(((index + 1) * versions.length) / count)));
  }
  return runs.filter((run) => run.length > 0);
}

/** A band's name: its version, or its first and last and how many. */
export function bandLabel(band, targets) {
  if (band.length === 1) {
    const target = targets.get(band[0]);
    return target ? `${band[0]} — target of ${target.join(', ')}` : band[0];
  }
  return `${band[0]} to ${band.at(-1)} (${count(band.length)} versions)`;
}

export async function load(api, address) {
  const range = rangeParameters(address);
  const [adoption, updates] = await Promise.all([
    api.json('/v1/adoption', range),
    api.json('/v1/updates', range),
  ]);
  if (adoption.rows.length === 0) {
    return { title: 'Adoption', content: [notice('empty', `No events in this range (${address.from} to ${address.to}, UTC).`)] };
  }

  // Which updates lead to each version, to mark the targets.
  const targets = new Map();
  for (const update of updates.updates) {
    if (update.targetVersion === null) continue;
    if (!targets.has(update.targetVersion)) targets.set(update.targetVersion, []);
    targets.get(update.targetVersion).push(update.updateId);
  }
  const peaks = new Map();
  for (const row of adoption.rows) peaks.set(row.appVersion, Math.max(peaks.get(row.appVersion) ?? 0, row.share));
  const drawn = bands(adoption.versions, peaks, targets);
  const bandOf = new Map(drawn.flatMap((band, index) => band.map((version) => [version, index])));

  const dates = datesBetween(adoption.rows[0].date, adoption.rows.at(-1).date);
  const dateIndex = new Map(dates.map((date, index) => [date, index]));
  const shares = drawn.map(() => dates.map(() => 0));
  for (const row of adoption.rows) shares[bandOf.get(row.appVersion)][dateIndex.get(row.date)] += row.share;

  const datasets = drawn.map((band, index) => {
    const colour = seriesColours[index % seriesColours.length];
    const isTarget = band.length === 1 && targets.has(band[0]);
    return {
      label: bandLabel(band, targets),
      data: shares[index],
      backgroundColor: colour,
      borderColor: isTarget ? '#000000' : colour,
      borderWidth: isTarget ? 3 : 1,
      borderDash: isTarget ? [6, 3] : [],
      fill: true,
      pointRadius: 0,
      pointStyle: pointStyle(index),
    };
  });

  const banded = drawn.filter((band) => band.length > 1);
  const targetsShown = drawn.filter((band) => band.length === 1 && targets.has(band[0])).map((band) => band[0]);
  const notes = [
    'Share of each day’s installs on each version, stacked in version order; dates in UTC.',
    banded.length > 0
      ? ` ${count(adoption.versions.length)} versions are too many to tell apart: neighbouring versions that never reached ${percent(ownBandShare)} of a day are drawn together in bands (“${banded[0][0]} to ${banded[0].at(-1)}”); the table has each version.`
      : null,
    targetsShown.length > 0 ? ` Dashed black outline: a version the live configuration targets (${targetsShown.join(', ')}).` : null,
    ' An install seen on two versions in one day counts on both, so a day can add up to a little over 100%.',
  ];
  const figure = chartFigure({
    caption: notes,
    description: `Share of installs per version and day from ${dates[0]} to ${dates.at(-1)}: ${datasets.map((dataset) => dataset.label).join(', ')}.`,
    height: 420,
    config: {
      type: 'line',
      data: { labels: dates, datasets },
      options: {
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { title: { display: true, text: 'Date (UTC)' } },
          y: { ...shareAxis, max: undefined, suggestedMax: 1 },
        },
        plugins: {
          tooltip: { callbacks: { label: shareTooltip }, itemSort: (a, b) => b.datasetIndex - a.datasetIndex },
          legend: { reverse: true },
        },
      },
    },
  });

  // The table of every row can be thousands long: built when opened.
  const tableHolder = h('div', {});
  const details = h('details', {
    ontoggle: () => {
      if (!details.open || tableHolder.childElementCount > 0) return;
      replaceChildren(tableHolder, table('Installs per day and version (UTC)', [
        { key: 'date', label: 'Date (UTC)', cell: (row) => row.date },
        { key: 'appVersion', label: 'Version', cell: (row) => row.appVersion },
        { key: 'installs', label: 'Installs', numeric: true, cell: (row) => count(row.installs) },
        { key: 'share', label: 'Share', numeric: true, cell: (row) => percent(row.share) },
      ], adoption.rows, { 'data-table': 'adoption' }));
    },
  }, h('summary', {}, `Every version and day as a table (${count(adoption.rows.length)} rows)`), tableHolder);

  return {
    title: 'Adoption',
    content: [
      h('p', { class: 'lede' }, `${count(adoption.versions.length)} versions seen from ${address.from} to ${address.to} (UTC).`),
      figure,
      details,
    ],
    figures: [figure],
  };
}
