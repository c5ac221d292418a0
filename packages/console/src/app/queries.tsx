import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { onSessionChange } from './session';

/**
 * One query cache for the whole console, provided by the pages that query (the shell, public
 * pages) rather than at the root: the sign-in page loads without TanStack Query.
 */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

// A session's answers belong to its person: signing out forgets them, so whoever signs in next on
// this tab sees their own menus and permissions rather than the cached ones of the one before.
onSessionChange((signedIn) => {
  if (!signedIn) queryClient.clear();
});

export function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
