/**
 * The targets, each checked against its yardstick of the same run. A ratio target is
 * `value ÷ yardstick ≥ min`; a limit target is `value ≤ max` (or `< max` where the issue says so).
 * A measurement with failed requests is not valid, whatever its ratio.
 */
export type Target = {
  name: string;
  measured: string;
  yardstick: string;
  /** the ratio or the value compared with the goal, as printed */
  compared: string;
  goal: string;
  met: boolean;
  valid: boolean;
};

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function ratioTarget(
  name: string,
  value: { text: string; n: number },
  yardstick: { text: string; n: number },
  min: number,
  valid = true,
): Target {
  const ratio = value.n / yardstick.n;
  return {
    name,
    measured: value.text,
    yardstick: yardstick.text,
    compared: `${fmt(ratio, 3)}×`,
    goal: `≥ ${fmt(min, 2)}×`,
    met: ratio >= min,
    valid,
  };
}

export function limitTarget(
  name: string,
  value: number,
  unit: string,
  max: number,
  opts: { strict?: boolean; digits?: number; valid?: boolean } = {},
): Target {
  const text = `${fmt(value, opts.digits ?? 0)} ${unit}`;
  return {
    name,
    measured: text,
    yardstick: '—',
    compared: text,
    goal: `${opts.strict ? '<' : '≤'} ${fmt(max, opts.digits ?? 0)} ${unit}`,
    met: opts.strict ? value < max : value <= max,
    valid: opts.valid ?? true,
  };
}

/** The cell of a section's "target" column. */
export function verdict(t: Target): string {
  return `${t.goal}: ${t.valid ? (t.met ? 'met' : 'NOT met') : 'not valid'}`;
}

type Table = (head: string[], body: string[][], textColumns?: number) => string[];

export function targetTable(targets: Target[], table: Table): string[] {
  return table(
    ['target', 'measured', 'yardstick (same run)', 'ratio or value', 'goal', 'met'],
    targets.map((t) => [
      t.name,
      t.measured,
      t.yardstick,
      t.compared,
      t.goal,
      t.valid ? (t.met ? 'met' : 'NOT met') : 'not valid',
    ]),
    1,
  );
}
