/**
 * The one check of URLs the open platform stores (redirect URIs, webhook receivers, homepage and
 * logo links): absolute http(s), no credentials, no fragment. Returns why not, or null.
 */
export function httpUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash !== '' || text.includes('#')) return 'must not contain a fragment';
  return null;
}
