import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useState } from 'react';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import type { PickerProps } from './pickers';

export type UserBrief = { id: number; username: string; nickname: string };

/** How a user is named in pickers and member lists: the nickname, with the username that is unique. */
export const userLabel = (u: Pick<UserBrief, 'username' | 'nickname'>) =>
  u.nickname && u.nickname !== u.username ? `${u.nickname} (${u.username})` : u.username;

type Props = PickerProps<number[] | number | null> & {
  multiple?: boolean;
  placeholder: string;
  /** names of the users already chosen (the search results may not hold them) */
  known?: UserBrief[];
  disabled?: boolean;
};

/**
 * Users to pick from, searched on the server one small page at a time: a tenant may have tens of
 * thousands, so the picker never loads them all. Chosen users keep their names once seen.
 */
export function UserPicker({ multiple, placeholder, known = [], ...props }: Props) {
  const may = useMayCall();
  const [keyword, setKeyword] = useState('');
  const [seen, setSeen] = useState(new Map<number, string>());
  const found = useQuery({
    queryKey: ['identity', 'users', 'pick', keyword],
    queryFn: () =>
      unwrap(api.GET('/api/users', { params: { query: { page: 1, pageSize: 20, ...(keyword ? { keyword } : {}) } } })),
    enabled: may('identity.user.list'),
    staleTime: 30_000,
    placeholderData: (previous) => previous,
  });
  const options = new Map(seen);
  for (const u of known) options.set(u.id, userLabel(u));
  for (const u of found.data?.list ?? []) options.set(u.id, userLabel(u));
  return (
    <Select
      {...props}
      value={props.value ?? undefined}
      mode={multiple ? 'multiple' : undefined}
      allowClear
      // the server searches (username, nickname, email, phone): no filtering of the page it sent
      showSearch={{ filterOption: false, onSearch: (v) => setKeyword(v.trim().slice(0, 64)) }}
      loading={found.isFetching}
      placeholder={placeholder}
      options={[...options].map(([value, label]) => ({ value, label }))}
      onChange={(v) => {
        setSeen(options);
        setKeyword('');
        props.onChange?.((v ?? null) as number[] | number | null);
      }}
      style={{ minWidth: 240, ...(multiple ? { width: '100%' } : {}) }}
    />
  );
}
