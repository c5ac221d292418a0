import { Card, Space, Typography } from 'antd';
import type { ReactNode } from 'react';

/** The centred card every state of this page uses, with its one h1. */
export function Frame({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <main style={{ minHeight: '100vh', display: 'grid', placeItems: 'center', padding: 16 }}>
      <Card style={{ width: '100%', maxWidth: 480 }}>
        <Space direction="vertical" size="middle" style={{ width: '100%' }}>
          <Typography.Title level={1} style={{ fontSize: 22, margin: 0 }}>
            {title}
          </Typography.Title>
          {children}
        </Space>
      </Card>
    </main>
  );
}
