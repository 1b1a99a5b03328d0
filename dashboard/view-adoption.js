// Adoption: the share of each day's installs on each app version, so "is
// 2.1 taking over?" is one glance. Versions stack in version order (the
// API's own order, so 2.10 sits above 2.9); the versions a configuration
// targets are marked.

import { rangeParameters } from './address.js';
import { chartFigure, otherColour, pointStyle, seriesColours, shareAxis, shareTooltip } from './charts.js';
import { h, notice, replaceChildren, table } from './dom.js';
import { count, percent, datesBetween } from './format.js';

/** Past this many versions, the smallest are drawn together as "Other". */
export const maxSeries = seriesColours.length;

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

  // The versions drawn on their own: the targets, then those with the most
  // installs summed over the days (a choice of what to draw, not a figure
  // shown), up to maxSeries; the rest become "Other". `versions` is the
  // API's version order.
  const ordered = adoption.versions;
  const installsOf = new Map(ordered.map((version) => [version, 0]));
  for (const row of adoption.rows) installsOf.set(row.appVersion, installsOf.get(row.appVersion) + row.installs);
  const shown = new Set(ordered.filter((version) => targets.has(version)).slice(0, maxSeries));
  for (const version of [...ordered].sort((a, b) => installsOf.get(b) - installsOf.get(a))) {
    if (shown.size >= maxSeries) break;
    shown.add(version);
  }
  const others = ordered.filter((version) => !shown.has(version));
  const series = ordered.filter((version) => shown.has(version));

  const dates = datesBetween(adoption.rows[0].date, adoption.rows.at(-1).date);
  const dateIndex = new Map(dates.map((date, index) => [date, index]));
  const shares = new Map([...series, null].map((version) => [version, dates.map(() => 0)]));
  for (const row of adoption.rows) {
    const key = shown.has(row.appVersion) ? row.appVersion : null;
    shares.get(key)[dateIndex.get(row.date)] += row.share;
  }

  const datasets = [];
  if (others.length > 0) {
    datasets.push({
      label: `Other (${count(others.length)} smaller versions)`,
      data: shares.get(null),
      backgroundColor: otherColour,
      borderColor: '#777777',
      borderWidth: 1,
      fill: true,
      pointRadius: 0,
      pointStyle: 'line',
    });
  }
  series.forEach((version, index) => {
    const colour = seriesColours[index % seriesColours.length];
    const target = targets.get(version);
    datasets.push({
      label: target ? `${version} — target of ${target.join(', ')}` : version,
      data: shares.get(version),
      backgroundColor: colour,
      borderColor: target ? '#000000' : colour,
      borderWidth: target ? 3 : 1,
      borderDash: target ? [6, 3] : [],
      fill: true,
      pointRadius: 0,
      pointStyle: pointStyle(index),
    });
  });

  const targetsShown = series.filter((version) => targets.has(version));
  const notes = [
    'Share of each day’s installs on each version, stacked in version order; dates in UTC.',
    others.length > 0
      ? ` ${count(others.length)} smaller versions are drawn together as “Other”; the table has each of them.`
      : null,
    targetsShown.length > 0 ? ` Dashed black outline: a version the live configuration targets (${targetsShown.join(', ')}).` : null,
    ' An install seen on two versions in one day counts on both, so a day can add up to a little over 100%.',
  ];
  const figure = chartFigure({
    caption: notes,
    description: `Share of installs per version and day from ${dates[0]} to ${dates.at(-1)}: ${series.join(', ')}${others.length ? ' and other versions' : ''}.`,
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
      h('p', { class: 'lede' }, `${count(ordered.length)} versions seen from ${address.from} to ${address.to} (UTC).`),
      figure,
      details,
    ],
    figures: [figure],
  };
}
