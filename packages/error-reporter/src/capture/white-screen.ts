import type { CaptureInput, WhiteScreenOptions } from '../types';

export const DEFAULT_WRAPPERS = ['html', 'body', '#app', '#root'];

/**
 * Sample points: 9 along the horizontal centre line and 9 along the vertical one (the centre shared),
 * 17 in all, at tenths of the viewport.
 */
export function samplePoints(width: number, height: number): Array<[number, number]> {
  const pts: Array<[number, number]> = [];
  for (let i = 1; i <= 9; i++) {
    pts.push([(width * i) / 10, height / 2]);
    if (i !== 5) pts.push([width / 2, (height * i) / 10]);
  }
  return pts;
}

/** True when every sample point hits only wrapper elements, i.e. nothing was rendered. */
export function looksBlank(wrappers: string[]): boolean {
  if (typeof document.elementsFromPoint !== 'function') return false;
  const w = window.innerWidth;
  const h = window.innerHeight;
  if (!w || !h) return false;
  const isWrapper = (el: Element) => wrappers.some((sel) => safeMatches(el, sel));
  return samplePoints(w, h).every(([x, y]) => {
    const top = document.elementsFromPoint(x, y)[0];
    return !top || isWrapper(top);
  });
}

function safeMatches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

/** Checks once, `delay` ms after window load; reports white_screen when the page looks blank. */
export function instrumentWhiteScreen(
  report: (input: CaptureInput) => void,
  options: WhiteScreenOptions = {},
): () => void {
  const delay = options.delay ?? 3000;
  const wrappers = options.wrappers ?? DEFAULT_WRAPPERS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    if (looksBlank(wrappers)) {
      report({
        type: 'white_screen',
        message: `White screen: no content rendered ${delay} ms after load`,
        context: { viewport: `${window.innerWidth}x${window.innerHeight}`, wrappers },
      });
    }
  };
  const onLoad = () => {
    timer = setTimeout(check, delay);
  };
  if (document.readyState === 'complete') onLoad();
  else window.addEventListener('load', onLoad, { once: true });
  return () => {
    window.removeEventListener('load', onLoad);
    if (timer !== undefined) clearTimeout(timer);
  };
}
