import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Input, Space, Tooltip, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorLine } from './error-text';
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
  const { message } = App.useApp();
  const client = useQueryClient();
  const confirm = useConfirm();
  return {
    done: (text: string) => {
      void message.success(text);
      after?.();
      void client.invalidateQueries({ queryKey });
    },
    fail: (err: unknown) => void message.error(errorLine(t, err)),
    confirm,
  };
}

/** Asks before a destructive action; the danger button says what it does. */
export function useConfirm() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  return (title: string, okText: string, onOk: () => void) =>
    void modal.confirm({ title, okText, okButtonProps: { danger: true }, cancelText: t('cancel'), onOk });
}

export type RowAction = {
  label: string;
  onClick: () => void;
  /** false hides it: the person may not call its operation, or the row is not in a state for it */
  show?: boolean;
  /** a destructive action: shown in red, and it asks this question first */
  confirm?: string;
  /** shown but not offered, with the reason on hover (the server would refuse it) */
  disabledReason?: string;
};

/** A row's actions, as links in the list's last column (`wrap`: on several lines when narrow). */
export function RowActions({ actions, size, wrap }: { actions: RowAction[]; size?: 'small'; wrap?: boolean }) {
  const confirm = useConfirm();
  return (
    <Space size={0} wrap={wrap}>
      {actions
        .filter((a) => a.show !== false)
        .map((a) => {
          const button = (
            <Button
              key={a.label}
              type="link"
              size={size}
              danger={a.confirm !== undefined}
              disabled={a.disabledReason !== undefined}
              onClick={() => (a.confirm === undefined ? a.onClick() : confirm(a.confirm, a.label, a.onClick))}
            >
              {a.label}
            </Button>
          );
          return a.disabledReason === undefined ? (
            button
          ) : (
            <Tooltip key={a.label} title={a.disabledReason}>
              {button}
            </Tooltip>
          );
        })}
    </Space>
  );
}
