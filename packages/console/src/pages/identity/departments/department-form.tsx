import { useQuery } from '@tanstack/react-query';
import { Form, Input, InputNumber } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { FormDialog } from '../../../components/form-dialog';
import { DepartmentPicker } from '../shared/department-picker';
import { UserPicker } from '../shared/user-picker';
import { StatusField } from '../shared/view';

type Values = {
  name: string;
  parentId: number | null;
  headUserId: number | null;
  sort: number;
  status: 'active' | 'disabled';
};

type Props = {
  /** null: a new department */
  id: number | null;
  /** where a new department goes (null: the top level) */
  parentId: number | null;
  onClose: (saved: { id: number } | null) => void;
};

/**
 * Create a department, or change one. A new parent moves it with its whole subtree: the picker
 * does not offer the department itself nor any below it (the server refuses them too).
 */
export function DepartmentForm({ id, parentId, onClose }: Props) {
  const { t } = useTranslation('identity');
  const may = useMayCall();
  const [form] = Form.useForm<Values>();
  const detail = useQuery({
    queryKey: ['identity', 'departments', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/departments/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  const headUserId = detail.data?.headUserId ?? null;
  // the leader's name, for the picker (its search results may not hold them)
  const head = useQuery({
    queryKey: ['identity', 'users', 'detail', headUserId],
    queryFn: () => unwrap(api.GET('/api/users/{id}', { params: { path: { id: headUserId as number } } })),
    enabled: headUserId !== null && may('identity.user.get'),
    staleTime: 30_000,
  });
  useEffect(() => {
    const d = detail.data;
    if (d)
      form.setFieldsValue({
        name: d.name,
        parentId: d.parentId,
        headUserId: d.headUserId,
        sort: d.sort,
        status: d.status,
      });
  }, [detail.data, form]);

  const save = async (v: Values) => {
    const body = {
      name: v.name.trim(),
      parentId: v.parentId ?? null,
      headUserId: v.headUserId ?? null,
      sort: v.sort ?? 0,
      status: v.status,
    };
    if (id === null) return unwrap(api.POST('/api/departments', { body }));
    return unwrap(api.PUT('/api/departments/{id}', { params: { path: { id } }, body }));
  };
  const required = [{ required: true, whitespace: true, message: t('required') }];
  return (
    <FormDialog
      title={t(id === null ? 'departments.create' : 'departments.edit')}
      form={form}
      save={save}
      onSaved={(d) => onClose({ id: d.id })}
      onCancel={() => onClose(null)}
      initialValues={{ parentId, headUserId: null, status: 'active', sort: 0 }}
      loading={detail.isFetching}
      loadError={detail.error}
    >
      <Form.Item name="name" label={t('name')} rules={[...required, { max: 64 }]}>
        <Input />
      </Form.Item>
      <Form.Item
        name="parentId"
        label={t('departments.parent')}
        extra={id === null ? undefined : t('departments.moveHelp')}
      >
        <DepartmentPicker exclude={id ?? undefined} placeholder={t('departments.topLevel')} />
      </Form.Item>
      <Form.Item name="headUserId" label={t('departments.leader')}>
        <UserPicker placeholder={t('departments.pickLeader')} known={head.data ? [head.data] : []} />
      </Form.Item>
      <Form.Item name="sort" label={t('sort')}>
        <InputNumber min={0} max={1_000_000} precision={0} />
      </Form.Item>
      <StatusField />
    </FormDialog>
  );
}
