import { theme } from 'antd';
import type { ReactNode } from 'react';

/**
 * A bordered box of the page, in the theme's colours. Not antd's Card: it brings Tabs along
 * (about 14 KB gzip), which would take this page near its size budget.
 */
export function Panel({ label, children }: { label?: string; children: ReactNode }) {
  const { token } = theme.useToken();
  return (
    <section
      aria-label={label}
      style={{
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
        background: token.colorBgContainer,
        padding: 16,
        minWidth: 0,
      }}
    >
      {children}
    </section>
  );
}
