// Updates: every update with events in the range, how each prompt did, and
// what the live configuration says of it. Answers "which prompts are
// running, and which work?"

import { rangeParameters, hashOf } from './address.js';
import { actionColours, chartFigure } from './charts.js';
import { h, notice, table } from './dom.js';
import { count, percent, time, datesBetween } from './format.js';

const actions = ['impression', 'download', 'later', 'ignore'];

export async function load(api, address) {
  const range = rangeParameters(address);
  // Events per action and the configuration come with the list, and
  // impressions per day from the grouped report; both are read from daily
  // aggregates and answer in milliseconds. Installs per action over the
  // range (for the rates, distinct over the whole range as the update's own
  // report counts them) are counted from each day's members, which takes
  // longer over a wide range: the table is drawn first, its rates filled in
  // when they arrive.
  const installsAnswer = api.json('/v1/report', { ...range, groupBy: 'updateId,action' });
  // Not left unhandled if the list fails first; `pending` rethrows it.
  installsAnswer.catch(() => {});
  const [list, byDay] = await Promise.all([
    api.json('/v1/updates', range),
    api.json('/v1/report', { ...range, groupBy: 'updateId,action,date' }),
  ]);
  if (list.updates.length === 0) {
    return { title: 'Updates', content: [notice('empty', `No events in this range (${address.from} to ${address.to}, UTC).`)] };
  }

  const rateCells = [];
  const rateCell = (update, action) => {
    const cell = h('span', { class: 'pending', title: 'counting installs…' }, '…');
    rateCells.push({ cell, updateId: update.updateId, action });
    return cell;
  };
  const pending = installsAnswer.then((byAction) => {
    const installs = new Map();
    for (const row of byAction.rows) installs.set(`${row.updateId}\u0000${row.action}`, row.installs);
    const installsOf = (updateId, action) => installs.get(`${updateId}\u0000${action}`) ?? 0;
    for (const { cell, updateId, action } of rateCells) {
      const shown = installsOf(updateId, 'impression');
      cell.textContent = percent(shown > 0 ? installsOf(updateId, action) / shown : null);
      cell.classList.remove('pending');
      cell.removeAttribute('title');
    }
  });

  const impressionsByDay = new Map();
  let firstDate = null;
  let lastDate = null;
  for (const row of byDay.rows) {
    if (row.action !== 'impression') continue;
    if (!impressionsByDay.has(row.updateId)) impressionsByDay.set(row.updateId, new Map());
    impressionsByDay.get(row.updateId).set(row.date, row.events);
    if (firstDate === null || row.date < firstDate) firstDate = row.date;
    if (lastDate === null || row.date > lastDate) lastDate = row.date;
  }
  const dates = firstDate === null ? [] : datesBetween(firstDate, lastDate);

  const figures = [];
  const trend = (update) => {
    const perDay = impressionsByDay.get(update.updateId) ?? new Map();
    const values = dates.map((date) => perDay.get(date) ?? 0);
    const total = values.reduce((sum, value) => sum + value, 0);
    const figure = chartFigure({
      description: `Impressions per day of ${update.updateId}: ${count(total)} from ${dates[0] ?? address.from} to ${dates.at(-1) ?? address.to}`,
      small: { width: 128, height: 36 },
      className: 'spark',
      config: {
        type: 'line',
        data: {
          labels: dates,
          datasets: [{
            label: 'Impressions',
            data: values,
            borderColor: actionColours.impression,
            borderWidth: 1.5,
            pointRadius: 0,
            fill: false,
          }],
        },
        options: {
          events: [],
          plugins: { legend: { display: false }, tooltip: { enabled: false } },
          scales: { x: { display: false }, y: { display: false, beginAtZero: true } },
        },
      },
    });
    figures.push(figure);
    return figure;
  };

  const link = (update) =>
    h('a', { href: hashOf({ ...address, view: 'update', updateId: update.updateId, extra: {} }), 'data-update-id': update.updateId }, update.updateId);
  const columns = [
    { key: 'updateId', label: 'Update', cell: link },
    ...actions.map((action) => ({
      key: action,
      label: `${action[0].toUpperCase()}${action.slice(1)}s`,
      title: `events: ${action}`,
      numeric: true,
      cell: (update) => count(update[action]),
    })),
    ...actions.slice(1).map((action) => ({
      key: `${action}Rate`,
      label: `${action[0].toUpperCase()}${action.slice(1)} rate`,
      title: `installs with a ${action} ÷ installs shown the prompt`,
      numeric: true,
      cell: (update) => rateCell(update, action),
    })),
    { key: 'trend', label: 'Impressions per day', cell: trend },
    { key: 'platform', label: 'Platform', cell: (update) => update.platform ?? '—' },
    { key: 'targetVersion', label: 'Target version', cell: (update) => update.targetVersion ?? '—' },
    { key: 'option', label: 'Option', cell: (update) => update.option ?? '—' },
    {
      key: 'rolloutPercent',
      label: 'Rollout',
      numeric: true,
      cell: (update) => (update.rolloutPercent === null || update.rolloutPercent === undefined ? '—' : `${update.rolloutPercent}%`),
    },
    { key: 'lastSeen', label: 'Last event', cell: (update) => time(update.lastSeen) },
  ];
  const unconfigured = list.updates.filter((update) => update.targetVersion === null).length;
  return {
    title: 'Updates',
    content: [
      h('p', { class: 'lede' },
        `${count(list.updates.length)} updates with events from ${address.from} to ${address.to} (UTC). `,
        'Counts are events; a rate is installs with that action over installs shown the prompt.',
        unconfigured > 0 ? ` ${count(unconfigured)} ${unconfigured === 1 ? 'is' : 'are'} not named by the live configuration (shown as —).` : null),
      table('Updates in the range', columns, list.updates, { 'data-table': 'updates' }),
    ],
    figures,
    pending,
  };
}
