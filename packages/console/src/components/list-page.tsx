import { useQueryClient } from '@tanstack/react-query';
import { App, Input, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText, requestIdOf } from './error-text';
import type { ListParams } from './server-table';

/**
 * The pieces every list page is made of, so each page holds only what is its own: its columns,
 * filters and forms. A page: <PageTitle/>, a toolbar of <KeywordSearch/> and filters, a
 * <ServerTable/>, and its forms opened by `editing` state; actions report through useListFeedback.
 */
export function PageTitle({ children }: { children: ReactNode }) {
  return (
    <Typography.Title level={1} style={{ fontSize: 22 }}>
      {children}
    </Typography.Title>
  );
}

/** The list's keyword search, kept in the URL's `keyword` when the person searches. */
export function KeywordSearch({ params, label }: { params: ListParams; label: string }) {
  const [search, setSearch] = useState(params.filters.keyword ?? '');
  return (
    <Input.Search
      aria-label={label}
      placeholder={label}
      allowClear
      value={search}
      onChange={(e) => setSearch(e.target.value)}
      onSearch={(v) => params.set({ keyword: v.trim() })}
      style={{ width: 240 }}
    />
  );
}

/**
 * What an action on a list says when it ends: a success message and a fresh list (every query
 * under `queryKey`), or the error translated with its request id.
 */
export function useListFeedback(queryKey: readonly unknown[], after?: () => void) {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const client = useQueryClient();
  return {
    done: (text: string) => {
      void message.success(text);
      after?.();
      void client.invalidateQueries({ queryKey });
    },
    // every error shown carries its request id (CONSOLE.md), so support can find the log lines
    fail: (err: unknown) => {
      const id = requestIdOf(err);
      void message.error(id ? `${errorText(t, err)} ${t('requestId', { id })}` : errorText(t, err));
    },
    /** asks before a destructive action; the danger button says what it does */
    confirm: (title: string, okText: string, onOk: () => void) =>
      void modal.confirm({ title, okText, okButtonProps: { danger: true }, cancelText: t('cancel'), onOk }),
  };
}
