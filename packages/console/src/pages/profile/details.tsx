import { Descriptions, Space, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../app/me';
import { ErrorMessage } from '../../components/error-message';
import { formatDateTime } from '../../components/format';

/** Who the person is, as /api/auth/me says (the shell has already asked it). */
export function Details() {
  const { t, i18n } = useTranslation('profile');
  const me = useMe();
  if (me.isError) return <ErrorMessage error={me.error} />;
  if (!me.data) return null;
  const { user, tenant, roles } = me.data;
  const none = t('details.none');
  return (
    <Descriptions
      bordered
      column={1}
      size="middle"
      styles={{ label: { width: 180 } }}
      items={[
        { key: 'username', label: t('details.username'), children: user.username },
        { key: 'nickname', label: t('details.nickname'), children: user.nickname || none },
        { key: 'email', label: t('details.email'), children: user.email ?? none },
        { key: 'phone', label: t('details.phone'), children: user.phone ?? none },
        {
          key: 'tenant',
          label: t('details.tenant'),
          children: tenant ? `${tenant.name} (${tenant.code})` : t('details.platform'),
        },
        {
          key: 'roles',
          label: t('details.roles'),
          children: roles.length ? (
            <Space size={[0, 4]} wrap>
              {roles.map((r) => (
                <Tag key={r.id}>{r.name}</Tag>
              ))}
            </Space>
          ) : (
            none
          ),
        },
        {
          key: 'lastLoginAt',
          label: t('details.lastLoginAt'),
          children: user.lastLoginAt ? formatDateTime(user.lastLoginAt, i18n.language) : none,
        },
      ]}
    />
  );
}
