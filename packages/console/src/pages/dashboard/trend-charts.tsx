import { Card, Col, type GlobalToken, Row, Typography, theme } from 'antd';
import type { CSSProperties } from 'react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { type ChartOption, EChart } from './echart';
import type { Trend } from './stats';

type Day = Trend['days'][number];

// read by screen readers, not drawn: the chart's numbers as a table
const visuallyHidden: CSSProperties = {
  position: 'absolute',
  width: 1,
  height: 1,
  margin: -1,
  padding: 0,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
  border: 0,
};

type Series = { key: 'loginsSucceeded' | 'loginsFailed' | 'operations'; color: string };

/**
 * The dashboard's trend (GET /api/dashboard/stats `trend`): sign-ins per day, succeeded and failed
 * stacked, and operations per day. Loaded on its own (React.lazy) so ECharts is not in the first
 * screen. Colours come from antd's tokens, so the charts follow the light and dark theme; dates are
 * the server's UTC days written in the person's language.
 */
export default function TrendCharts({ trend }: { trend: Trend }) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const dayLabel = useMemo(() => {
    // the days are UTC dates: formatted in UTC, so no zone moves them to the day before
    const f = new Intl.DateTimeFormat(i18n.language, { month: 'short', day: 'numeric', timeZone: 'UTC' });
    return (date: string) => f.format(new Date(`${date}T00:00:00Z`));
  }, [i18n.language]);
  const days = trend.days;

  const series = useMemo(
    () => ({
      signIns: [
        { key: 'loginsSucceeded', color: token.colorPrimary },
        { key: 'loginsFailed', color: token.colorError },
      ] satisfies Series[],
      operations: [{ key: 'operations', color: token.colorPrimary }] satisfies Series[],
    }),
    [token],
  );
  // a new option only when the data, the theme (token) or the language (t, dayLabel) change:
  // ECharts redraws then, not on every render of the page
  const options = useMemo(() => {
    const look = { token, days, dayLabel, name: (key: Series['key']) => t(`dashboard.${key}`) };
    return {
      signIns: chartOption(series.signIns, 'bar', look),
      operations: chartOption(series.operations, 'line', look),
    };
  }, [series, token, days, dayLabel, t]);

  const total = (k: Series['key']) => days.reduce((n, d) => n + d[k], 0);
  const peak = (value: (d: Day) => number) =>
    days.reduce<Day | null>((best, d) => (value(d) > (best ? value(best) : 0) ? d : best), null);
  const signInPeak = peak((d) => d.loginsSucceeded + d.loginsFailed);
  const operationPeak = peak((d) => d.operations);
  const n = days.length;

  const signInSummary = signInPeak
    ? t('dashboard.signInsSummary', {
        days: n,
        succeeded: total('loginsSucceeded'),
        failed: total('loginsFailed'),
        peakDate: dayLabel(signInPeak.date),
        peak: signInPeak.loginsSucceeded + signInPeak.loginsFailed,
      })
    : t('dashboard.signInsNone', { days: n });
  const operationSummary = operationPeak
    ? t('dashboard.operationsSummary', {
        days: n,
        total: total('operations'),
        peakDate: dayLabel(operationPeak.date),
        peak: operationPeak.operations,
      })
    : t('dashboard.operationsNone', { days: n });

  const charts = [
    {
      id: 'sign-ins',
      title: t('dashboard.signInsChart'),
      series: series.signIns,
      option: options.signIns,
      summary: signInSummary,
    },
    {
      id: 'operations',
      title: t('dashboard.operationsChart'),
      series: series.operations,
      option: options.operations,
      summary: operationSummary,
    },
  ];

  return (
    <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
      {charts.map((c) => (
        <Col key={c.id} xs={24} lg={12}>
          <Card
            title={<h2 style={{ margin: 0, fontSize: 16 }}>{c.title}</h2>}
            extra={<Typography.Text type="secondary">{t('dashboard.trendCaption', { days: n })}</Typography.Text>}
            data-testid={`trend-${c.id}`}
          >
            <EChart option={c.option} label={`${c.title}. ${c.summary}`} />
            <table style={visuallyHidden}>
              <caption>{`${c.title} (${t('dashboard.trendCaption', { days: n })})`}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('dashboard.date')}</th>
                  {c.series.map((s) => (
                    <th key={s.key} scope="col">
                      {t(`dashboard.${s.key}`)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {days.map((d) => (
                  <tr key={d.date}>
                    <th scope="row">{dayLabel(d.date)}</th>
                    {c.series.map((s) => (
                      <td key={s.key}>{d[s.key]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
        </Col>
      ))}
    </Row>
  );
}

/** The ECharts option of one chart, coloured from antd's tokens and labelled in the person's language. */
function chartOption(
  series: Series[],
  kind: 'bar' | 'line',
  {
    token,
    days,
    dayLabel,
    name,
  }: { token: GlobalToken; days: Day[]; dayLabel: (date: string) => string; name: (key: Series['key']) => string },
): ChartOption {
  return {
    backgroundColor: 'transparent',
    animation: false,
    textStyle: { color: token.colorTextSecondary, fontFamily: token.fontFamily },
    grid: { left: 8, right: 16, top: series.length > 1 ? 40 : 16, bottom: 8, containLabel: true },
    legend:
      series.length > 1 ? { top: 0, left: 0, textStyle: { color: token.colorText }, itemGap: 16 } : { show: false },
    tooltip: {
      trigger: 'axis',
      backgroundColor: token.colorBgElevated,
      borderColor: token.colorBorderSecondary,
      textStyle: { color: token.colorText },
    },
    xAxis: {
      type: 'category',
      data: days.map((d) => dayLabel(d.date)),
      axisLine: { lineStyle: { color: token.colorBorder } },
      axisLabel: { color: token.colorTextSecondary, hideOverlap: true },
      axisTick: { alignWithLabel: true },
    },
    yAxis: {
      type: 'value',
      minInterval: 1,
      axisLabel: { color: token.colorTextSecondary },
      splitLine: { lineStyle: { color: token.colorSplit } },
    },
    series: series.map((s) =>
      kind === 'bar'
        ? {
            type: 'bar' as const,
            name: name(s.key),
            stack: 'signIns',
            barMaxWidth: 24,
            itemStyle: { color: s.color },
            data: days.map((d) => d[s.key]),
          }
        : {
            type: 'line' as const,
            name: name(s.key),
            symbolSize: 6,
            itemStyle: { color: s.color },
            lineStyle: { color: s.color, width: 2 },
            areaStyle: { color: s.color, opacity: 0.12 },
            data: days.map((d) => d[s.key]),
          },
    ),
  };
}
