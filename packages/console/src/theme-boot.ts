/**
 * Runs before the app's code: the chosen theme (or the system's) is on <html> before anything
 * paints, so a dark-theme user never sees a white flash.
 */
const stored = localStorage.getItem('atrium.theme');
const dark = stored ? stored === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
document.documentElement.dataset.theme = dark ? 'dark' : 'light';
document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
document.documentElement.style.background = dark ? '#141414' : '#ffffff';
