import { TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { type PickerProps, type TreeNode, useDepartmentTree } from './pickers';

type Option = { value: number; title: string; disabled?: boolean; children: Option[] };
/** The tree as options; `exclude` and everything under it cannot be chosen (a department's own subtree). */
const toOptions = (nodes: TreeNode[], exclude?: number, inside = false): Option[] =>
  nodes.map((n) => {
    const off = inside || n.id === exclude;
    return { value: n.id, title: n.name, disabled: off || undefined, children: toOptions(n.children, exclude, off) };
  });

type Props = PickerProps<number | null> & {
  /** a department that may not be chosen, nor any below it: where a department may not move to */
  exclude?: number;
  placeholder?: string;
};

/** The department of a form: the tree (its own module, so only forms load the tree select). */
export function DepartmentPicker({ exclude, placeholder, ...props }: Props) {
  const { t } = useTranslation('identity');
  const tree = useDepartmentTree();
  return (
    <TreeSelect
      {...props}
      // null is "none": the placeholder shows, not an empty choice
      value={props.value ?? undefined}
      allowClear
      showSearch
      treeNodeFilterProp="title"
      treeDefaultExpandAll
      loading={tree.isPending}
      placeholder={placeholder ?? t('pick.department')}
      treeData={toOptions(tree.data ?? [], exclude)}
      onChange={(v) => props.onChange?.(v ?? null)}
      style={{ minWidth: 200 }}
    />
  );
}
