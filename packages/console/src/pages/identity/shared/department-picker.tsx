import { TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { type PickerProps, type TreeNode, useDepartmentTree } from './pickers';

type Option = { value: number; title: string; children: Option[] };
const toOptions = (nodes: TreeNode[]): Option[] =>
  nodes.map((n) => ({ value: n.id, title: n.name, children: toOptions(n.children) }));

/** The department of a form: the tree (its own module, so only forms load the tree select). */
export function DepartmentPicker(props: PickerProps<number | null>) {
  const { t } = useTranslation('identity');
  const tree = useDepartmentTree();
  return (
    <TreeSelect
      {...props}
      allowClear
      showSearch
      treeNodeFilterProp="title"
      treeDefaultExpandAll
      loading={tree.isPending}
      placeholder={t('pick.department')}
      treeData={toOptions(tree.data ?? [])}
      onChange={(v) => props.onChange?.(v ?? null)}
      style={{ minWidth: 200 }}
    />
  );
}
