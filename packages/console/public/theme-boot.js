// A classic script in <head>, not a module: it runs while the page is parsed, before the first
// paint, so a dark-theme user never sees a white flash (a module would run only after parsing).
// Not inline (the Content-Security-Policy allows none) and not hashed (Vite bundles only modules):
// the service sends it with `no-cache`, a revalidation of a few hundred bytes.
// app/preferences.ts writes the same key and applies the same colours when the person switches.
(() => {
  const stored = localStorage.getItem('atrium.theme');
  const dark = stored ? stored === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  const root = document.documentElement;
  root.dataset.theme = dark ? 'dark' : 'light';
  root.style.colorScheme = dark ? 'dark' : 'light';
  root.style.background = dark ? '#141414' : '#ffffff';
})();
