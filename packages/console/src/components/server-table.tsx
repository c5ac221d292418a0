import { Table, type TableProps } from 'antd';
import type { Key } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ScrollRegion } from './scroll-region';

const DEFAULT_PAGE_SIZE = 20;

/**
 * A list's page, page size and filters, kept in the URL (CONSOLE.md: every view is a link that
 * can be shared and reloaded). Changing a filter goes back to the first page.
 */
export function useListParams<F extends string>(filterKeys: readonly F[]) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const pageSize = Math.min(200, Math.max(1, Number(params.get('pageSize')) || DEFAULT_PAGE_SIZE));
  const filters = Object.fromEntries(filterKeys.map((k) => [k, params.get(k) ?? undefined])) as Record<
    F,
    string | undefined
  >;
  const set = (next: Partial<Record<F | 'page' | 'pageSize', string | number | null | undefined>>) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(next)) {
        if (v === undefined || v === null || v === '') out.delete(k);
        else out.set(k, String(v));
      }
      if (!('page' in next)) out.delete('page');
      return out;
    });
  return { page, pageSize, filters, set };
}

export type ListParams = ReturnType<typeof useListParams>;

type Props<T> = Omit<TableProps<T>, 'pagination' | 'dataSource' | 'rowSelection'> & {
  params: Pick<ListParams, 'page' | 'pageSize' | 'set'>;
  data: { list: T[]; total: number } | undefined;
  /** what the table holds, naming its scrolling region for screen readers */
  label: string;
  /** rows picked for a batch action (ids of this page) */
  selected?: Key[];
  onSelect?: (keys: Key[]) => void;
};

/** A table of one server page: it never holds more rows than the page the server sent. */
export function ServerTable<T extends object>({ label, params, data, selected, onSelect, ...rest }: Props<T>) {
  const { t } = useTranslation();
  return (
    <ScrollRegion label={label}>
      <Table<T>
        size="middle"
        {...rest}
        dataSource={data?.list ?? []}
        rowSelection={onSelect ? { selectedRowKeys: selected, onChange: (keys) => onSelect(keys) } : undefined}
        pagination={{
          current: params.page,
          pageSize: params.pageSize,
          total: data?.total ?? 0,
          showSizeChanger: true,
          pageSizeOptions: [10, 20, 50, 100],
          showTotal: (total) => t('table.total', { total }),
          onChange: (page, pageSize) =>
            params.set(pageSize !== params.pageSize ? { page: 1, pageSize } : { page, pageSize: params.pageSize }),
        }}
      />
    </ScrollRegion>
  );
}
