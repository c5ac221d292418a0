import { CrownOutlined, LockOutlined, UnlockOutlined } from '@ant-design/icons';
import { useQueries } from '@tanstack/react-query';
import { Descriptions, Space, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { departmentNames, useDepartmentTree } from '../shared/pickers';
import { formatTime, StatusTag } from '../shared/view';
import type { Effective } from './effective';

type User = {
  id: number;
  username: string;
  nickname: string;
  email: string | null;
  phone: string | null;
  departmentId: number | null;
  positionIds: number[];
  status: 'active' | 'disabled';
  isSuper: boolean;
  failedLoginCount: number;
  lockedUntil: string | null;
  lastLoginAt: string | null;
  lastLoginIp: string | null;
  remark: string;
  createdAt: string;
};

/** A user's position names, one small call each (a user holds few): the positions list is never loaded whole. */
function usePositionNames(ids: number[]) {
  const may = useMayCall();
  return useQueries({
    queries: ids.map((id) => ({
      queryKey: ['identity', 'positions', 'detail', id],
      queryFn: () => unwrap(api.GET('/api/positions/{id}', { params: { path: { id } } })),
      enabled: may('identity.position.get'),
      staleTime: 30_000,
    })),
  }).map((q, i) => q.data?.name ?? `#${ids[i]}`);
}

/** Who the user is: department, positions, roles, status, sign-in lock and last sign-in. */
export function UserFields({ user, roles }: { user: User; roles: Effective['roles'] }) {
  const { t } = useTranslation('identity');
  const departments = departmentNames(useDepartmentTree().data);
  const positions = usePositionNames(user.positionIds);
  const none = t('effective.none');
  const locked = !!user.lockedUntil && new Date(user.lockedUntil).getTime() > Date.now();
  const tags = (names: string[]) =>
    names.length ? (
      <Space size={[0, 4]} wrap>
        {names.map((n) => (
          <Tag key={n}>{n}</Tag>
        ))}
      </Space>
    ) : (
      none
    );
  return (
    <Descriptions
      bordered
      column={1}
      size="middle"
      styles={{ label: { width: 180 } }}
      items={[
        {
          key: 'username',
          label: t('users.username'),
          children: user.isSuper ? (
            <Space>
              {user.username}
              <Tag icon={<CrownOutlined aria-hidden />}>{t('users.super')}</Tag>
            </Space>
          ) : (
            user.username
          ),
        },
        { key: 'nickname', label: t('users.nickname'), children: user.nickname || none },
        { key: 'email', label: t('users.email'), children: user.email ?? none },
        { key: 'phone', label: t('users.phone'), children: user.phone ?? none },
        {
          key: 'department',
          label: t('users.department'),
          children: user.departmentId ? (departments.get(user.departmentId) ?? `#${user.departmentId}`) : none,
        },
        { key: 'positions', label: t('users.positions'), children: tags(positions) },
        {
          key: 'roles',
          label: t('users.roles'),
          children: roles.length ? (
            <Space size={[4, 4]} wrap>
              {roles.map((r) =>
                r.status === 'active' ? (
                  <Tag key={r.id}>{r.name}</Tag>
                ) : (
                  <Space key={r.id} size={0}>
                    <Tag>{r.name}</Tag>
                    <StatusTag status="disabled" />
                  </Space>
                ),
              )}
            </Space>
          ) : (
            none
          ),
        },
        { key: 'status', label: t('effective.status'), children: <StatusTag status={user.status} /> },
        {
          key: 'lock',
          label: t('effective.lock'),
          children: (
            <Space wrap>
              {locked ? (
                <Tag icon={<LockOutlined aria-hidden />}>
                  {t('effective.lockedUntil', { time: formatTime(user.lockedUntil) })}
                </Tag>
              ) : (
                <Tag icon={<UnlockOutlined aria-hidden />}>{t('effective.notLocked')}</Tag>
              )}
              {user.failedLoginCount ? t('effective.failedLogins', { count: user.failedLoginCount }) : null}
            </Space>
          ),
        },
        {
          key: 'lastLogin',
          label: t('users.lastLogin'),
          children: user.lastLoginAt
            ? user.lastLoginIp
              ? t('effective.lastLoginFrom', { time: formatTime(user.lastLoginAt), ip: user.lastLoginIp })
              : formatTime(user.lastLoginAt)
            : t('effective.never'),
        },
        { key: 'createdAt', label: t('createdAt'), children: formatTime(user.createdAt) },
        { key: 'remark', label: t('remark'), children: user.remark || none },
      ]}
    />
  );
}
