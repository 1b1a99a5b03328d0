// Chart.js (Debian's libjs-chart.js 3.9, served by uptaked beside this file)
// set up once for the dashboard: colours a colour-blind reader can tell
// apart, a distinct marker shape per series in every legend, so no series is
// told by colour alone, and no animation, so a chart is drawn the moment its
// data is in.

import { h } from './dom.js';
import { count, percent } from './format.js';

const Chart = window.Chart;

// Paul Tol's "muted" scheme: nine colours distinguishable with the common
// colour-vision deficiencies, then a neutral grey for "other".
export const seriesColours = [
  '#332288', '#88CCEE', '#44AA99', '#117733', '#999933',
  '#DDCC77', '#CC6677', '#882255', '#AA4499',
];
export const otherColour = '#BBBBBB';

// Tol's "vibrant" scheme for the four actions.
export const actionColours = {
  impression: '#0077BB',
  download: '#009988',
  later: '#EE7733',
  ignore: '#EE3377',
};

const pointStyles = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross', 'line'];

/** The marker shape of the series at `index`, shown in the legend. */
export function pointStyle(index) {
  return pointStyles[index % pointStyles.length];
}

if (Chart) {
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily;
  Chart.defaults.color = '#1f2933';
  Chart.defaults.plugins.legend.labels.usePointStyle = true;
  Chart.defaults.plugins.tooltip.mode = 'index';
  Chart.defaults.plugins.tooltip.intersect = false;
}

const liveCharts = new Set();

/** Every chart of the view being left: their canvases go with it. */
export function destroyCharts() {
  for (const chart of liveCharts) chart.destroy();
  liveCharts.clear();
  if (seeing) seeing.disconnect();
  waitingToBeSeen.clear();
}

/**
 * A chart in a figure, with a caption and a text description for screen
 * readers (the canvas itself is an image to them). Returns the figure; its
 * `draw()` makes the chart once the figure is on the page and returns a
 * promise that settles when it is drawn.
 *
 * `small` charts (the updates' sparklines, a hundred to a table) have a
 * fixed size and are drawn when they scroll into view: each Chart.js chart
 * that follows its container's size costs a layout, and a hundred of them
 * took seconds.
 */
export function chartFigure({ caption, description, config, height = 320, className = '', small = null }) {
  const canvas = h('canvas', { role: 'img', 'aria-label': description });
  const frame = h('div', { class: `chart-frame ${className}`.trim() }, canvas);
  if (small) {
    canvas.width = small.width;
    canvas.height = small.height;
    config.options = { ...config.options, responsive: false };
  } else {
    // Through the CSSOM, which the Content-Security-Policy allows (a style
    // attribute in markup it would refuse).
    frame.style.height = `${height}px`;
  }
  const figure = h('figure', { class: 'chart' }, frame, caption ? h('figcaption', {}, caption) : null);
  const make = () => {
    if (!Chart) throw new Error('Chart.js did not load');
    liveCharts.add(new Chart(canvas, config));
  };
  figure.draw = () => {
    if (!small) {
      make();
      return Promise.resolve();
    }
    return drawWhenSeen(canvas, make);
  };
  return figure;
}

const waitingToBeSeen = new Map();
const seeing = 'IntersectionObserver' in window
  ? new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const waiting = waitingToBeSeen.get(entry.target);
      if (!waiting) continue;
      // The first report says whether it is in view now: settle then, so
      // the view counts as drawn once what is on screen is drawn.
      if (entry.isIntersecting) {
        seeing.unobserve(entry.target);
        waitingToBeSeen.delete(entry.target);
        waiting.make();
      }
      waiting.settle();
    }
  }, { rootMargin: '200px' })
  : null;

function drawWhenSeen(canvas, make) {
  if (!seeing) {
    make();
    return Promise.resolve();
  }
  return new Promise((settle) => {
    waitingToBeSeen.set(canvas, { make, settle });
    seeing.observe(canvas);
  });
}

/** Axis ticks and tooltips in thousands-separated counts. */
export const countAxis = {
  beginAtZero: true,
  ticks: { callback: (value) => count(value), precision: 0 },
};

/** An axis of shares, 0–100 %. */
export const shareAxis = {
  stacked: true,
  min: 0,
  max: 1,
  ticks: { callback: (value) => percent(value).replace(/\.0(?=\D*$)/, '') },
};

/** A tooltip line "label: 1,234". */
export function countTooltip(context) {
  return `${context.dataset.label}: ${count(context.raw)}`;
}

/** A tooltip line "label: 45.7%". */
export function shareTooltip(context) {
  return `${context.dataset.label}: ${percent(context.raw)}`;
}
