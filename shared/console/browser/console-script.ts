/**
 * The console's browser code, bundled with Chart.js into one script (console-assets.ts): copy
 * buttons, and the overview's chart of credits (or calls) per day stacked by operation. The chart
 * reads the accessible table printed beside it, so what it draws is what the table says.
 */

import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { setUpPasskeys } from './passkeys.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

type Metric = 'credits' | 'calls';

const PALETTE = ['#1f5fa8', '#c2571a', '#2e7d32', '#7b3fa0', '#a8324a', '#00796b', '#6d5b00', '#455a64'];

function setUpCopyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy ?? '');
      const status = document.getElementById(button.dataset.status ?? '');
      try {
        await navigator.clipboard.writeText(source?.textContent ?? '');
        if (status) status.textContent = 'Copied.';
      } catch {
        if (status) status.textContent = 'Copying failed; select the text and copy it.';
      }
    });
  }
}

/** The table's series: one per operation (its columns), values per day (its rows). */
function seriesOf(table: HTMLTableElement, metric: Metric) {
  const operations = [...table.querySelectorAll<HTMLElement>('thead th[data-operation]')].map(
    (cell) => cell.dataset.operation ?? '',
  );
  const rows = [...table.querySelectorAll<HTMLTableRowElement>('tbody tr')];
  const labels = rows.map((row) => row.querySelector('th')?.textContent ?? '');
  const datasets = operations.map((operation, index) => ({
    label: operation,
    backgroundColor: PALETTE[index % PALETTE.length],
    data: rows.map((row) => Number(row.querySelectorAll<HTMLElement>('td')[index]?.dataset[metric] ?? 0)),
  }));
  return { labels, datasets };
}

function setUpUsageChart(): void {
  const canvas = document.getElementById('usage-chart');
  const table = document.getElementById('usage-chart-table');
  if (!(canvas instanceof HTMLCanvasElement) || !(table instanceof HTMLTableElement)) return;
  const draw = (metric: Metric) => {
    const { labels, datasets } = seriesOf(table, metric);
    canvas.setAttribute(
      'aria-label',
      `Bar chart of ${metric} per day, stacked by operation; the table below holds the same figures.`,
    );
    // What is drawn, for anyone (or any test) comparing the chart with the API.
    canvas.dataset.drawn = JSON.stringify({
      metric,
      labels,
      datasets: datasets.map(({ label, data }) => ({ label, data })),
    });
    return { labels, datasets };
  };
  const chart = new Chart(canvas, {
    type: 'bar',
    data: draw('credits'),
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
    },
  });
  for (const input of document.querySelectorAll<HTMLInputElement>('input[name="chart-metric"]')) {
    input.addEventListener('change', () => {
      chart.data = draw(input.value === 'calls' ? 'calls' : 'credits');
      chart.update();
    });
  }
  const switcher = document.getElementById('chart-metric');
  if (switcher) switcher.hidden = false;
}

setUpCopyButtons();
setUpUsageChart();
setUpPasskeys();
