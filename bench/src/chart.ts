// A minimal SVG line chart (no dependency): axes, ticks, one polyline per series, a legend.

const W = 640;
const H = 360;
const PAD = { l: 60, r: 150, t: 40, b: 40 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

/** Round tick values (steps of 1, 2 or 5 × 10^k) covering [min, max]. */
function ticks(min: number, max: number, count = 5): number[] {
  const raw = (max - min) / count || 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(6)));
  return out;
}

const esc = (s: string): string => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const num = (v: number): string =>
  Math.abs(v) >= 1000
    ? v.toLocaleString('en', { maximumFractionDigits: 0 })
    : Number(v.toPrecision(3)).toString();

/** One line of a chart: its label and its points, `[x, y]`. */
export interface Series {
  label: string;
  points: [number, number][];
}

/** `series`: [{ label, points: [[x, y], …] }]; `logX` for sizes spanning decades. */
export function lineChart({
  title,
  series,
  logX = false,
  yFromZero = true,
}: {
  title: string;
  series: Series[];
  logX?: boolean;
  yFromZero?: boolean;
}): string {
  const all = series.flatMap((s) => s.points);
  const fx = logX ? Math.log10 : (v: number) => v;
  const xs = all.map(([x]) => fx(x));
  const ys = all.map(([, y]) => y);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const y0 = yFromZero ? 0 : Math.min(...ys);
  const y1Raw = Math.max(...ys) * 1.1 || 1;
  const yTicks = ticks(y0, y1Raw);
  const y1 = Math.max(y1Raw, yTicks.at(-1) ?? y1Raw);
  const px = (x: number) => PAD.l + ((fx(x) - x0) / (x1 - x0 || 1)) * (W - PAD.l - PAD.r);
  const py = (y: number) => H - PAD.b - ((y - y0) / (y1 - y0)) * (H - PAD.t - PAD.b);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2 - PAD.r / 2}" y="22" text-anchor="middle" font-size="14">${esc(title)}</text>`,
    `<line x1="${PAD.l}" y1="${H - PAD.b}" x2="${W - PAD.r}" y2="${H - PAD.b}" stroke="black"/>`,
    `<line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="black"/>`,
  ];
  for (const y of yTicks) {
    const at = py(y).toFixed(1);
    out.push(`<line x1="${PAD.l - 4}" y1="${at}" x2="${W - PAD.r}" y2="${at}" stroke="#ddd"/>`);
    out.push(`<text x="${PAD.l - 8}" y="${(py(y) + 4).toFixed(1)}" text-anchor="end">${num(y)}</text>`);
  }
  const xTicks = logX
    ? [...new Set(all.map(([x]) => x))]
    : ticks(Math.min(...all.map(([x]) => x)), Math.max(...all.map(([x]) => x)));
  for (const x of xTicks)
    out.push(`<text x="${px(x)}" y="${H - PAD.b + 18}" text-anchor="middle">${num(x)}</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts}"/>`);
    for (const [x, y] of s.points)
      out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`);
    out.push(`<rect x="${W - PAD.r + 15}" y="${PAD.t + i * 20}" width="12" height="12" fill="${color}"/>`);
    out.push(`<text x="${W - PAD.r + 32}" y="${PAD.t + i * 20 + 10}">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
