import { MAX_BREADCRUMBS, MAX_URL, truncate } from './limits';
import type { Breadcrumb, BreadcrumbType } from './types';

/** Fixed-size ring: adding the 31st crumb overwrites the oldest, so memory stays flat. */
export class BreadcrumbRing {
  private readonly items: Breadcrumb[] = [];
  private next = 0;
  private readonly capacity: number;
  constructor(capacity = MAX_BREADCRUMBS) {
    this.capacity = capacity;
  }

  add(type: BreadcrumbType, message: string, data?: Record<string, unknown>, timestamp = Date.now()): void {
    const crumb: Breadcrumb = { type, message: truncate(message, 300), timestamp };
    if (data) crumb.data = data;
    if (this.items.length < this.capacity) this.items.push(crumb);
    else this.items[this.next] = crumb;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first. */
  list(): Breadcrumb[] {
    return this.items.length < this.capacity
      ? this.items.slice()
      : this.items.slice(this.next).concat(this.items.slice(0, this.next));
  }

  clear(): void {
    this.items.length = 0;
    this.next = 0;
  }
}

/** "button#save.primary" style summary; ids and classes only, never text content (it may be personal data). */
export function describeElement(el: Element): string {
  let out = el.tagName.toLowerCase();
  if (el.id) out += `#${el.id}`;
  const cls = typeof el.className === 'string' ? el.className.trim() : '';
  if (cls) out += `.${cls.split(/\s+/).slice(0, 3).join('.')}`;
  const name = el.getAttribute('name');
  if (name) out += `[name="${name}"]`;
  return out;
}

/** Selector path of the clicked element and up to two ancestors. */
export function clickPath(el: Element): string {
  const parts: string[] = [];
  for (let cur: Element | null = el; cur && parts.length < 3 && cur !== document.body; cur = cur.parentElement) {
    parts.unshift(describeElement(cur));
  }
  return parts.join(' > ');
}

/** Records navigation (pushState, replaceState, popstate) and clicks. Returns an undo function. */
export function instrumentNavigationAndClicks(ring: BreadcrumbRing): () => void {
  const history = window.history;
  let from = location.href;
  const record = (how: string) => {
    const to = location.href;
    ring.add('navigation', `${how} ${truncate(to, MAX_URL)}`, {
      from: truncate(from, MAX_URL),
      to: truncate(to, MAX_URL),
    });
    from = to;
  };
  const origPush = history.pushState;
  const origReplace = history.replaceState;
  history.pushState = function (this: History, ...args: Parameters<History['pushState']>) {
    origPush.apply(this, args);
    record('pushState');
  };
  history.replaceState = function (this: History, ...args: Parameters<History['replaceState']>) {
    origReplace.apply(this, args);
    record('replaceState');
  };
  const onPop = () => record('popstate');
  const onClick = (e: Event) => {
    const t = e.target;
    if (t instanceof Element) ring.add('click', clickPath(t));
  };
  window.addEventListener('popstate', onPop);
  // Capture phase so handlers that stop propagation do not hide the click.
  document.addEventListener('click', onClick, true);
  return () => {
    history.pushState = origPush;
    history.replaceState = origReplace;
    window.removeEventListener('popstate', onPop);
    document.removeEventListener('click', onClick, true);
  };
}
