import createClient from 'openapi-fetch';
import type { paths } from './schema.d.ts';

/**
 * The console's one client (CONSOLE.md, "One client"): every call is typed by the paths generated
 * from the document, so a path, parameter or body the API no longer has fails the type check. The
 * service serves the console, so calls go to its own origin.
 */
export const api = createClient<paths>({ baseUrl: '' });
