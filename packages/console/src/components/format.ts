/** A moment as the reader's language writes it, in their own time zone (CONSOLE.md: dates). */
export const formatDateTime = (iso: string, language: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));
