import { LockOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Card,
  Form,
  Select,
  Skeleton,
  Space,
  Switch,
  Table,
  Tooltip,
  Typography,
  message as toast,
} from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorMessage } from '../../components/error-message';
import { errorLine } from '../../components/error-text';
import { applyFieldErrors } from '../../components/form-errors';

const CHANNELS = ['inapp', 'email', 'sms', 'push', 'webhook', 'chat'] as const;
type Channel = (typeof CHANNELS)[number];
const DIGEST = ['realtime', 'hourly', 'daily'] as const;
const MATRIX_KEY = ['notifications', 'preferences', 'matrix'];
const SETTINGS_KEY = ['notifications', 'preferences', 'settings'];

/** Every half hour of a day as HH:mm, plus the stored value if it is between them. */
function times(extra: string | null | undefined): string[] {
  const all = Array.from(
    { length: 48 },
    (_, i) => `${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`,
  );
  if (extra && !all.includes(extra)) all.push(extra);
  return all.sort();
}

function timeZones(current: string | undefined): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC'];
  return current && !zones.includes(current) ? [current, ...zones] : zones;
}

/** My notification preferences: the events × channels matrix, quiet hours, time zone and digest. */
export default function PreferencesTab() {
  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Matrix />
      <Settings />
    </Space>
  );
}

function Matrix() {
  const { t } = useTranslation('notifications');
  const [message, toastHolder] = toast.useMessage();
  const queryClient = useQueryClient();
  const matrix = useQuery({
    queryKey: MATRIX_KEY,
    queryFn: () => unwrap(api.GET('/api/notification-preferences/matrix')),
  });
  const save = useMutation({
    mutationFn: (item: { eventKey: string; channel: Channel; enabled: boolean }) =>
      unwrap(api.PUT('/api/notification-preferences/matrix', { body: { items: [item] } })),
    onSuccess: (data) => queryClient.setQueryData(MATRIX_KEY, data),
    onError: (err) => void message.error(errorLine(t, err)),
  });
  type Row = NonNullable<typeof matrix.data>[number];
  const present = CHANNELS.filter((c) => matrix.data?.some((row) => row.channels.some((x) => x.channel === c)));

  return (
    <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('preferences.matrixTitle')}</h2>}>
      {toastHolder}
      <Typography.Paragraph type="secondary">{t('preferences.matrixHelp')}</Typography.Paragraph>
      <ErrorMessage error={matrix.error} />
      <Table<Row>
        rowKey="eventKey"
        size="small"
        pagination={false}
        loading={matrix.isPending}
        dataSource={matrix.data ?? []}
        locale={{ emptyText: t('preferences.noEvents') }}
        scroll={{ x: true }}
        columns={[
          {
            title: t('preferences.event'),
            dataIndex: 'displayName',
            render: (_, row) => (
              <>
                <Typography.Text>{row.displayName}</Typography.Text>
                <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
                  {row.group}
                </Typography.Text>
              </>
            ),
          },
          ...present.map((channel) => ({
            title: t(`preferences.channels.${channel}`),
            key: channel,
            align: 'center' as const,
            render: (_: unknown, row: Row) => {
              const cell = row.channels.find((c) => c.channel === channel);
              if (!cell) return null;
              const label = t('preferences.switchLabel', {
                event: row.displayName,
                channel: t(`preferences.channels.${channel}`),
              });
              const control = (
                <Space size={4}>
                  <Switch
                    size="small"
                    aria-label={cell.locked ? `${label} (${t('preferences.locked')})` : label}
                    checked={cell.enabled}
                    disabled={cell.locked}
                    loading={
                      save.isPending && save.variables?.eventKey === row.eventKey && save.variables.channel === channel
                    }
                    onChange={(enabled) => save.mutate({ eventKey: row.eventKey, channel, enabled })}
                  />
                  {cell.locked ? <LockOutlined aria-hidden /> : null}
                </Space>
              );
              return cell.locked ? <Tooltip title={t('preferences.locked')}>{control}</Tooltip> : control;
            },
          })),
        ]}
      />
    </Card>
  );
}

type SettingsForm = {
  globalMuted: boolean;
  timezone: string;
  quietStart: string | null;
  quietEnd: string | null;
  digestMode: (typeof DIGEST)[number];
  digestHour: number;
};

function Settings() {
  const { t } = useTranslation('notifications');
  const [message, toastHolder] = toast.useMessage();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<SettingsForm>();
  const settings = useQuery({
    queryKey: SETTINGS_KEY,
    queryFn: () => unwrap(api.GET('/api/notification-preferences/settings')),
  });
  useEffect(() => {
    if (settings.data) form.setFieldsValue(settings.data);
  }, [settings.data, form]);
  const save = useMutation({
    mutationFn: (body: SettingsForm) =>
      unwrap(
        api.PUT('/api/notification-preferences/settings', {
          body: { ...body, quietStart: body.quietStart ?? null, quietEnd: body.quietEnd ?? null },
        }),
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(SETTINGS_KEY, data);
      void message.success(t('done.saved'));
    },
    // the server's reason lands on its field (quiet hours half set, an unknown time zone); the
    // alert above the form says the rest, with the request id
    onError: (err) => applyFieldErrors(form, err),
  });
  const digestMode = Form.useWatch('digestMode', form);

  return (
    <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('preferences.settingsTitle')}</h2>}>
      {toastHolder}
      <ErrorMessage error={settings.error ?? save.error} />
      {settings.isPending ? (
        <Skeleton active />
      ) : (
        <Form<SettingsForm> form={form} layout="vertical" onFinish={(v) => save.mutate(v)} style={{ maxWidth: 520 }}>
          <Form.Item name="globalMuted" label={t('preferences.globalMuted')} valuePropName="checked">
            <Switch />
          </Form.Item>
          <Form.Item name="timezone" label={t('preferences.timezone')} rules={[{ required: true }]}>
            <Select showSearch options={timeZones(settings.data?.timezone).map((z) => ({ value: z, label: z }))} />
          </Form.Item>
          <Typography.Paragraph type="secondary">{t('preferences.quietHelp')}</Typography.Paragraph>
          <Space wrap>
            <Form.Item name="quietStart" label={t('preferences.quietStart')}>
              <Select
                allowClear
                style={{ width: 140 }}
                options={times(settings.data?.quietStart).map((v) => ({ value: v, label: v }))}
              />
            </Form.Item>
            <Form.Item name="quietEnd" label={t('preferences.quietEnd')}>
              <Select
                allowClear
                style={{ width: 140 }}
                options={times(settings.data?.quietEnd).map((v) => ({ value: v, label: v }))}
              />
            </Form.Item>
          </Space>
          <Space wrap>
            <Form.Item name="digestMode" label={t('preferences.digestMode')}>
              <Select
                style={{ width: 200 }}
                options={DIGEST.map((v) => ({ value: v, label: t(`preferences.digest.${v}`) }))}
              />
            </Form.Item>
            <Form.Item name="digestHour" label={t('preferences.digestHour')}>
              <Select
                style={{ width: 120 }}
                disabled={digestMode !== 'daily'}
                options={Array.from({ length: 24 }, (_, h) => ({
                  value: h,
                  label: t('preferences.hour', { hour: String(h).padStart(2, '0') }),
                }))}
              />
            </Form.Item>
          </Space>
          <Form.Item>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {t('actions.save')}
            </Button>
          </Form.Item>
        </Form>
      )}
    </Card>
  );
}
