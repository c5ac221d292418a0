import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Statistic, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { useMayCall } from '../../app/me';
import { ErrorMessage } from '../../components/error-message';

const FIGURES = ['users', 'onlineUsers', 'todayLogins', 'todayOperations'] as const;

/** The home page: the totals of /api/dashboard/stats, for those who may see them. */
export default function DashboardPage() {
  const { t } = useTranslation();
  const allowed = useMayCall()('ops.dashboard_stats.get');
  const stats = useQuery({
    queryKey: ['dashboard', 'stats'],
    queryFn: () => unwrap(api.GET('/api/dashboard/stats')),
    enabled: allowed,
  });
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
    </>
  );
}
