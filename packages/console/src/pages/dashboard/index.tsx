import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Skeleton, Statistic, Typography } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useMayCall } from '../../app/me';
import { ErrorMessage } from '../../components/error-message';
import { dashboardStats } from './stats';

const FIGURES = ['users', 'onlineUsers', 'todayLogins', 'todayOperations'] as const;

// ECharts is a chunk of its own, fetched after the totals are on screen (the first screen's budget)
const TrendCharts = lazy(() => import('./trend-charts'));

/** The home page: the totals and the 14-day trend of /api/dashboard/stats, for those who may see them. */
export default function DashboardPage() {
  const { t } = useTranslation();
  const allowed = useMayCall()('ops.dashboard_stats.get');
  const stats = useQuery({ queryKey: ['dashboard', 'stats'], queryFn: dashboardStats, enabled: allowed });
  const placeholder = (
    <Card style={{ marginTop: 16 }}>
      <Skeleton active paragraph={{ rows: 6 }} />
    </Card>
  );
  return (
    <>
      <Typography.Title level={1} style={{ fontSize: 22 }}>
        {t('dashboard.title')}
      </Typography.Title>
      {!allowed ? <Typography.Paragraph>{t('dashboard.noPermission')}</Typography.Paragraph> : null}
      <ErrorMessage error={stats.error} />
      {allowed ? (
        <Row gutter={[16, 16]}>
          {FIGURES.map((key) => (
            <Col key={key} xs={24} sm={12} lg={6}>
              <Card>
                <Statistic title={t(`dashboard.${key}`)} value={stats.data?.[key]} loading={stats.isPending} />
              </Card>
            </Col>
          ))}
        </Row>
      ) : null}
      {stats.data ? (
        <Suspense fallback={placeholder}>
          <TrendCharts trend={stats.data.trend} />
        </Suspense>
      ) : allowed && stats.isPending ? (
        placeholder
      ) : null}
    </>
  );
}
