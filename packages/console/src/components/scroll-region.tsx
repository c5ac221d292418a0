import type { ReactNode } from 'react';

/**
 * A table that may be wider than the page scrolls in a region of its own, which a keyboard can
 * reach and a screen reader names (axe: scrollable-region-focusable). Native overflow rather than
 * antd's `scroll.x`, whose hidden measure row holds focusable cells (axe: aria-hidden-focus).
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to scroll by keyboard
    <section aria-label={label} tabIndex={0} style={{ overflowX: 'auto' }}>
      {children}
    </section>
  );
}
