import { useQuery } from '@tanstack/react-query';
import { Form, Input } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { FormDialog } from '../../../components/form-dialog';
import { DepartmentPicker } from '../shared/department-picker';
import { PositionPicker, RolePicker } from '../shared/pickers';
import { StatusField } from '../shared/view';

type Values = {
  username: string;
  password: string;
  nickname: string;
  email?: string;
  phone?: string;
  departmentId?: number | null;
  roleIds?: number[];
  positionIds?: number[];
  status: 'active' | 'disabled';
  remark?: string;
};

/** Create a user, or change one: the server checks every field, its field errors land on the fields. */
export function UserForm({ id, onClose }: { id: number | null; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('identity');
  const [form] = Form.useForm<Values>();
  const detail = useQuery({
    queryKey: ['identity', 'users', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/users/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  useEffect(() => {
    if (detail.data) {
      const u = detail.data;
      form.setFieldsValue({
        nickname: u.nickname,
        email: u.email ?? '',
        phone: u.phone ?? '',
        departmentId: u.departmentId,
        roleIds: u.roleIds,
        positionIds: u.positionIds,
        status: u.status,
        remark: u.remark,
      });
    }
  }, [detail.data, form]);
  const save = async (v: Values) => {
    const common = {
      nickname: v.nickname,
      email: v.email ? v.email : null,
      phone: v.phone ? v.phone : null,
      departmentId: v.departmentId ?? null,
      roleIds: v.roleIds ?? [],
      positionIds: v.positionIds ?? [],
      status: v.status,
      remark: v.remark ?? '',
    };
    if (id === null)
      return unwrap(api.POST('/api/users', { body: { ...common, username: v.username, password: v.password } }));
    return unwrap(api.PUT('/api/users/{id}', { params: { path: { id } }, body: common }));
  };
  const required = [{ required: true, message: t('required') }];
  return (
    <FormDialog
      title={t(id === null ? 'users.create' : 'users.edit')}
      form={form}
      save={save}
      onSaved={() => onClose(true)}
      onCancel={() => onClose(false)}
      initialValues={{ status: 'active', roleIds: [], positionIds: [] }}
      loading={detail.isFetching}
      loadError={detail.error}
      width={640}
    >
      {id === null ? (
        <>
          <Form.Item name="username" label={t('users.username')} rules={required}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item name="password" label={t('users.password')} rules={required}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        </>
      ) : null}
      <Form.Item name="nickname" label={t('users.nickname')} rules={required}>
        <Input />
      </Form.Item>
      <Form.Item name="email" label={t('users.email')}>
        <Input type="email" />
      </Form.Item>
      <Form.Item name="phone" label={t('users.phone')}>
        <Input />
      </Form.Item>
      <Form.Item name="departmentId" label={t('users.department')}>
        <DepartmentPicker />
      </Form.Item>
      <Form.Item name="roleIds" label={t('users.roles')}>
        <RolePicker />
      </Form.Item>
      <Form.Item name="positionIds" label={t('users.positions')}>
        <PositionPicker />
      </Form.Item>
      <StatusField />
      <Form.Item name="remark" label={t('remark')}>
        <Input.TextArea rows={2} />
      </Form.Item>
    </FormDialog>
  );
}
