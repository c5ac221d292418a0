import { CheckCircleFilled, CrownOutlined, StopOutlined } from '@ant-design/icons';
import { Alert, Collapse, Empty, Input, Space, Tag, Typography, theme } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Effective } from './effective';

type Entry = Effective['groups'][number]['codes'][number];

// a neutral tag with a coloured icon: antd's coloured tags miss the 4.5:1 text contrast (axe)
const GRANTING = <CheckCircleFilled aria-hidden style={{ color: '#389e0d' }} />;

/**
 * "What this person can do": each permission code the user holds, grouped as the role editor
 * groups them, with the roles that grant it as tags. A disabled role is shown and said to grant
 * nothing; a super administrator gets one plain line first, since every check passes for them.
 */
export function EffectivePermissions({ data }: { data: Effective }) {
  const { t } = useTranslation('identity');
  const { token } = theme.useToken();
  const [filter, setFilter] = useState('');
  // a super administrator's groups start folded: the line above says it all, the codes are there to look up
  const [open, setOpen] = useState<string[]>(() => (data.isSuper ? [] : data.groups.map((g) => g.group)));
  const needle = filter.trim().toLowerCase();
  const matches = (e: Entry) =>
    !needle ||
    e.code.toLowerCase().includes(needle) ||
    e.grants.some((g) => g.name.toLowerCase().includes(needle) || g.code.toLowerCase().includes(needle));
  const groups = data.groups.map((g) => ({ ...g, codes: g.codes.filter(matches) })).filter((g) => g.codes.length);
  const granted = data.groups.reduce((n, g) => n + g.codes.filter((e) => e.granted).length, 0);
  const activeRoles = data.roles.filter((r) => r.status === 'active').length;

  // the family's name where there is one, and the family itself (it starts every code below)
  const groupLabel = (group: string, count: number) => {
    const name = t(`effective.groups.${group}`, { defaultValue: '' });
    if (!name) return `${group} (${count})`;
    return `${name.toLowerCase() === group ? name : `${name} · ${group}`} (${count})`;
  };

  const row = (e: Entry, i: number) => (
    <li
      key={e.code}
      style={{
        display: 'flex',
        flexWrap: 'wrap',
        gap: 8,
        alignItems: 'center',
        padding: '6px 0',
        borderTop: i ? `1px solid ${token.colorBorderSecondary}` : undefined,
      }}
    >
      <Typography.Text code style={{ minWidth: 260 }}>
        {e.code}
      </Typography.Text>
      <Space size={[4, 4]} wrap>
        {e.bySuper ? (
          <Tag icon={<CrownOutlined aria-hidden style={{ color: '#d48806' }} />}>{t('effective.bySuper')}</Tag>
        ) : null}
        {e.grants.map((g) =>
          g.granting ? (
            <Tag key={g.id} icon={GRANTING} title={g.code}>
              {g.via.includes('code') ? g.name : `${g.name} · ${t('effective.viaMenu')}`}
            </Tag>
          ) : (
            <Tag key={g.id} icon={<StopOutlined aria-hidden />} title={g.code}>
              {`${g.name} · ${t('effective.disabledRole')}`}
            </Tag>
          ),
        )}
        {e.granted ? null : <Typography.Text strong>{t('effective.notGranted')}</Typography.Text>}
        {e.declared ? null : <Typography.Text italic>{t('effective.undeclared')}</Typography.Text>}
      </Space>
    </li>
  );

  return (
    <Space orientation="vertical" size={16} style={{ display: 'flex' }}>
      {data.isSuper ? (
        <Alert
          type="info"
          showIcon
          icon={<CrownOutlined aria-hidden />}
          title={t('effective.superTitle')}
          description={t('effective.superText')}
        />
      ) : null}
      <div>
        <Typography.Paragraph style={{ marginBottom: 8 }}>
          {t('effective.summary', { count: granted, roles: activeRoles })}
        </Typography.Paragraph>
        {data.roles.length ? (
          <Space size={[4, 4]} wrap>
            <Typography.Text>{t('effective.heldRoles')}:</Typography.Text>
            {data.roles.map((r) =>
              r.status === 'active' ? (
                <Tag key={r.id} icon={GRANTING} title={r.code}>
                  {r.name}
                </Tag>
              ) : (
                <Tag key={r.id} icon={<StopOutlined aria-hidden />} title={r.code}>
                  {`${r.name} · ${t('effective.disabledRole')}`}
                </Tag>
              ),
            )}
          </Space>
        ) : null}
      </div>
      <Input.Search
        aria-label={t('effective.filter')}
        placeholder={t('effective.filter')}
        allowClear
        value={filter}
        onChange={(ev) => setFilter(ev.target.value)}
        style={{ maxWidth: 360 }}
      />
      {groups.length ? (
        <Collapse
          // while filtering, every group with a match is open
          activeKey={needle ? groups.map((g) => g.group) : open}
          onChange={(keys) => {
            if (!needle) setOpen(keys);
          }}
          items={groups.map((g) => ({
            key: g.group,
            label: groupLabel(g.group, g.codes.length),
            children: <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>{g.codes.map(row)}</ul>,
          }))}
        />
      ) : (
        <Empty description={needle ? t('effective.noMatch') : t('effective.nothing')} />
      )}
    </Space>
  );
}
