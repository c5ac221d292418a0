/**
 * Every way the service is asked to stop, delivered once: SIGTERM (a process manager, `kill`),
 * SIGINT (Ctrl-C), SIGHUP (its terminal closed), and the death of the process that started it.
 *
 * The last one is for wrappers: npm runs a script through `sh -c` and passes SIGTERM and SIGINT to
 * that shell alone. The root scripts `exec` the service, so npm's signals reach it; but an npm (or
 * any parent) killed outright would leave the service running on, orphaned, holding its port and
 * its database. A parent that is pid 1 (a container's init, systemd) is no wrapper: nothing to watch.
 */
export function onStopRequest(stop: (reason: string) => void, opts: { parentPollMs?: number } = {}): void {
  let requested = false;
  const once = (reason: string) => {
    if (requested) return;
    requested = true;
    stop(reason);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => once(signal));

  const parent = process.ppid;
  if (parent <= 1) return;
  const watch = setInterval(() => {
    // Reparented (POSIX), or the parent's pid no longer names a process (Windows keeps the ppid).
    if (process.ppid !== parent || !alive(parent)) {
      clearInterval(watch);
      once(`its parent process ${parent} exited`);
    }
  }, opts.parentPollMs ?? 500);
  watch.unref();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
