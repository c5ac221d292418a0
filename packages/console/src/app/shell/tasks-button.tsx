import { ContainerOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { activeTaskCount, setTaskDrawerOpen, taskKeys, useTaskDrawerOpen } from './task-calls';

// the drawer and its list load when first opened: the shell carries only the count
const TaskDrawer = lazy(() => import('./task-drawer'));

/** While a task runs, how often the count is asked again (the `task.finished` push ends it sooner). */
const ACTIVE_POLL_MS = 3_000;

/** The header's task button: how many of the person's tasks are in progress, and the drawer listing them. */
export function TasksButton() {
  const { t } = useTranslation();
  const open = useTaskDrawerOpen();
  // mounted from the first opening on, so the drawer can animate closed
  const [loaded, setLoaded] = useState(false);
  if (open && !loaded) setLoaded(true);
  const active = useQuery({
    queryKey: taskKeys.active,
    queryFn: activeTaskCount,
    refetchInterval: (query) => ((query.state.data ?? 0) > 0 ? ACTIVE_POLL_MS : false),
  });
  const count = active.data ?? 0;
  return (
    <>
      <Button
        type="text"
        aria-label={count > 0 ? t('tasks.labelActive', { count }) : t('tasks.label')}
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="tasks-button"
        onClick={() => setTaskDrawerOpen(true)}
        icon={
          <Badge count={count} size="small" overflowCount={99} data-testid="tasks-count">
            <ContainerOutlined style={{ fontSize: 18 }} />
          </Badge>
        }
      />
      {loaded ? (
        <Suspense fallback={null}>
          <TaskDrawer open={open} onClose={() => setTaskDrawerOpen(false)} />
        </Suspense>
      ) : null}
    </>
  );
}
