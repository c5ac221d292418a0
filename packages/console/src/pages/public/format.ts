/** Sizes and dates as the reader's language writes them. */
export function formatBytes(bytes: number, language: string): string {
  // Intl writes "42 byte" in English: whole bytes read better as "42 B" in both languages
  if (bytes < 1024) return `${new Intl.NumberFormat(language).format(bytes)} B`;
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return new Intl.NumberFormat(language, {
    style: 'unit',
    unit: units[unit],
    unitDisplay: 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}

export const formatDate = (iso: string, language: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
