import { api, unwrap } from '../../api/client';

/** GET /api/dashboard/stats: the four totals and the 14-day trend (docs/decisions/0036). */
export const dashboardStats = () => unwrap(api.GET('/api/dashboard/stats'));

export type Trend = Awaited<ReturnType<typeof dashboardStats>>['trend'];
