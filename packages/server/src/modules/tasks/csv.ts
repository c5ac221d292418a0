/**
 * CSV as RFC 4180 describes it (CRLF line ends, fields with `"`, `,`, CR or LF quoted, quotes
 * doubled), made safe to open in a spreadsheet: a text cell starting with `=`, `+`, `-`, `@`,
 * tab or CR would be read as a formula (OWASP "CSV Injection"), so it gets a leading `'`.
 */
export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: numbers as written, null/undefined empty, text neutralised then quoted when needed. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record with its CRLF line end. */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The UTF-8 byte-order mark: spreadsheets read the file as UTF-8 only with it. */
export const UTF8_BOM = '\uFEFF';
