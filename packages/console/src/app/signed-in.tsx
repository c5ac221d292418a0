import { App } from 'antd';
import { useEffect } from 'react';
import { startLive } from './live';
import { QueryProvider, queryClient } from './queries';
import { RequireSession } from './require-session';
import { Shell } from './shell/layout';

/**
 * The shell behind its session check, one lazy chunk: the sign-in page loads without either. antd's
 * App context (messages, confirmations) is the shell's, so each page does not bring its own.
 */
export default function SignedIn() {
  return (
    <QueryProvider>
      <App component={false}>
        <RequireSession>
          <Live />
          <Shell />
        </RequireSession>
      </App>
    </QueryProvider>
  );
}

/** The one live socket of the signed-in console (live.ts), open while the shell is. */
function Live() {
  useEffect(() => startLive(queryClient), []);
  return null;
}
