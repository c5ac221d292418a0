import { useQuery } from '@tanstack/react-query';
import { DatePicker, Form, Input } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import 'dayjs/locale/zh-cn';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { FormDialog } from '../../../components/form-dialog';
import { StatusField } from '../shared/view';

type Values = {
  code: string;
  name: string;
  adminUsername: string;
  adminPassword: string;
  expiresAt?: Dayjs | null;
  status: 'active' | 'disabled';
  remark?: string;
};

/** The server's TenantCode: what a person types at sign-in, so lower case and short. */
const CODE = /^[a-z0-9][a-z0-9-]{1,31}$/;

/**
 * Create a tenant with its first administrator (who gets every permission and menu a tenant may
 * hold), or change one: name, status, expiry, remark (the code is what people sign in with, and
 * stays). The expiry is a day: the tenant works until the end of it, in the person's time zone.
 * `onClose` says what to tell the person, or nothing when they cancelled.
 */
export function TenantForm({ id, onClose }: { id: number | null; onClose: (said?: string) => void }) {
  const { t, i18n } = useTranslation('identity');
  // the calendar's month and weekday names follow the console's language
  dayjs.locale(i18n.language === 'en' ? 'en' : 'zh-cn');
  const [form] = Form.useForm<Values>();
  const detail = useQuery({
    queryKey: ['identity', 'tenants', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/tenants/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  useEffect(() => {
    const r = detail.data;
    if (r)
      form.setFieldsValue({
        code: r.code,
        name: r.name,
        status: r.status,
        expiresAt: r.expiresAt ? dayjs(r.expiresAt) : null,
        remark: r.remark,
      });
  }, [detail.data, form]);

  const save = async (v: Values) => {
    const common = {
      name: v.name.trim(),
      expiresAt: v.expiresAt ? v.expiresAt.endOf('day').toISOString() : null,
      remark: v.remark ?? '',
    };
    if (id === null) {
      const created = await unwrap(
        api.POST('/api/tenants', {
          body: { ...common, code: v.code, adminUsername: v.adminUsername, adminPassword: v.adminPassword },
        }),
      );
      return t('tenants.created', { name: created.name, username: created.admin.username, code: created.code });
    }
    await unwrap(api.PUT('/api/tenants/{id}', { params: { path: { id } }, body: { ...common, status: v.status } }));
    return t('saved');
  };
  const required = [{ required: true, message: t('required') }];
  const now = dayjs();
  return (
    <FormDialog
      title={t(id === null ? 'tenants.create' : 'tenants.edit')}
      form={form}
      save={save}
      onSaved={(said) => onClose(said)}
      onCancel={() => onClose()}
      initialValues={{ status: 'active', expiresAt: null }}
      loading={detail.isFetching}
      loadError={detail.error}
      width={640}
    >
      <Form.Item
        name="code"
        label={t('tenants.code')}
        extra={t(id === null ? 'tenants.codeHelp' : 'tenants.codeFixed')}
        rules={id === null ? [...required, { pattern: CODE, message: t('tenants.codeRule') }] : undefined}
      >
        <Input readOnly={id !== null} autoComplete="off" maxLength={32} />
      </Form.Item>
      <Form.Item name="name" label={t('name')} rules={required}>
        <Input maxLength={128} />
      </Form.Item>
      {id === null ? (
        <>
          <Form.Item name="adminUsername" label={t('tenants.adminUsername')} rules={required}>
            <Input autoComplete="off" maxLength={64} />
          </Form.Item>
          <Form.Item name="adminPassword" label={t('tenants.adminPassword')} rules={required}>
            <Input.Password autoComplete="new-password" maxLength={128} />
          </Form.Item>
        </>
      ) : (
        <StatusField extra={t('tenants.disableHelp')} />
      )}
      <Form.Item name="expiresAt" label={t('tenants.expiresAt')} extra={t('tenants.expiresHelp')}>
        <DatePicker
          allowClear
          placeholder={t('tenants.neverExpires')}
          presets={[
            { label: t('tenants.inMonths', { count: 1 }), value: now.add(1, 'month') },
            { label: t('tenants.inMonths', { count: 3 }), value: now.add(3, 'month') },
            { label: t('tenants.inYears', { count: 1 }), value: now.add(1, 'year') },
          ]}
        />
      </Form.Item>
      <Form.Item name="remark" label={t('remark')}>
        <Input.TextArea rows={2} maxLength={500} />
      </Form.Item>
    </FormDialog>
  );
}
