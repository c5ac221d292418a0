import { describe, expect, it } from 'vitest';
import { closure, manifest, weight } from './bundle';

/**
 * The budgets of issue 25, read from the build: peers ship 2 MB bundles and 10 s first loads; the
 * console must not. Figures are gzip bytes of what a browser loads for the page.
 */
const KB = 1024;
const ENTRY = 'index.html';
const SIGN_IN = 'src/pages/auth/sign-in.tsx';
const FIRST_SCREEN = ['src/app/antd-layout.tsx', 'src/app/signed-in.tsx', 'src/pages/dashboard/index.tsx'];
const DASHBOARD_CHARTS = 'src/pages/dashboard/trend-charts.tsx';

describe('size budget of the built console', () => {
  const m = manifest();

  it('the sign-in page loads at most 180 KB of JavaScript', () => {
    const w = weight(m, closure(m, [ENTRY, SIGN_IN]));
    console.log(`sign-in: ${(w.js / KB).toFixed(1)} KB JS, ${(w.css / KB).toFixed(1)} KB CSS (gzip)`);
    expect(w.js).toBeLessThanOrEqual(180 * KB);
  });

  it('the first screen after sign-in loads at most 400 KB of JavaScript and 60 KB of CSS', () => {
    const w = weight(m, closure(m, [ENTRY, ...FIRST_SCREEN]));
    console.log(`first screen: ${(w.js / KB).toFixed(1)} KB JS, ${(w.css / KB).toFixed(1)} KB CSS (gzip)`);
    expect(w.js).toBeLessThanOrEqual(400 * KB);
    expect(w.css).toBeLessThanOrEqual(60 * KB);
  });

  it('each lazy page adds at most 120 KB of JavaScript to what the shell has loaded', () => {
    const shell = closure(m, [ENTRY, 'src/app/antd-layout.tsx', 'src/app/signed-in.tsx']);
    const lazy = m[ENTRY].dynamicImports ?? [];
    expect(lazy.length).toBeGreaterThan(2);
    for (const page of lazy) {
      const added = [...closure(m, [page])].filter((k) => !shell.has(k));
      const w = weight(m, added);
      console.log(`${page}: +${(w.js / KB).toFixed(1)} KB JS`);
      expect(w.js, page).toBeLessThanOrEqual(120 * KB);
    }
  });

  it("the dashboard's charts (ECharts) are a chunk of their own, at most 190 KB of JavaScript beyond the first screen", () => {
    const first = closure(m, [ENTRY, ...FIRST_SCREEN]);
    // fetched by the dashboard after its totals, never part of the first screen
    expect(m['src/pages/dashboard/index.tsx'].dynamicImports).toContain(DASHBOARD_CHARTS);
    expect(first.has(DASHBOARD_CHARTS)).toBe(false);
    const added = [...closure(m, [DASHBOARD_CHARTS])].filter((k) => !first.has(k));
    const w = weight(m, added);
    console.log(`dashboard charts: +${(w.js / KB).toFixed(1)} KB JS`);
    // ECharts 6's core alone is ~96 KB and a category axis ~35 KB more: the 150 KB aimed at is
    // below what any axis chart of it weighs (docs/decisions/0036)
    expect(w.js).toBeLessThanOrEqual(190 * KB);
  });
});
