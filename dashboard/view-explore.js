// Explore: the grouped report with any keys, as a table and a chart, and
// the very same rows as CSV.

import { go, rangeParameters } from './address.js';
import { chartFigure, countAxis, countTooltip, otherColour, pointStyle, seriesColours } from './charts.js';
import { h, notice, table } from './dom.js';
import { count, datesBetween } from './format.js';

export const groupKeys = ['date', 'updateId', 'action', 'appVersion', 'platform', 'osVersion'];
const keyNames = {
  date: 'Date (UTC)',
  updateId: 'Update',
  action: 'Action',
  appVersion: 'App version',
  platform: 'Platform',
  osVersion: 'OS version',
};
const slots = 3;
/** Rows drawn in the page's table; the CSV download holds every row. */
export const maxTableRows = 500;

/** The grouping and granularity from the address, defaulting as the API does. */
export function exploreParameters(address) {
  const requested = (address.extra.groupBy ?? 'date,updateId,action').split(',');
  const keys = requested.filter((key, index) => groupKeys.includes(key) && requested.indexOf(key) === index).slice(0, slots);
  const granularity = address.extra.granularity === 'hour' ? 'hour' : 'day';
  return { keys: keys.length > 0 ? keys : ['date'], granularity };
}

export async function load(api, address) {
  const { keys, granularity } = exploreParameters(address);
  const parameters = { ...rangeParameters(address), groupBy: keys.join(','), granularity };
  const form = controls(address, keys, granularity, parameters, api);
  const report = await api.json('/v1/report', parameters);
  if (report.rows.length === 0) {
    return { title: 'Explore', content: [form, notice('empty', `No events in this range (${address.from} to ${address.to}, UTC).`)] };
  }
  const figure = chart(report.rows, keys, granularity);
  const shownRows = report.rows.slice(0, maxTableRows);
  const columns = [
    ...keys.map((key) => ({ key, label: keyNames[key], cell: (row) => row[key] ?? '(none)' })),
    { key: 'events', label: 'Events', numeric: true, cell: (row) => count(row.events) },
    { key: 'installs', label: 'Installs', numeric: true, cell: (row) => count(row.installs) },
  ];
  return {
    title: 'Explore',
    content: [
      form,
      figure,
      h('p', { class: 'lede', 'data-figure': 'row-count' },
        `${count(report.rows.length)} rows`,
        report.rows.length > maxTableRows ? `; the table shows the first ${count(maxTableRows)}, the CSV has every row.` : '.'),
      table(`Events and installs by ${keys.map((key) => keyNames[key]).join(', ')}`, columns, shownRows, { 'data-table': 'report' }),
    ],
    figures: [figure],
  };
}

/** The grouping form and the CSV download of the same report. */
function controls(address, keys, granularity, parameters, api) {
  const selects = [];
  for (let slot = 0; slot < slots; slot += 1) {
    const id = `group-key-${slot}`;
    const select = h('select', { id, name: 'groupBy' },
      slot === 0 ? null : h('option', { value: '' }, '(none)'),
      groupKeys.map((key) => h('option', { value: key, selected: keys[slot] === key }, keyNames[key])));
    selects.push(h('div', { class: 'field' }, h('label', { for: id }, `Group by ${slot + 1}`), select));
  }
  const granularitySelect = h('select', { id: 'granularity', name: 'granularity' },
    h('option', { value: 'day', selected: granularity === 'day' }, 'Day'),
    h('option', { value: 'hour', selected: granularity === 'hour' }, 'Hour'));
  const status = h('p', { class: 'download-status', role: 'status' });
  const download = h('button', {
    type: 'button',
    id: 'download-csv',
    onclick: async () => {
      status.textContent = 'Preparing the CSV…';
      try {
        const text = await api.csv('/v1/report', parameters);
        const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
        const anchor = h('a', { href: url, download: `uptake-report-${address.from}-${address.to}.csv` });
        document.body.append(anchor);
        anchor.click();
        anchor.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        status.textContent = 'CSV downloaded.';
      } catch (error) {
        status.textContent = `The CSV could not be downloaded: ${error.message}`;
      }
    },
  }, 'Download CSV');
  const form = h('form', {
    class: 'explore-controls',
    'aria-label': 'Grouping',
    onsubmit: (event) => {
      event.preventDefault();
      const chosen = selects.map((field) => field.querySelector('select').value).filter((key) => key !== '');
      const unique = chosen.filter((key, index) => chosen.indexOf(key) === index);
      go({ ...address, view: 'explore', extra: { groupBy: unique.join(','), granularity: granularitySelect.value } });
    },
  },
  selects,
  h('div', { class: 'field' }, h('label', { for: 'granularity' }, 'Date granularity'), granularitySelect),
  h('div', { class: 'field actions' }, h('button', { type: 'submit' }, 'Show'), download),
  status);
  return form;
}

/**
 * Events as a chart: over time when the grouping has the date (one line per
 * combination of the other keys), else bars per combination. The largest
 * combinations are drawn; the caption says when others were left out.
 */
function chart(rows, keys, granularity) {
  const hasDate = keys.includes('date');
  const others = keys.filter((key) => key !== 'date');
  const seriesName = (row) => (others.length === 0 ? 'Events' : others.map((key) => row[key] ?? '(none)').join(' · '));
  const totals = new Map();
  for (const row of rows) {
    const name = hasDate ? seriesName(row) : keys.map((key) => row[key] ?? '(none)').join(' · ');
    totals.set(name, (totals.get(name) ?? 0) + row.events);
  }
  const ranked = [...totals.keys()].sort((a, b) => totals.get(b) - totals.get(a));
  if (!hasDate) {
    const limit = 30;
    const labels = ranked.slice(0, limit);
    return chartFigure({
      caption: ranked.length > limit ? `The ${limit} largest of ${count(ranked.length)} groups by events; the table and CSV have all.` : 'Events per group.',
      description: `Events by ${keys.join(', ')}.`,
      height: Math.max(240, labels.length * 22),
      config: {
        type: 'bar',
        data: { labels, datasets: [{ label: 'Events', data: labels.map((label) => totals.get(label)), backgroundColor: seriesColours[0] }] },
        options: { indexAxis: 'y', scales: { x: countAxis }, plugins: { legend: { display: false }, tooltip: { callbacks: { label: countTooltip } } } },
      },
    });
  }
  const limit = seriesColours.length;
  const drawn = ranked.slice(0, limit);
  // By day, every day from the first to the last, so a day without events
  // shows as zero rather than being skipped; by hour, the hours with events.
  const seen = [...new Set(rows.map((row) => row.date))].sort();
  const labels = granularity === 'day' ? datesBetween(seen[0], seen.at(-1)) : seen;
  const dateIndex = new Map(labels.map((label, index) => [label, index]));
  const values = new Map([...drawn, 'Other'].map((name) => [name, labels.map(() => 0)]));
  for (const row of rows) {
    const name = seriesName(row);
    const key = values.has(name) && name !== 'Other' ? name : 'Other';
    values.get(key)[dateIndex.get(row.date)] += row.events;
  }
  const datasets = drawn.map((name, index) => ({
    label: name,
    data: values.get(name),
    borderColor: seriesColours[index],
    backgroundColor: seriesColours[index],
    pointStyle: pointStyle(index),
    pointRadius: labels.length > 60 ? 0 : 3,
    borderWidth: 2,
  }));
  if (ranked.length > limit) {
    datasets.push({
      label: `Other (${count(ranked.length - limit)} groups)`,
      data: values.get('Other'),
      borderColor: otherColour,
      backgroundColor: otherColour,
      pointStyle: 'line',
      pointRadius: 0,
      borderWidth: 2,
      borderDash: [4, 4],
    });
  }
  return chartFigure({
    caption: [
      `Events per ${granularity === 'hour' ? 'hour' : 'day'} (UTC)`,
      others.length ? `, one line per ${others.map((key) => keyNames[key]).join(' · ')}` : '',
      ranked.length > limit ? `; the ${limit} largest are drawn, the rest together as “Other”.` : '.',
    ],
    description: `Events over time by ${keys.join(', ')}.`,
    config: {
      type: 'line',
      data: { labels, datasets },
      options: {
        scales: { x: { title: { display: true, text: granularity === 'hour' ? 'Hour (UTC)' : 'Date (UTC)' } }, y: countAxis },
        plugins: { tooltip: { callbacks: { label: countTooltip } } },
      },
    },
  });
}
