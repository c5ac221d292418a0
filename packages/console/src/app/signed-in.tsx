import { useEffect } from 'react';
import { startLive } from './live';
import { QueryProvider, queryClient } from './queries';
import { RequireSession } from './require-session';
import { Shell } from './shell/layout';

/** The shell behind its session check, one lazy chunk: the sign-in page loads without either. */
export default function SignedIn() {
  return (
    <QueryProvider>
      <RequireSession>
        <Live />
        <Shell />
      </RequireSession>
    </QueryProvider>
  );
}

/** The one live socket of the signed-in console (live.ts), open while the shell is. */
function Live() {
  useEffect(() => startLive(queryClient), []);
  return null;
}
