import { QueryProvider } from './queries';
import { RequireSession } from './require-session';
import { Shell } from './shell/layout';

/** The shell behind its session check, one lazy chunk: the sign-in page loads without either. */
export default function SignedIn() {
  return (
    <QueryProvider>
      <RequireSession>
        <Shell />
      </RequireSession>
    </QueryProvider>
  );
}
