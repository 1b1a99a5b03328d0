// One update: what happened to its prompt day by day, how many installs
// took each action, and how many went on to run a higher version: the
// funnel from prompt to real upgrade.

import { rangeParameters } from './address.js';
import { actionColours, chartFigure, countAxis, countTooltip, pointStyle } from './charts.js';
import { h, notice, table } from './dom.js';
import { count, percent, ratio, hours, time, datesBetween } from './format.js';

const actions = ['impression', 'download', 'later', 'ignore'];
const actionNames = { impression: 'Impressions', download: 'Downloads', later: 'Later', ignore: 'Ignore' };

export async function load(api, address) {
  const range = rangeParameters(address);
  const path = `/v1/updates/${encodeURIComponent(address.updateId)}`;
  const [update, funnel] = await Promise.all([api.json(path, range), api.json(`${path}/funnel`, range)]);

  const header = h('p', { class: 'lede' }, `From ${address.from} to ${address.to} (UTC).`);
  const content = [header, configuration(update)];
  if (update.days.length === 0) {
    content.push(notice('empty', `No events of ${update.updateId} in this range (${address.from} to ${address.to}, UTC).`));
    return { title: `Update ${update.updateId}`, content };
  }
  const daysFigure = eventsPerDay(update);
  const funnelFigure = funnelChart(funnel);
  content.push(
    h('section', { 'aria-labelledby': 'actions-heading' },
      h('h2', { id: 'actions-heading' }, 'Installs by action'),
      actionCards(update)),
    h('section', { 'aria-labelledby': 'funnel-heading' },
      h('h2', { id: 'funnel-heading' }, 'From prompt to upgrade'),
      funnelFigure,
      funnelSteps(funnel)),
    h('section', { 'aria-labelledby': 'days-heading' },
      h('h2', { id: 'days-heading' }, 'Events per day (UTC)'),
      daysFigure,
      h('details', {},
        h('summary', {}, 'Events per day as a table'),
        table(`Events of ${update.updateId} per day (UTC)`, [
          { key: 'date', label: 'Date (UTC)', cell: (day) => day.date },
          ...actions.map((action) => ({ key: action, label: actionNames[action], numeric: true, cell: (day) => count(day[action]) })),
        ], update.days, { 'data-table': 'days' }))),
  );
  return { title: `Update ${update.updateId}`, content, figures: [funnelFigure, daysFigure] };
}

function configuration(update) {
  const rows = [
    ['Platform', update.platform],
    ['Target version', update.targetVersion],
    ['Option', update.option],
    ['Rollout', update.rolloutPercent === null || update.rolloutPercent === undefined ? null : `${update.rolloutPercent}%`],
  ];
  const named = rows.some(([, value]) => value !== null && value !== undefined);
  return h('section', { 'aria-labelledby': 'configuration-heading' },
    h('h2', { id: 'configuration-heading' }, 'Live configuration'),
    named
      ? h('dl', { class: 'facts', 'data-facts': 'configuration' },
        rows.map(([label, value]) => [h('dt', {}, label), h('dd', {}, value ?? '—')]))
      : h('p', {}, 'The live configuration names no entry for this update.'),
    storeLag(update.storeLag));
}

/** Per country, how long the App Store took to serve the configured version. */
function storeLag(lags) {
  if (!lags || lags.length === 0) return null;
  return table('App Store: when the configured version was served', [
    { key: 'country', label: 'Country', cell: (lag) => lag.country.toUpperCase() },
    { key: 'version', label: 'Version', cell: (lag) => lag.version },
    { key: 'configuredAt', label: 'Configured', cell: (lag) => time(lag.configuredAt) },
    { key: 'liveSince', label: 'Served since', cell: (lag) => (lag.liveSince ? time(lag.liveSince) : 'not yet') },
    { key: 'lagHours', label: 'Lag', numeric: true, cell: (lag) => hours(lag.lagHours) },
  ], lags, { 'data-table': 'store-lag' });
}

function actionCards(update) {
  return h('ul', { class: 'cards', 'data-cards': 'actions' },
    actions.map((action) => {
      const figures = update.actions[action];
      const rate = action === 'impression' ? null : update[`${action}Rate`];
      return h('li', { class: 'card', 'data-action': action },
        h('span', { class: 'card-label' }, actionNames[action]),
        h('span', { class: 'card-value', 'data-figure': 'installs' }, count(figures.installs)),
        h('span', { class: 'card-detail' }, 'installs · ',
          h('span', { 'data-figure': 'events' }, count(figures.events)), ' events'),
        rate === null
          ? null
          : h('span', { class: 'card-detail' },
            h('span', { 'data-figure': 'rate' }, percent(rate)), ' of installs shown the prompt'));
    }));
}

function eventsPerDay(update) {
  const byDate = new Map(update.days.map((day) => [day.date, day]));
  const dates = datesBetween(update.days[0].date, update.days.at(-1).date);
  return chartFigure({
    caption: 'Events per day and action, stacked; dates in UTC.',
    description: `Events per day of ${update.updateId} from ${dates[0]} to ${dates.at(-1)}, stacked by action.`,
    config: {
      type: 'bar',
      data: {
        labels: dates,
        datasets: actions.map((action, index) => ({
          label: actionNames[action],
          data: dates.map((date) => byDate.get(date)?.[action] ?? 0),
          backgroundColor: actionColours[action],
          borderColor: '#ffffff',
          borderWidth: { top: 1 },
          pointStyle: pointStyle(index),
        })),
      },
      options: {
        scales: { x: { stacked: true, title: { display: true, text: 'Date (UTC)' } }, y: { ...countAxis, stacked: true } },
        plugins: { tooltip: { callbacks: { label: countTooltip } } },
      },
    },
  });
}

function funnelSteps(funnel) {
  const steps = [
    ['impressions', 'Shown the prompt', funnel.impressions, null],
    ['downloads', 'Chose Update', funnel.downloads, ratio(funnel.downloads, funnel.impressions)],
    ['upgraded', 'Upgraded', funnel.upgraded, ratio(funnel.upgraded, funnel.downloads)],
  ];
  return h('div', { class: 'funnel-figures' },
    h('ol', { class: 'funnel-steps', 'data-funnel': 'steps' },
      steps.map(([key, label, value, kept]) =>
        h('li', { 'data-step': key },
          h('span', { class: 'card-label' }, label),
          h('span', { class: 'card-value', 'data-figure': 'installs' }, count(value)),
          h('span', { class: 'card-detail' }, 'installs',
            kept === null ? null : [' · ', h('span', { 'data-figure': 'kept' }, kept), ' of the step before'])))),
    h('p', { 'data-figure': 'median-hours' },
      'Median time from first impression to upgrade: ', h('strong', {}, hours(funnel.medianHoursToUpgrade)),
      funnel.upgraded > 0 ? ` (over ${count(funnel.upgraded)} upgraded installs).` : '.'));
}

function funnelChart(funnel) {
  const labels = ['Shown the prompt', 'Chose Update', 'Upgraded'];
  const values = [funnel.impressions, funnel.downloads, funnel.upgraded];
  const kept = ['100%', ratio(funnel.downloads, funnel.impressions), ratio(funnel.upgraded, funnel.downloads)];
  return chartFigure({
    caption: 'Installs at each step; the share is of the step before.',
    description: `Funnel: ${labels.map((label, index) => `${label} ${count(values[index])}`).join(', ')}.`,
    height: 200,
    config: {
      type: 'bar',
      data: {
        labels: labels.map((label, index) => `${label} (${kept[index]})`),
        datasets: [{
          label: 'Installs',
          data: values,
          backgroundColor: [actionColours.impression, actionColours.download, '#117733'],
        }],
      },
      options: {
        indexAxis: 'y',
        scales: { x: countAxis },
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: countTooltip } } },
      },
    },
  });
}
